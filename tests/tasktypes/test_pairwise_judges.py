"""pairwise_preference's model judges (issue 33): the llm family asked in both orders (a verdict kept only when they
agree, order-inconsistent ones recorded with both answers), in one order for cost, a score family preferring the
response it scores higher with a tie margin, the options the task type adds to a judge's configuration; and a
simulated campaign through the task layer: humans voting by known Bradley-Terry strengths and an LLM judge with a
known first-position bias, which the report recovers within its intervals."""

import json
import random

import numpy as np
import pytest

from agreement.report import agreement_report_build
from annotate.services.campaigns import campaign_get_or_create
from interchange.importers.service import import_run
from judges.errors import JudgeConfigError
from judges.families import ItemInput, family_config_validate, family_get, family_options
from judges.families.llm import LLMJudge
from judges.llm.backend import Generation, MemorySampleStore
from judges.models import LLMSample, ModelJudgment, RunStatus
from judges.services import judge_run_start
from tasktypes.pairwise_preference import judging
from tests.judges.test_judges_rankers import tiny_bert_wide  # noqa: F401 - fixture
from tests.judges.test_llm_family import ScriptedBackend, ScriptedLLM
from tests.judges_support import eager  # noqa: F401 - fixture

TYPE = "pairwise_preference"


def _config(family="llm", **overrides):
    return family_config_validate(family, overrides, task_type=TYPE)


def _pair(item_id: int, a="Boil the water first.", b="Add salt.") -> ItemInput:
    return ItemInput(item_id=item_id, topic_text="How do I cook pasta?", gold_answers=[], text="",
                     data={"a": {"system": "x", "text": a}, "b": {"system": "y", "text": b}})


def test_the_task_type_adds_its_options_to_a_judge_and_checks_them():
    config = _config(n=1, decoding="greedy")
    assert (config["orders"], config["pairwise_instruction"]) == ("both", judging.INSTRUCTION)
    assert _config("dense")["tie_margin"] == 0.0
    assert {"orders", "pairwise_instruction"} <= set(family_options("llm", TYPE))
    assert "orders" not in family_options("llm", "qa_correctness")
    for family, overrides, message in [
        ("llm", {"orders": "three"}, "llm: orders must be both or one, not 'three'"),
        ("llm", {"pairwise_instruction": " "}, "pairwise_instruction must not be empty"),
        ("cross-encoder", {"tie_margin": -0.5}, "tie_margin must be 0 or more, not -0.5"),
        ("dense", {"tie_margin": "wide"}, "tie_margin must be a number"),
        ("dense", {"orders": "both"}, "unknown configuration key"),
    ]:
        with pytest.raises(JudgeConfigError, match=message):
            _config(family, **overrides)
    # The options belong to the pairwise campaign's judges only.
    with pytest.raises(JudgeConfigError, match=r"unknown configuration key\(s\) orders"):
        family_config_validate("llm", {"orders": "both"}, task_type="qa_correctness")


def test_the_llm_is_asked_in_both_orders_and_a_verdict_stands_only_when_they_agree():
    config = _config(n=1, decoding="greedy")
    # Key: pair id x 2 + order (0: a first, 1: b first). Pair 1 prefers a in both orders (1, then 2); pair 2 prefers
    # whichever it saw first; pair 3 says a tie twice; pair 4's b-first answer has no answer line.
    backend = ScriptedBackend({(2, 0): "A is clearer.\nBetter: 1", (3, 0): "**Better:** 2",
                               (4, 0): "Better: 1", (5, 0): "Better: 1",
                               (6, 0): "Better: tie", (7, 0): "better: TIE",
                               (8, 0): "Better: 1", (9, 0): "Both are fine."})
    store = MemorySampleStore()
    got = judging.pairs_judge(ScriptedLLM(backend), [_pair(1), _pair(2), _pair(3), _pair(4)], config, samples=store)
    assert [(v.label, v.failed) for v in got] == [("a", False), ("inconsistent", False), ("tie", False), ("", True)]
    assert json.loads(got[0].raw)["consistent"] is True
    inconsistent = json.loads(got[1].raw)
    assert inconsistent["consistent"] is False
    assert {order: entry["answer"] for order, entry in inconsistent["orders"].items()} == {"ab": "a", "ba": "b"}
    assert inconsistent["orders"]["ba"]["samples"] == ["Better: 1"]
    assert "order ba: no verdict" in json.loads(got[3].raw)["reason"]
    # Each order's sample is stored under its own index: a first at 0, b first at n (here 1).
    assert sorted(store.samples[1]) == [0, 1] and store.samples[1][1].text == "**Better:** 2"
    # Asked again, nothing is generated: every sample is stored.
    again = ScriptedBackend({})
    assert [v.label for v in judging.pairs_judge(ScriptedLLM(again), [_pair(1), _pair(2)], config,
                                                 samples=store)] == ["a", "inconsistent"]
    assert again.asked == []


