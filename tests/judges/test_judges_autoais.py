"""AutoAIS (family autoais): P(entailment) of "The answer to the question q is a" given the evidence passage.

Tiny NLI models with random weights are built here (a T5 for the seq2seq path, a BERT with entailment /
neutral / contradiction labels for the classification path), so the real loading and scoring code runs;
each score is checked against the same model's forward pass computed by hand.
"""

import pytest

from judges.errors import JudgeConfigError
from judges.families import ItemInput, family_get, family_prompt
from judges.models import ModelJudgment, RunStatus
from judges.services import judge_run_start
from tests.factories import CampaignFactory, ItemFactory, TopicFactory
from tests.judges_support import eager, passes, within_budget  # noqa: F401 - fixtures
from tests.tiny_models import word_tokenizer

AUTOAIS = family_get("autoais")
PROMPT = family_prompt("autoais", "ais")  # the premise and the hypothesis of ais's items


def _config(config: dict) -> dict:
    return AUTOAIS.validate_config(config, prompt=PROMPT)


def _judge(items: list[ItemInput], config: dict):
    return AUTOAIS.judge_batch(items, config, prompt=PROMPT)


QUESTION = "who wrote pride and prejudice"
PASSAGE = "pride and prejudice is a novel by jane austen published in 1813 ."
WORDS = sorted(set((QUESTION + " " + PASSAGE + " the answer to question is ' premise : hypothesis 1 0 charles "
                    "dickens long filler word").split()))


def _t5_nli(folder, **init) -> str:
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    tokenizer, vocab = word_tokenizer(WORDS, pair_template="t5")
    torch.manual_seed(1)
    config = T5Config(vocab_size=len(vocab), d_model=16, d_ff=32, d_kv=8, num_layers=2, num_decoder_layers=1,
                      num_heads=2, pad_token_id=vocab["[PAD]"], eos_token_id=vocab["</s>"],
                      decoder_start_token_id=vocab["[PAD]"], **init)
    T5ForConditionalGeneration(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def _bert_nli(folder, **init) -> str:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer, vocab = word_tokenizer(WORDS, pair_template="bert")
    torch.manual_seed(2)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                        num_attention_heads=2, max_position_embeddings=512, num_labels=3,
                        id2label={0: "contradiction", 1: "entailment", 2: "neutral"}, pad_token_id=vocab["[PAD]"],
                        **init)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def tiny_t5_nli(tmp_path_factory):
    return _t5_nli(tmp_path_factory.mktemp("t5-nli"))


@pytest.fixture(scope="module")
def tiny_bert_nli(tmp_path_factory):
    return _bert_nli(tmp_path_factory.mktemp("bert-nli"))


@pytest.fixture(scope="module")
def wide_t5_nli(tmp_path_factory):
    """Weights drawn wide: scores that differ between inputs by far more than 1e-5."""
    return _t5_nli(tmp_path_factory.mktemp("t5-nli-wide"), initializer_factor=2.0)


@pytest.fixture(scope="module")
def wide_bert_nli(tmp_path_factory):
    return _bert_nli(tmp_path_factory.mktemp("bert-nli-wide"), initializer_range=0.5)


def _item(answer, passage=PASSAGE, item_id=1):
    return ItemInput(item_id=item_id, topic_text=QUESTION, gold_answers=[], text=answer, data={"passage": passage})


def test_seq2seq_score_is_the_probability_of_decoding_the_positive_label(tiny_t5_nli):
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    config = _config({"model": tiny_t5_nli, "threshold": 0.0})
    [verdict] = _judge([_item("jane austen")], config)
    tokenizer = AutoTokenizer.from_pretrained(tiny_t5_nli)
    model = AutoModelForSeq2SeqLM.from_pretrained(tiny_t5_nli).eval()
    text = f"premise: {PASSAGE} hypothesis: The answer to the question '{QUESTION}' is 'jane austen'"
    target = tokenizer("1", add_special_tokens=False, return_tensors="pt").input_ids
    with torch.no_grad():
        logits = model(**tokenizer([text], return_tensors="pt"), labels=target).logits
    expected = torch.softmax(logits[0, 0], dim=-1)[target[0, 0]].item()
    assert verdict.score == pytest.approx(expected, rel=1e-4) and 0 < verdict.score < 1
    assert verdict.label == "yes" and "whole" in verdict.raw  # threshold 0: every score is attributable


