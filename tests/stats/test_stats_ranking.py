"""Pure ranking statistics for answer_ranking: tau-b between tie-group rankings and scores, topic means; no database."""

import math

import numpy as np
import pytest
from statsmodels.stats.weightstats import DescrStatsW

from stats import correlation, uncertainty


def test_perfect_and_reversed_orders():
    groups = [["a"], ["b"], ["c"], ["d"]]
    assert correlation.ranking_score_tau_b(groups, {"a": 4, "b": 3, "c": 2, "d": 1}) == pytest.approx(1.0)
    assert correlation.ranking_score_tau_b(groups, {"a": 1, "b": 2, "c": 3, "d": 4}) == pytest.approx(-1.0)


def test_hand_computed_tau_b_with_a_human_tie():
    # human a > b = c > d; scores a 4, b 3, c 1, d 2. Pairs: a-b, a-c, a-d, b-d concordant (4), c-d discordant (1),
    # b-c tied in the human order only (1). tau-b = (4 - 1) / sqrt((6 - 1) * (6 - 0)).
    tau = correlation.ranking_score_tau_b([["a"], ["b", "c"], ["d"]], {"a": 4, "b": 3, "c": 1, "d": 2})
    assert tau == pytest.approx(3 / math.sqrt(30))


def test_ties_on_both_sides():
    # human a > b = c; scores a 2, b 1, c 1: the b-c pair is tied on both sides, the others concordant.
    # n0 = 3, ties in x = 1, ties in y = 1: 2 / sqrt(2 * 2) = 1
    assert correlation.ranking_score_tau_b([["a"], ["b", "c"]], {"a": 2, "b": 1, "c": 1}) == pytest.approx(1.0)


def test_undefined_cases_are_none():
    assert correlation.ranking_score_tau_b([["a"]], {"a": 1.0}) is None  # one candidate
    assert correlation.ranking_score_tau_b([], {}) is None
    assert correlation.ranking_score_tau_b([["a"], ["b"]], {"a": 0.5, "b": 0.5}) is None  # constant scores
    assert correlation.ranking_score_tau_b([["a", "b", "c"]], {"a": 1, "b": 2, "c": 3}) is None  # one tie group
    # only candidates both ranked and scored count: here one
    assert correlation.ranking_score_tau_b([["a"], ["b"]], {"a": 1.0, "z": 2.0}) is None


def test_candidates_restrict_the_pairs():
    groups = [["a1"], ["d1"], ["a2"], ["d2"]]
    scores = {"a1": 4, "d1": 1, "a2": 3, "d2": 2}  # answers in human order; documents not
    assert correlation.ranking_score_tau_b(groups, scores, candidates={"a1", "a2"}) == pytest.approx(1.0)
    assert correlation.ranking_score_tau_b(groups, scores) == pytest.approx(2 / 6)  # 4 concordant, 2 discordant


def test_ranking_vs_ranking():
    a = [["a"], ["b"], ["c"], ["d"], ["e"]]
    assert correlation.ranking_ranking_tau_b(a, a) == pytest.approx(1.0)
    assert correlation.ranking_ranking_tau_b(a, list(reversed(a))) == pytest.approx(-1.0)
    assert correlation.ranking_ranking_tau_b(a, [["a"], ["b"], ["c"], ["e"], ["d"]]) == pytest.approx(0.8)  # 9 C, 1 D
    # one tie in the second ranking: 9 concordant, 1 tied in y only -> 9 / sqrt(10 * 9)
    assert correlation.ranking_ranking_tau_b(a, [["a", "b"], ["c"], ["d"], ["e"]]) == pytest.approx(9 / math.sqrt(90))
    assert correlation.ranking_ranking_tau_b([["a"]], [["a"]]) is None


def test_mean_ci95_matches_statsmodels_t_interval():
    values = [0.2, 1.0, 0.6, -0.2, 0.8, 0.4]
    result = uncertainty.mean_ci95(values)
    low, high = DescrStatsW(np.array(values)).tconfint_mean(alpha=0.05)
    assert result["n"] == 6
    assert result["mean"] == pytest.approx(np.mean(values))
    assert result["ci95"] == pytest.approx([low, high])


def test_mean_ci95_undefined_topics_and_small_n():
    assert uncertainty.mean_ci95([0.5, None]) == {"mean": 0.5, "ci95": None, "n": 1}
    assert uncertainty.mean_ci95([None]) == {"mean": None, "ci95": None, "n": 0}
    assert uncertainty.mean_ci95([1.0, 1.0, 1.0])["ci95"] == pytest.approx([1.0, 1.0])


def test_mean_defined():
    assert uncertainty.mean_defined([1.0, None, 0.0]) == pytest.approx(0.5)
    assert uncertainty.mean_defined([None, float("nan")]) is None
