"""The reports' intervals by sufficient statistics (stats.resampling) against the way they were computed before:
scipy.stats.bootstrap drawing unit indices and calling the library's statistic once per resample.

The two draw different resamples, so their intervals differ by Monte Carlo error only. The tolerance is derived from
the number of resamples R: an endpoint is the p-quantile (p = 0.025, 0.975) of R draws, whose rank is off by about
sqrt(R p (1 - p)) resamples; two independent runs differ by sqrt(2) times that. Each new endpoint must lie between the
old run's quantiles at p -/+ Z such errors (Z = 5), read off the old run's own resample values."""

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

from stats import batch_stats, correlation, interrater, resampling, retrieval, system_order, uncertainty

R = uncertainty.BOOTSTRAP_RESAMPLES
Z = 5


def _kappa(table, weights=None) -> float:
    """Cohen's kappa of a contingency table, by statsmodels."""
    return cohens_kappa(table, wt=weights, return_results=False)


def _old(n: int, statistic) -> np.ndarray:
    """The old bootstrap's resample values: scipy.stats.bootstrap over N unit indices, STATISTIC once a resample."""

    def value(idx):
        result = statistic(np.asarray(idx, dtype=np.int64))
        return np.nan if result is None else float(result)

    return scipy_stats.bootstrap((np.arange(n),), value, vectorized=False, n_resamples=R, method="percentile",
                                 random_state=np.random.default_rng(12345)).bootstrap_distribution


def _agrees(new: list[float] | None, old_values: np.ndarray) -> None:
    old_values = old_values[np.isfinite(old_values)]
    assert new is not None and old_values.size >= resampling.MIN_DEFINED * R
    for endpoint, p in zip(new, (0.025, 0.975), strict=True):
        error = Z * math.sqrt(2 * p * (1 - p) / R)
        low, high = np.quantile(old_values, [max(p - error, 0.0), min(p + error, 1.0)])
        assert low - 1e-12 <= endpoint <= high + 1e-12, (new, p, low, high)


def _labels(rng, n, flip, levels=2):
    truth = rng.integers(0, levels, size=n)
    other = np.where(rng.random(n) < flip, rng.integers(0, levels, size=n), truth)
    return list(truth), list(other)


@pytest.mark.parametrize("seed, n, topics, levels", [(1, 300, 30, 2), (2, 200, 200, 3), (3, 90, 12, 4)])
def test_kappa_and_agreement_over_clusters(seed, n, topics, levels):
    rng = np.random.default_rng(seed)
    first, second = _labels(rng, n, 0.3, levels)
    clusters = list(rng.integers(0, topics, size=n))
    new = interrater.item_agreement_intervals(first, second, clusters, levels=list(range(levels)), weighted=levels > 2)
    tables = interrater.cluster_tables(first, second, clusters, list(range(levels)))
    _agrees(new["cohen_kappa"], _old(len(tables), lambda idx: _kappa(tables[idx].sum(axis=0))))
    _agrees(new["accuracy"], _old(len(tables), lambda idx: np.trace(tables[idx].sum(axis=0)) / tables[idx].sum()))
    if levels > 2:
        _agrees(new["cohen_kappa_quadratic"], _old(len(tables), lambda idx: _kappa(
            tables[idx].sum(axis=0), weights="quadratic")))


@pytest.mark.parametrize("seed, items, raters", [(4, 400, 3), (5, 150, 2)])
def test_fleiss_and_alpha_over_items(seed, items, raters):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, size=items)
    ratings = [[int(t) if rng.random() < 0.7 else int(rng.integers(0, 3)) for _ in range(raters)] for t in truth]
    ratings += [[0]]  # an item rated once: Fleiss and alpha leave it out
    block = interrater.rater_agreement(ratings, raters=raters)
    table = interrater._fleiss_table(ratings)
    _agrees(block["fleiss_kappa_ci95"], _old(len(table), lambda idx: fleiss_kappa(table[idx])))
    counts = interrater._unit_counts(ratings)
    _agrees(block["krippendorff_alpha_ci95"], _old(len(counts), lambda idx: krippendorff.alpha(
        value_counts=counts[idx], level_of_measurement="nominal")))


