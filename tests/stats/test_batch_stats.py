"""stats.batch_stats against the libraries, resample by resample: each batch function must give, for every
resample, what the library's own function gives on that resample's data (to rounding), undefined where it is."""

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from stats import batch_stats

RNG = np.random.default_rng(21)


def _nan(value):
    return np.nan if value is None or not np.isfinite(value) else float(value)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_of_tables_is_scikit_learns(weights):
    tables, expected = [], []
    for _ in range(40):
        first, second = RNG.integers(0, 4, size=30), RNG.integers(0, 4, size=30)
        table = np.zeros((4, 4))
        np.add.at(table, (first, second), 1)
        tables.append(table)
        expected.append(cohen_kappa_score(first, second, weights=weights, labels=[0, 1, 2, 3]))
    constant = np.zeros((4, 4))
    constant[1, 1] = 30  # one label throughout: 0/0, undefined
    got = batch_stats.kappa_of_tables(np.array([*tables, constant]), weights=weights)
    assert got[:-1] == pytest.approx(expected, abs=1e-12) and np.isnan(got[-1])
    assert batch_stats.agreement_of_tables(np.array(tables)) == pytest.approx(
        [np.trace(t) / t.sum() for t in tables], abs=1e-12)


def test_fleiss_of_sums_is_statsmodels():
    tables = [RNG.multinomial(3, [0.5, 0.3, 0.2], size=25).astype(float) for _ in range(30)]
    sums = np.array([batch_stats.fleiss_rows(t).sum(axis=0) for t in tables])
    assert batch_stats.fleiss_of_sums(sums, raters=3) == pytest.approx([fleiss_kappa(t) for t in tables], abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_alpha_of_coincidences_is_the_krippendorff_packages(level):
    got, expected = [], []
    for _ in range(30):
        counts = RNG.multinomial(3, [0.4, 0.1, 0.3, 0.2], size=20).astype(float)
        counts[0] = [1, 0, 0, 0]  # a unit rated once pairs nothing
        got.append(batch_stats.coincidence_rows(counts).sum(axis=0).reshape(4, 4))
        expected.append(krippendorff.alpha(value_counts=counts, value_domain=[0, 1, 2, 3], level_of_measurement=level))
    assert batch_stats.alpha_of_coincidences(np.array(got), level=level) == pytest.approx(expected, abs=1e-12)


def test_kendall_tau_b_is_scipys_with_ties_and_systems_left_out():
    x = RNG.integers(0, 4, size=(60, 7)).astype(float)
    y = RNG.integers(0, 4, size=(60, 7)).astype(float)
    x[3, 2] = y[5, 0] = y[5, 6] = np.nan  # systems a resample leaves out
    x[7] = 1.0  # a constant side: undefined
    expected = []
    for a, b in zip(x, y, strict=True):
        keep = np.isfinite(a) & np.isfinite(b)
        expected.append(_nan(scipy_stats.kendalltau(a[keep], b[keep], variant="b").statistic)
                        if len(set(a[keep])) > 1 and len(set(b[keep])) > 1 else np.nan)
    assert batch_stats.kendall_tau_b(x, y) == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_spearman_and_pearson_are_scipys():
    x, y = RNG.normal(size=(20, 9)), RNG.normal(size=(20, 9))
    x[:, 3] = x[:, 4]  # a tie
    assert batch_stats.spearman(x, y) == pytest.approx(
        [scipy_stats.spearmanr(a, b).statistic for a, b in zip(x, y, strict=True)], abs=1e-12)
    assert batch_stats.pearson(x, y) == pytest.approx(
        [scipy_stats.pearsonr(a, b).statistic for a, b in zip(x, y, strict=True)], abs=1e-12)


def test_bradley_terry_of_matrices_is_choixs():
    import choix

    rng = np.random.default_rng(4)
    matrices = rng.integers(0, 6, (200, 5, 5)).astype(float)
    matrices[:, range(5), range(5)] = 0
    matrices[7] = 0  # a resample without a comparison
    matrices[9, 2, :] = 0  # a system that never won
    start = choix.ilsr_pairwise_dense(matrices.sum(axis=0), alpha=0.01)
    batch = batch_stats.bradley_terry_of_matrices(matrices, alpha=0.01, initial=start)
    for n, matrix in enumerate(matrices):
        if n == 7:
            assert np.isnan(batch[n]).all()
            continue
        one = choix.ilsr_pairwise_dense(matrix, alpha=0.01, initial_params=start)
        assert np.allclose(batch[n], one - one.mean(), atol=1e-7), n
