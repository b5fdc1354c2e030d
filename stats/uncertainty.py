"""How sure a figure is: the bootstrap's fixed resamples and seed, when an interval is shown or why not, means with
t-based or bootstrap intervals, clusters of units, and the summary of a per-topic statistic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence

import numpy as np
from scipy import stats as scipy_stats

from stats import resampling
from stats.checks import finite
from stats.quiet import quiet

# Intervals: percentile bootstrap with a fixed, reported number of resamples and seed (stats.resampling: the
# resamples as weighted sums of the units' sufficient statistics, all at once).
BOOTSTRAP_RESAMPLES = resampling.RESAMPLES
BOOTSTRAP_SEED = resampling.SEED
BOOTSTRAP_MIN_DEFINED = resampling.MIN_DEFINED


def cluster_index(clusters: Sequence[Hashable] | np.ndarray) -> tuple[np.ndarray, int]:
    """(each unit's cluster as 0, 1, ... in the clusters' first-seen order, how many clusters)."""
    if len(clusters) and (type(clusters[0]) is int or isinstance(clusters, np.ndarray)):
        ids = np.asarray(clusters)  # topic or item ids: numpy's sort, not a dict look-up per unit
        if ids.dtype.kind == "i":
            distinct, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
            rank = np.empty(len(distinct), dtype=np.int64)
            rank[np.argsort(first, kind="stable")] = np.arange(len(distinct))
            return rank[inverse.reshape(-1)], len(distinct)
    order: dict[Hashable, int] = {}
    index = np.fromiter((order.setdefault(cluster, len(order)) for cluster in clusters), dtype=np.int64,
                        count=len(clusters))
    return index, len(order)


def cluster_sums(rows: np.ndarray, clusters: Sequence[Hashable]) -> np.ndarray:
    """ROWS (one per unit) summed per cluster: one row per cluster, the clusters in their first-seen order."""
    index, count = cluster_index(clusters)
    sums = np.zeros((count, rows.shape[1]))
    np.add.at(sums, index, rows)
    return sums


def mean_ci95(values: Sequence[float | None]) -> dict:
    """Mean with a two-sided t-based 95% confidence interval: {"mean", "ci95": [lo, hi], "n"}.

    None values (undefined per-topic statistics) are left out and not counted in n. The mean is
    None for no values; the interval is None for fewer than two values (no variance estimate).
    When all values are equal the interval collapses to [mean, mean]. The interval is scipy's
    `t.interval` with n - 1 degrees of freedom around the mean, scaled by `scipy.stats.sem`.
    """
    data = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    n = len(data)
    if n == 0:
        return {"mean": None, "ci95": None, "n": 0}
    mean = float(np.mean(data))
    if n < 2:
        return {"mean": mean, "ci95": None, "n": n}
    sem = float(scipy_stats.sem(data))
    if sem == 0.0:  # scipy's t with scale 0 is undefined; every value equal: no spread at all
        return {"mean": mean, "ci95": [mean, mean], "n": n}
    low, high = scipy_stats.t.interval(0.95, n - 1, loc=mean, scale=sem)
    return {"mean": mean, "ci95": [float(low), float(high)], "n": n}


def mean_defined(values: Sequence[float | None]) -> float | None:
    """Plain mean of the values that are defined (not None / NaN); None when none is."""
    data = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    return float(np.mean(data)) if data else None


def bootstrap_se(
    values: Sequence[float], *, n_resamples: int = 2000, seed: int = 0
) -> float | None:
    """Bootstrap standard error of the mean (scipy.stats.bootstrap, percentile resampling, fixed seed).

    Used for an accuracy over 0/1 outcomes (AIS accuracy per system). None for fewer than two values;
    0.0 when all values are equal (every resample has the same mean).
    """
    data = np.asarray([float(v) for v in values], dtype=float)
    if data.size < 2:
        return None
    if np.all(data == data[0]):
        return 0.0
    means = resampling.resampled_sums(data[:, np.newaxis], resamples=n_resamples, seed=seed)[:, 0] / data.size
    return finite(np.std(means, ddof=1))


def spread(values: Sequence[float | None]) -> dict:
    """{"mean", "sd" (sample, n - 1), "min", "max", "n"} of the defined values; None fields when undefined."""
    data = np.asarray([float(v) for v in values if v is not None and math.isfinite(float(v))], dtype=float)
    if data.size == 0:
        return {"mean": None, "sd": None, "min": None, "max": None, "n": 0}
    return {
        "mean": float(data.mean()),
        "sd": float(data.std(ddof=1)) if data.size > 1 else None,
        "min": float(data.min()),
        "max": float(data.max()),
        "n": int(data.size),
    }


def bootstrap_method(over: str, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> str:
    """The words a report prints beside a bootstrap interval: what was resampled, how often, with which seed."""
    return f"95% percentile bootstrap over {over} ({resamples} resamples, seed {seed})"


# Fewer units than this make a percentile bootstrap a handful of distinct resamples (3 units: 10 of them, 4: 35),
# whose 2.5th and 97.5th percentiles describe the data's few arrangements, not the statistic's uncertainty.
MIN_RESAMPLE_UNITS = 4
# Fewer systems than this give a correlation between system orders so few values (3 systems: tau-b is -1, -1/3,
# 1/3 or 1) that an interval of it says nothing.
MIN_INTERVAL_SYSTEMS = 4


def interval_checked(interval: list[float] | None, *, value: float | None, units: int, noun: str,
                     minimum: int = MIN_RESAMPLE_UNITS) -> tuple[list[float] | None, str | None]:
    """(the interval to show, or None; why there is none): the one rule for an interval that degenerates.

    UNITS are what the bootstrap resampled (NOUN names them: "topics", "items"); fewer than MINIMUM, or resamples
    that all give one value (a [0.412, 0.412] interval), give no interval and a note saying so, never a zero-width
    interval that reads as certainty. A VALUE that is undefined has neither (its own why says why)."""
    if value is None:
        return None, None
    if units < minimum:
        return None, f"too few {noun} to resample: {units} (an interval needs at least {minimum})"
    if interval is None:
        return None, "too few resamples with a defined value for an interval"
    # Equal up to rounding: a mean over resampled topics can differ from itself in its last bits ([0.726, 0.726]).
    if math.isclose(interval[0], interval[1], rel_tol=1e-9, abs_tol=1e-12):
        return None, f"all resamples equal ({interval[0]:.3f}): no spread to show"
    return interval, None


def put_interval(block: dict, key: str, interval: list[float] | None, *, units: int, noun: str,
                 minimum: int = MIN_RESAMPLE_UNITS) -> None:
    """Set BLOCK[KEY_ci95] and BLOCK[KEY_ci_note] for the statistic BLOCK[KEY] by interval_checked, and
    BLOCK[KEY_ci_over] to NOUN: what the interval resampled, which the page prints beside it ("over topics")."""
    block[f"{key}_ci95"], block[f"{key}_ci_note"] = interval_checked(interval, value=block[key], units=units,
                                                                     noun=noun, minimum=minimum)
    block[f"{key}_ci_over"] = noun


def put_order_intervals(block: dict, intervals: dict, keys: Sequence[str], *, systems: int, topics: int,
                        systems_word: str = "systems", topics_word: str = "topics") -> None:
    """put_interval for each of KEYS, statistics between two orders of SYSTEMS systems whose intervals resample
    TOPICS topics: fewer than MIN_INTERVAL_SYSTEMS systems give no interval either, and say so."""
    for key in keys:
        put_interval(block, key, intervals.get(key), units=topics, noun=topics_word)
        if block[key] is not None and systems < MIN_INTERVAL_SYSTEMS:
            block[f"{key}_ci95"] = None
            block[f"{key}_ci_note"] = (f"too few {systems_word} to resample: {systems} (an interval needs at least "
                                       f"{MIN_INTERVAL_SYSTEMS})")


def bootstrap_interval(n: int, statistic: Callable[[np.ndarray], float | None], *,
                       resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% percentile interval of a STATISTIC that is not a function of sums (a median: stats.stats_arms), over N
    units resampled with replacement: STATISTIC gets the indices of one resample and returns its value or None,
    once per resample (scipy.stats.bootstrap draws them, seeded). Statistics of sums resample with
    stats.resampling, all resamples at once. None for N < 2 or too few defined resamples."""
    if n < 2:
        return None

    def value(indices: np.ndarray) -> float:
        result = statistic(np.asarray(indices, dtype=np.int64))
        return np.nan if result is None else float(result)

    with quiet():
        result = scipy_stats.bootstrap((np.arange(n),), value, vectorized=False, n_resamples=resamples,
                                       method="percentile", random_state=np.random.default_rng(seed))
    return resampling.percentile_intervals(result.bootstrap_distribution)[0]


