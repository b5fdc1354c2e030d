"""The `vlm` family: a vision-language model grades image relevance, "Relevance: N" with N from 1 to 100.

The transformers path runs a tiny LLaVA built here with random weights (a CLIP vision tower, a Llama, a
word-level tokenizer with an image token and a chat template): its texts are noise, so those tests check
that the real loading, prompting and batched generation run with the images, and that noise is recorded as
a failed verdict with its text. Parsing is tested on given texts. The openai path and a run through the
task layer use a local chat-completions server (tests/llm_server.py).
"""

import base64
import dataclasses
import io
import json
import re

import pytest
from PIL import Image
from rest_framework.test import APIClient

from annotate.models import Role
from judges.endpoints import endpoint_register
from judges.errors import JudgeConfigError
from judges.families import ItemInput, family_get, family_prompt
from judges.families.vlm import image_data_url
from judges.llm.backend import Connection, Decoding, Generation, MemorySampleStore, Request, TokenCount
from judges.models import JudgeRun, LLMSample, ModelJudgment, RunStatus
from judges.services import judge_run_resume, judge_run_start
from tasktypes.image_relevance.vlm_prompt import (
    CONTEXT_TEMPLATE,
    OUTPUT_INSTRUCTION,
    RELEVANCE_INSTRUCTION,
    messages_build,
    prompt_text,
    relevance_parse,
)
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.llm_server import chat_server, error, raw

VLM = family_get("vlm")
PROMPT = family_prompt("vlm", "image_relevance")  # the text beside the image, and how the reply is read


def _config(config: dict) -> dict:
    return VLM.validate_config(config, prompt=PROMPT)


def _judge(items: list[ItemInput], config: dict, **extra):
    return VLM.judge_batch(items, config, prompt=PROMPT, **extra)

KEY = "sk-test-vlm-77aa01"
TOPICS = {
    "lighthouse": {"page_title": "Lighthouse", "page_context": "A lighthouse is a tower that emits light.",
                   "section_title": "History", "section_context": "The oldest known lighthouse stood at Pharos."},
    "volcano": {"page_title": "Volcano", "page_context": "",
                "section_title": "Eruptions", "section_context": "Lava flows from the crater during an eruption."},
}


def _image(media, name: str, color: str, size=(40, 30), fmt="PNG") -> str:
    path = media / "images" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path, format=fmt)
    return f"images/{name}"


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


def _items(media, specs):
    """ItemInputs from (item id, topic name, image file name or None, colour or None) tuples: with a colour
    the image is drawn into MEDIA, without one the item names a file that may not be there."""
    items = []
    for item_id, topic, name, color in specs:
        data = {"image": _image(media, name, color)} if color else {"image": f"images/{name}"} if name else {}
        items.append(ItemInput(item_id=item_id, topic_text=TOPICS[topic]["section_title"], gold_answers=[],
                               text="", data=data, topic_data=TOPICS[topic]))
    return items


# --- configuration and prompt ---


def test_vlm_is_registered_with_a_greedy_short_default():
    config = _config({})
    assert VLM.uses_samples is True
    assert (config["backend"], config["decoding"], config["max_new_tokens"]) == ("transformers", "greedy", 32)
    assert config["relevance_instruction"] == RELEVANCE_INSTRUCTION
    assert config["output_instruction"] == OUTPUT_INSTRUCTION and "Relevance: <integer>" in OUTPUT_INSTRUCTION


