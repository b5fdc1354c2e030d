"""Pure agreement statistics, checked by hand and against the libraries; no database."""

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from stats import correlation, interrater, uncertainty


def test_cohen_kappa_by_hand():
    # observed agreement 3/4; chance (1/2 * 1/4) + (1/2 * 3/4) = 1/2; kappa = (0.75 - 0.5) / 0.5
    assert interrater.cohen_kappa(["yes", "yes", "no", "no"], ["yes", "no", "no", "no"]) == pytest.approx(0.5)


def test_cohen_kappa_perfect_and_opposite():
    assert interrater.cohen_kappa(["yes", "no", "yes"], ["yes", "no", "yes"]) == pytest.approx(1.0)
    assert interrater.cohen_kappa(["yes", "no"], ["no", "yes"]) == pytest.approx(-1.0)


def test_cohen_kappa_weighted_matches_sklearn():
    a, b = [0, 1, 2, 2, 1, 0, 2], [0, 2, 2, 1, 1, 0, 0]
    assert interrater.cohen_kappa(a, b, weights="linear") == pytest.approx(cohen_kappa_score(a, b, weights="linear"))
    assert interrater.cohen_kappa(a, b, weights="linear") != pytest.approx(interrater.cohen_kappa(a, b))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_is_sklearns_on_every_item(weights):
    """cohen_kappa and kappa_of_codes hand sklearn each distinct pair of labels once, weighted by its count: the
    figure is sklearn's on the items themselves, to the last bit, with LABELS (a grade outside them left out as
    sklearn leaves it) and without."""
    rng = np.random.default_rng(5)
    first, second = rng.integers(0, 4, 5000), np.clip(rng.integers(0, 4, 5000) + rng.integers(-1, 2, 5000), 0, 4)
    plain = cohen_kappa_score(first, second, weights=weights)
    assert interrater.cohen_kappa(first.tolist(), second.tolist(), weights=weights) == plain
    assert interrater.cohen_kappa(first.tolist(), second.tolist(), weights=weights, labels=[0, 1, 2, 3]) == \
        cohen_kappa_score(first, second, weights=weights, labels=[0, 1, 2, 3])
    assert interrater.kappa_of_codes(first, second, weights=weights, levels=5) == \
        cohen_kappa_score(first, second, weights=weights, labels=[0, 1, 2, 3, 4])
    if weights is None:
        assert interrater.kappa_of_codes(first, second) == plain


def test_cohen_kappa_undefined_cases_are_none():
    assert interrater.cohen_kappa(["yes", "yes"], ["yes", "yes"]) is None  # one label throughout: 0/0
    assert interrater.cohen_kappa(["yes"], ["no"]) is None  # n < 2
    assert interrater.cohen_kappa([], []) is None


def test_cohen_kappa_rejects_unpaired_input():
    with pytest.raises(ValueError, match="differ in length"):
        interrater.cohen_kappa(["yes", "no"], ["yes"])


def test_agreement_rate():
    assert interrater.agreement_rate(["yes", "no", "no", "yes"], ["yes", "no", "yes", "yes"]) == pytest.approx(0.75)
    assert interrater.agreement_rate([], []) is None


def test_fleiss_kappa_by_hand_two_raters_two_items():
    # items: (yes, yes), (no, no): P_i = 1 each, P-bar = 1; p_yes = p_no = 1/2, P_e = 1/2; kappa = 1
    assert interrater.fleiss_kappa([["yes", "yes"], ["no", "no"]]) == pytest.approx(1.0)
    # items: (yes, no), (yes, no): P-bar = 0, P_e = 1/2, kappa = -1
    assert interrater.fleiss_kappa([["yes", "no"], ["yes", "no"]]) == pytest.approx(-1.0)


def test_fleiss_kappa_matches_statsmodels():
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 3, size=(40, 3))
    table, _ = aggregate_raters(rows, n_cat=3)
    assert interrater.fleiss_kappa(rows.tolist()) == pytest.approx(sm_fleiss(table, method="fleiss"))


def test_fleiss_kappa_with_differing_rater_counts_uses_the_first_modal_number_of_ratings():
    # Two ratings is the modal count; the three-rating item contributes its first two; the
    # one-rating item is left out.
    ragged = [["yes", "yes"], ["no", "no"], ["yes", "no", "yes"], ["no", "yes"], ["yes"]]
    trimmed = [["yes", "yes"], ["no", "no"], ["yes", "no"], ["no", "yes"]]
    assert interrater.fleiss_kappa(ragged) == pytest.approx(interrater.fleiss_kappa(trimmed))
    assert interrater.fleiss_kappa_items(ragged) == 4


def test_fleiss_kappa_is_not_fooled_by_a_tie_breaking_third_rater():
    # A third rater joins only where the first two disagree: the agreed items alone would give 1.0.
    ratings = [["yes", "yes"]] * 5 + [["no", "no"]] * 5 + [["yes", "no", "yes"]] * 3
    assert interrater.fleiss_kappa(ratings) < 0.6