def test_ordinal_and_nominal_alpha_of_two_raters_over_topics():
    rng = np.random.default_rng(6)
    first, second = _labels(rng, 240, 0.4, 4)
    clusters = list(rng.integers(0, 25, size=240))
    new = interrater.pair_alpha_intervals(first, second, clusters, levels=[0, 1, 2, 3])
    order = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    members = [np.flatnonzero(np.array([order[c] for c in clusters]) == i) for i in range(len(order))]
    a, b = np.array(first), np.array(second)
    for level in interrater.ALPHA_LEVELS:
        def alpha(idx, level=level):
            chosen = np.concatenate([members[i] for i in idx])
            return krippendorff.alpha(reliability_data=np.array([a[chosen], b[chosen]], dtype=float),
                                      value_domain=[0, 1, 2, 3], level_of_measurement=level)
        _agrees(new[f"krippendorff_alpha_{level}"], _old(len(members), alpha))


def test_correlations_between_system_orders_over_topics():
    rng = np.random.default_rng(7)
    systems, topics = 8, 40
    quality = np.linspace(0.3, 0.8, systems)[:, np.newaxis]
    counts = rng.integers(1, 4, size=(systems, topics)).astype(float)
    human = rng.binomial(counts.astype(int), quality).astype(float)
    judge = rng.binomial(counts.astype(int), np.clip(quality + rng.normal(0, 0.1, (systems, 1)), 0, 1)).astype(float)
    new = system_order.system_correlation_intervals(human, judge, counts)

    def scores(idx):
        n = counts[:, idx].sum(axis=1)
        return human[:, idx].sum(axis=1) / n, judge[:, idx].sum(axis=1) / n

    _agrees(new["kendall_tau_b"], _old(topics, lambda idx: correlation.kendall_tau_b(*scores(idx))))
    _agrees(new["spearman"], _old(topics, lambda idx: correlation.spearman(*scores(idx))))
    _agrees(new["pearson"], _old(topics, lambda idx: correlation.pearson(*scores(idx))))
    _agrees(new["mae"], _old(topics, lambda idx: float(np.mean(np.abs(np.subtract(*scores(idx)))))))


def test_a_mean_over_topics_and_a_run_mean():
    rng = np.random.default_rng(8)
    values = list(rng.normal(0.4, 0.25, size=35))
    data = np.array(values)
    _agrees(uncertainty.mean_interval(values), _old(len(data), lambda idx: data[idx].mean()))
    runs = {"a": dict(enumerate(values)), "b": {t: v + 0.1 for t, v in enumerate(values) if t % 3}}
    new = retrieval.run_mean_intervals(runs)
    _agrees(new["a"], _old(len(data), lambda idx: data[idx].mean()))
    shifted = np.array([v + 0.1 if t % 3 else np.nan for t, v in enumerate(values)])
    _agrees(new["b"], _old(len(data), lambda idx: np.nanmean(shifted[idx])))


def test_a_million_items_are_a_few_distinct_rows():
    # Two raters, yes/no, a million items each its own cluster: four distinct contingency rows, whatever the count.
    rng = np.random.default_rng(9)
    first = rng.integers(0, 2, size=1_000_000)
    second = np.where(rng.random(first.size) < 0.9, first, 1 - first)
    rows = interrater.cluster_tables(list(first[:2000]), list(second[:2000]), list(range(2000)), [0, 1]).reshape(-1, 4)
    unique, multiplicity = resampling.distinct_rows(rows)
    assert len(unique) == 4 and multiplicity.sum() == 2000
    table = np.zeros((2, 2))
    np.add.at(table, (first, second), 1)
    per_item = np.repeat(np.eye(4), table.ravel().astype(int), axis=0)  # one row per item, 1,000,000 of them
    sums = resampling.resampled_sums(per_item)
    assert sums.shape == (R, 4) and (sums.sum(axis=1) == 1_000_000).all()
    kappa = batch_stats.kappa_of_tables(sums.reshape(-1, 2, 2))
    low, high = resampling.percentile_intervals(kappa[np.newaxis])[0]
    point = _kappa(table)
    # Kappa's large-sample standard error at a million items is about 0.0004: the interval is that narrow around it.
    assert low < point < high and high - low < 0.005


def test_distinct_rows_are_numpys_rows_in_numpys_order():
    """Rows of counts, rows with halves (a unit rated three times has coincidences of 1/2), rows with negatives: the
    integer key gives the same rows, counts and order as numpy's row-wise unique, which it replaces for speed."""
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 3, size=(5000, 4)).astype(float)
    halves = rng.integers(0, 5, size=(5000, 4)) / 2
    signed = rng.integers(-2, 3, size=(5000, 3)) * 0.25
    spread = rng.integers(0, 10, size=(5000, 8)).astype(float)  # keys far more than the rows: sorted, not counted
    for rows in (counts, halves, signed, spread):
        unique, multiplicity = resampling.distinct_rows(rows)
        expected, expected_multiplicity = np.unique(rows, axis=0, return_counts=True)
        if rows is counts or rows is spread:  # counts sort in mixed radix, the last column first: the same rows
            order = np.lexsort(expected.T)
            expected, expected_multiplicity = expected[order], expected_multiplicity[order]
        assert np.array_equal(unique, expected) and np.array_equal(multiplicity, expected_multiplicity)
        classes, which = resampling.row_classes(rows)
        assert np.array_equal(classes, unique) and np.array_equal(classes[which], rows)


