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

from stats import batch_stats
from stats.correlation import kendall_tau_b, spearman
from stats.interrater import WILSON, share_with_interval
from stats.resampling import percentile_intervals, resampled_sums
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


Comparisons = Sequence[tuple[Hashable, Hashable, str]]


def _prompt_rows(comparisons: Comparisons, clusters: Sequence[Hashable], prompts: list, systems: list) -> np.ndarray:
    """One row per prompt of PROMPTS: the win matrix (flattened) of the COMPARISONS made on it (zeros where none)."""
    index = {prompt: n for n, prompt in enumerate(prompts)}
    grouped: list[list] = [[] for _ in prompts]
    for comparison, cluster in zip(comparisons, clusters, strict=True):
        grouped[index[cluster]].append(comparison)
    rows = np.zeros((len(prompts), len(systems) ** 2))
    for n, group in enumerate(grouped):
        rows[n] = win_matrix(group, systems).ravel()
    return rows


def _refit(sums: np.ndarray, size: int, start: np.ndarray) -> np.ndarray:
    """Bradley-Terry scores of each resample's win matrix in SUMS (resamples x size²), from START: (resamples, size),
    NaN where a resample has no comparison. choix's algorithm over all resamples at once (stats.batch_stats;
    tests/stats/test_batch_stats.py checks it against choix, resample by resample)."""
    return batch_stats.bradley_terry_of_matrices(sums.reshape(len(sums), size, size), alpha=ALPHA, initial=start)


def preference_scores(raters: Sequence[tuple[Comparisons, Sequence[Hashable]]], *, systems: Sequence[Hashable],
                      resamples: int | None = None, seed: int | None = None) -> tuple[list[dict], list[dict]]:
    """System scores under each of RATERS, given as (comparisons, the prompt each was made on), and how the order
    under each rater after the first agrees with the first's: (a bradley_terry block per rater, an
    order block per rater after the first). One bootstrap over the prompts of them all: every rater's
    scores are fitted again on the same drawn prompts, which the order agreement's intervals compare.

    An order block: {"kendall_tau_b", "spearman" (scipy, over the systems' scores), their "_ci95" (None with fewer
    than MIN_RESAMPLE_UNITS prompts or fewer than 3 systems), "swaps" [[x, y]: the first rater puts x above y, this
    one y above x], "n_systems", "n_prompts", "method"}."""
    systems = list(systems)
    size = len(systems)
    prompts = sorted({cluster for _, clusters in raters for cluster in clusters}, key=str)
    options = {key: value for key, value in (("resamples", resamples), ("seed", seed)) if value is not None}
    blocks = [_prompt_rows(comparisons, clusters, prompts, systems) for comparisons, clusters in raters]
    totals = [block.sum(axis=0).reshape(size, size) if len(block) else np.zeros((size, size)) for block in blocks]
    scores = [bradley_terry_scores(total) for total in totals]
    # Fewer prompts than MIN_RESAMPLE_UNITS give no interval worth the name (as every bootstrap of the reports).
    resampled: list[np.ndarray | None] = [None] * len(raters)
    if len(prompts) >= MIN_RESAMPLE_UNITS and size >= 2:
        sums = resampled_sums(np.hstack(blocks), **options)
        width = size * size
        resampled = [None if fit is None else _refit(sums[:, n * width:(n + 1) * width], size, fit)
                     for n, fit in enumerate(scores)]
    method = f"Bradley-Terry log-strengths, mean 0 (choix, Iterative Luce Spectral Ranking, regularisation " \
             f"{ALPHA}; a tie is half a win to each); intervals: {bootstrap_method('prompts', **options)}"
    fits = [_scores_block(raters[n], scores[n], resampled[n], totals[n], systems, method) for n in range(len(raters))]
    orders = [_order_block(scores[0], resampled[0], scores[n], resampled[n], systems, len(prompts), options)
              for n in range(1, len(raters))]
    return fits, orders


