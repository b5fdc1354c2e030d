"""Agreement statistics as pure functions: lists in, numbers out, no Django.

Every function returns None where its statistic is undefined (too few observations, constant
input, no agreement possible by chance) instead of raising or returning NaN, so the report can
carry `null` and say why. The arithmetic is the libraries' (DESIGN.md §4): scikit-learn, scipy,
statsmodels and krippendorff; this module only shapes inputs and catches the degenerate cases.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Hashable, Sequence
from operator import eq

import ir_measures
import krippendorff
import numpy as np
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as _statsmodels_fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

from agreement import batch_stats, resampling
from agreement import ratings as columns
from agreement.compatibility import COMPAT_P, compatibility_per_topic


# Intervals: percentile bootstrap with a fixed, reported number of resamples and seed (agreement.resampling: the
# resamples as weighted sums of the units' sufficient statistics, all at once).
BOOTSTRAP_RESAMPLES = resampling.RESAMPLES
BOOTSTRAP_SEED = resampling.SEED
BOOTSTRAP_MIN_DEFINED = resampling.MIN_DEFINED


def _finite(value) -> float | None:
    """A float, or None for NaN / infinity (what the libraries return for undefined statistics)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _paired(a: Sequence, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], *, weights: str | None = None,
                labels: Sequence[Hashable] | None = None) -> float | None:
    """Cohen's kappa between two raters' labels of the same items (sklearn).

    `weights` is None (nominal), "linear" or "quadratic" (ordinal labels). With weights, pass every
    level in LABELS, in order (e.g. [0, 1, 2]): sklearn weighs disagreements by the distance between the
    labels' positions in that list, so a data set without grade 1 would otherwise count 0 vs 2 as one step.
    None when fewer than two items, or when chance agreement is total (both raters gave one and the same
    label throughout), where kappa is 0/0.
    """
    _paired(a, b)
    if len(a) < 2:
        return None
    seen = set(a) | set(b)
    if len(seen) < 2:
        return None
    # sklearn sorts and compares the labels themselves; integer codes (in LABELS' order when given) give the
    # same kappa, and on a million string labels in a fraction of the time.
    levels = list(labels) if labels is not None else sorted_as_sklearn(seen)
    code = dict.fromkeys(seen, -1)  # a label outside LABELS: -1, which sklearn leaves out as it would the label
    code.update((label, i) for i, label in enumerate(levels))
    left = np.fromiter(map(code.__getitem__, a), dtype=np.int64, count=len(a))
    right = np.fromiter(map(code.__getitem__, b), dtype=np.int64, count=len(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(cohen_kappa_score(left, right, weights=weights,
                                         labels=list(range(len(levels))) if labels is not None else None))


def sorted_as_sklearn(labels: set) -> list:
    try:
        return sorted(labels)
    except TypeError:  # mixed types: sklearn refuses them too; any fixed order keeps kappa unweighted-equal
        return sorted(labels, key=str)


WILSON = "95% Wilson interval (statsmodels proportion_confint)"


def share_with_interval(agree: int, n: int) -> dict:
    """{"share", "share_ci95"}: AGREE of N as a share with its 95% Wilson interval (WILSON); None for n = 0."""
    if n == 0:
        return {"share": None, "share_ci95": None}
    low, high = proportion_confint(agree, n, alpha=0.05, method="wilson")
    return {"share": agree / n, "share_ci95": [float(low), float(high)]}


def agreement_rate(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Share of items on which the two raters gave the same label (raw accuracy); None for no items."""
    _paired(a, b)
    if not a:
        return None
    return sum(map(eq, a, b)) / len(a)


def _fleiss_table(ratings: Sequence[Sequence[Hashable]]) -> np.ndarray | None:
    """The items x categories count table fleiss_kappa reads (see there for which ratings count), or None."""
    group, label, labels = columns.rows_coded(ratings)
    return columns.fleiss_table(group, label, labels=len(labels))[0]


def _fleiss_of_table(table: np.ndarray) -> float | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(_statsmodels_fleiss_kappa(table, method="fleiss"))


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' kappa among raters (statsmodels), from one list of labels per item.

    Fleiss' kappa assumes the same number m of ratings on every item. With differing numbers:
    m is the modal number of ratings per item (the larger on a tie); items with fewer than m
    ratings are left out, and items with more contribute only their FIRST m ratings, so the
    caller orders each item's labels by preference (the report puts the most prolific annotators
    first). Why not keep only the items with exactly m ratings: a tie-breaking extra rater who is
    called in only on disagreements (as in NQ301, where annotator3 rates the items annotators 1
    and 2 disagree on) would leave exactly the agreed items, and kappa 1.0. None when fewer than
    two items remain or every rating is the same label (chance agreement 1, kappa 0/0).
    """
    table = _fleiss_table(ratings)
    return None if table is None else _fleiss_of_table(table)


def fleiss_kappa_with_interval(ratings: Sequence[Sequence[Hashable]], *, resamples: int = 1000,
                               seed: int = 0) -> tuple[float | None, list[float] | None]:
    """(fleiss_kappa, its 95% percentile bootstrap interval resampling the items it uses), from one count table."""
    return _fleiss_with_interval(_fleiss_table(ratings), resamples=resamples, seed=seed)


def _fleiss_with_interval(table: np.ndarray | None, *, resamples: int,
                          seed: int) -> tuple[float | None, list[float] | None]:
    value = None if table is None else _fleiss_of_table(table)
    if value is None:
        return None, None
    raters = int(table.sum(axis=1).max())
    return value, resampling.sum_bootstrap(batch_stats.fleiss_rows(table),
                                           lambda sums: batch_stats.fleiss_of_sums(sums, raters=raters),
                                           resamples=resamples, seed=seed)[0]


def fleiss_kappa_interval(ratings: Sequence[Sequence[Hashable]], *, resamples: int = 1000,
                          seed: int = 0) -> list[float] | None:
    """95% percentile bootstrap interval of fleiss_kappa, resampling the items it uses (bootstrap_interval)."""
    return fleiss_kappa_with_interval(ratings, resamples=resamples, seed=seed)[1]


def fleiss_kappa_items(ratings: Sequence[Sequence[Hashable]]) -> int:
    """How many items `fleiss_kappa` uses for these ratings (those with at least the modal number of ratings)."""
    group, label, labels = columns.rows_coded(ratings)
    return columns.fleiss_table(group, label, labels=len(labels))[1]


def krippendorff_alpha(reliability: Sequence[Sequence[Hashable | None]]) -> float | None:
    """Krippendorff's alpha, nominal level (krippendorff package).

    `reliability` is one row per rater, one column per unit; None marks a unit the rater did not
    rate (missing values are allowed, unlike Fleiss). None when there are fewer than two raters,
    no unit with two ratings, or only one label in the data.
    """
    if len(reliability) < 2:
        return None
    width = {len(row) for row in reliability}
    if len(width) != 1:
        raise ValueError("every rater's row must have one entry per unit")
    labels = sorted({v for row in reliability for v in row if v is not None}, key=str)
    if len(labels) < 2:
        return None
    index = {label: float(i) for i, label in enumerate(labels)}
    data = np.array([[np.nan if v is None else index[v] for v in row] for row in reliability], dtype=float)
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if not pairable.any():
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def _unit_counts(ratings: Sequence[Sequence[Hashable]]) -> np.ndarray | None:
    """Units x labels counts of the units rated at least twice (what alpha reads), or None when undefined."""
    group, label, labels = columns.rows_coded(ratings)
    return columns.alpha_counts(group, label, labels=len(labels))[0]


def _alpha_of_counts(counts: np.ndarray) -> float | None:
    if np.count_nonzero(counts.sum(axis=0)) < 2:
        return None  # one label throughout: alpha is 0/0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))


def krippendorff_alpha_units(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Krippendorff's alpha, nominal level, from one list of labels per unit (whoever gave them).

    The same alpha as `krippendorff_alpha` on the raters x units table, computed from each unit's label
    counts (the krippendorff package's value_counts): a campaign's units x labels, not raters x units,
    so twenty annotators over a million units need no twenty-million-cell table.
    """
    counts = _unit_counts(ratings)
    return None if counts is None else _alpha_of_counts(counts)


def krippendorff_alpha_with_interval(ratings: Sequence[Sequence[Hashable]], *, resamples: int = 1000,
                                     seed: int = 0) -> tuple[float | None, list[float] | None]:
    """(krippendorff_alpha_units, its 95% percentile bootstrap interval resampling the units rated twice or more),
    from one units x labels count table."""
    return _alpha_with_interval(_unit_counts(ratings), resamples=resamples, seed=seed)


def _alpha_with_interval(counts: np.ndarray | None, *, resamples: int,
                         seed: int) -> tuple[float | None, list[float] | None]:
    value = None if counts is None else _alpha_of_counts(counts)
    if value is None:
        return None, None
    return value, alpha_interval(batch_stats.coincidence_rows(counts), values=counts.shape[1], level="nominal",
                                 resamples=resamples, seed=seed)


def alpha_interval(rows: np.ndarray, *, values: int, level: str, resamples: int = BOOTSTRAP_RESAMPLES,
                   seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% percentile bootstrap interval of Krippendorff's alpha at LEVEL over VALUES ordered values, resampling the
    units whose flattened coincidence matrices are ROWS (batch_stats.coincidence_rows; a cluster's row is its units'
    sum)."""
    return resampling.sum_bootstrap(
        rows, lambda sums: batch_stats.alpha_of_coincidences(sums.reshape(-1, values, values), level=level),
        resamples=resamples, seed=seed)[0]


def krippendorff_alpha_interval(ratings: Sequence[Sequence[Hashable]], *, resamples: int = 1000,
                                seed: int = 0) -> list[float] | None:
    """95% percentile bootstrap interval of krippendorff_alpha_units, resampling the units rated twice or more."""
    return krippendorff_alpha_with_interval(ratings, resamples=resamples, seed=seed)[1]


def krippendorff_alpha_items(ratings: Sequence[Sequence[Hashable]]) -> int:
    """How many units Krippendorff's alpha reads (and its bootstrap resamples): those rated at least twice."""
    return sum(1 for labels in ratings if len(labels) >= 2)


def rater_agreement(ratings: Sequence[Sequence[Hashable]], *, raters: int, resamples: int = 1000,
                    seed: int = 0) -> dict:
    """Fleiss' kappa and Krippendorff's alpha (nominal) among RATERS raters, from one list of labels per item (see
    fleiss_kappa for their order), each with its n (fleiss_items, krippendorff_alpha_items: the items it reads)
    and its 95% percentile bootstrap interval over those items, or None and a note when it degenerates
    (interval_checked). Every report type's block on its raters is this."""
    group, label, labels = columns.rows_coded(ratings)
    return rater_agreement_columns(group, label, labels=len(labels), raters=raters, resamples=resamples, seed=seed)


def rater_agreement_columns(group: np.ndarray, label: np.ndarray, *, labels: int, raters: int,
                            resamples: int = 1000, seed: int = 0) -> dict:
    """rater_agreement from the ratings as columns (agreement.ratings): each rating's item index (an item's ratings
    contiguous, in the order Fleiss' kappa takes them) and its label's code among LABELS labels sorted as text."""
    table, fleiss_items = columns.fleiss_table(group, label, labels=labels)
    counts, alpha_items = columns.alpha_counts(group, label, labels=labels)
    fleiss, fleiss_ci95 = _fleiss_with_interval(table, resamples=resamples, seed=seed)
    alpha, alpha_ci95 = _alpha_with_interval(counts, resamples=resamples, seed=seed)
    block = {"raters": raters, "fleiss_kappa": fleiss, "fleiss_items": fleiss_items,
             "krippendorff_alpha": alpha, "krippendorff_alpha_items": alpha_items}
    put_interval(block, "fleiss_kappa", fleiss_ci95, units=fleiss_items, noun="items")
    put_interval(block, "krippendorff_alpha", alpha_ci95, units=alpha_items, noun="items")
    return block


def rank_alpha(topics: Sequence[Sequence[Sequence[int]]], *, raters: int, resamples: int = 1000,
               seed: int = 0) -> dict:
    """Krippendorff's alpha, ordinal level (krippendorff package), among annotators' rankings: TOPICS[t][c] holds
    the rank positions (tie-group index, best 0) the annotators gave candidate c of topic t. A candidate ranked
    twice or more is a unit; n is those units (krippendorff_alpha_items) over their topics, and the 95% interval a
    percentile bootstrap over topics (a topic's candidates are ranked together, not independently), or None and
    why (interval_checked). Fleiss' kappa has no counterpart here: rank positions are ordered, not names."""
    rows, cluster = [], []
    for t, topic in enumerate(topics):
        for unit in topic:
            if len(unit) >= 2:
                rows.append(unit)
                cluster.append(t)
    levels = sorted({value for unit in rows for value in unit})
    block: dict = {"raters": raters, "krippendorff_alpha_items": len(rows), "topics": len(set(cluster)),
                   "krippendorff_alpha_ordinal": None}
    interval = None
    if rows and len(levels) >= 2:
        index = {level: i for i, level in enumerate(levels)}
        counts = np.zeros((len(rows), len(levels)))
        for row, unit in enumerate(rows):
            for value in unit:
                counts[row, index[value]] += 1
        block["krippendorff_alpha_ordinal"] = _alpha_of_value_counts(counts, levels, "ordinal")
        interval = alpha_interval(_cluster_sums(batch_stats.coincidence_rows(counts), cluster),
                                  values=len(levels), level="ordinal", resamples=resamples, seed=seed)
    put_interval(block, "krippendorff_alpha_ordinal", interval, units=block["topics"], noun="topics")
    return block


ALPHA_LEVELS = ("ordinal", "nominal")


def krippendorff_alpha_pair(first: Sequence[float], second: Sequence[float], *, levels: Sequence[float],
                            level: str = "nominal") -> float | None:
    """Krippendorff's alpha between two raters who rated the same items (krippendorff package), at LEVEL "nominal"
    or "ordinal" over the ordered grades LEVELS (its value_domain: the ordinal distance between two grades counts
    how often the grades between them were given, so a grade nobody gave still sits on the scale).

    None for fewer than two items or a single grade throughout (alpha is 0/0).
    """
    _paired(first, second)
    if len(first) < 2 or len(set(first) | set(second)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(krippendorff.alpha(reliability_data=np.array([first, second], dtype=float),
                                          value_domain=list(levels), level_of_measurement=level))


def _alpha_of_value_counts(counts: np.ndarray, levels: Sequence[float], level: str) -> float | None:
    if counts.shape[0] < 2 or np.count_nonzero(counts.sum(axis=0)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(krippendorff.alpha(value_counts=counts, value_domain=list(levels), level_of_measurement=level))


def pair_alpha_intervals(
    first: Sequence[float], second: Sequence[float], clusters: Sequence[Hashable], *, levels: Sequence[float],
    resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
) -> dict[str, list[float] | None]:
    """Intervals of krippendorff_alpha_pair, ordinal and nominal ({"krippendorff_alpha_ordinal", "..._nominal"}),
    by a bootstrap over CLUSTERS (each item's topic), drawn as item_agreement_intervals draws them (same seed, same
    clusters: the same resamples).

    A cluster's sufficient statistic is its items' summed coincidence matrix; a resample's alpha is that of the drawn
    clusters' sum (agreement.resampling, agreement.batch_stats).
    """
    keys = [f"krippendorff_alpha_{level}" for level in ALPHA_LEVELS]
    _paired(first, second)
    _paired(first, clusters)
    if len(first) < 2:
        return {key: None for key in keys}
    counts = np.zeros((len(first), len(levels)))
    code = {grade: i for i, grade in enumerate(levels)}
    for row, (a, b) in enumerate(zip(first, second, strict=True)):
        counts[row, code[a]] += 1
        counts[row, code[b]] += 1
    rows = _cluster_sums(batch_stats.coincidence_rows(counts), clusters)
    return {key: alpha_interval(rows, values=len(levels), level=level, resamples=resamples, seed=seed)
            for key, level in zip(keys, ALPHA_LEVELS, strict=True)}


def _cluster_index(clusters: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    """(each unit's cluster as 0, 1, ... in the clusters' first-seen order, how many clusters)."""
    if len(clusters) and type(clusters[0]) is int:  # topic or item ids: numpy's sort, not a dict look-up per unit
        ids = np.array(clusters)
        if ids.dtype.kind == "i":
            distinct, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
            rank = np.empty(len(distinct), dtype=np.int64)
            rank[np.argsort(first, kind="stable")] = np.arange(len(distinct))
            return rank[inverse.reshape(-1)], len(distinct)
    order: dict[Hashable, int] = {}
    index = np.fromiter((order.setdefault(cluster, len(order)) for cluster in clusters), dtype=np.int64,
                        count=len(clusters))
    return index, len(order)


def _cluster_sums(rows: np.ndarray, clusters: Sequence[Hashable]) -> np.ndarray:
    """ROWS (one per unit) summed per cluster: one row per cluster, the clusters in their first-seen order."""
    index, count = _cluster_index(clusters)
    sums = np.zeros((count, rows.shape[1]))
    np.add.at(sums, index, rows)
    return sums


def _correlation(func, x: Sequence[float], y: Sequence[float]) -> float | None:
    _paired(x, y)
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _finite(func(list(x), list(y)).statistic)


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b (ties in either ranking corrected for; scipy.stats.kendalltau). None if constant or n < 2."""
    return _correlation(lambda a, b: scipy_stats.kendalltau(a, b, variant="b"), x, y)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho (scipy.stats.spearmanr). None if either input is constant or n < 2."""
    return _correlation(scipy_stats.spearmanr, x, y)


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r (scipy.stats.pearsonr). None if either input is constant or n < 2."""
    return _correlation(scipy_stats.pearsonr, x, y)


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


# --- Rankings (answer_ranking): a human ranking is a list of tie groups, best first ---


def tie_group_positions(groups: Sequence[Sequence[Hashable]]) -> dict[Hashable, int]:
    """{candidate: index of its tie group}; 0 is the best group, tied candidates share an index."""
    return {candidate: index for index, group in enumerate(groups) for candidate in group}


def ranking_score_tau_b(
    groups: Sequence[Sequence[Hashable]],
    scores: dict[Hashable, float],
    *,
    candidates: set | None = None,
) -> float | None:
    """Kendall's tau-b between a human ranking (tie groups, best first) and a judge's scores (higher = better).

    Over the candidates that are both ranked and scored (and in CANDIDATES when given, e.g. only the
    answers). Ties in the human ranking (one group) and in the scores are corrected for by the
    tau-b variant. None with fewer than two such candidates, or when either side is constant.
    """
    positions = tie_group_positions(groups)
    shared = sorted(
        (c for c in positions if c in scores and scores[c] is not None and (candidates is None or c in candidates)),
        key=str,
    )
    # A better human position is a smaller index; negate it so both sides grow with preference.
    return kendall_tau_b([-positions[c] for c in shared], [float(scores[c]) for c in shared])


def ranking_ranking_tau_b(
    a: Sequence[Sequence[Hashable]],
    b: Sequence[Sequence[Hashable]],
    *,
    candidates: set | None = None,
) -> float | None:
    """Kendall's tau-b between two human rankings given as tie groups, over the candidates both rank."""
    positions_b = tie_group_positions(b)
    return ranking_score_tau_b(a, {c: -p for c, p in positions_b.items()}, candidates=candidates)


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
    return _finite(np.std(means, ddof=1))


# --- NRP (answer_ranking): where a generated answer lands among the topic's documents ---


def normalised_rank_position(answer_score: float, document_scores: Sequence[float], *,
                             plus_one: bool = False) -> float | None:
    """NRP = 1 - r / |D| (Heineking et al., ECIR 2025), r = the answer's zero-based position among the documents;
    1 - r / (|D| + 1) with PLUS_ONE, as the study's released code computes it (option nrp_rule).

    The answer is ranked together with the documents D by score (higher = better); r counts the
    documents scored strictly higher, so a tie with a document goes in the answer's favour. 1 means
    above every document, 0 below all of them (under the paper's rule). None without documents.
    """
    if not document_scores:
        return None
    above = int(np.sum(np.asarray(document_scores, dtype=float) > float(answer_score)))
    return 1.0 - above / (len(document_scores) + (1 if plus_one else 0))


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


# --- IR measures of runs (graded relevance): trec_eval's definitions through ir_measures / pytrec_eval ---

# Report key -> the ir_measures measure it is; "{rel}" stands for the lowest relevant grade (the binary measures:
# trec_eval's -l, 1 by default on a 0/1/2 scale, 2 on TREC's 0-3). nDCG uses the grades as gains.
IR_MEASURES = {"ndcg_cut_10": "nDCG@10", "map": "AP(rel={rel})", "p_10": "P(rel={rel})@10"}
# What a TREC Deep Learning or RAG organiser reports beside those: deeper nDCG, recall, and Judged@10, the share of a
# run's first 10 documents (of those it ranks, if fewer) that have a grade in the qrels, where holes in a pool show.
TRACK_MEASURES = {"ndcg_cut_20": "nDCG@20", "ndcg_cut_100": "nDCG@100", "recall_100": "R(rel={rel})@100",
                  "recall_1000": "R(rel={rel})@1000", "judged_10": "Judged@10"}
# Clarke et al.'s compatibility, as its authors' script computes it (agreement.compatibility; ir_measures' Compat
# gives other numbers), with the persistence the caller gives.
COMPAT = "compat"
RUN_MEASURES = (*IR_MEASURES, *TRACK_MEASURES, COMPAT)  # every measure run_measures knows, in the reports' order
# trec_eval's names of the measures it shares with RUN_MEASURES. Its relevance level (-l) is not in its output: a
# trec_eval leaderboard is read at the campaign's relevant_from, as is an ir_measures name without `rel=`.
TREC_EVAL_NAMES = {"ndcg_cut_10": "ndcg_cut_10", "map": "map", "p_10": "P_10", "ndcg_cut_20": "ndcg_cut_20",
                   "ndcg_cut_100": "ndcg_cut_100", "recall_100": "recall_100", "recall_1000": "recall_1000"}
LEADERBOARD_ALL = "all"  # a leaderboard line's topic for the run's mean over topics (TREC AutoJudge)


def leaderboard_names(*, relevant_from: int, compat_p: float = COMPAT_P) -> dict[str, str]:
    """Report key -> the measure's name as ir_measures writes it (nDCG@10, AP(rel=2), P(rel=2)@10, R(rel=2)@100,
    Judged@10, Compat(p=0.8)): the names a leaderboard file (TREC AutoJudge) gives its measures, so other tools read
    it. The one mapping: the report's export and the trec-leaderboard import both use it."""
    specs = {**IR_MEASURES, **TRACK_MEASURES, COMPAT: f"Compat(p={compat_p:g})"}
    return {key: str(ir_measures.parse_measure(specs[key].format(rel=relevant_from))) for key in RUN_MEASURES}


def leaderboard_measure(name: str, *, relevant_from: int, compat_p: float = COMPAT_P) -> tuple[str | None, str]:
    """(report key, "") for a leaderboard's measure NAME: its ir_measures name (leaderboard_names), the same
    without `rel=` or `p=`, or its trec_eval name, in any case; else (None, why it is not one Concord computes,
    worded to follow "lines")."""
    names = leaderboard_names(relevant_from=relevant_from, compat_p=compat_p)
    known = {}
    for key, exact in names.items():
        bare = re.sub(r"\((rel|p)=[^)]*\)", "", exact)
        for alias in (exact, bare, TREC_EVAL_NAMES.get(key, exact)):
            known[alias.lower()] = key
    key = known.get(name.lower())
    if key is not None:
        return key, ""
    level = re.search(r"rel=(\d+)", name)
    if level and known.get(re.sub(r"\(rel=\d+\)", "", name).lower()):
        return None, (f"naming a measure at relevance level {level.group(1)}, not the campaign's relevant_from "
                      f"({relevant_from})")
    if name.lower().startswith("compat"):
        return None, f"naming compatibility at another persistence than the campaign's compat_p ({compat_p:g})"
    return None, "naming a measure Concord does not compute"


def _ir_measures(keys: Sequence[str], relevant_from: int) -> dict:
    """ir_measures measure -> report key, for the ir_measures ones among KEYS."""
    specs = {**IR_MEASURES, **TRACK_MEASURES}
    return {ir_measures.parse_measure(specs[key].format(rel=relevant_from)): key for key in keys if key in specs}


def run_measures_per_topic(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], *,
                           relevant_from: int = 1, measures: Sequence[str] = tuple(IR_MEASURES),
                           compat_p: float = COMPAT_P) -> dict[str, dict[str, float]]:
    """{measure: {topic: value}} of RUN ({topic: {doc: score}}) under QRELS ({topic: {doc: grade}}) for each of
    MEASURES (keys of RUN_MEASURES; default nDCG@10, MAP and P@10), per topic: what a bootstrap over topics resamples.

    trec_eval's rule for the ir_measures ones (ir_measures.iter_calc): a topic counts when the run ranks it and the
    qrels grade some document of it; unjudged documents are not relevant. Compatibility (COMPAT, persistence
    COMPAT_P) keeps its reference's rule: a topic counts when the qrels grade some document of it above 0."""
    unknown = [key for key in measures if key not in RUN_MEASURES]
    if unknown:
        raise ValueError(f"no such run measure: {', '.join(unknown)}")
    out: dict[str, dict[str, float]] = {key: {} for key in measures}
    judged = {topic: docs for topic, docs in qrels.items() if docs and topic in run}
    by_measure = _ir_measures(measures, relevant_from)
    if judged and by_measure:
        for metric in ir_measures.iter_calc(list(by_measure), judged, {topic: run[topic] for topic in judged}):
            value = _finite(metric.value)
            if value is not None:
                out[by_measure[metric.measure]][metric.query_id] = value
    if COMPAT in out:
        out[COMPAT] = {topic: value for topic, value in compatibility_per_topic(judged, run, p=compat_p).items()
                       if _finite(value) is not None}
    return out


def run_measures_mean(per_topic: dict[str, dict[str, float]]) -> dict[str, float | None]:
    """Each measure's mean over its topics (run_measures_per_topic's PER_TOPIC); None where no topic counts."""
    return {key: float(np.mean(list(values.values()))) if values else None for key, values in per_topic.items()}


def run_measures(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], *,
                 relevant_from: int = 1, measures: Sequence[str] = tuple(IR_MEASURES),
                 compat_p: float = COMPAT_P) -> dict[str, float | None]:
    """{measure: mean} of RUN under QRELS for each of MEASURES: the mean over the topics that count
    (run_measures_per_topic says which), as trec_eval's summary line gives it; None where no topic counts."""
    return run_measures_mean(run_measures_per_topic(qrels, run, relevant_from=relevant_from, measures=measures,
                                                    compat_p=compat_p))


def shared_topics(human: dict[str, dict[str, float]], judge: dict[str, dict[str, float]]) -> list[str]:
    """The topics run_correlation_intervals resamples: those with a value under both qrels for some run."""
    return sorted({t for run in set(human) & set(judge) for t in human[run] if t in judge[run]})


def run_correlation_intervals(human: dict[str, dict[str, float]], judge: dict[str, dict[str, float]], *,
                              resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                              top: dict | None = None) -> dict:
    """Intervals of tau-b, rho and r between runs' scores under two qrels, resampling topics and recomputing each
    run's mean (system_correlation_intervals). HUMAN[run][topic] and JUDGE[run][topic] are per-topic values."""
    runs = sorted(set(human) & set(judge))
    topics = shared_topics(human, judge)
    h = np.zeros((len(runs), len(topics)))
    j = np.zeros_like(h)
    counts = np.zeros_like(h)
    column = {topic: i for i, topic in enumerate(topics)}
    for row, run in enumerate(runs):
        for topic, value in human[run].items():
            if topic in judge[run]:
                h[row, column[topic]], j[row, column[topic]], counts[row, column[topic]] = value, judge[run][topic], 1
    return system_correlation_intervals(h, j, counts, resamples=resamples, seed=seed, top=top)


def relative_delta_interval(values: dict[str, dict[str, float]], tagged: set[str], *,
                            resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> list[float] | None:
    """95% interval of relative_delta between the runs in TAGGED and the others, resampling topics and recomputing
    each run's mean: VALUES[run][topic] is a run's per-topic measure."""
    runs = sorted(values)
    topics = sorted({topic for run in runs for topic in values[run]})
    if len(topics) < 2 or not any(run in tagged for run in runs) or all(run in tagged for run in runs):
        return None
    column = {topic: i for i, topic in enumerate(topics)}
    table = np.full((len(runs), len(topics)), np.nan)
    for row, run in enumerate(runs):
        for topic, value in values[run].items():
            table[row, column[topic]] = value
    group = np.array([run in tagged for run in runs])

    def statistic(sums: np.ndarray) -> np.ndarray:
        means = _run_means(sums, len(runs))  # a run with no judged topic drawn: NaN, left out
        a, b = np.nanmean(means[:, group], axis=1), np.nanmean(means[:, ~group], axis=1)
        return 200.0 * (a - b) / np.where(a + b == 0, np.nan, a + b)

    return resampling.sum_bootstrap(_topic_rows(table), statistic, resamples=resamples, seed=seed)[0]


def _topic_rows(table: np.ndarray) -> np.ndarray:
    """A runs x topics table of per-topic measures (NaN where a run has none) as one row per topic: the runs' values
    (0 for none), then which runs have one."""
    defined = np.isfinite(table)
    return np.concatenate([np.where(defined, table, 0.0), defined.astype(float)]).T


def _run_means(sums: np.ndarray, runs: int) -> np.ndarray:
    """(resamples, runs): each run's mean over the drawn topics it has, from the sums of _topic_rows; NaN for a run
    none of whose topics was drawn."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[:, :runs] / sums[:, runs:]


def run_mean_intervals(values: dict[str, dict[str, float]], *, resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> dict[str, list[float] | None]:
    """95% intervals of each run's mean measure, resampling topics (the same draws for every run, as the run orders'
    intervals do) and averaging each run over the drawn topics it has: VALUES[run][topic] is a run's per-topic
    measure. A resample that draws none of a run's topics leaves it out of that run's interval."""
    runs = sorted(values)
    topics = sorted({topic for run in runs for topic in values[run]})
    if not runs or len(topics) < 2:
        return {run: None for run in runs}
    column = {topic: i for i, topic in enumerate(topics)}
    table = np.full((len(runs), len(topics)), np.nan)
    for row, run in enumerate(runs):
        for topic, value in values[run].items():
            table[row, column[topic]] = value

    intervals = resampling.sum_bootstrap(_topic_rows(table), lambda sums: _run_means(sums, len(runs)).T,
                                         resamples=resamples, seed=seed)
    return dict(zip(runs, intervals, strict=True))


def relative_delta(group: Sequence[float], others: Sequence[float]) -> float | None:
    """Relative Δ = 2 (M_group - M_others) / (M_group + M_others) x 100 %, M the mean of each set (Yang & Lin)."""
    if not group or not others:
        return None
    a, b = float(np.mean(group)), float(np.mean(others))
    if a + b == 0:
        return None
    return _finite(200.0 * (a - b) / (a + b))


def swapped_pairs(first: dict[str, float | None], second: dict[str, float | None]) -> dict:
    """The pairs of systems whose order two scorings disagree on: {"n_pairs", "n_swaps", "swaps"}.

    FIRST and SECOND map a system to its score under each (the human qrels and a judge's); a pair counts when both
    of its systems have both scores, and swaps when one system is strictly ahead under FIRST and strictly behind
    under SECOND (a tie on either side is no swap: Kendall's tau-b counts it apart). Each swap is {"runs": [a, b],
    "first": [a's, b's], "second": [a's, b's]} with a the one ahead under FIRST; the largest gaps under FIRST first,
    as those are the swaps a reader should doubt the judge on.
    """
    names = sorted(name for name in first if first[name] is not None and second.get(name) is not None)
    swaps = []
    for index, a in enumerate(names):
        for b in names[index + 1:]:
            if (first[a] - first[b]) * (second[a] - second[b]) < 0:
                ahead, behind = (a, b) if first[a] > first[b] else (b, a)
                swaps.append({"runs": [ahead, behind], "first": [first[ahead], first[behind]],
                              "second": [second[ahead], second[behind]]})
    swaps.sort(key=lambda swap: (-(swap["first"][0] - swap["first"][1]), swap["runs"]))
    return {"n_pairs": len(names) * (len(names) - 1) // 2, "n_swaps": len(swaps), "swaps": swaps}


# --- Intervals: percentile bootstrap over the units that were sampled (agreement.resampling) ---


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
    """Set BLOCK[KEY_ci95] and BLOCK[KEY_ci_note] for the statistic BLOCK[KEY] by interval_checked."""
    block[f"{key}_ci95"], block[f"{key}_ci_note"] = interval_checked(interval, value=block[key], units=units,
                                                                     noun=noun, minimum=minimum)


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
    """95% percentile interval of a STATISTIC that is not a function of sums (a median: agreement.stats_arms), over N
    units resampled with replacement: STATISTIC gets the indices of one resample and returns its value or None,
    once per resample (scipy.stats.bootstrap draws them, seeded). Statistics of sums resample with
    agreement.resampling, all resamples at once. None for N < 2 or too few defined resamples."""
    if n < 2:
        return None

    def value(indices: np.ndarray) -> float:
        result = statistic(np.asarray(indices, dtype=np.int64))
        return np.nan if result is None else float(result)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
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


def cluster_tables(first: Sequence[Hashable], second: Sequence[Hashable], clusters: Sequence[Hashable],
                   levels: Sequence[Hashable]) -> np.ndarray:
    """One LEVELS x LEVELS contingency table per cluster (first rater's label by row): shape (clusters, L, L).

    Clusters (topics) are what a cluster bootstrap resamples: items of one topic are not independent."""
    _paired(first, second)
    _paired(first, clusters)
    code = {label: i for i, label in enumerate(levels)}
    size = len(levels)
    row, count = _cluster_index(clusters)
    cell = (np.fromiter(map(code.__getitem__, first), dtype=np.int64, count=len(first)) * size
            + np.fromiter(map(code.__getitem__, second), dtype=np.int64, count=len(second)))
    counts = np.bincount(row * size * size + cell, minlength=count * size * size)
    return counts.reshape(count, size, size).astype(float)


def item_agreement_intervals(
    first: Sequence[Hashable], second: Sequence[Hashable], clusters: Sequence[Hashable], *,
    levels: Sequence[Hashable] | None = None, weighted: bool = False,
    resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
) -> dict[str, list[float] | None]:
    """Intervals of Cohen's kappa (and linear- and quadratic-weighted kappa when WEIGHTED; LEVELS then in order)
    and of the agreement rate between two raters' labels, by a bootstrap over CLUSTERS (each item's topic; pass
    each item its own cluster when items are independent)."""
    keys = ["cohen_kappa", "accuracy"] + (["cohen_kappa_linear", "cohen_kappa_quadratic"] if weighted else [])
    if len(first) < 2:
        return {key: None for key in keys}
    levels = list(levels) if levels is not None else sorted_as_sklearn(set(first) | set(second))
    tables = cluster_tables(first, second, clusters, levels)
    size = len(levels)

    def statistic(sums: np.ndarray) -> list[np.ndarray]:
        drawn = sums.reshape(-1, size, size)
        values = [batch_stats.kappa_of_tables(drawn), batch_stats.agreement_of_tables(drawn)]
        if weighted:
            values += [batch_stats.kappa_of_tables(drawn, weights="linear"),
                       batch_stats.kappa_of_tables(drawn, weights="quadratic")]
        return values

    intervals = resampling.sum_bootstrap(tables.reshape(len(tables), size * size), statistic, resamples=resamples,
                                         seed=seed)
    return dict(zip(keys, intervals, strict=True))


def system_correlation_intervals(
    human: np.ndarray, judge: np.ndarray, counts: np.ndarray, judge_counts: np.ndarray | None = None, *,
    resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED, top: dict | None = None,
) -> dict[str, list[float] | None]:
    """Intervals of Kendall's tau-b, Spearman's rho and Pearson's r between two system orders, and of the mean
    absolute difference of the systems' two scores ("mae"), by resampling topics and recomputing every system's
    score (the meta-evaluation practice of IR).

    HUMAN[s, t] and JUDGE[s, t] are system s's summed per-output scores (e.g. correct outputs) on topic t under
    each rater, COUNTS[s, t] its outputs there; a system's score in a resample is its sum over the drawn topics
    divided by its count (JUDGE_COUNTS for the judge's sums, when the two sides scored different outputs; else
    COUNTS). A system with no output on either side in a resample sits that resample out. A topic's sufficient
    statistics are its four columns; the resamples are their weighted sums (agreement.resampling), scored all at once
    (agreement.batch_stats: Kendall's tau-b, Pearson's r by scipy.stats.pearsonr along an axis, Spearman's rho as
    Pearson's r of the scipy.stats.rankdata ranks).

    With TOP ({"p", "k"}), also the agreement at the top of the two orders (agreement.rank_agreement: tau-AP, RBO,
    overlap@k, tau-b@k; the judge's order against the humans'), all resamples at once as well.
    """
    from agreement.rank_agreement import TOP_INTERVAL_KEYS, order_agreement_batch

    keys = ["kendall_tau_b", "spearman", "pearson"] + (list(TOP_INTERVAL_KEYS) if top else []) + ["mae"]
    if human.ndim != 2 or human.shape[0] < 2:
        return {key: None for key in keys}
    if judge_counts is None:
        judge_counts = counts

    systems = human.shape[0]

    def statistic(sums: np.ndarray) -> np.ndarray:  # (resamples, 4 x systems) -> (keys, resamples)
        x, y = system_scores(sums, systems=systems)
        present = np.isfinite(x)
        out = np.full((len(keys), len(sums)), np.nan)
        out[0] = batch_stats.kendall_tau_b(x, y)
        whole = present.all(axis=1)
        out[1, whole] = batch_stats.spearman(x[whole], y[whole])
        out[2, whole] = batch_stats.pearson(x[whole], y[whole])
        out[-1] = np.nanmean(np.abs(x - y), axis=1)
        if top:
            out[3:3 + len(TOP_INTERVAL_KEYS), whole] = order_agreement_batch(x[whole], y[whole], p=top["p"],
                                                                             k=top["k"])
        for b in np.flatnonzero(~whole):  # rare: scored over the systems it has, one resample at a time
            keep = present[b]
            out[1:3, b] = [np.nan if value is None else value
                           for value in (spearman(x[b, keep], y[b, keep]), pearson(x[b, keep], y[b, keep]))]
            if top:
                out[3:3 + len(TOP_INTERVAL_KEYS), b] = order_agreement_batch(x[b, keep], y[b, keep], p=top["p"],
                                                                             k=top["k"])[:, 0]
        return out

    rows = system_topic_rows(human, judge, counts, judge_counts)
    intervals = resampling.sum_bootstrap(rows, statistic, resamples=resamples, seed=seed)
    return dict(zip(keys, intervals, strict=True))


def system_topic_rows(human: np.ndarray, judge: np.ndarray, counts: np.ndarray,
                      judge_counts: np.ndarray) -> np.ndarray:
    """One row per topic of what a system-order bootstrap sums (systems x topics inputs, as
    system_correlation_intervals takes them): every system's human sum, judge sum, count and judge count there."""
    return np.concatenate([human, judge, counts, judge_counts]).T


def system_scores(sums: np.ndarray, *, systems: int) -> tuple[np.ndarray, np.ndarray]:
    """(human, judge) scores of every system in each resample (resamples x systems), from the resamples' sums of
    system_topic_rows: a side's sum over its count; NaN for a system with no output on either side in a resample,
    which sits it out."""
    h, j, n, m = (sums[:, k * systems:(k + 1) * systems] for k in range(4))
    present = (n > 0) & (m > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present, h / n, np.nan), np.where(present, j / m, np.nan)


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
    summary["small"] = 0 < summary["n"] < SMALL_TOPICS
    return summary