def test_fleiss_kappa_undefined_cases_are_none():
    assert interrater.fleiss_kappa([["yes", "yes"], ["yes", "yes"]]) is None  # one label only
    assert interrater.fleiss_kappa([["yes", "no"]]) is None  # one item
    assert interrater.fleiss_kappa([["yes"], ["no"]]) is None  # nobody rated twice


def test_krippendorff_alpha_perfect_agreement_with_missing_values():
    data = [["yes", "no", None, "yes"], ["yes", "no", "no", None], [None, "no", "no", "yes"]]
    assert interrater.krippendorff_alpha(data) == pytest.approx(1.0)


# Krippendorff (2011), "Computing Krippendorff's alpha", nominal example: 4 coders, 12 units, None = not coded.
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_krippendorff_alpha_matches_library_on_krippendorffs_example():
    data = KRIPPENDORFF_EXAMPLE
    expected = krippendorff.alpha(
        reliability_data=[[np.nan if v is None else v for v in row] for row in data], level_of_measurement="nominal"
    )
    assert interrater.krippendorff_alpha(data) == pytest.approx(expected)
    assert interrater.krippendorff_alpha(data) == pytest.approx(0.743, abs=5e-4)  # the published value


def test_krippendorff_alpha_from_units_equals_the_raters_table():
    # Krippendorff's published example, then random labels with missing ratings: per-unit label lists give
    # the same alpha as the raters x units table.
    rng = np.random.default_rng(3)
    noisy = [[None if rng.random() < 0.4 else str(rng.integers(3)) for _ in range(200)] for _ in range(6)]
    for table in (KRIPPENDORFF_EXAMPLE, noisy):
        units = [[row[u] for row in table if row[u] is not None] for u in range(len(table[0]))]
        assert interrater.krippendorff_alpha_units(units) == pytest.approx(interrater.krippendorff_alpha(table),
                                                                           abs=1e-12)
    assert interrater.krippendorff_alpha_units([["yes", "yes"], ["yes"]]) is None  # one label
    assert interrater.krippendorff_alpha_units([["yes"], ["no"]]) is None  # no unit rated twice


def test_krippendorff_alpha_undefined_cases_are_none():
    assert interrater.krippendorff_alpha([["yes", "yes"]]) is None  # one rater
    assert interrater.krippendorff_alpha([["yes", "yes"], ["yes", "yes"]]) is None  # one label
    assert interrater.krippendorff_alpha([["yes", None], [None, "no"]]) is None  # no unit rated twice


def test_kendall_tau_b_by_hand():
    # pairs (1,2) and (1,3) concordant, (2,3) discordant: (2 - 1) / 3
    assert correlation.kendall_tau_b([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)


def test_kendall_tau_b_corrects_for_ties():
    x, y = [1, 2, 2, 3], [1, 2, 3, 4]
    # C = 5, D = 0, ties only in x: 1 pair; tau-b = 5 / sqrt((6 - 1) * 6)
    assert correlation.kendall_tau_b(x, y) == pytest.approx(5 / math.sqrt(30))
    assert correlation.kendall_tau_b(x, y) == pytest.approx(scipy_stats.kendalltau(x, y).statistic)


def test_spearman_and_pearson():
    x, y = [1.0, 2.0, 3.0, 4.0], [1.0, 4.0, 9.0, 16.0]
    assert correlation.spearman(x, y) == pytest.approx(1.0)
    assert correlation.pearson(x, y) == pytest.approx(scipy_stats.pearsonr(x, y).statistic)
    assert correlation.pearson(x, y) < 1.0


def test_correlations_undefined_for_constant_or_short_input():
    for func in (correlation.kendall_tau_b, correlation.spearman, correlation.pearson):
        assert func([0.5, 0.5, 0.5], [0.1, 0.2, 0.3]) is None
        assert func([0.1], [0.2]) is None


def test_mean_ci95_by_hand():
    result = uncertainty.mean_ci95([1.0, 2.0, 3.0])
    half = 4.302652729911275 / math.sqrt(3)  # t(0.975, 2) * sd 1 / sqrt(3)
    assert result["mean"] == pytest.approx(2.0)
    assert result["ci95"] == pytest.approx([2.0 - half, 2.0 + half])
    assert result["n"] == 3


def test_mean_ci95_skips_undefined_values_and_degenerates():
    assert uncertainty.mean_ci95([0.5, None])["n"] == 1
    assert uncertainty.mean_ci95([0.5, None])["ci95"] is None
    assert uncertainty.mean_ci95([]) == {"mean": None, "ci95": None, "n": 0}
    assert uncertainty.mean_ci95([0.4, 0.4])["ci95"] == pytest.approx([0.4, 0.4])


def test_bootstrap_se_of_an_accuracy_is_close_to_the_binomial_se():
    outcomes = [1] * 60 + [0] * 40
    binomial = math.sqrt(0.6 * 0.4 / 100)
    assert uncertainty.bootstrap_se(outcomes) == pytest.approx(binomial, rel=0.1)
    assert uncertainty.bootstrap_se(outcomes) == uncertainty.bootstrap_se(outcomes)  # seeded: reproducible


def test_bootstrap_se_degenerate():
    assert uncertainty.bootstrap_se([1]) is None
    assert uncertainty.bootstrap_se([1, 1, 1]) == 0.0
