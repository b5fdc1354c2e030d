"""EM and token F1 on the strings that trip up naive implementations, and config validation."""

import pytest

from judges.errors import JudgeConfigError
from judges.families import FAMILIES, ItemInput, family_get
from judges.families.f1 import token_f1


def _item(text, golds, item_id=1):
    return ItemInput(item_id=item_id, topic_text="q", gold_answers=golds, text=text, data={})


def _judge(family, text, golds, **config):
    fam = family_get(family)
    return fam.judge_batch([_item(text, golds)], fam.validate_config(config))[0]


@pytest.mark.parametrize(
    ("prediction", "golds", "label"),
    [
        ("The Beatles", ["Beatles"], "yes"),  # article dropped
        ("an apple", ["Apple"], "yes"),  # article + case
        ("Washington, D.C.", ["washington dc"], "yes"),  # punctuation
        ("  Leonardo   da Vinci ", ["Leonardo da Vinci"], "yes"),  # whitespace
        ("8", ["eight", "8"], "yes"),  # second of several gold answers
        ("eight legs", ["eight", "8"], "no"),  # extra token is not an exact match
        ("theatre", ["the atre"], "no"),  # "the" inside a word is not an article
        ("", ["Canberra"], "no"),  # empty prediction
    ],
)
def test_exact_match(prediction, golds, label):
    verdict = _judge("em", prediction, golds)
    assert verdict.label == label
    assert verdict.score == (1.0 if label == "yes" else 0.0)
    assert not verdict.failed


def test_token_f1_values():
    assert token_f1("The Eiffel Tower", "eiffel tower") == 1.0
    # prediction "eiffel tower in paris" (4 tokens) vs gold "eiffel tower" (2): P = 2/4, R = 1, F1 = 2/3
    assert token_f1("the Eiffel Tower, in Paris", "Eiffel Tower") == pytest.approx(2 / 3)
    assert token_f1("", "Paris") == 0.0
    assert token_f1("Paris", "London") == 0.0
    # repeated tokens count as a multiset: "paris paris" vs "paris": P = 1/2, R = 1
    assert token_f1("Paris Paris", "Paris") == pytest.approx(2 / 3)


def test_f1_takes_best_gold_and_thresholds():
    verdict = _judge("f1", "George Washington Carver", ["Abraham Lincoln", "George Washington"])
    # vs "george washington": P = 2/3, R = 1 -> 0.8
    assert verdict.score == pytest.approx(0.8)
    assert verdict.label == "yes"
    assert "George Washington" in verdict.raw
    assert _judge("f1", "George Washington Carver", ["George Washington"], threshold=0.9).label == "no"
    assert _judge("f1", "George Washington Carver", ["George Washington"], threshold=0.8).label == "yes"  # at threshold
    assert _judge("f1", "", ["Paris"]).label == "no"


def test_missing_gold_answers_is_a_failed_verdict_with_reason():
    for family in ("em", "f1"):
        verdict = _judge(family, "Paris", [])
        assert verdict.failed and verdict.label == "" and verdict.score is None
        assert "no gold answers" in verdict.raw


def test_config_defaults_are_filled_so_identity_is_stable():
    f1 = family_get("f1")
    assert f1.validate_config({}) == {"threshold": 0.5}
    assert f1.validate_config({"threshold": 1}) == {"threshold": 1.0}
    assert family_get("em").validate_config(None) == {}


@pytest.mark.parametrize(
    ("family", "config", "message"),
    [
        ("f1", {"treshold": 0.5}, "unknown configuration key(s) treshold (allowed: threshold)"),
        ("f1", {"threshold": "high"}, "threshold must be a number"),
        ("f1", {"threshold": True}, "threshold must be a number"),
        ("f1", {"threshold": 1.5}, "threshold must be between 0 and 1"),
        ("em", {"threshold": 0.5}, "unknown configuration key(s) threshold (allowed: none)"),
        ("em", ["x"], "must be a JSON object"),
    ],
)
def test_bad_config_is_rejected_with_a_message(family, config, message):
    with pytest.raises(JudgeConfigError) as excinfo:
        family_get(family).validate_config(config)
    assert message in str(excinfo.value)


def test_registry_names_families_and_refuses_unknown_ones():
    assert {"em", "f1"} <= set(FAMILIES)
    with pytest.raises(JudgeConfigError, match="unknown judge family 'bm99'"):
        family_get("bm99")
    with pytest.raises(JudgeConfigError, match="cannot be run"):
        family_get("external")