def mean_interval(values: Sequence[float | None], *, resamples: int = BOOTSTRAP_RESAMPLES,
                  seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% percentile bootstrap interval of the mean of the defined VALUES (per-topic statistics, resampled by
    topic): within [min, max] of the values, so within the statistic's range."""
    data = np.asarray([float(v) for v in values if v is not None and math.isfinite(float(v))], dtype=float)
    return resampling.sum_bootstrap(data[:, np.newaxis], lambda sums: sums[:, 0] / data.size, resamples=resamples,
                                    seed=seed)[0]


def cluster_mean_interval(clusters: Sequence[Sequence[float | None]], *, resamples: int = BOOTSTRAP_RESAMPLES,
                          seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% percentile bootstrap interval of the mean of every defined value, resampling CLUSTERS (each topic's
    values) whole: several answers of one topic are not independent, so resampling them one by one would give too
    narrow an interval. A resample's mean is its values' sum over their count."""
    sums, counts = [], []
    for values in clusters:
        data = [float(v) for v in values if v is not None and math.isfinite(float(v))]
        if data:
            sums.append(sum(data))
            counts.append(len(data))
    return resampling.sum_bootstrap(np.column_stack([sums, counts]) if sums else np.zeros((0, 2)),
                                    lambda drawn: drawn[:, 0] / drawn[:, 1], resamples=resamples, seed=seed)[0]


SMALL_TOPICS = 10  # per-topic means over fewer topics are flagged as small samples


def topic_mean_summary(values: Sequence[float | None]) -> dict:
    """A mean of per-topic statistics as the reports give it: mean_ci95's mean, t-based "ci95" (the interval the
    published studies report, kept so their figures reproduce) and n, plus "bootstrap_ci95", a percentile
    bootstrap over topics that stays within the statistic's range (the one the pages show; None with "ci_note"
    saying why when it degenerates, interval_checked), its method, and whether n is a small sample."""
    summary = mean_ci95(values)
    summary["bootstrap_ci95"], summary["ci_note"] = interval_checked(
        mean_interval(values) if summary["n"] >= 2 else None, value=summary["mean"], units=summary["n"], noun="topics")
    summary["ci_method"] = bootstrap_method("topics")
    summary["ci_over"] = "topics"
    summary["small"] = 0 < summary["n"] < SMALL_TOPICS
    return summary
