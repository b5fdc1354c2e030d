"""Agreement statistics as pure functions: lists in, numbers out, no Django.

Every function returns None where its statistic is undefined (too few observations, constant
input, no agreement possible by chance) instead of raising or returning NaN, so the report can
carry `null` and say why. The arithmetic is the libraries' (DESIGN.md §4): scikit-learn, scipy,
statsmodels and krippendorff; this module only shapes inputs and catches the degenerate cases.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Hashable, Sequence

import ir_measures
import krippendorff
import numpy as np
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as _statsmodels_fleiss_kappa


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
    levels = list(labels) if labels is not None else _sorted_as_sklearn(seen)
    code = {label: i for i, label in enumerate(levels)}
    left = np.fromiter((code.get(x, -1) for x in a), dtype=np.int64, count=len(a))
    right = np.fromiter((code.get(y, -1) for y in b), dtype=np.int64, count=len(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(cohen_kappa_score(left, right, weights=weights,
                                         labels=list(range(len(levels))) if labels is not None else None))


def _sorted_as_sklearn(labels: set) -> list:
    try:
        return sorted(labels)
    except TypeError:  # mixed types: sklearn refuses them too; any fixed order keeps kappa unweighted-equal
        return sorted(labels, key=str)


def agreement_rate(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Share of items on which the two raters gave the same label (raw accuracy); None for no items."""
    _paired(a, b)
    if not a:
        return None
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)


def _fleiss_panel_size(ratings: Sequence[Sequence[Hashable]]) -> int | None:
    counts = Counter(len(labels) for labels in ratings if len(labels) >= 2)
    if not counts:
        return None
    return max(counts, key=lambda size: (counts[size], size))


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
    m = _fleiss_panel_size(ratings)
    if m is None:
        return None
    rows = [labels if len(labels) == m else list(labels)[:m] for labels in ratings if len(labels) >= m]
    if len(rows) < 2:
        return None
    categories = sorted({label for row in rows for label in row}, key=str)
    if len(categories) < 2:
        return None
    index = {label: i for i, label in enumerate(categories)}
    coded = np.fromiter((index[label] for row in rows for label in row), dtype=np.int64, count=len(rows) * m)
    table, _ = aggregate_raters(coded.reshape(len(rows), m), n_cat=len(categories))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(_statsmodels_fleiss_kappa(table, method="fleiss"))


def fleiss_kappa_items(ratings: Sequence[Sequence[Hashable]]) -> int:
    """How many items `fleiss_kappa` uses for these ratings (those with at least the modal number of ratings)."""
    m = _fleiss_panel_size(ratings)
    if m is None:
        return 0
    return sum(1 for labels in ratings if len(labels) >= m)


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


def krippendorff_alpha_units(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Krippendorff's alpha, nominal level, from one list of labels per unit (whoever gave them).

    The same alpha as `krippendorff_alpha` on the raters x units table, computed from each unit's label
    counts (the krippendorff package's value_counts): a campaign's units x labels, not raters x units,
    so twenty annotators over a million units need no twenty-million-cell table.
    """
    labels = sorted({label for unit in ratings for label in unit}, key=str)
    if len(labels) < 2:
        return None
    index = {label: i for i, label in enumerate(labels)}
    pairable = [unit for unit in ratings if len(unit) >= 2]
    if not pairable:
        return None
    counts = np.zeros((len(pairable), len(labels)), dtype=float)
    for row, unit in enumerate(pairable):
        for label in unit:
            counts[row, index[label]] += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _finite(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))


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
    result = scipy_stats.bootstrap(
        (data,), np.mean, n_resamples=n_resamples, method="percentile", random_state=np.random.default_rng(seed)
    )
    return _finite(result.standard_error)


# --- NRP (answer_ranking): where a generated answer lands among the topic's documents ---


def normalised_rank_position(answer_score: float, document_scores: Sequence[float]) -> float | None:
    """NRP = 1 - r / |D| (Heineking et al., ECIR 2025), r = the answer's zero-based position among the documents.

    The answer is ranked together with the documents D by score (higher = better); r counts the
    documents scored strictly higher, so a tie with a document goes in the answer's favour. 1 means
    above every document, 0 below all of them. None without documents.
    """
    if not document_scores:
        return None
    above = int(np.sum(np.asarray(document_scores, dtype=float) > float(answer_score)))
    return 1.0 - above / len(document_scores)


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


# --- IR measures of runs (image_relevance): trec_eval's definitions through ir_measures / pytrec_eval ---

IR_MEASURES = {"ndcg_cut_10": "nDCG@10", "map": "AP"}


def run_measures(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float | None]:
    """{"ndcg_cut_10", "map"} of RUN ({topic: {doc: score}}) under QRELS ({topic: {doc: grade}}), averaged over
    the topics that have qrels (trec_eval's rule: a topic without judgments is left out; unjudged documents
    are not relevant). None for both when no topic of the run has qrels."""
    measures = [ir_measures.parse_measure(name) for name in IR_MEASURES.values()]
    judged = {topic: docs for topic, docs in qrels.items() if docs and topic in run}
    if not judged:
        return {key: None for key in IR_MEASURES}
    values = ir_measures.calc_aggregate(measures, judged, {topic: run[topic] for topic in judged})
    by_name = {str(measure): value for measure, value in values.items()}
    return {key: _finite(by_name.get(name)) for key, name in IR_MEASURES.items()}


def relative_delta(group: Sequence[float], others: Sequence[float]) -> float | None:
    """Relative Δ = 2 (M_group - M_others) / (M_group + M_others) x 100 %, M the mean of each set (Yang & Lin)."""
    if not group or not others:
        return None
    a, b = float(np.mean(group)), float(np.mean(others))
    if a + b == 0:
        return None
    return _finite(200.0 * (a - b) / (a + b))
