"""How two scorings order the same systems: Kendall's tau-b, Spearman's rho, Pearson's r and agreement at the top,
with intervals from one bootstrap over topics.
"""

from __future__ import annotations

import numpy as np

from stats import batch_stats, resampling
from stats.correlation import pearson, spearman
from stats.rank_agreement import TOP_INTERVAL_KEYS, order_agreement_batch
from stats.uncertainty import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED


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
    statistics are its four columns; the resamples are their weighted sums (stats.resampling), scored all at once
    (stats.batch_stats: Kendall's tau-b, Pearson's r by scipy.stats.pearsonr along an axis, Spearman's rho as
    Pearson's r of the scipy.stats.rankdata ranks).

    With TOP ({"p", "k"}), also the agreement at the top of the two orders (stats.rank_agreement: tau-AP, RBO,
    overlap@k, tau-b@k; the judge's order against the humans'), all resamples at once as well.
    """
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
