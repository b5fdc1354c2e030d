"""Pairwise preferences (stats.preference): Bradley-Terry scores are choix's, their intervals over prompts recover
known strengths, and the first-position rate recovers a known position bias."""

import itertools
import math

import choix
import numpy as np
import pytest
from scipy import stats as scipy_stats

from stats.preference import (
    FIRST,
    SECOND,
    TIE,
    bradley_terry,
    bradley_terry_scores,
    first_position_rate,
    pool_preference_scores,
    pooled_by_prompt,
    swaps_between,
    win_matrix,
    win_rates,
)

# Known log-strengths (issue 33: "Bradley-Terry scores 2, 1, 0, 0"); the fitted scores are centred on mean 0.
STRENGTHS = {"s2": 2.0, "s1": 1.0, "s0a": 0.0, "s0b": 0.0}
CENTRED = {system: value - np.mean(list(STRENGTHS.values())) for system, value in STRENGTHS.items()}


def _simulated(prompts: int, *, seed: int = 0, tie_margin: float = 0.0):
    """Every pair of systems once per prompt, the first shown drawn at random; the winner drawn by Bradley-Terry."""
    rng = np.random.default_rng(seed)
    comparisons, clusters = [], []
    for prompt in range(prompts):
        for a, b in itertools.combinations(STRENGTHS, 2):
            first, second = (a, b) if rng.random() < 0.5 else (b, a)
            p_first = 1 / (1 + math.exp(STRENGTHS[second] - STRENGTHS[first]))
            draw = rng.random()
            outcome = TIE if abs(draw - p_first) < tie_margin else (FIRST if draw < p_first else SECOND)
            comparisons.append((first, second, outcome))
            clusters.append(prompt)
    return comparisons, clusters


def test_the_scores_are_choixs_on_the_win_matrix():
    comparisons, _ = _simulated(30)
    systems = list(STRENGTHS)
    matrix = win_matrix(comparisons, systems)
    assert matrix.sum() == len(comparisons)
    wins = [(systems.index(first if outcome == FIRST else second), systems.index(second if outcome == FIRST else first))
            for first, second, outcome in comparisons]
    direct = choix.ilsr_pairwise(len(systems), wins, alpha=0.01)
    assert np.allclose(bradley_terry_scores(matrix), direct - direct.mean(), atol=1e-6)
    assert bradley_terry_scores(np.zeros((3, 3))) is None


def test_a_tie_is_half_a_win_to_each_side():
    matrix = win_matrix([("a", "b", TIE), ("a", "b", FIRST), ("b", "a", FIRST)], ["a", "b"])
    assert matrix.tolist() == [[0.0, 1.5], [1.5, 0.0]]
    assert win_rates(matrix)[0, 1] == 0.5
    with pytest.raises(ValueError, match="outcome 'both' is not one of first, second, tie"):
        win_matrix([("a", "b", "both")], ["a", "b"])


def test_known_strengths_are_recovered_within_their_intervals():
    comparisons, clusters = _simulated(200, seed=1, tie_margin=0.05)
    block = bradley_terry(comparisons, clusters=clusters)
    assert (block["n_comparisons"], block["n_prompts"]) == (1200, 200)
    assert block["systems"][:2] == ["s2", "s1"]
    for system, truth in CENTRED.items():
        low, high = block["scores_ci95"][system]
        assert low <= truth <= high, (system, truth, low, high)
        assert low < block["scores"][system] < high
    # The win rate of the strongest over the weakest is near its Bradley-Terry probability, 1 / (1 + e^-2) = 0.88.
    assert abs(block["win_rates"]["s2"]["s0a"] - 1 / (1 + math.exp(-2))) < 0.06
    assert "bootstrap over prompts" in block["method"] and "choix" in block["method"]
    few = bradley_terry(comparisons[:18], clusters=clusters[:18])  # 3 prompts: scores, but no intervals
    assert few["scores"]["s2"] is not None and set(few["scores_ci95"].values()) == {None}


def test_a_judges_first_position_bias_is_recovered_within_its_interval():
    # A judge that prefers the first-shown candidate 70% of the time between equally good responses, ties apart.
    rng = np.random.default_rng(2)
    outcomes = [TIE if draw < 0.1 else (FIRST if draw < 0.1 + 0.9 * 0.7 else SECOND) for draw in rng.random(600)]
    block = first_position_rate(outcomes)
    low, high = block["rate_ci95"]
    assert low <= 0.7 <= high and not low <= 0.5 <= high
    assert block["n"] + block["ties"] == 600
    assert first_position_rate([TIE]) == {"rate": None, "rate_ci95": None, "n": 0, "ties": 1,
                                          "method": block["method"]}


