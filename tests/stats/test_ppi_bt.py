"""Bradley-Terry strengths from humans and a judge together (stats.ppi_bt): with one comparison a prompt its interval
is ppi_py's ppi_logistic_ci called directly; on simulated studies whose prompts each hold four comparisons, the
combined intervals of the centred strengths are never wider than the humans' alone (their coverage:
bench/bench_ppi_bt.py)."""

import warnings

import numpy as np
import pytest

from stats import ppi, ppi_bt

with warnings.catch_warnings():
    import ppi_py

STRENGTH = {"alpha": 0.8, "beta": 0.2, "gamma": -0.3, "delta": -0.7}  # centred: their mean is 0
PAIRS = [("alpha", "beta"), ("beta", "gamma"), ("gamma", "delta"), ("alpha", "delta")]


def _study(rng, prompts: int, flip: float):
    """PROMPTS prompts of the four pairs, each outcome drawn from the Bradley-Terry model; the judge flips a share
    FLIP of them."""
    comparisons, where, truth = [], [], []
    for prompt in range(prompts):
        for a, b in PAIRS:
            win = rng.random() < 1 / (1 + np.exp(STRENGTH[b] - STRENGTH[a]))
            comparisons.append((a, b, None))
            where.append(prompt)
            truth.append(1.0 if win else 0.0)
    truth = np.array(truth)
    judge = np.where(rng.random(len(truth)) < flip, 1 - truth, truth)
    return comparisons, where, truth, judge


def test_one_comparison_a_prompt_is_ppi_pys_logistic_interval():
    rng = np.random.default_rng(4)
    comparisons, where, truth, judge = _study(rng, 150, 0.15)
    systems = sorted(STRENGTH)
    rows = ppi_bt.Rows.of([(a, b, p) for (a, b, _), p in zip(comparisons, judge, strict=True)], range(len(judge)),
                          systems)
    # One row a comparison (the a-side row), one prompt a row: no clusters, as ppi_py assumes.
    single = ppi_bt.Rows(rows.x[::2], rows.outcome[::2], np.ones(len(judge)), rows.prompt[::2])
    labelled = np.arange(len(judge)) < 150
    part = ppi_bt.Rows(single.x[labelled], truth[labelled], single.weight[labelled], single.prompt[labelled])
    rest = ppi_bt.Rows(single.x[~labelled], judge[~labelled], single.weight[~labelled], single.prompt[~labelled])
    fit = ppi_bt._fit(part, truth[labelled], judge[labelled], rest, judge[~labelled], 0.6)
    low, high = ppi_py.ppi_logistic_ci(part.x, truth[labelled], judge[labelled], rest.x, judge[~labelled],
                                       alpha=0.05, lam=0.6, optimizer_options={"ftol": 1e-12})
    half = ppi.Z * np.sqrt(np.diag(fit.covariance))
    assert fit.theta - half == pytest.approx(low, abs=1e-4) and fit.theta + half == pytest.approx(high, abs=1e-4)


def test_the_combined_strengths_are_never_wider_than_the_humans_alone():
    """Ten studies of 200 prompts (four comparisons each), humans on 40: every system's combined interval is at most
    as wide as the humans' alone on the same prompts, and holds its centred strength in most (bench/bench_ppi_bt.py
    measures the coverage over thousands of studies)."""
    rng = np.random.default_rng(12)
    truth_centred = {s: v - np.mean(list(STRENGTH.values())) for s, v in STRENGTH.items()}
    covered = 0
    for _ in range(10):
        comparisons, where, truth, judge = _study(rng, 200, 0.15)
        labelled_prompts = set(rng.choice(200, size=40, replace=False).tolist())
        human = [t if p in labelled_prompts else None for t, p in zip(truth, where, strict=True)]
        found = ppi_bt.combined_bradley_terry(comparisons, where, human, judge)
        assert found.systems == sorted(STRENGTH) and found.prompts == 200 and 0 <= found.lam <= 1
        for system, combined, alone in zip(found.systems, found.combined, found.human, strict=True):
            assert combined.n == alone.n == 40 and combined.width <= alone.width + 1e-12
            covered += combined.ci95[0] <= truth_centred[system] <= combined.ci95[1]
    assert covered >= 34  # of 40 intervals