@pytest.mark.parametrize(("overrides", "message"), [
    ({"context_template": "Title: {title}"}, r"context_template has unknown placeholder\(s\) \{title\}"),
    ({"relevance_instruction": "Judge {section_title!r}"}, "plain named placeholders like {section_title}"),
    ({"context_template": "Section: {section_title"}, "malformed braces"),
    ({"context_template": "No fields here"}, "context_template shows no text field"),
    ({"output_instruction": "Answer with a number from 1 to 100."}, "must ask for the answer as 'Relevance: <int"),
    ({"relevance_instruction": "  "}, "relevance_instruction must not be empty"),
    ({"backend": "openai"}, "the openai backend needs endpoint"),
    ({"backend": "openai", "endpoint": "x", "decoding": "beam"}, "the openai backend has no beam search"),
    ({"api_key": "sk-x"}, "api_key is no longer accepted"),
    ({"image_max_side": 100_000}, "image_max_side must be at most 4096"),
    ({"decoding": "sample", "temperature": 0}, "temperature must be above 0 for sampling"),
    ({"backend": "vllm"}, "backend must be transformers or openai"),
    ({"device": "gpu"}, "device must be cpu, cuda or cuda:N"),
    ({"image_max_side": -1}, "image_max_side must be 0"),
    ({"num_beams": 0}, "num_beams must be at least 1"),
])
def test_bad_configurations_are_refused_with_what_to_change(overrides, message):
    with pytest.raises(JudgeConfigError, match=message):
        _config(overrides)


def test_prompt_is_the_three_parts_with_empty_fields_left_out_and_long_ones_cut():
    config = _config({"relevance_instruction": "Does it fit {section_title}?",
                                  "output_instruction": "Say RELEVANCE: <integer>."})
    text = prompt_text(TOPICS["volcano"], config)
    assert text == ("Page title: Volcano\nSection title: Eruptions\n"
                    "Section text: Lava flows from the crater during an eruption.\n\n"
                    "Does it fit Eruptions?\n\nSay RELEVANCE: <integer>.")

    long = {"section_title": "Long", "section_context": "word " * 1000}
    cut = prompt_text(long, _config({"field_max_chars": 50}))
    line = next(line for line in cut.splitlines() if line.startswith("Section text: "))
    assert line.endswith("…") and len(line) <= len("Section text: ") + 50
    assert "word " * 200 in prompt_text(long, _config({"field_max_chars": 100_000}))
    # 0 once meant "no limit"; every prompt has one now (judges.templates.PromptBound).
    with pytest.raises(JudgeConfigError, match="field_max_chars must be at least 1 character"):
        _config({"field_max_chars": 0})


# --- parsing ---


@pytest.mark.parametrize(("text", "score"), [
    ("Relevance: 73", 73),
    ("relevance:100", 100),
    ("RELEVANCE :  1.", 1),
    ("The image shows a tower by the sea.\n**Relevance:** 85", 85),
    ("Relevance: 20\nOn reflection the image fits better.\nRelevance: 60", 60),
    ("Relevance: 73 (a lighthouse, as the section says)", 73),
])
def test_the_last_relevance_line_gives_the_score(text, score):
    assert relevance_parse(text) == (score, "")


@pytest.mark.parametrize(("text", "reason"), [
    ("Relevance: 140", "relevance 140 is outside 1 to 100"),
    ("Relevance: 0", "relevance 0 is outside 1 to 100"),
    ("I think it is relevant", "no 'Relevance: <integer>' line"),
    ("", "the model returned an empty text"),
    ("   \n", "the model returned an empty text"),
    ("Relevance: 73.5", "gives '73.5', not an integer"),
    ("Relevance: 7/10", "gives '7/10', not an integer"),
    ("Relevance: high", "gives 'high', not an integer"),
    ("Relevance: 80\nRelevance: -3", "gives '-3', not an integer"),
    ("The irrelevance: 50", "no 'Relevance: <integer>' line"),
])
def test_anything_else_is_no_score_and_says_why(text, reason):
    score, why = relevance_parse(text)
    assert score is None and reason in why


# --- images ---