def test_wide_rows_are_classed_as_numpys_row_wise_unique_classes_them():
    # Rows too wide for one 62-bit key (160 one-hot columns; 40 columns of halves): several keys, the same classes in
    # the same order as np.unique(axis=0), so the draws, and the intervals, are unchanged.
    rng = np.random.default_rng(3)
    one_hot = np.zeros((3000, 160))
    one_hot[np.arange(3000), rng.integers(0, 160, 3000)] = 1
    one_hot[np.arange(3000), rng.integers(0, 160, 3000)] += 1
    halves = rng.integers(0, 3, (3000, 40)) / 2 - 0.5
    for rows in (one_hot, halves):
        assert resampling._row_key(rows) is None and resampling._row_keys(rows).shape[1] > 1
        unique, inverse = resampling.row_classes(rows)
        expected, expected_inverse = np.unique(rows, axis=0, return_inverse=True)
        assert np.array_equal(unique, expected) and np.array_equal(inverse, expected_inverse.reshape(-1))


@pytest.mark.parametrize("resamples", [1000, 4000])
@pytest.mark.parametrize("shape", ["normal", "skewed", "few values"])
def test_end_errors_match_the_spread_of_the_ends_over_streams(resamples, shape):
    """Issue 53: each interval end's Monte Carlo standard error (resampling.end_errors, read off one stream's
    resamples) is about the standard deviation of that end over independent streams: within 20% on average over 400
    streams for a continuous statistic; for one of few values (the end sits on one value in most streams and jumps
    to the next now and then) never under it by more than that, and never 0."""
    rng = np.random.default_rng(7)
    draw = {"normal": lambda: rng.normal(size=resamples), "skewed": lambda: rng.exponential(size=resamples),
            "few values": lambda: np.round(rng.normal(size=resamples) * 3) / 3}[shape]
    streams = [draw() for _ in range(400)]
    ends = np.array([np.percentile(values, resampling.ENDS) for values in streams])
    estimated = np.array([resampling.end_errors(values) for values in streams]).mean(axis=0)
    actual = ends.std(axis=0, ddof=1)
    if shape == "few values":
        assert np.all(estimated > 0) and np.all(estimated > 0.8 * actual), (estimated, actual)
    else:
        assert np.all(np.abs(estimated / actual - 1) < 0.2), (estimated, actual)


def test_a_build_records_every_interval_and_only_while_it_records():
    """percentile_intervals records (each end's error, its width) inside interval_errors_recorded only: one entry a
    defined interval, none for an undefined one, none outside."""
    values = np.vstack([np.random.default_rng(1).normal(size=1000), np.full(1000, np.nan)])
    resampling.percentile_intervals(values)
    with resampling.interval_errors_recorded() as recorded:
        low, high = resampling.percentile_intervals(values)[0]
    assert len(recorded) == 1
    assert recorded[0][2] == pytest.approx(high - low)
    assert recorded[0][:2] == resampling.end_errors(values[0])
    assert 0 < recorded[0][0] < 0.2


@pytest.mark.parametrize("width", [6, 40, 55, 130])  # 55: a key past float precision; 130: past one key
@pytest.mark.parametrize("units", [1, 2, 500])
def test_distinct_rows_from_cells_are_those_of_the_rows_written_out(units, width):
    rng = np.random.default_rng(units * width)
    cells = {(int(rng.integers(units)), int(rng.integers(width))) for _ in range(units * 2)}
    row, column = (np.array(side, dtype=np.int64) for side in zip(*sorted(cells), strict=True))
    # Zeros among them, as a judge's lost item is; counts up to 2 where the key fits them (40 columns of 0/1 fit).
    value = rng.integers(0, 3 if width < 10 else 2, size=len(row)).astype(float)
    written = np.zeros((units, width))
    written[row, column] = value
    got_rows, got_counts = resampling.distinct_rows_sparse((units, width), row, column, value)
    want_rows, want_counts = resampling.distinct_rows(written)
    assert np.array_equal(got_rows, want_rows) and np.array_equal(got_counts, want_counts)
