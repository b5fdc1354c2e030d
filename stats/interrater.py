"""Agreement between raters: Cohen's kappa (weighted or not), the agreement rate, Fleiss' kappa, Krippendorff's alpha
(nominal, ordinal, over units or between two raters), each with its bootstrap interval over items or clusters.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from operator import eq
from typing import Literal

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as _statsmodels_fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

from stats import batch_stats, resampling
from stats import ratings as columns
from stats.checks import check_paired, finite
from stats.distinct import distinct, sorted_as_sklearn
from stats.quiet import quiet
from stats.uncertainty import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, cluster_index, cluster_sums, put_interval


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], *, weights: str | None = None,
                labels: Sequence[Hashable] | None = None) -> float | None:
    """Cohen's kappa between two raters' labels of the same items (sklearn).

    `weights` is None (nominal), "linear" or "quadratic" (ordinal labels). With weights, pass every
    level in LABELS, in order (e.g. [0, 1, 2]): sklearn weighs disagreements by the distance between the
    labels' positions in that list, so a data set without grade 1 would otherwise count 0 vs 2 as one step.
    None when fewer than two items, or when chance agreement is total (both raters gave one and the same
    label throughout), where kappa is 0/0.
    """
    check_paired(a, b)
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
    return _sklearn_kappa(left, right, weights=weights, levels=len(levels) if labels is not None else None)


def kappa_of_codes(left: np.ndarray, right: np.ndarray, *, weights: str | None = None,
                   levels: int | None = None) -> float | None:
    """cohen_kappa of two raters' labels given as integer codes: positions in the labels sorted as sklearn sorts them
    (what cohen_kappa codes them as), or with LEVELS in cohen_kappa's LABELS (how many; weighted kappa wants them
    all). None as there."""
    check_paired(left, right)
    if len(left) < 2 or len(distinct(np.concatenate([left, right]))) < 2:
        return None
    return _sklearn_kappa(left, right, weights=weights, levels=levels)


def _sklearn_kappa(left: np.ndarray, right: np.ndarray, *, weights: str | None = None,
                   levels: int | None = None) -> float | None:
    """sklearn's kappa of codes LEFT and RIGHT (-1: a label outside the levels), over codes 0 .. LEVELS - 1 when given
    (else those in use). sklearn is handed each distinct pair of codes once, weighted by how many items gave it: the
    same contingency table (of integers), so the same kappa, without its passes over every item."""
    width = int(max(left.max(initial=-1), right.max(initial=-1))) + 2
    counts = np.bincount((left + 1) * width + (right + 1), minlength=width * width)
    cells = np.flatnonzero(counts)
    with quiet(RuntimeWarning):
        return finite(cohen_kappa_score(cells // width - 1, cells % width - 1, weights=weights,
                                         labels=list(range(levels)) if levels is not None else None,
                                         sample_weight=counts[cells]))


WILSON = "95% Wilson interval (statsmodels proportion_confint)"


def share_with_interval(agree: int, n: int) -> dict:
    """{"share", "share_ci95"}: AGREE of N as a share with its 95% Wilson interval (WILSON); None for n = 0."""
    if n == 0:
        return {"share": None, "share_ci95": None}
    low, high = proportion_confint(agree, n, alpha=0.05, method="wilson")
    return {"share": agree / n, "share_ci95": [float(low), float(high)]}


def agreement_rate(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Share of items on which the two raters gave the same label (raw accuracy); None for no items."""
    check_paired(a, b)
    if not a:
        return None
    return sum(map(eq, a, b)) / len(a)


def _fleiss_table(ratings: Sequence[Sequence[Hashable]]) -> np.ndarray | None:
    """The items x categories count table fleiss_kappa reads (see there for which ratings count), or None."""
    group, label, labels = columns.rows_coded(ratings)
    return columns.fleiss_table(group, label, labels=len(labels))[0]