def _scores_block(rater, scores, resampled, total, systems, method) -> dict:
    comparisons, clusters = rater
    size = len(systems)
    intervals = percentile_intervals(resampled.T) if resampled is not None else [None] * size
    rates = win_rates(total)
    order = sorted(range(size), key=lambda n: -scores[n]) if scores is not None else range(size)
    return {
        "systems": [systems[n] for n in order],
        "scores": {systems[n]: (float(scores[n]) if scores is not None else None) for n in order},
        "scores_ci95": {systems[n]: intervals[n] for n in order},
        "win_rates": {systems[i]: {systems[j]: (None if np.isnan(rates[i, j]) else float(rates[i, j]))
                                   for j in order if j != i} for i in order},
        "n_comparisons": len(comparisons),
        "n_prompts": len(set(clusters)),
        "method": method,
    }


def _order_block(x, x_resampled, y, y_resampled, systems, prompts: int, options: dict) -> dict:
    size = len(systems)
    block = {"kendall_tau_b": None, "kendall_tau_b_ci95": None, "spearman": None, "spearman_ci95": None,
             "swaps": [], "n_systems": size, "n_prompts": prompts,
             "method": f"Kendall's tau-b and Spearman's rho (scipy) between the systems' Bradley-Terry scores under "
                       f"each; intervals: {bootstrap_method('prompts', **options)}, both orders fitted again in each "
                       f"resample"}
    if x is None or y is None or size < 2:
        return block
    if x_resampled is not None and y_resampled is not None and size >= 3:
        whole = np.isfinite(x_resampled).all(axis=1) & np.isfinite(y_resampled).all(axis=1)
        rho = np.full(len(x_resampled), np.nan)
        rho[whole] = batch_stats.spearman(x_resampled[whole], y_resampled[whole])
        block["kendall_tau_b_ci95"], block["spearman_ci95"] = percentile_intervals(
            np.vstack([batch_stats.kendall_tau_b(x_resampled, y_resampled), rho]))
    swaps = sorted(((i, j) for i in range(size) for j in range(size) if x[i] > x[j] and y[j] > y[i]),
                   key=lambda pair: (-x[pair[0]], -x[pair[1]]))
    return {**block, "kendall_tau_b": kendall_tau_b(list(x), list(y)), "spearman": spearman(list(x), list(y)),
            "swaps": [[systems[i], systems[j]] for i, j in swaps]}


def bradley_terry(comparisons: Comparisons, *, clusters: Sequence[Hashable], systems: Sequence[Hashable] | None = None,
                  resamples: int | None = None, seed: int | None = None) -> dict:
    """System scores from COMPARISONS, each with the prompt it was made on (CLUSTERS, in the same order): {"systems"
    (best first), "scores" {system: log-strength}, "scores_ci95" {system: [low, high] or None}, "win_rates"
    {system: {other: share or None}}, "n_comparisons", "n_prompts", "method"}. The intervals are 95% percentile
    bootstrap intervals over prompts: each resample draws prompts with replacement, sums their win matrices and
    fits the scores again; None with fewer than MIN_RESAMPLE_UNITS prompts."""
    systems = list(systems) if systems is not None else sorted({s for c in comparisons for s in c[:2]}, key=str)
    fits, _ = preference_scores([(comparisons, clusters)], systems=systems, resamples=resamples, seed=seed)
    return fits[0]


def first_position_rate(outcomes: Sequence[str]) -> dict:
    """How often a rater preferred the candidate it was shown first, over its OUTCOMES that preferred one (ties left
    out): {"rate", "rate_ci95", "n" (the decided outcomes), "ties", "method"}; 0.5 is no position bias."""
    decided = [outcome for outcome in outcomes if outcome in (FIRST, SECOND)]
    share = share_with_interval(sum(outcome == FIRST for outcome in decided), len(decided))
    return {"rate": share["share"], "rate_ci95": share["share_ci95"], "n": len(decided),
            "ties": sum(outcome == TIE for outcome in outcomes),
            "method": f"share of the decided verdicts that preferred the candidate shown first, {WILSON}"}
