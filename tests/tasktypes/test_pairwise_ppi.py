"""Humans and a judge together on a pairwise-preference campaign (tasktypes.pairwise_preference.ppi): each system's
win rate with the prompt as the unit, from the humans' verdicts on half the prompts and the judge's on all of them;
every figure recomputed here from the verdicts and ppi_py. A pool of passages (each candidate compared on one prompt
only) has no block."""

import json
import random

import numpy as np
import pytest

from agreement.report import agreement_report_build
from annotate.models import Item
from annotate.services.campaigns import campaign_get_or_create
from interchange.importers.service import import_run
from judges.models import Judge, ModelJudgment
from stats import ppi

PROMPTS = [f"p{n:02d}" for n in range(24)]
STRENGTH = {"alpha": 1.5, "beta": 0.5, "gamma": -1.0}
PAIRS = [("alpha", "beta"), ("beta", "gamma"), ("alpha", "gamma")]


def _verdict(rng, a: str, b: str) -> str:
    gap = STRENGTH[a] - STRENGTH[b] + rng.gauss(0, 1.2)
    return "tie" if abs(gap) < 0.3 else "a" if gap > 0 else "b"


def _flip(rng, verdict: str) -> str:
    """The judge: the humans' verdict, changed in a quarter of the pairs."""
    return rng.choice([v for v in ("a", "b", "tie") if v != verdict]) if rng.random() < 0.25 else verdict


@pytest.fixture
def campaign(db, tmp_path):
    return _campaign(tmp_path, every=2)


def _campaign(tmp_path, *, every: int):
    """The campaign of PROMPTS, the humans' verdicts on every EVERY-th prompt, the judge's on all."""
    rng = random.Random(11)
    campaign = campaign_get_or_create(slug=f"prefs-ppi-{every}", task_type="pairwise_preference", overlap=1)
    truth, lines = {}, []
    for n, prompt in enumerate(PROMPTS):
        for a, b in PAIRS:
            truth[(prompt, a, b)] = _verdict(rng, a, b)
            human = {"winner": truth[(prompt, a, b)], "annotator": "ra"} if n % every == 0 else {}
            lines.append(json.dumps({"prompt_id": prompt, "prompt": f"Question {prompt}", "system_a": a,
                                     "response_a": f"{a}'s reply", "system_b": b, "response_b": f"{b}'s reply",
                                     **human}) + "\n")
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(lines))
    import_run(campaign=campaign, fmt="pairwise-jsonl", paths=[path])
    judge = Judge.objects.create(campaign=campaign, name="grader", family="external", config_hash="g")
    said = {}
    for item in Item.objects.filter(campaign=campaign).select_related("topic"):
        key = (item.topic.external_id, item.data["a"]["system"], item.data["b"]["system"])
        said[key] = _flip(rng, truth[key])
        ModelJudgment.objects.create(judge=judge, item=item, label=said[key])
    return campaign, truth, said


def _win_rates(verdicts: dict, system: str, prompts) -> np.ndarray:
    points = {"a": (1.0, 0.0), "b": (0.0, 1.0), "tie": (0.5, 0.5)}
    return np.array([np.mean([points[verdicts[(p, a, b)]][0 if system == a else 1]
                              for a, b in PAIRS if system in (a, b)]) for p in prompts])


def test_win_rates_of_humans_and_judge_together_equal_ppi_py(campaign):
    campaign, truth, said = campaign
    block = agreement_report_build(campaign=campaign)["ppi"]
    assert block["unit_one"] == "prompt"
    assert [m["key"] for m in block["measures"]] == ["win_rate", "bradley_terry"]
    grader = block["measures"][0]["judges"]["grader"]
    assert (grader["units"], grader["labelled_units"], grader["check"]) == (24, 12, None)
    labelled = np.array([n % 2 == 0 for n in range(len(PROMPTS))])
    for row in grader["systems"]:
        y = _win_rates(truth, row["system"], [p for p, keep in zip(PROMPTS, labelled, strict=True) if keep])
        yhat = _win_rates(said, row["system"], PROMPTS)
        assert row["human"]["value"] == pytest.approx(y.mean()) and row["judge"] == pytest.approx(yhat.mean())
        expected = ppi._ppi().ppi_mean_pointestimate(y, yhat[labelled], yhat[~labelled], lam=row["combined"]["lam"])
        assert row["combined"]["value"] == pytest.approx(float(np.ravel(expected)[0]))
        assert row["combined"]["ci95"][1] - row["combined"]["ci95"][0] <= \
            row["human"]["ci95"][1] - row["human"]["ci95"][0] + 1e-12
    assert grader["order"] == ["alpha", "beta", "gamma"]