def test_the_prompt_shows_both_responses_in_the_order_asked():
    config = _config(n=1, decoding="greedy")
    first = judging.messages_build(_pair(1), judging.AB, config)
    swapped = judging.messages_build(_pair(1), judging.BA, config)
    assert first[0]["content"].startswith(judging.INSTRUCTION)
    assert first[0]["content"].endswith("in the form Better: 1, Better: 2 or Better: tie.")
    # The worked examples come first, each answered in the form; the pair is the last turn.
    assert [m["role"] for m in first] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert first[2]["content"].endswith("\nBetter: 2") and first[4]["content"].endswith("\nBetter: tie")
    assert "Response 1:\nBoil the water first.\n\nResponse 2:\nAdd salt." in first[-1]["content"]
    assert "Response 1:\nAdd salt.\n\nResponse 2:\nBoil the water first." in swapped[-1]["content"]
    direct = judging.messages_build(_pair(1), judging.AB, _config(n=1, decoding="greedy", cot=False,
                                                                     pairwise_instruction="Compare."))
    assert direct[0]["content"] == "Compare.\n\n" + judging.ANSWER_FORM_DIRECT
    assert direct[2]["content"] == "Better: 2"


def test_one_order_asks_half_the_pairs_each_way_for_half_the_samples():
    config = _config(n=1, decoding="greedy", orders="one")
    pairs = [_pair(n) for n in range(1, 41)]
    drawn = {pair.item_id: judging.drawn_order(pair.item_id) for pair in pairs}
    assert 10 < sum(order == judging.AB for order in drawn.values()) < 30
    script = {(n * 2 + judging.ORDERS.index(order), 0): "Better: 1" for n, order in drawn.items()}
    backend = ScriptedBackend(script)
    got = judging.pairs_judge(ScriptedLLM(backend), pairs, config)
    assert len(backend.asked) == 40  # one request per pair
    # "1" names whichever response was shown first, so the label follows the drawn order.
    assert [v.label for v in got] == [judging.FIRST_SHOWN[drawn[pair.item_id]] for pair in pairs]
    assert all(json.loads(v.raw)["consistent"] is None for v in got)


def test_a_pair_without_a_prompt_or_a_response_fails_without_asking():
    backend = ScriptedBackend({})
    got = judging.pairs_judge(ScriptedLLM(backend), [_pair(1, b=" ")], _config(n=1, decoding="greedy"))
    assert got[0].failed and json.loads(got[0].raw)["reason"] == "response b has no text"
    assert backend.asked == []


def test_a_score_family_prefers_the_response_it_scores_higher_with_a_tie_margin(tiny_bert_wide):  # noqa: F811
    family = family_get("cross-encoder")
    pairs = [_pair(1, a="fever rest fluids", b="parking garage downtown"), _pair(2, a="same text", b="same text"),
             _pair(3, a="doctor", b="")]
    config = _config("cross-encoder", model=tiny_bert_wide, batch_size=4)
    got = judging.pairs_judge(family, pairs, config)
    alone = family.judge_batch([ItemInput(item_id=0, topic_text="How do I cook pasta?", gold_answers=[], text=text)
                                for text in ("fever rest fluids", "parking garage downtown")],
                               family.validate_config({"model": tiny_bert_wide}))
    difference = alone[0].score - alone[1].score
    assert got[0].score == pytest.approx(difference, abs=1e-5) and abs(difference) > 1e-3
    assert got[0].label == ("a" if difference > 0 else "b")
    assert (got[1].label, got[1].score) == ("tie", 0.0)  # the same text scores the same
    assert got[2].failed and "response b has no text" in got[2].raw
    wide = judging.pairs_judge(family, pairs[:1], _config("cross-encoder", model=tiny_bert_wide,
                                                          tie_margin=abs(difference) + 1))
    assert wide[0].label == "tie" and json.loads(wide[0].raw)["margin"] == abs(difference) + 1


# --- a simulated campaign: known strengths, a judge with a known first-position bias ---

