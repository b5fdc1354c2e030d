"""Paired tests between systems and between judges (agreement.system_tests), on data whose answers are known."""

import numpy as np
import pytest
from scipy import stats as scipy_stats

from agreement.system_tests import holm, pairs_block, paired_test, per_unit


def test_mcnemar_exact_on_a_known_table():
    # 10 units only A gets right, 2 only B, 5 both, 3 neither: the exact test is a binomial test of 2 in 12.
    a = [1] * 10 + [0] * 2 + [1] * 5 + [0] * 3
    b = [0] * 10 + [1] * 2 + [1] * 5 + [0] * 3
    result = paired_test(a, b)
    assert result["test"] == "mcnemar-exact" and result["discordant"] == [10, 2]
    assert result["p"] == pytest.approx(scipy_stats.binomtest(2, 12, 0.5).pvalue)
    assert result["difference"] == pytest.approx(8 / 20) and result["n"] == 20
    low, high = result["difference_ci95"]
    assert low < 0.4 < high


def test_identical_sides_have_p_one_and_no_discordance():
    result = paired_test([1, 0, 1, 1], [1, 0, 1, 1])
    assert result["p"] == 1.0 and result["difference"] == 0.0 and result["discordant"] == [0, 0]


def test_scores_that_are_not_0_or_1_get_the_permutation_test():
    rng = np.random.default_rng(1)
    a = rng.uniform(0.5, 1.0, 60)
    result = paired_test(a, a - 0.2)
    assert result["test"] == "permutation" and result["p"] < 0.01
    assert result["difference"] == pytest.approx(0.2)


def test_holm_correction_matches_the_hand_computation():
    pairs = [{"p": 0.01}, {"p": 0.04}, {"p": 0.03}, {"p": None}]
    holm(pairs)
    # sorted: 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04, raised to the running maximum 0.06.
    assert [pair["p_holm"] for pair in pairs] == pytest.approx([0.03, 0.06, 0.06, None])
    assert [pair["significant"] for pair in pairs] == [True, False, False, False]


def test_simulated_systems_of_known_accuracy():
    """Three systems over 400 questions: A right 80% of the time, B and C 50% (independently): A differs from both,
    B and C do not (at this size, with the seed fixed)."""
    rng = np.random.default_rng(7)
    outcomes = {name: {q: float(rng.random() < share) for q in range(400)}
                for name, share in (("A", 0.8), ("B", 0.5), ("C", 0.5))}
    block = pairs_block(outcomes)
    found = {(pair["a"], pair["b"]): pair for pair in block["pairs"]}
    assert found[("A", "B")]["significant"] and found[("A", "C")]["significant"]
    assert not found[("B", "C")]["significant"]
    for pair in block["pairs"]:
        low, high = pair["difference_ci95"]
        assert low <= pair["difference"] <= high
    assert 0.2 < found[("A", "B")]["difference"] < 0.4 and block["significant"] == 2


def test_pairs_are_tested_on_the_units_both_have():
    outcomes = {"A": {1: 1.0, 2: 1.0, 3: 0.0}, "B": {2: 0.0, 3: 0.0, 4: 1.0}, "C": {}}
    block = pairs_block(outcomes, order=["B", "A", "C"])
    found = {(pair["a"], pair["b"]): pair for pair in block["pairs"]}
    assert found[("B", "A")]["n"] == 2 and found[("B", "A")]["difference"] == pytest.approx(-0.5)
    assert found[("B", "C")]["n"] == 0 and found[("B", "C")]["p"] is None and found[("B", "C")]["p_holm"] is None


def test_several_outcomes_on_one_unit_are_averaged_not_dropped():
    assert per_unit([("q1", 1.0), ("q1", 0.0), ("q2", 1.0)]) == {"q1": 0.5, "q2": 1.0}
