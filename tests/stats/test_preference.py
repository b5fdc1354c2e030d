"""Pairwise preferences (stats.preference): Bradley-Terry scores are choix's, their intervals over prompts recover
known strengths, and the first-position rate recovers a known position bias."""

import itertools
import math

import choix
import numpy as np
import pytest

from stats.preference import (
    FIRST,
    SECOND,
    TIE,
    bradley_terry,
    bradley_terry_scores,
    first_position_rate,
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