def test_a_missing_or_unreadable_image_fails_its_item_alone(media):
    (media / "images").mkdir(parents=True)
    (media / "images" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
    items = _items(media, [(1, "lighthouse", "gone.png", None), (2, "lighthouse", "broken.png", None),
                           (3, "volcano", None, None), (4, "volcano", "ok.png", "red")])
    untitled = dataclasses.replace(items[3], item_id=5, topic_data={"page_title": " ", "section_title": ""})
    store = MemorySampleStore()
    store.sample_put(4, 0, Generation(text="Relevance: 12"))
    # No model is loaded: nothing is left to ask it.
    verdicts = _judge([*items, untitled], _config({}), samples=store)

    reasons = [json.loads(v.raw)["reason"] for v in verdicts if v.failed]
    assert all(v.failed and v.score is None and v.label == "" for v in verdicts[:3] + verdicts[4:])
    assert "'images/gone.png' is missing from the media folder" in reasons[0]
    assert "cannot be read" in reasons[1]
    assert "no image file for this item" in reasons[2]
    assert (verdicts[3].failed, verdicts[3].score, verdicts[3].raw) == (False, 12.0, "Relevance: 12")
    assert reasons[3] == "the topic has none of the text fields the prompt shows"


# --- the transformers backend, on a tiny LLaVA ---

CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }} : {% for c in m['content'] %}{% if c['type'] == 'image' %}"
                 "<image> {% else %}{{ c['text'] }} {% endif %}{% endfor %}; {% endfor %}"
                 "{% if add_generation_prompt %}assistant :{% endif %}")


@pytest.fixture(scope="module")
def tiny_llava(tmp_path_factory):
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )

    folder = tmp_path_factory.mktemp("tiny-llava")
    text = " ".join([CONTEXT_TEMPLATE, RELEVANCE_INSTRUCTION, OUTPUT_INSTRUCTION,
                     json.dumps(TOPICS), "user assistant relevance 1 50 100"])
    words = sorted(set(re.findall(r"\w+|[^\w\s]+", text.lower())))
    vocab = {w: n for n, w in enumerate(dict.fromkeys(["[PAD]", "[UNK]", "</s>", "<s>", "<image>", *words]))}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.normalizer = normalizers.Lowercase()
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]",
                                        eos_token="</s>", bos_token="<s>",
                                        extra_special_tokens={"image_token": "<image>"})
    # 28x28 pixels in 14x14 patches: 4 patch features (the CLS one is dropped), so 4 image tokens per image.
    image_processor = CLIPImageProcessor(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=tokenizer, patch_size=14,
                               vision_feature_select_strategy="default", num_additional_image_tokens=1,
                               chat_template=CHAT_TEMPLATE)
    torch.manual_seed(0)
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                       num_attention_heads=2, image_size=28, patch_size=14),
        text_config=LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                                pad_token_id=vocab["[PAD]"], bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"]),
        image_token_id=vocab["<image>"], vision_feature_select_strategy="default", vision_feature_layer=-1,
    )
    LlavaForConditionalGeneration(config).save_pretrained(folder)
    processor.save_pretrained(folder)
    return str(folder)


def _tiny_config(model, **overrides):
    base = {"model": model, "max_new_tokens": 6, "batch_size": 2, "field_max_chars": 80}
    return _config(base | overrides)


def test_the_model_reads_the_prompt_fields_and_the_image(tiny_llava, media):
    from judges.llm.hf_vision_backend import HfVisionBackend

    config = _tiny_config(tiny_llava)
    (item,) = _items(media, [(1, "lighthouse", "a.png", "red")])
    url = image_data_url(media / item.data["image"], max_side=config["image_max_side"])
    request = Request(key=1, messages=messages_build(item.topic_data, url, config), sample_indices=(0,))
    counter = TokenCount()
    backend = HfVisionBackend(config, counter)
    prompt = backend.prompt(request)
    assert prompt.startswith("user : <image> Page title: Lighthouse\nAbout the page: A lighthouse")
    assert "Section text: The oldest known lighthouse stood at Pharos." in prompt and prompt.endswith("assistant :")

    got = {}
    backend.generate([request], Decoding(strategy="greedy", max_new_tokens=6), lambda k, i, g: got.update({k: g}))
    text_tokens = len(backend.model.tokenizer(prompt, add_special_tokens=False).input_ids)
    # The processor expanded the one <image> into the 4 image tokens the vision tower fills.
    assert got[1].error == "" and got[1].prompt_tokens == text_tokens - 1 + 4
    assert counter.prompt_tokens == got[1].prompt_tokens and 1 <= got[1].completion_tokens <= 6


