"""CLIPScore (family clipscore): a CLIP model's similarity of each image and its topic's context text.

A tiny CLIP with random weights is built here (word-level tokenizer, 32 px images, 16 text positions so
that truncation is easy to reach), so the real loading and scoring code runs; every score is checked
against the cosine computed by hand from the same model's embeddings.
"""

import math

import pytest

from judges.errors import JudgeConfigError
from judges.families import ItemInput, family_get
from judges.families.clipscore import NOTE_TRUNCATED, NOTE_WHOLE
from judges.models import ModelJudgment, RunStatus
from judges.services import judge_run_start
from tests.factories import CampaignFactory, ItemFactory, TopicFactory
from tests.judges_support import eager, passes, within_budget  # noqa: F401 - fixtures
from tests.tiny_models import word_tokenizer

CLIPSCORE = family_get("clipscore")
TOPIC = {"page_title": "Eiffel Tower", "section_title": "Paint",
         "section_context": "the tower is painted brown every seven years",
         "page_context": "a wrought iron lattice tower in paris"}
POSITIONS = 16  # the tiny model's text limit, special tokens included (OpenAI's CLIP: 77)
WORDS = sorted(set(" ".join(TOPIC.values()).lower().split() + "; | red blue green square circle filler".split()))
# (file, size, colour, shape): sizes that need resizing and cropping to the model's 32 x 32.
IMAGES = [("red.png", (64, 48), "red", "square"), ("blue.jpg", (40, 80), "blue", "circle"),
          ("green.png", (32, 32), "green", "square")]


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory):
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    folder = tmp_path_factory.mktemp("clip")
    tokenizer, vocab = word_tokenizer(WORDS, pair_template="bert")
    torch.manual_seed(7)  # a seed whose cosines take both signs on these pairs
    config = CLIPConfig(
        text_config={"vocab_size": len(vocab), "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 2,
                     "num_attention_heads": 2, "max_position_embeddings": POSITIONS, "pad_token_id": vocab["[PAD]"],
                     "bos_token_id": vocab["[CLS]"], "eos_token_id": vocab["[SEP]"]},
        vision_config={"hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
                       "image_size": 32, "patch_size": 8},
        projection_dim=8,
    )
    CLIPModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}).save_pretrained(folder)
    return str(folder)