def test_the_premise_and_hypothesis_are_built_as_the_released_autoais_code_builds_them(tiny_t5_nli):
    """A passage imported from "« Pride and Prejudice » « Pride and Prejudice, Authorship » text" keeps its section:
    the premise is "<section>. <passage>" and the hypothesis starts with a capital T; option headings off gives the
    passage alone."""
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    section = "Pride and Prejudice, Authorship"
    item = ItemInput(item_id=1, topic_text=QUESTION, gold_answers=[], text="jane austen",
                     data={"passage": PASSAGE, "title": "Pride and Prejudice", "section": section})
    tokenizer = AutoTokenizer.from_pretrained(tiny_t5_nli)
    model = AutoModelForSeq2SeqLM.from_pretrained(tiny_t5_nli).eval()
    target = tokenizer("1", add_special_tokens=False, return_tensors="pt").input_ids

    def expected(premise):
        text = f"premise: {premise} hypothesis: The answer to the question '{QUESTION}' is 'jane austen'"
        with torch.no_grad():
            logits = model(**tokenizer([text], return_tensors="pt"), labels=target).logits
        return torch.softmax(logits[0, 0], dim=-1)[target[0, 0]].item()

    [kept] = _judge([item], _config({"model": tiny_t5_nli}))
    [bare] = _judge([item], _config({"model": tiny_t5_nli, "headings": False}))
    assert kept.score == pytest.approx(expected(f"{section}. {PASSAGE}"), rel=1e-4)
    assert bare.score == pytest.approx(expected(PASSAGE), rel=1e-4) and bare.score != pytest.approx(kept.score)


def test_classification_score_is_the_softmax_of_the_entailment_class(tiny_bert_nli):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    config = _config({"model": tiny_bert_nli})
    verdicts = _judge([_item("jane austen", item_id=1), _item("charles dickens", item_id=2)], config)
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert_nli)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_bert_nli).eval()
    for verdict, answer in zip(verdicts, ("jane austen", "charles dickens")):
        hypothesis = f"The answer to the question '{QUESTION}' is '{answer}'"
        with torch.no_grad():
            logits = model(**tokenizer([PASSAGE], [hypothesis], return_tensors="pt")).logits
        assert verdict.score == pytest.approx(torch.softmax(logits, -1)[0, 1].item(), rel=1e-4)  # entailment = 1
        assert verdict.label == ("yes" if verdict.score >= 0.5 else "no")
    by_name = _judge([_item("jane austen")], _config({"model": tiny_bert_nli,
                                                                                    "positive_label": "neutral"}))
    assert by_name[0].score != pytest.approx(verdicts[0].score)
    with pytest.raises(JudgeConfigError, match="hold no single 'maybe'"):
        _judge([_item("x")], _config({"model": tiny_bert_nli, "positive_label": "maybe"}))
    with pytest.raises(JudgeConfigError, match="kind is seq2seq but"):
        _judge([_item("x")], _config({"model": tiny_bert_nli, "kind": "seq2seq"}))


def test_long_passages_are_truncated_or_windowed_and_the_verdict_says_which(tiny_bert_nli):
    long_passage = " ".join(["filler word"] * 60) + " " + PASSAGE
    item = _item("jane austen", passage=long_passage)
    cut = _judge([item], _config({"model": tiny_bert_nli, "max_length": 40}))[0]
    windowed = _judge([item], _config(
        {"model": tiny_bert_nli, "max_length": 40, "long_passages": "window", "window_stride": 10}))[0]
    assert "truncated to" in cut.raw and "windows of" in windowed.raw
    # The best window is at least as good as the first one (the truncated passage).
    assert windowed.score >= cut.score - 1e-6