def test_noise_from_the_model_is_a_failed_verdict_with_its_text_and_batches_change_nothing(tiny_llava, media):
    items = _items(media, [(1, "lighthouse", "a.png", "red"), (2, "volcano", "b.png", "blue"),
                           (3, "lighthouse", "c.png", "green"), (4, "volcano", "gone.png", None)])
    store = MemorySampleStore()
    batched = _judge(items, _tiny_config(tiny_llava), samples=store)
    one_by_one = _judge(items, _tiny_config(tiny_llava, batch_size=1))

    assert [v.raw for v in batched] == [v.raw for v in one_by_one]  # left padding and images stay with their rows
    assert store.puts == 3 and sorted(store.samples) == [1, 2, 3]
    for item, verdict in zip(items[:3], batched):
        text = store.samples[item.item_id][0].text
        score, reason = relevance_parse(text)
        if score is None:
            assert verdict.failed and json.loads(verdict.raw) == {"reason": reason, "text": text}
        else:
            assert (verdict.score, verdict.raw) == (float(score), text)
    assert any(v.failed for v in batched[:3])  # random weights do not write "Relevance: N"
    assert batched[3].failed and "missing" in json.loads(batched[3].raw)["reason"]

    # Cached: a second pass reads the store and loads nothing new.
    store.puts = 0
    assert _judge(items, _tiny_config(tiny_llava), samples=store) == batched and store.puts == 0


def test_a_prompt_past_the_context_fails_its_item_only(tiny_llava, media):
    items = _items(media, [(1, "lighthouse", "a.png", "red"), (2, "volcano", "b.png", "blue")])
    long = ItemInput(item_id=2, topic_text="", gold_answers=[], text="", data=items[1].data,
                     topic_data={"section_title": "Eruptions", "section_context": "lava " * 400})
    fine, too_long = _judge([items[0], long], _tiny_config(tiny_llava, field_max_chars=100_000))
    assert "exceeds the model's context of 256 tokens" in json.loads(too_long.raw)["reason"]
    assert "context" not in (json.loads(fine.raw)["reason"] if fine.failed else "")


def test_a_model_that_is_not_there_fails_the_run_with_what_to_do(media, tmp_path):
    items = _items(media, [(1, "lighthouse", "a.png", "red")])
    with pytest.raises(JudgeConfigError, match="vlm: cannot load folder .* judges never download models"):
        _judge(items, _config({"model": str(tmp_path)}))


def test_beam_and_sampling_run_on_images(tiny_llava, media):
    items = _items(media, [(1, "lighthouse", "a.png", "red"), (2, "volcano", "b.png", "blue")])
    for overrides in ({"decoding": "beam", "num_beams": 2}, {"decoding": "sample", "temperature": 0.9, "seed": 3}):
        store = MemorySampleStore()
        _judge(items, _tiny_config(tiny_llava, **overrides), samples=store)
        assert store.puts == 2


# --- the openai backend ---


def said(text: str) -> object:
    return raw(json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                           "usage": {"prompt_tokens": 300, "completion_tokens": 4}}))


def _http_config(server, **extra) -> dict:
    return _config({"backend": "openai", "model": "vision-model", "endpoint": "vision",
                                "concurrency": 2, "timeout": 5.0, "max_retries": 2, **extra})


def _connection(server) -> Connection:
    """What judges.endpoints resolves for a registered endpoint "vision" on SERVER with key KEY."""
    return Connection(base_url=server.base_url, api_key=KEY, endpoint="vision")