STRENGTHS = {"s1": 2.0, "s2": 1.0, "s3": 0.0, "s4": 0.0}  # Bradley-Terry log-strengths
PROMPTS = 40
BIAS = 0.5  # the share of the judge's answers that name whichever response it was shown first, whatever they say


def _wins(rng, a: str, b: str) -> bool:
    return rng.random() < 1 / (1 + np.exp(STRENGTHS[b] - STRENGTHS[a]))


class BiasedBackend:
    """Answers "Better: 1" with probability BIAS, else for the response of the stronger system by its strengths (the
    systems' names are in the responses' text)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def generate(self, requests, decoding, on_sample):
        for request in requests:
            text = request.messages[-1]["content"]
            first = text.split("Response 1:\n", 1)[1].split(" ", 1)[0]
            second = text.split("Response 2:\n", 1)[1].split(" ", 1)[0]
            for index in request.sample_indices:
                one = self.rng.random() < BIAS or _wins(self.rng, first, second)
                on_sample(request.key, index, Generation(text=f"Better: {1 if one else 2}", prompt_tokens=40,
                                                         completion_tokens=3))


@pytest.fixture
def simulated(db, tmp_path):
    rng = random.Random(7)
    systems = list(STRENGTHS)
    lines = []
    for prompt in range(PROMPTS):
        for i, a in enumerate(systems):
            for b in systems[i + 1:]:
                pair = {"prompt_id": f"p{prompt}", "prompt": f"Prompt {prompt}", "system_a": a,
                        "response_a": f"{a} answers {prompt}", "system_b": b, "response_b": f"{b} answers {prompt}"}
                # Three raters (the campaign's k), each voting by the strengths: the pair on three lines.
                lines.extend(json.dumps({**pair, "winner": "a" if _wins(rng, a, b) else "b", "annotator": rater})
                             for rater in ("r1", "r2", "r3"))
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    campaign = campaign_get_or_create(slug="simulated", task_type=TYPE)
    import_run(campaign=campaign, fmt="pairwise-jsonl", paths=[path])
    return campaign


def test_a_simulated_campaign_recovers_the_strengths_and_the_judges_position_bias(
        simulated, eager, monkeypatch, django_capture_on_commit_callbacks):  # noqa: F811
    monkeypatch.setattr(LLMJudge, "backend", staticmethod(lambda config, counter=None, connection=None:
                                                          BiasedBackend(seed=3)))
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=simulated, name="biased", family="llm",
                              config={"n": 1, "decoding": "greedy"}, batch_size=100)
    run.refresh_from_db()
    pairs = PROMPTS * 6
    assert run.status == RunStatus.SUCCEEDED
    assert LLMSample.objects.filter(judge=run.judge).count() == 2 * pairs  # both orders
    labels = list(ModelJudgment.objects.filter(judge=run.judge).values_list("label", flat=True))
    report = agreement_report_build(campaign=simulated)

    # The humans' scores: each system's known strength (centred, as the scores are) lies within its interval.
    centre = np.mean(list(STRENGTHS.values()))
    humans = report["scores"]["humans"]
    assert humans["n_comparisons"] == 3 * pairs and humans["n_prompts"] == PROMPTS
    for system, strength in STRENGTHS.items():
        low, high = humans["scores_ci95"][system]
        assert low <= strength - centre <= high, (system, low, high)
    assert humans["systems"][:2] == ["s1", "s2"]

    judge = report["judges"]["biased"]
    # Half its answers name the first response shown, the other half the better one by the strengths: it prefers
    # the first shown 0.5 + 0.5 x 0.5 = 0.75 of the time.
    first = judge["position"]["first"]
    assert first["n"] == 2 * pairs and first["rate_ci95"][0] <= 0.75 <= first["rate_ci95"][1], first
    consistency = judge["position"]["consistency"]
    assert consistency["n"] == pairs and consistency["consistent"] == pairs - labels.count("inconsistent")
    assert judge["inconsistent"] == labels.count("inconsistent") > 0
    # Inconsistent verdicts are left out of the agreement: n counts the others.
    assert judge["item"]["n"] == pairs - judge["inconsistent"]
    # The judge's consistent verdicts still follow the strengths: the same order as the humans'.
    order = judge["order"]
    assert order["n_systems"] == 4 and order["kendall_tau_b"] is not None and order["kendall_tau_b_ci95"] is not None
    assert judge["scores"]["systems"][0] == "s1" and ["s1", "s2"] not in order["swaps"]
    # The humans' rater saw no side (imported verdicts): no first-position rate for them.
    assert report["position"]["humans"]["n"] == 0