def _fleiss_of_table(table: np.ndarray) -> float | None:
    with quiet(RuntimeWarning):
        return finite(_statsmodels_fleiss_kappa(table, method="fleiss"))


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
    if table is None:
        return None, None
    value = _fleiss_of_table(table)
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
    with quiet(RuntimeWarning):
        return finite(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def _unit_counts(ratings: Sequence[Sequence[Hashable]]) -> np.ndarray | None:
    """Units x labels counts of the units rated at least twice (what alpha reads), or None when undefined."""
    group, label, labels = columns.rows_coded(ratings)
    return columns.alpha_counts(group, label, labels=len(labels))[0]


def _alpha_of_counts(counts: np.ndarray) -> float | None:
    if np.count_nonzero(counts.sum(axis=0)) < 2:
        return None  # one label throughout: alpha is 0/0
    with quiet(RuntimeWarning):
        return finite(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))


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
    if counts is None:
        return None, None
    value = _alpha_of_counts(counts)
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
    """rater_agreement from the ratings as columns (stats.ratings): each rating's item index (an item's ratings
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
        interval = alpha_interval(cluster_sums(batch_stats.coincidence_rows(counts), cluster),
                                  values=len(levels), level="ordinal", resamples=resamples, seed=seed)
    put_interval(block, "krippendorff_alpha_ordinal", interval, units=block["topics"], noun="topics")
    return block


# The levels of measurement the alphas are given at, as the krippendorff package names them.
AlphaLevel = Literal["ordinal", "nominal"]
ALPHA_LEVELS: tuple[AlphaLevel, ...] = ("ordinal", "nominal")


def krippendorff_alpha_pair(first: Sequence[float], second: Sequence[float], *, levels: Sequence[float],
                            level: AlphaLevel = "nominal") -> float | None:
    """Krippendorff's alpha between two raters who rated the same items (krippendorff package), at LEVEL "nominal"
    or "ordinal" over the ordered grades LEVELS (its value_domain: the ordinal distance between two grades counts
    how often the grades between them were given, so a grade nobody gave still sits on the scale).

    None for fewer than two items or a single grade throughout (alpha is 0/0).
    """
    check_paired(first, second)
    if len(first) < 2 or len(set(first) | set(second)) < 2:
        return None
    with quiet(RuntimeWarning):
        return finite(krippendorff.alpha(reliability_data=np.array([first, second], dtype=float),
                                          value_domain=list(levels), level_of_measurement=level))


def _alpha_of_value_counts(counts: np.ndarray, levels: Sequence[float], level: AlphaLevel) -> float | None:
    if counts.shape[0] < 2 or np.count_nonzero(counts.sum(axis=0)) < 2:
        return None
    with quiet(RuntimeWarning):
        return finite(krippendorff.alpha(value_counts=counts, value_domain=list(levels), level_of_measurement=level))


def pair_alpha_intervals(
    first: Sequence[float], second: Sequence[float], clusters: Sequence[Hashable], *, levels: Sequence[float],
    resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
) -> dict[str, list[float] | None]:
    """Intervals of krippendorff_alpha_pair, ordinal and nominal ({"krippendorff_alpha_ordinal", "..._nominal"}),
    by a bootstrap over CLUSTERS (each item's topic), drawn as item_agreement_intervals draws them (same seed, same
    clusters: the same resamples).

    A cluster's sufficient statistic is its items' summed coincidence matrix; a resample's alpha is that of the drawn
    clusters' sum (stats.resampling, stats.batch_stats).
    """
    keys = [f"krippendorff_alpha_{level}" for level in ALPHA_LEVELS]
    check_paired(first, second)
    check_paired(first, clusters)
    if len(first) < 2:
        return {key: None for key in keys}
    counts = np.zeros((len(first), len(levels)))
    code = {grade: i for i, grade in enumerate(levels)}
    for row, (a, b) in enumerate(zip(first, second, strict=True)):
        counts[row, code[a]] += 1
        counts[row, code[b]] += 1
    rows = cluster_sums(batch_stats.coincidence_rows(counts), clusters)
    return {key: alpha_interval(rows, values=len(levels), level=level, resamples=resamples, seed=seed)
            for key, level in zip(keys, ALPHA_LEVELS, strict=True)}


def cluster_tables(first: Sequence[Hashable], second: Sequence[Hashable], clusters: Sequence[Hashable],
                   levels: Sequence[Hashable]) -> np.ndarray:
    """One LEVELS x LEVELS contingency table per cluster (first rater's label by row): shape (clusters, L, L).

    Clusters (topics) are what a cluster bootstrap resamples: items of one topic are not independent."""
    check_paired(first, second)
    check_paired(first, clusters)
    code = {label: i for i, label in enumerate(levels)}
    return code_tables(np.fromiter(map(code.__getitem__, first), dtype=np.int64, count=len(first)),
                       np.fromiter(map(code.__getitem__, second), dtype=np.int64, count=len(second)), clusters,
                       len(levels))


def code_tables(first: np.ndarray, second: np.ndarray, clusters: Sequence[Hashable] | np.ndarray,
                size: int) -> np.ndarray:
    """cluster_tables of labels given as codes: FIRST[i] and SECOND[i] positions in the SIZE levels."""
    check_paired(first, second)
    check_paired(first, clusters)
    row, count = cluster_index(clusters)
    counts = np.bincount(row * size * size + first * size + second, minlength=count * size * size)
    return counts.reshape(count, size, size).astype(float)


def item_agreement_intervals(
    first: Sequence[Hashable], second: Sequence[Hashable], clusters: Sequence[Hashable], *,
    levels: Sequence[Hashable] | None = None, weighted: bool = False,
    resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
) -> dict[str, list[float] | None]:
    """Intervals of Cohen's kappa (and linear- and quadratic-weighted kappa when WEIGHTED; LEVELS then in order)
    and of the agreement rate between two raters' labels, by a bootstrap over CLUSTERS (each item's topic; pass
    each item its own cluster when items are independent)."""
    levels = list(levels) if levels is not None else sorted_as_sklearn(set(first) | set(second))
    return tables_agreement_intervals(cluster_tables(first, second, clusters, levels), weighted=weighted,
                                      resamples=resamples, seed=seed)


def tables_agreement_intervals(tables: np.ndarray, *, weighted: bool = False, resamples: int = BOOTSTRAP_RESAMPLES,
                               seed: int = BOOTSTRAP_SEED) -> dict[str, list[float] | None]:
    """item_agreement_intervals from the clusters' contingency tables (cluster_tables or code_tables: clusters x
    levels x levels): None for each with fewer than two items in them."""
    keys = ["cohen_kappa", "accuracy"] + (["cohen_kappa_linear", "cohen_kappa_quadratic"] if weighted else [])
    size = tables.shape[1]
    if tables.sum() < 2:
        return {key: None for key in keys}

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


def paired_agreement_difference(human: Sequence[Hashable], first: Sequence[Hashable], second: Sequence[Hashable],
                                clusters: Sequence[Hashable], *, resamples: int = BOOTSTRAP_RESAMPLES,
                                seed: int = BOOTSTRAP_SEED) -> dict[str, list[float] | None]:
    """95% intervals of SECOND's Cohen's kappa and agreement with HUMAN minus FIRST's, on the same items, by a bootstrap
    over CLUSTERS in which both kappas are computed on the same draw (the two judges are paired by item):
    {"cohen_kappa": [low, high] or None, "accuracy": ...}."""
    check_paired(human, first)
    check_paired(human, second)
    if len(human) < 2:
        return {"cohen_kappa": None, "accuracy": None}
    levels = sorted_as_sklearn(set(human) | set(first) | set(second))
    size = len(levels)
    tables = np.concatenate([cluster_tables(human, first, clusters, levels).reshape(-1, size * size),
                             cluster_tables(human, second, clusters, levels).reshape(-1, size * size)], axis=1)

    def statistic(sums: np.ndarray) -> list[np.ndarray]:
        before, after = sums[:, :size * size].reshape(-1, size, size), sums[:, size * size:].reshape(-1, size, size)
        return [batch_stats.kappa_of_tables(after) - batch_stats.kappa_of_tables(before),
                batch_stats.agreement_of_tables(after) - batch_stats.agreement_of_tables(before)]

    kappa, accuracy = resampling.sum_bootstrap(tables, statistic, resamples=resamples, seed=seed)
    return {"cohen_kappa": kappa, "accuracy": accuracy}