def test_openai_requests_carry_the_image_and_the_three_parts_and_replies_are_parsed(media):
    specs = [(1, "lighthouse", "a.png", "red"), (2, "volcano", "b.jpg", None), (3, "lighthouse", "c.png", "blue"),
             (4, "volcano", "d.png", "white"), (5, "lighthouse", "e.png", "black")]
    _image(media, "b.jpg", "yellow", size=(3000, 20), fmt="JPEG")  # past image_max_side: scaled down, sent as PNG
    items = _items(media, specs)
    items = [dataclasses.replace(item, topic_data={**item.topic_data, "section_title": f"S{item.item_id}"})
             for item in items]
    parts = {"context_template": "PART1 {page_title} / {section_title}",
             "relevance_instruction": "PART2 how well does the picture illustrate {section_title}?",
             "output_instruction": "PART3 answer as Relevance: <integer>"}
    with chat_server() as server:
        for item_id, reply in [(1, "Relevance: 73"), (2, "It fits.\nRelevance: 9"), (3, "Relevance: 140"),
                               (4, "I think it is relevant"), (5, "")]:
            server.script(said(reply), when=f"/ S{item_id}\n")
        verdicts = _judge(items, _http_config(server, **parts), connection=_connection(server))
        bodies = {re.search(r"/ S(\d)", b["messages"][0]["content"][1]["text"]).group(1): b for b in server.bodies()}

    assert [(v.score, v.failed) for v in verdicts[:2]] == [(73.0, False), (9.0, False)]
    assert verdicts[0].raw == "Relevance: 73" and verdicts[0].label == ""
    assert [json.loads(v.raw) for v in verdicts[2:]] == [
        {"reason": "relevance 140 is outside 1 to 100", "text": "Relevance: 140"},
        {"reason": "no 'Relevance: <integer>' line in the model's output", "text": "I think it is relevant"},
        {"reason": "the model returned an empty text", "text": ""},
    ]
    body = bodies["1"]
    assert body["model"] == "vision-model" and body["temperature"] == 0 and body["max_tokens"] == 32
    image, text = body["messages"][0]["content"]
    assert body["messages"][0]["role"] == "user" and len(body["messages"]) == 1
    assert image["type"] == "image_url" and text["type"] == "text"
    assert base64.b64decode(image["image_url"]["url"].removeprefix("data:image/png;base64,")) == \
        (media / "images" / "a.png").read_bytes()  # sent as stored
    assert text["text"] == ("PART1 Lighthouse / S1\n\nPART2 how well does the picture illustrate S1?\n\n"
                            "PART3 answer as Relevance: <integer>")
    scaled = bodies["2"]["messages"][0]["content"][0]["image_url"]["url"]
    assert scaled.startswith("data:image/png;base64,")
    assert max(Image.open(io.BytesIO(base64.b64decode(scaled.split(",", 1)[1]))).size) == 1024


def test_rate_limits_and_server_errors_are_retried(media):
    items = _items(media, [(1, "lighthouse", "a.png", "red")])
    with chat_server() as server:
        server.script(error(429, retry_after="0"), error(500, retry_after="0"), said("Relevance: 55"))
        (verdict,) = _judge(items, _http_config(server), connection=_connection(server))
        assert len(server.requests) == 3
    assert (verdict.score, verdict.failed) == (55.0, False)

    with chat_server() as server:
        server.script(*[error(503, retry_after="0")] * 3)
        (verdict,) = _judge(items, _http_config(server), connection=_connection(server))
    assert verdict.failed and "gave up after 3 attempt(s): HTTP 503" in json.loads(verdict.raw)["reason"]


# --- a run through the task layer ---


@pytest.fixture
def image_campaign(db, researcher, media):
    campaign = CampaignFactory(slug="atomic", task_type="image_relevance")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    for name, topic_data in TOPICS.items():
        topic = TopicFactory(campaign=campaign, external_id=name, text=topic_data["section_title"], data=topic_data)
        for n, color in enumerate(["red", "blue", None]):
            data = {"image": _image(media, f"{name}-{n}.png", color)} if color else {"image": f"images/{name}-x.png"}
            ItemFactory(campaign=campaign, topic=topic, external_id=f"{name}-{n}", kind="image", text="", data=data)
    return campaign


