"""Pairwise preferences (issue 33): system scores by Bradley-Terry with intervals over prompts, the win-rate matrix,
and the rate at which a rater prefers whichever candidate it saw first. Pure functions, no Django.

A comparison is (first, second, outcome) between two systems' responses to one prompt: outcome "first" or "second"
(the one preferred) or "tie". Bradley-Terry (choix.ilsr_pairwise_dense, Iterative Luce Spectral Ranking) reads the
win matrix, where [i, j] counts how often i was preferred to j and a tie counts half a win to each side; a small
regularisation (ALPHA) keeps a system that never won (or never lost) at a finite score. Scores are log-strengths,
centred on mean 0: P(i preferred to j) = 1 / (1 + exp(s_j - s_i)).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import choix
import numpy as np

from stats.interrater import WILSON, share_with_interval
from stats.resampling import sum_bootstrap
from stats.uncertainty import MIN_RESAMPLE_UNITS, bootstrap_method

FIRST, SECOND, TIE = "first", "second", "tie"
OUTCOMES = (FIRST, SECOND, TIE)
# choix's regularisation (a Gaussian prior's strength on the log-strengths): finite scores for a system that never
# won or never lost, in a resample as in the data, at a negligible pull on systems with comparisons.
ALPHA = 0.01


def win_matrix(comparisons: Sequence[tuple[Hashable, Hashable, str]], systems: Sequence[Hashable]) -> np.ndarray:
    """SYSTEMS x SYSTEMS: [i, j] the times system i was preferred to system j in COMPARISONS (a tie: half to each)."""
    index = {system: n for n, system in enumerate(systems)}
    matrix = np.zeros((len(systems), len(systems)))
    for first, second, outcome in comparisons:
        i, j = index[first], index[second]
        if outcome == FIRST:
            matrix[i, j] += 1
        elif outcome == SECOND:
            matrix[j, i] += 1
        elif outcome == TIE:
            matrix[i, j] += 0.5
            matrix[j, i] += 0.5
        else:
            raise ValueError(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    return matrix


def bradley_terry_scores(matrix: np.ndarray, *, alpha: float = ALPHA) -> np.ndarray | None:
    """The systems' Bradley-Terry log-strengths (mean 0) from a win MATRIX (choix); None without any comparison."""
    matrix = np.asarray(matrix, dtype=float)
    if len(matrix) < 2 or not matrix.sum():
        return None
    scores = choix.ilsr_pairwise_dense(matrix, alpha=alpha)
    return scores - scores.mean()


def win_rates(matrix: np.ndarray) -> np.ndarray:
    """[i, j]: the share of the comparisons between i and j that i won (ties half); NaN where they never met."""
    matrix = np.asarray(matrix, dtype=float)
    met = matrix + matrix.T
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(met > 0, matrix / np.where(met > 0, met, 1), np.nan)


def bradley_terry(comparisons: Sequence[tuple[Hashable, Hashable, str]], *, clusters: Sequence[Hashable],
                  systems: Sequence[Hashable] | None = None, resamples: int | None = None,
                  seed: int | None = None) -> dict:
    """System scores from COMPARISONS, each with the prompt it was made on (CLUSTERS, in the same order): {"systems"
    (best first), "scores" {system: log-strength}, "scores_ci95" {system: [low, high] or None}, "win_rates"
    {system: {other: share or None}}, "n_comparisons", "n_prompts", "method"}. The intervals are 95% percentile
    bootstrap intervals over prompts: each resample draws prompts with replacement, sums their win matrices and
    fits the scores again; None with fewer than MIN_RESAMPLE_UNITS prompts."""
    systems = list(systems) if systems is not None else sorted({s for c in comparisons for s in c[:2]}, key=str)
    size = len(systems)
    prompts: dict[Hashable, list] = {}
    for comparison, cluster in zip(comparisons, clusters, strict=True):
        prompts.setdefault(cluster, []).append(comparison)
    rows = np.array([win_matrix(group, systems).ravel() for group in prompts.values()]).reshape(len(prompts), -1)
    total = rows.sum(axis=0).reshape(size, size) if len(rows) else np.zeros((size, size))
    scores = bradley_terry_scores(total)

    def statistic(sums: np.ndarray) -> np.ndarray:
        fitted = [bradley_terry_scores(row.reshape(size, size)) for row in sums]
        return np.array([fit if fit is not None else np.full(size, np.nan) for fit in fitted]).T

    options = {key: value for key, value in (("resamples", resamples), ("seed", seed)) if value is not None}
    # Fewer prompts than MIN_RESAMPLE_UNITS give no interval worth the name (as every bootstrap of the reports).
    resampled = len(rows) >= MIN_RESAMPLE_UNITS and scores is not None
    intervals = sum_bootstrap(rows, statistic, **options) if resampled else [None] * size
    rates = win_rates(total)
    order = sorted(range(size), key=lambda n: -scores[n]) if scores is not None else range(size)
    return {
        "systems": [systems[n] for n in order],
        "scores": {systems[n]: (float(scores[n]) if scores is not None else None) for n in order},
        "scores_ci95": {systems[n]: intervals[n] for n in order},
        "win_rates": {systems[i]: {systems[j]: (None if np.isnan(rates[i, j]) else float(rates[i, j]))
                                   for j in order if j != i} for i in order},
        "n_comparisons": len(comparisons),
        "n_prompts": len(prompts),
        "method": f"Bradley-Terry log-strengths, mean 0 (choix, Iterative Luce Spectral Ranking, regularisation "
                  f"{ALPHA}; a tie is half a win to each); intervals: {bootstrap_method('prompts', **options)}",
    }


def first_position_rate(outcomes: Sequence[str]) -> dict:
    """How often a rater preferred the candidate it was shown first, over its OUTCOMES that preferred one (ties left
    out): {"rate", "rate_ci95", "n" (the decided outcomes), "ties", "method"}; 0.5 is no position bias."""
    decided = [outcome for outcome in outcomes if outcome in (FIRST, SECOND)]
    share = share_with_interval(sum(outcome == FIRST for outcome in decided), len(decided))
    return {"rate": share["share"], "rate_ci95": share["share_ci95"], "n": len(decided),
            "ties": sum(outcome == TIE for outcome in outcomes),
            "method": f"share of the decided verdicts that preferred the candidate shown first, {WILSON}"}