def _pools(prompts: int, size: int, *, seed: int):
    """Each prompt its own pool of SIZE candidates (passages in a topic); every pair met once under two raters, the
    second seeing the first's strengths through noise."""
    rng = np.random.default_rng(seed)
    raters = [([], []), ([], [])]
    for prompt in range(prompts):
        quality = rng.normal(0, 1, size=size)
        seen = quality + rng.normal(0, 0.7, size=size)
        for i, j in itertools.combinations(range(size), 2):
            for (comparisons, clusters), strength in zip(raters, (quality, seen), strict=True):
                p_first = 1 / (1 + math.exp(strength[j] - strength[i]))
                comparisons.append((f"q{prompt}-d{i}", f"q{prompt}-d{j}", FIRST if rng.random() < p_first else SECOND))
                clusters.append(prompt)
    return raters


def test_candidates_of_one_prompts_pool_are_fitted_per_prompt_and_compared_per_prompt():
    raters = _pools(12, 7, seed=3)
    assert pooled_by_prompt(raters)
    # A passage of two topics' pools (here q0-d1, compared on prompt 1 too) is still read per pool, with a score in
    # each; systems that meet on every prompt are one fit over all of them.
    assert pooled_by_prompt([(raters[0][0] + [("q0-d1", "q1-d2", FIRST)], raters[0][1] + [1])])
    systems = [([("s1", "s2", FIRST), ("s2", "s3", SECOND), ("s1", "s3", TIE)] * 2, [0, 0, 0, 1, 1, 1])]
    assert not pooled_by_prompt(systems) and not pooled_by_prompt([(systems[0][0][:3], [0, 0, 0])])
    shared, _ = pool_preference_scores([(raters[0][0] + [("q0-d1", "q1-d2", FIRST)], raters[0][1] + [1])] * 2)
    assert {"q0-d1 (0)", "q0-d1 (1)"} <= set(shared[0]["scores"]) and shared[0]["pools"]["q0-d1 (1)"] == 1
    scores, orders = pool_preference_scores(raters)
    # Each prompt's scores are choix's on that prompt's win matrix alone, centred.
    for prompt in (0, 7):
        candidates = [f"q{prompt}-d{n}" for n in range(7)]
        matrix = win_matrix([comparison for comparison, cluster in zip(*raters[1], strict=True) if cluster == prompt],
                            candidates)
        direct = choix.ilsr_pairwise_dense(matrix, alpha=0.01)
        assert np.allclose([scores[1]["scores"][c] for c in candidates], direct - direct.mean(), atol=1e-6)
        assert scores[1]["pools"][candidates[0]] == prompt and scores[1]["scores_ci95"][candidates[0]] is None
    # The order agreement per prompt is scipy's tau-b between the two fits; the headline is their mean over prompts.
    order = orders[0]
    taus, swaps = [], 0
    for row in order["per_prompt"]:
        candidates = [f"q{row['prompt']}-d{n}" for n in range(7)]
        x = np.array([scores[0]["scores"][c] for c in candidates])
        y = np.array([scores[1]["scores"][c] for c in candidates])
        assert row["kendall_tau_b"] == pytest.approx(scipy_stats.kendalltau(x, y).statistic, abs=1e-12)
        assert row["spearman"] == pytest.approx(scipy_stats.spearmanr(x, y).statistic, abs=1e-12)
        counted = sum(x[i] > x[j] and y[j] > y[i] for i in range(7) for j in range(7))
        assert row["swaps_count"] == counted
        taus.append(row["kendall_tau_b"])
        swaps += counted
    assert (order["n_prompts"], order["n_systems"], order["swaps_count"]) == (12, 84, swaps)
    assert order["kendall_tau_b"] == pytest.approx(np.mean(taus))
    # Its interval resamples the prompts: the percentile bootstrap of the mean, as scipy draws it, within Monte Carlo
    # error.
    low, high = order["kendall_tau_b_ci95"]
    reference = scipy_stats.bootstrap((np.array(taus),), np.mean, n_resamples=4000, method="percentile",
                                      random_state=np.random.default_rng(0)).confidence_interval
    assert abs(low - reference.low) < 0.03 and abs(high - reference.high) < 0.03
    assert len(order["swaps"]) == min(swaps, 20) and "per prompt's pool" in order["method"]


def test_swaps_are_counted_whole_and_the_largest_listed_first():
    x = np.array([4.0, 3.0, 2.0, 1.0, 0.0])
    y = np.array([0.0, 3.0, 2.0, 1.0, 4.0])  # 0 falls from first to last, 4 rises from last to first
    count, largest = swaps_between(x, y, shown=2, block=2)
    brute = sum(x[i] > x[j] and y[j] > y[i] for i in range(5) for j in range(5))
    assert count == brute == 7
    assert largest == [[0, 4], [0, 3]]  # the humans' widest gaps first