def _run_config(server) -> dict:
    endpoint_register(name="vision", base_url=server.base_url, model_ids=["vision-model"], key=KEY,
                      all_campaigns=True)
    return {"backend": "openai", "model": "vision-model", "endpoint": "vision", "concurrency": 1, "timeout": 5.0,
            "max_retries": 0}


@pytest.mark.django_db
def test_a_run_on_an_image_relevance_campaign(image_campaign, researcher, eager, client,  # noqa: F811
                                               django_capture_on_commit_callbacks):
    with chat_server() as server:
        server.script(said("Relevance: 90"), said("Relevance: 90"), when="Section title: History")
        server.script(said("Relevance: 15"), said("not sure"), when="Section title: Eruptions")
        with django_capture_on_commit_callbacks(execute=True):
            run = judge_run_start(campaign=image_campaign, name="llava", family="vlm", config=_run_config(server),
                                  batch_size=4)
        requests = list(server.requests)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and len(requests) == 4
    assert all(r.headers.get("Authorization") == f"Bearer {KEY}" for r in requests)
    verdicts = {j.item.external_id: j for j in ModelJudgment.objects.filter(judge__name="llava").select_related("item")}
    assert {k: (v.score, v.failed) for k, v in verdicts.items()} == {
        "lighthouse-0": (90.0, False), "lighthouse-1": (90.0, False), "lighthouse-2": (None, True),
        "volcano-0": (15.0, False), "volcano-1": (None, True), "volcano-2": (None, True),
    }
    assert json.loads(verdicts["volcano-1"].raw) == {"reason": "no 'Relevance: <integer>' line in the model's output",
                                                     "text": "not sure"}
    assert "missing from the media folder" in json.loads(verdicts["lighthouse-2"].raw)["reason"]
    assert LLMSample.objects.filter(judge__name="llava").count() == 4

    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get("/api/campaigns/atomic/judges/").json()
    judge = next(row for row in (body["results"] if isinstance(body, dict) else body) if row["name"] == "llava")
    assert judge["config"]["endpoint"] == "vision" and "api_key" not in judge["config"]
    client.force_login(researcher)
    for url in ("/api/campaigns/atomic/judges/", f"/api/judge-runs/{run.id}/", "/campaigns/atomic/judges/"):
        page = client.get(url)
        assert page.status_code == 200 and KEY not in page.content.decode(), url


@pytest.mark.django_db
def test_a_run_that_stops_mid_batch_resumes_without_asking_twice(image_campaign, eager,  # noqa: F811
                                                                  django_capture_on_commit_callbacks):
    with chat_server() as server:
        # Two grades come back, then the server refuses the key: the batch stops as a crashed worker's would.
        server.script(said("Relevance: 40"), said("Relevance: 41"), error(401))
        with django_capture_on_commit_callbacks(execute=True):
            run = judge_run_start(campaign=image_campaign, name="llava", family="vlm", config=_run_config(server),
                                  batch_size=6)
        run.refresh_from_db()
        assert run.status == RunStatus.FAILED and "vlm:" in run.error and KEY not in run.error
        assert LLMSample.objects.count() == 2 and ModelJudgment.objects.count() == 0
        first = len(server.requests)  # the 2 answered, the refused one, and perhaps one already sent after it
        server.script(said("Relevance: 70"), said("Relevance: 71"))

        with django_capture_on_commit_callbacks(execute=True):
            run = judge_run_resume(run=JudgeRun.objects.get(pk=run.pk))
        run.refresh_from_db()
        again = len(server.requests) - first
    assert run.status == RunStatus.SUCCEEDED and 3 <= first <= 4 and again == 2
    scores = sorted(j.score for j in ModelJudgment.objects.filter(failed=False))
    assert scores == [40.0, 41.0, 70.0, 71.0] and LLMSample.objects.count() == 4