@pytest.fixture
def media(settings, tmp_path):
    """A MEDIA_ROOT holding the IMAGES under img/, drawn with Pillow."""
    from PIL import Image, ImageDraw

    settings.MEDIA_ROOT = str(tmp_path)
    (tmp_path / "img").mkdir()
    for name, size, colour, shape in IMAGES:
        image = Image.new("RGB", size, "white")
        box = (size[0] // 4, size[1] // 4, 3 * size[0] // 4, 3 * size[1] // 4)
        (ImageDraw.Draw(image).rectangle if shape == "square" else ImageDraw.Draw(image).ellipse)(box, fill=colour)
        image.save(tmp_path / "img" / name)
    return tmp_path


def _item(image, item_id=1, topic=TOPIC, title="Eiffel Tower"):
    return ItemInput(item_id=item_id, topic_text=title, gold_answers=[], text="", data={"image": f"img/{image}"},
                     topic_data=topic)


def _by_hand(folder, media, image, text):
    """(cosine, logit_scale.exp()) of IMAGE and TEXT, from the model's own embeddings, one pair alone."""
    import numpy as np
    import torch
    from PIL import Image
    from transformers import AutoTokenizer, CLIPImageProcessor, CLIPModel

    model = CLIPModel.from_pretrained(folder).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    pixels = CLIPImageProcessor.from_pretrained(folder)(images=Image.open(media / "img" / image).convert("RGB"),
                                                        return_tensors="pt")["pixel_values"]
    encoded = tokenizer([text], truncation=True, max_length=POSITIONS, return_tensors="pt")
    with torch.no_grad():
        image_vector = model.get_image_features(pixel_values=pixels)
        text_vector = model.get_text_features(input_ids=encoded["input_ids"], attention_mask=encoded["attention_mask"])
        scale = model.logit_scale.exp().item()
    image_vector = getattr(image_vector, "pooler_output", image_vector)[0].numpy()
    text_vector = getattr(text_vector, "pooler_output", text_vector)[0].numpy()
    cos = float(image_vector @ text_vector / (np.linalg.norm(image_vector) * np.linalg.norm(text_vector)))
    return cos, scale


def test_each_formula_scores_the_cosine_of_the_models_embeddings(tiny_clip, media):
    text = "Eiffel Tower; Paint"
    cos, scale = _by_hand(tiny_clip, media, "red.png", text)
    assert cos > 0  # else clipscore is 0 whatever w is (negative cosines: the next test)
    item = _item("red.png", topic={"page_title": "Eiffel Tower", "section_title": "Paint"})
    scores = {}
    for formula in ("clipscore", "cosine", "logit"):
        [verdict] = CLIPSCORE.judge_batch([item], CLIPSCORE.validate_config({"model": tiny_clip, "formula": formula}))
        assert not verdict.failed and verdict.label == ""
        assert verdict.raw == f"cos {cos:.4f}; text 6 {NOTE_WHOLE}"  # [CLS] eiffel tower ; paint [SEP]
        scores[formula] = verdict.score
    assert scores["cosine"] == pytest.approx(cos, abs=1e-5)
    assert scale == pytest.approx(math.exp(2.6592), rel=1e-4)  # CLIPConfig's logit_scale_init_value
    assert scores["logit"] == pytest.approx(scale * cos, abs=1e-4)
    assert scores["clipscore"] == pytest.approx(2.5 * max(cos, 0.0), abs=1e-5)
    [weighted] = CLIPSCORE.judge_batch([item], CLIPSCORE.validate_config({"model": tiny_clip, "w": 1}))
    assert weighted.score == pytest.approx(max(cos, 0.0), abs=1e-5)


def test_clipscore_is_zero_where_the_cosine_is_negative(tiny_clip, media):
    config = CLIPSCORE.validate_config({"model": tiny_clip, "formula": "cosine"})
    topics = [{"page_title": word} for word in WORDS if word.isalpha()]
    items = [_item(image, item_id=n, topic=topic) for n, topic in enumerate(topics) for image, *_ in IMAGES]
    cosines = [verdict.score for verdict in CLIPSCORE.judge_batch(items, config)]
    assert min(cosines) < 0 < max(cosines)  # random weights: both signs among these pairs
    clipscores = [v.score for v in CLIPSCORE.judge_batch(items, CLIPSCORE.validate_config({"model": tiny_clip}))]
    assert clipscores == pytest.approx([2.5 * max(cos, 0.0) for cos in cosines], abs=1e-5)


def test_batched_equals_one_at_a_time(tiny_clip, media):
    short = {"page_title": "Eiffel Tower"}
    items = [_item(image, item_id=n, topic=topic)
             for n, (topic, (image, *_)) in enumerate((t, i) for t in (TOPIC, short) for i in IMAGES)]
    config = {"model": tiny_clip, "formula": "cosine"}
    batched = CLIPSCORE.judge_batch(items, CLIPSCORE.validate_config({**config, "batch_size": 4}))
    alone = [CLIPSCORE.judge_batch([item], CLIPSCORE.validate_config({**config, "batch_size": 1}))[0]
             for item in items]
    assert [v.score for v in batched] == pytest.approx([v.score for v in alone], abs=1e-5)
    assert len({round(v.score, 6) for v in batched}) == len(items)  # every pair scored on its own image and text


def test_length_batches_of_texts_score_as_one_item_at_a_time(tiny_clip, media, passes):  # noqa: F811
    # Texts from one word to past the model's 16 positions (cut), each against every image.
    topics = [{"page_title": "Paint"}, TOPIC, {"page_title": "Eiffel Tower", "section_title": "Paint"},
              {"section_context": TOPIC["section_context"]}, {"page_context": " ".join([TOPIC["page_context"]] * 3)}]
    items = [_item(image, item_id=n, topic=topic)
             for n, (topic, (image, *_)) in enumerate((t, i) for t in topics for i in IMAGES)]
    config = {"model": tiny_clip, "formula": "cosine"}
    batched = CLIPSCORE.judge_batch(items, CLIPSCORE.validate_config({**config, "batch_size": 4,
                                                                      "max_batch_tokens": 24}))
    recorded = list(passes)
    alone = [CLIPSCORE.judge_batch([item], CLIPSCORE.validate_config({**config, "batch_size": 1}))[0]
             for item in items]
    assert [v.score for v in batched] == pytest.approx([v.score for v in alone], abs=1e-5)
    assert [v.raw for v in batched] == [v.raw for v in alone]  # each text's token count stays with its items
    scores = sorted(v.score for v in batched)
    assert min(b - a for a, b in zip(scores, scores[1:])) > 2e-5, scores  # a mix-up could not pass
    # One row per distinct text, longest first, cut at the model's limit; no pass over 24 padded tokens but a
    # long text alone.
    rows = [n for lengths in recorded for n in lengths]
    assert len(rows) == len(topics) and rows == sorted(rows, reverse=True) and max(rows) == POSITIONS
    assert len(recorded) >= 3 and within_budget(recorded, max_items=4, max_tokens=24)
    with pytest.raises(JudgeConfigError, match="max_batch_tokens must be at least 1"):
        CLIPSCORE.validate_config({"max_batch_tokens": 0})


def test_the_text_is_the_fields_joined_and_cut_at_the_models_limit(tiny_clip, media):
    # Default order: page_title; section_title; section_context; page_context -> 2 + 1 + 8 + 7 words and 3 ";".
    text = "; ".join(TOPIC[name] for name in ("page_title", "section_title", "section_context", "page_context"))
    [verdict] = CLIPSCORE.judge_batch([_item("blue.jpg")], CLIPSCORE.validate_config({"model": tiny_clip,
                                                                                     "formula": "cosine"}))
    assert verdict.raw.endswith(f"; text 23 {NOTE_TRUNCATED} {POSITIONS}")  # and [CLS], [SEP]
    cos, _ = _by_hand(tiny_clip, media, "blue.jpg", text)  # the head of the text, its [SEP] kept
    assert verdict.score == pytest.approx(cos, abs=1e-5)

    custom = CLIPSCORE.validate_config({"model": tiny_clip, "formula": "cosine", "fields": ["section_title",
                                                                                           "page_title"],
                                        "separator": " | "})
    [verdict] = CLIPSCORE.judge_batch([_item("blue.jpg")], custom)
    assert verdict.score == pytest.approx(_by_hand(tiny_clip, media, "blue.jpg", "Paint | Eiffel Tower")[0], abs=1e-5)
    assert verdict.raw.endswith(f"text 6 {NOTE_WHOLE}")
    # No field filled: the topic's title.
    [verdict] = CLIPSCORE.judge_batch([_item("blue.jpg", topic={"page_title": "", "section_title": None},
                                             title="red square")], custom)
    assert verdict.score == pytest.approx(_by_hand(tiny_clip, media, "blue.jpg", "red square")[0], abs=1e-5)


def test_a_missing_or_unreadable_image_fails_alone(tiny_clip, media):
    (media / "img" / "broken.png").write_bytes(b"not an image at all")
    items = [_item("red.png", item_id=1), _item("gone.png", item_id=2), _item("broken.png", item_id=3),
             ItemInput(item_id=4, topic_text="t", gold_answers=[], text="", data={}, topic_data=TOPIC),
             _item("green.png", item_id=5, topic={}, title=""), _item("blue.jpg", item_id=6)]
    verdicts = CLIPSCORE.judge_batch(items, CLIPSCORE.validate_config({"model": tiny_clip, "batch_size": 2}))
    assert [v.failed for v in verdicts] == [False, True, True, True, True, False]
    assert verdicts[1].raw == "image file 'img/gone.png' is missing from the media folder"
    assert verdicts[2].raw.startswith("cannot read image 'img/broken.png': UnidentifiedImageError")
    assert verdicts[3].raw.startswith("no image file for this item")
    assert verdicts[4].raw == ("the topic has no text in page_title, section_title, section_context, page_context, "
                               "nor a title")
    assert all(v.score is None and v.label == "" for v in verdicts if v.failed)
    alone = CLIPSCORE.judge_batch([items[5]], CLIPSCORE.validate_config({"model": tiny_clip}))
    assert verdicts[5].score == pytest.approx(alone[0].score, abs=1e-5)


def test_configuration_errors_are_clear(tiny_clip, tmp_path):
    for bad, message in [
        ({"formula": "cos"}, "formula must be clipscore, cosine or logit, not 'cos'"),
        ({"w": 0}, "w must be a positive number"),
        ({"w": "2.5"}, "w must be a number"),
        ({"fields": []}, "fields must be a non-empty list"),
        ({"fields": ["page_title", 3]}, "fields must be a non-empty list"),
        ({"fields": "page_title"}, "fields must be a list"),
        ({"fields": ["page_title", "page_title"]}, "fields names a field twice"),
        ({"separator": ""}, "separator must not be empty"),
        ({"device": "tpu"}, "device must be cpu, cuda or cuda:N"),
        ({"batch_size": 0}, "batch_size must be at least 1"),
        ({"max_length": 77}, "unknown configuration key"),  # the limit is the model's own
    ]:
        with pytest.raises(JudgeConfigError, match=message):
            CLIPSCORE.validate_config(bad)
    assert CLIPSCORE.validate_config({})["fields"] == ["page_title", "section_title", "section_context",
                                                       "page_context"]
    with pytest.raises(JudgeConfigError, match="cannot load folder"):
        CLIPSCORE.judge_batch([_item("red.png")], CLIPSCORE.validate_config({"model": str(tmp_path)}))


def test_a_model_that_is_not_clip_is_refused(tmp_path):
    from transformers import BertConfig, BertModel

    BertModel(BertConfig(vocab_size=16, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                         num_attention_heads=2)).save_pretrained(tmp_path)
    with pytest.raises(JudgeConfigError, match="is a BertModel, not a CLIP model"):
        CLIPSCORE.judge_batch([_item("red.png")], CLIPSCORE.validate_config({"model": str(tmp_path)}))


@pytest.mark.django_db
def test_a_run_on_an_image_relevance_campaign(tiny_clip, media, eager, django_capture_on_commit_callbacks):  # noqa: F811
    campaign = CampaignFactory(slug="atomic", task_type="image_relevance")
    topic = TopicFactory(campaign=campaign, external_id="t1", text="Eiffel Tower", data=TOPIC)
    for name in ("red.png", "blue.jpg", "gone.png"):
        ItemFactory(campaign=campaign, topic=topic, external_id=name, kind="image", text="",
                    data={"image": f"img/{name}"})
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=campaign, name="clip-s", family="clipscore", config={"model": tiny_clip})
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    rows = ModelJudgment.objects.filter(judge__name="clip-s").select_related("item")
    judgments = {judgment.item.external_id: judgment for judgment in rows}
    assert set(judgments) == {"red.png", "blue.jpg", "gone.png"}
    assert judgments["gone.png"].failed and "missing from the media folder" in judgments["gone.png"].raw
    for name in ("red.png", "blue.jpg"):
        cos, _ = _by_hand(tiny_clip, media, name, "; ".join(TOPIC[k] for k in ("page_title", "section_title",
                                                                               "section_context", "page_context")))
        assert judgments[name].score == pytest.approx(2.5 * max(cos, 0.0), abs=1e-5)
        assert judgments[name].label == "" and NOTE_TRUNCATED in judgments[name].raw