@pytest.mark.parametrize("long_passages", ["truncate", "window"])
@pytest.mark.parametrize("model", ["wide_t5_nli", "wide_bert_nli"])
def test_length_batches_score_as_one_item_at_a_time(model, long_passages, request, passes):  # noqa: F811
    folder = request.getfixturevalue(model)
    filler = "long filler word " * 40
    # Passages from a few words to past max_length (cut or windowed), answers of every length.
    items = [_item("jane austen", passage="a novel by jane austen .", item_id=1),
             _item("charles dickens", passage=filler + PASSAGE, item_id=2),
             _item("austen", item_id=3),
             _item("the novel pride and prejudice is by jane austen", passage=PASSAGE + " " + filler * 2, item_id=4),
             _item("dickens", passage="jane austen", item_id=5),
             _item("jane", passage=filler[:60], item_id=6)]
    config = {"model": folder, "max_length": 64, "long_passages": long_passages, "window_stride": 16}
    batched = _judge(items, _config({**config, "batch_size": 3,
                                                                  "max_batch_tokens": 100}))
    recorded = list(passes)
    alone = [_judge([item], _config({**config, "batch_size": 1}))[0] for item in items]
    assert [v.score for v in batched] == pytest.approx([v.score for v in alone], abs=1e-5)
    assert [v.raw for v in batched] == [v.raw for v in alone]  # each verdict's note stays with its item
    scores = sorted(v.score for v in batched)
    # Scores further apart than the tolerance: two items' scores mixed up could not pass.
    assert min(b - a for a, b in zip(scores, scores[1:])) > 2e-5, scores
    rows = [n for lengths in recorded for n in lengths]
    assert len(recorded) >= 3 and within_budget(recorded, max_items=3, max_tokens=100)
    assert rows == sorted(rows, reverse=True) and max(rows) <= 64
    if long_passages == "window":
        assert len(rows) > len(items)  # the long passages' windows are rows of their own


def test_missing_passage_fails_alone_and_configuration_errors_are_clear(tiny_bert_nli):
    config = _config({"model": tiny_bert_nli})
    verdicts = _judge([_item("jane austen", passage=""), _item("jane austen", item_id=2)], config)
    assert verdicts[0].failed and verdicts[0].raw == "no evidence passage for this item"
    assert not verdicts[1].failed
    for bad, message in [({"kind": "nli"}, "kind must be"), ({"threshold": 1.5}, "threshold must be between"),
                         ({"long_passages": "split"}, "long_passages must be"),
                         ({"template": "{q}"}, "template has unknown placeholder"),
                         ({"window_stride": 0}, "window_stride must be"),
                         ({"max_batch_tokens": 0}, "max_batch_tokens must be at least 1")]:
        with pytest.raises(JudgeConfigError, match=message):
            _config(bad)


@pytest.mark.django_db
def test_a_run_on_an_ais_campaign(tiny_bert_nli, eager, django_capture_on_commit_callbacks):  # noqa: F811
    campaign = CampaignFactory(slug="ais", task_type="ais")
    topic = TopicFactory(campaign=campaign, external_id="q1", text=QUESTION)
    for n, answer in enumerate(["jane austen", "charles dickens"]):
        ItemFactory(campaign=campaign, topic=topic, external_id=f"a{n}", text=answer, data={"passage": PASSAGE})
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=campaign, name="autoais", family="autoais", config={"model": tiny_bert_nli})
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert run.batch_size == 256  # a length-batched family's items per task when the run does not say
    judgments = ModelJudgment.objects.filter(judge__name="autoais")
    assert judgments.count() == 2 and all(0 < j.score < 1 and j.label in ("yes", "no") for j in judgments)