def _statsmodels_strengths(truth: dict, prompts) -> dict:
    """The centred maximum-likelihood strengths of the verdicts TRUTH on PROMPTS by statsmodels' GLM (each comparison
    two rows of weight one half: a tie half a win each way)."""
    import statsmodels.api as sm

    systems = sorted(STRENGTH)
    rows, outcomes = [], []
    for (prompt, a, b), verdict in truth.items():
        if prompt not in prompts:
            continue
        x = np.zeros(len(systems))
        x[systems.index(a)], x[systems.index(b)] = 1, -1
        rows += [x[1:], -x[1:]]
        outcomes += [float(verdict in ("a", "tie")), float(verdict in ("b", "tie"))]
    fit = sm.GLM(np.array(outcomes), np.array(rows), family=sm.families.Binomial(),
                 freq_weights=np.full(len(outcomes), 0.5)).fit()
    strengths = np.r_[0.0, fit.params]
    return dict(zip(systems, strengths - strengths.mean(), strict=True))


def test_bradley_terry_strengths_of_humans_and_judge_together(campaign):
    """The strengths: the humans' alone on the twelve prompts they judged are the centred maximum-likelihood fit that
    statsmodels gives (a tie half a win each way); the combined ones order the systems as their strengths do."""
    campaign, truth, said = campaign
    block = agreement_report_build(campaign=campaign)["ppi"]["measures"][1]
    assert (block["key"], block["label"]) == ("bradley_terry", "Bradley-Terry strength")
    grader = block["judges"]["grader"]
    assert (grader["units"], grader["labelled_units"], grader["check"]) == (24, 12, None)
    # Each two systems' difference of strengths, the stronger first: alpha - gamma the widest apart.
    assert [(pair["first"], pair["second"]) for pair in grader["pairs"]] == [
        ("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")]
    values = {row["system"]: row["combined"]["value"] for row in grader["systems"]}
    for pair in grader["pairs"]:
        assert pair["human"]["value"] == pytest.approx(
            next(r["human"]["value"] for r in grader["systems"] if r["system"] == pair["first"])
            - next(r["human"]["value"] for r in grader["systems"] if r["system"] == pair["second"]))
        assert pair["difference"]["value"] > 0 or values[pair["first"]] == pytest.approx(values[pair["second"]])
    assert grader["separated_count"] == sum(pair["separated"] for pair in grader["pairs"])
    expected = _statsmodels_strengths(truth, PROMPTS[::2])
    for row in grader["systems"]:
        assert row["human"]["value"] == pytest.approx(expected[row["system"]], abs=1e-4)
        assert row["combined"]["ci95"][1] - row["combined"]["ci95"][0] <= \
            row["human"]["ci95"][1] - row["human"]["ci95"][0] + 1e-12
    assert grader["order"] == ["alpha", "beta", "gamma"]


def test_every_prompt_judged_checks_the_strengths_on_one_draw(db, tmp_path):
    """Humans on every prompt: the strengths are checked on one draw of 10 prompts (a tenth of 24, but 10 at the
    least), each beside the humans' own fit on all 24, which is statsmodels' GLM on them."""
    campaign, truth, _ = _campaign(tmp_path, every=1)
    grader = agreement_report_build(campaign=campaign)["ppi"]["measures"][1]["judges"]["grader"]
    assert (grader["labelled_units"], grader["plan"], grader["check"]["drawn"], grader["check"]["draws"]) == (
        24, "uniform", 10, None)
    expected = _statsmodels_strengths(truth, PROMPTS)
    for row in grader["systems"]:
        assert row["all_human"] == pytest.approx(expected[row["system"]], abs=1e-4)
        assert row["covers"] == (row["combined"]["ci95"][0] <= row["all_human"] <= row["combined"]["ci95"][1])
    assert grader["check"]["covered"] == sum(row["covers"] for row in grader["systems"])
