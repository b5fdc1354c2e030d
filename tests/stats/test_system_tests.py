"""Paired tests between systems and between judges (stats.system_tests), on data whose answers are known."""

import numpy as np
import pytest
from scipy import stats as scipy_stats

from stats.system_tests import holm, paired_test, pairs_block, per_unit


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


def test_sides_as_arrays_or_other_units_give_the_same_block():
    """A side given as (units, outcomes) arrays, or with units that are not integers, is tested as its dict is."""
    rng = np.random.default_rng(2)
    sides = {name: {int(unit): float(rng.random() < 0.6) for unit in rng.choice(400, 250, replace=False)}
             for name in ("A", "B", "C")}
    want = pairs_block(sides)
    as_arrays = {name: (np.fromiter(side, dtype=np.int64), np.fromiter(side.values(), dtype=float))
                 for name, side in sides.items()}
    assert pairs_block(as_arrays) == want
    assert pairs_block({**sides, "B": as_arrays["B"]}) == want
    named = pairs_block({name: {f"u{unit:04d}": value for unit, value in side.items()} for name, side in sides.items()})
    assert named == want  # "u0007" sorts as 7 does: the same resamples


def test_several_outcomes_on_one_unit_are_averaged_not_dropped():
    assert per_unit([("q1", 1.0), ("q1", 0.0), ("q2", 1.0)]) == {"q1": 0.5, "q2": 1.0}


def test_welch_compares_each_side_on_its_own_units():
    """A answered units 1-6, B units 4-12: the paired test sees the 3 shared, Welch all 6 and 9, with the
    Welch-Satterthwaite t and degrees of freedom computed by hand here."""
    a = {unit: value for unit, value in zip(range(1, 7), [1, 1, 1, 0, 1, 1])}
    b = {unit: value for unit, value in zip(range(4, 13), [0, 1, 0, 0, 1, 0, 0, 1, 0])}
    pair = pairs_block({"A": a, "B": b})["pairs"][0]
    assert pair["n"] == 3
    welch = pair["welch"]
    xa, xb = np.array(list(a.values()), dtype=float), np.array(list(b.values()), dtype=float)
    va, vb = xa.var(ddof=1) / xa.size, xb.var(ddof=1) / xb.size
    t = (xa.mean() - xb.mean()) / np.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (xa.size - 1) + vb ** 2 / (xb.size - 1))
    assert (welch["n_a"], welch["n_b"]) == (6, 9)
    assert welch["t"] == pytest.approx(t) and welch["df"] == pytest.approx(df)
    assert welch["p"] == pytest.approx(2 * scipy_stats.t.sf(abs(t), df))
    # Undefined with one unit a side, or no variance anywhere: said as None, never a division by zero.
    assert pairs_block({"A": {1: 1.0}, "B": {2: 0.0}})["pairs"][0]["welch"]["t"] is None
    assert pairs_block({"A": {1: 1.0, 2: 1.0}, "B": {3: 1.0, 4: 1.0}})["pairs"][0]["welch"]["p"] is None
