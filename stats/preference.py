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
from typing import Any

import choix
import numpy as np
from scipy import sparse

from stats import batch_stats
from stats.correlation import kendall_tau_b, spearman
from stats.interrater import WILSON, share_with_interval
from stats.resampling import class_sums, percentile_intervals
from stats.uncertainty import MIN_RESAMPLE_UNITS, bootstrap_method, mean_interval, put_interval

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


# One fit over every prompt keeps a bootstrap of resamples x systems² numbers per rater: past this many systems the
# scores carry no interval (and say so) rather than ask for gigabytes.
MAX_BOOTSTRAP_SYSTEMS = 150
# The order block lists this many swapped pairs, the largest first; it counts them all.
SWAPS_SHOWN = 20
SCOPE_ALL, SCOPE_PROMPT = "all prompts", "prompt"
# Systems answer every prompt; passages belong to one topic's pool, a few to two (a passage relevant to both). A
# campaign where at most this share of the candidates was compared on more than one prompt is read as pools.
POOLED_SHARE = 0.5


def pooled_by_prompt(raters: Sequence[tuple[Comparisons, Sequence[Hashable]]]) -> bool:
    """Whether the candidates of RATERS belong to prompts' pools (passages in topics': a score means something
    within its pool alone) rather than answer several prompts each (systems: one fit over every prompt): more than
    one prompt, and at most POOLED_SHARE of the candidates compared on more than one."""
    prompts_of: dict[Hashable, set] = {}
    for comparisons, clusters in raters:
        for (first, second, _), cluster in zip(comparisons, clusters, strict=True):
            prompts_of.setdefault(first, set()).add(cluster)
            prompts_of.setdefault(second, set()).add(cluster)
    if len(set().union(*prompts_of.values())) < 2:
        return False
    return sum(len(prompts) > 1 for prompts in prompts_of.values()) <= POOLED_SHARE * len(prompts_of)


def _prompt_classes(raters, prompts: list, systems: list) -> tuple[list, np.ndarray]:
    """The prompts grouped by what every rater's comparisons on them add to the win matrices: (per rater, a sparse
    (classes x systems²) matrix of each class's win matrix, flattened; how many prompts each class holds). Prompts
    in one class are interchangeable in a bootstrap (stats.resampling), and the matrices cost the comparisons, not
    prompts x systems²."""
    index = {system: n for n, system in enumerate(systems)}
    size = len(systems)
    cells: dict[Hashable, list] = {prompt: [] for prompt in prompts}
    for rater, (comparisons, clusters) in enumerate(raters):
        for (first, second, outcome), cluster in zip(comparisons, clusters, strict=True):
            i, j = index[first], index[second]
            if outcome == FIRST:
                cells[cluster].append((rater, i * size + j, 1.0))
            elif outcome == SECOND:
                cells[cluster].append((rater, j * size + i, 1.0))
            else:
                cells[cluster] += [(rater, i * size + j, 0.5), (rater, j * size + i, 0.5)]
    classes: dict[tuple, int] = {}
    members: list[int] = []
    for prompt in prompts:
        row = classes.setdefault(tuple(sorted(cells[prompt])), len(classes))
        members.append(row)
    multiplicity = np.bincount(np.array(members, dtype=np.int64), minlength=len(classes))
    rows: list[list] = [[[], [], []] for _ in raters]
    for key, row in classes.items():
        for rater, cell, value in key:
            rows[rater][0].append(row)
            rows[rater][1].append(cell)
            rows[rater][2].append(value)
    matrices = [sparse.csr_array((values, (row_ids, cols)), shape=(len(classes), size * size))
                for row_ids, cols, values in rows]
    return matrices, multiplicity


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
    scores are fitted again on the same drawn prompts, which the order agreement's intervals compare. With more
    than MAX_BOOTSTRAP_SYSTEMS systems the scores and orders carry no interval ("ci_note" says why).

    An order block: {"kendall_tau_b", "spearman" (scipy, over the systems' scores), their "_ci95" (None with fewer
    than MIN_RESAMPLE_UNITS prompts or fewer than 3 systems), "swaps" [[x, y]: the first rater puts x above y, this
    one y above x; the SWAPS_SHOWN largest by the first rater's gap], "swaps_count", "n_systems", "n_prompts",
    "scope", "method"}."""
    systems = list(systems)
    size = len(systems)
    prompts = sorted({cluster for _, clusters in raters for cluster in clusters}, key=str)
    options = {key: value for key, value in (("resamples", resamples), ("seed", seed)) if value is not None}
    totals = [win_matrix(comparisons, systems) for comparisons, _ in raters]
    scores = [bradley_terry_scores(total) for total in totals]
    # Fewer prompts than MIN_RESAMPLE_UNITS give no interval worth the name (as every bootstrap of the reports).
    resampled: list[np.ndarray | None] = [None] * len(raters)
    note = None
    if size > MAX_BOOTSTRAP_SYSTEMS:
        note = (f"no interval: {size} systems in one fit (a bootstrap refits resamples x systems² numbers; at most "
                f"{MAX_BOOTSTRAP_SYSTEMS} systems)")
    elif len(prompts) >= MIN_RESAMPLE_UNITS and size >= 2:
        matrices, multiplicity = _prompt_classes(raters, prompts, systems)
        # The same classes, multiplicities and seed: every rater is refitted on the same drawn prompts.
        resampled = [None if fit is None else _refit(class_sums(matrix, multiplicity, **options), size, fit)
                     for matrix, fit in zip(matrices, scores, strict=True)]
    method = f"Bradley-Terry log-strengths, mean 0 (choix, Iterative Luce Spectral Ranking, regularisation " \
             f"{ALPHA}; a tie is half a win to each); intervals: {bootstrap_method('prompts', **options)}"
    fits = [{**_scores_block(raters[n], scores[n], resampled[n], totals[n], systems, method),
             "scope": SCOPE_ALL, "ci_note": note} for n in range(len(raters))]
    orders = [{**_order_block(scores[0], resampled[0], scores[n], resampled[n], systems, len(prompts), options),
               "ci_note": note} for n in range(1, len(raters))]
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


def swaps_between(x: np.ndarray, y: np.ndarray, *, shown: int = SWAPS_SHOWN, block: int = 1000) -> tuple[int, list]:
    """The pairs that two score vectors X and Y order the other way (x_i > x_j but y_j > y_i): (how many, the SHOWN
    with the largest gap x_i - x_j as [i, j], largest first). Counted BLOCK rows at a time, so memory stays at
    BLOCK x len(x) whatever the number of candidates."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    count, best = 0, []
    for start in range(0, len(x), block):
        rows = slice(start, start + block)
        swapped = (x[rows, None] > x[None, :]) & (y[None, :] > y[rows, None])
        count += int(swapped.sum())
        i, j = np.nonzero(swapped)
        gaps = x[i + start] - x[j]
        keep = np.argsort(-gaps, kind="stable")[:shown]
        best += [(float(gaps[k]), int(i[k]) + start, int(j[k])) for k in keep]
    best.sort(key=lambda swap: -swap[0])
    return count, [[i, j] for _, i, j in best[:shown]]


def _order_block(x, x_resampled, y, y_resampled, systems, prompts: int, options: dict) -> dict:
    size = len(systems)
    block: dict[str, Any] = {
        "kendall_tau_b": None, "kendall_tau_b_ci95": None, "spearman": None, "spearman_ci95": None,
        "swaps": [], "swaps_count": 0, "n_systems": size, "n_prompts": prompts, "scope": SCOPE_ALL,
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
    count, swaps = swaps_between(x, y)
    return {**block, "kendall_tau_b": kendall_tau_b(list(x), list(y)), "spearman": spearman(list(x), list(y)),
            "swaps": [[systems[i], systems[j]] for i, j in swaps], "swaps_count": count}


def _pool_fits(comparisons: Comparisons, clusters: Sequence[Hashable]) -> dict[Hashable, dict[Hashable, float]]:
    """{prompt: {candidate: Bradley-Terry score within that prompt's pool}} of one rater: each pool fitted alone on
    the candidates the rater compared there, the pools of one size in one batched fit (stats.batch_stats, choix's
    algorithm)."""
    grouped: dict[Hashable, list] = {}
    for comparison, cluster in zip(comparisons, clusters, strict=True):
        grouped.setdefault(cluster, []).append(comparison)
    by_size: dict[int, list] = {}
    for prompt, group in grouped.items():
        candidates = sorted({candidate for first, second, _ in group for candidate in (first, second)}, key=str)
        by_size.setdefault(len(candidates), []).append((prompt, candidates, win_matrix(group, candidates)))
    fits: dict[Hashable, dict[Hashable, float]] = {}
    for pools in by_size.values():
        scores = batch_stats.bradley_terry_of_matrices(np.stack([matrix for _, _, matrix in pools]), alpha=ALPHA)
        for (prompt, candidates, _), row in zip(pools, scores, strict=True):
            fits[prompt] = {candidate: float(score) for candidate, score in zip(candidates, row, strict=True)
                            if np.isfinite(score)}
    return fits


def pool_preference_scores(raters: Sequence[tuple[Comparisons, Sequence[Hashable]]], *,
                           resamples: int | None = None, seed: int | None = None) -> tuple[list[dict], list[dict]]:
    """preference_scores for candidates that belong to prompts' pools (pooled_by_prompt): each rater's
    Bradley-Terry scores fitted per prompt on that pool alone, and each rater after the first compared with the
    first per prompt (Kendall's tau-b and Spearman's rho over the candidates both compared there), then averaged over
    the prompts, with a percentile bootstrap over prompts. A candidate's score is only comparable with its own
    pool's, so it has no interval across prompts; the per-prompt figures are in the order block's "per_prompt".

    A scores block: {"systems" (by prompt, best first within each; a candidate of several pools named
    "candidate (prompt)" in each), "scores", "scores_ci95" (None each), "pools" {candidate: prompt}, "win_rates" ({}: a
    pool's matrix is in the comparisons), "n_comparisons", "n_prompts",
    "scope": SCOPE_PROMPT, "ci_note", "method"}. An order block: {"kendall_tau_b", "spearman" (the means over the
    prompts where each is defined), their "_ci95" and "_ci_note", "per_prompt" [{"prompt", "n_candidates",
    "kendall_tau_b", "spearman", "swaps_count"}], "swaps" (the SWAPS_SHOWN largest over all prompts), "swaps_count",
    "n_systems" (candidates compared by both), "n_prompts" (prompts with a defined tau), "scope", "method"}."""
    options = {key: value for key, value in (("resamples", resamples), ("seed", seed)) if value is not None}
    fits = [_pool_fits(comparisons, clusters) for comparisons, clusters in raters]
    method = (f"Bradley-Terry log-strengths, mean 0 within each prompt's pool (choix's Iterative Luce Spectral "
              f"Ranking, regularisation {ALPHA}; a tie is half a win to each), one fit per prompt: a candidate was "
              f"compared on its own prompt only")
    # A candidate of several pools (a passage of two topics) has a score in each: named with its prompt there.
    seen: dict[Hashable, set] = {}
    for fit in fits:
        for prompt, scores in fit.items():
            for candidate in scores:
                seen.setdefault(candidate, set()).add(prompt)
    named = {(prompt, candidate): candidate if len(prompts) == 1 else f"{candidate} ({prompt})"
             for candidate, prompts in seen.items() for prompt in prompts}
    blocks = []
    for (comparisons, clusters), fit in zip(raters, fits, strict=True):
        ordered = [(prompt, named[prompt, candidate], score) for prompt in sorted(fit, key=str)
                   for candidate, score in sorted(fit[prompt].items(), key=lambda entry: -entry[1])]
        blocks.append({"systems": [candidate for _, candidate, _ in ordered],
                       "scores": {candidate: score for _, candidate, score in ordered},
                       "scores_ci95": {candidate: None for _, candidate, _ in ordered},
                       "pools": {candidate: prompt for prompt, candidate, _ in ordered},
                       "win_rates": {}, "n_comparisons": len(comparisons), "n_prompts": len(set(clusters)),
                       "scope": SCOPE_PROMPT, "method": method,
                       "ci_note": "no interval: a candidate's score compares it within its own prompt's pool"})
    orders = [_pool_order_block(fits[0], fit, named, options) for fit in fits[1:]]
    return blocks, orders


def _pool_order_block(reference: dict, other: dict, named: dict, options: dict) -> dict:
    rows, best, count, compared = [], [], 0, 0
    for prompt in sorted(set(reference) & set(other), key=str):
        shared = sorted(set(reference[prompt]) & set(other[prompt]), key=str)
        if len(shared) < 2:
            continue
        x = np.array([reference[prompt][c] for c in shared])
        y = np.array([other[prompt][c] for c in shared])
        swapped, largest = swaps_between(x, y)
        count += swapped
        compared += len(shared)
        best += [(x[i] - x[j], named[prompt, shared[i]], named[prompt, shared[j]]) for i, j in largest]
        rows.append({"prompt": prompt, "n_candidates": len(shared), "kendall_tau_b": kendall_tau_b(list(x), list(y)),
                     "spearman": spearman(list(x), list(y)), "swaps_count": swapped})
    best.sort(key=lambda swap: -swap[0])
    block = {"per_prompt": rows, "swaps": [[i, j] for _, i, j in best[:SWAPS_SHOWN]], "swaps_count": count,
             "n_systems": compared, "scope": SCOPE_PROMPT,
             "method": f"Kendall's tau-b and Spearman's rho (scipy) between the two raters' Bradley-Terry scores of "
                       f"the candidates both compared, per prompt's pool, then their mean over the prompts; "
                       f"intervals: {bootstrap_method('prompts', **options)} (the per-prompt values resampled)"}
    for key in ("kendall_tau_b", "spearman"):
        values = [row[key] for row in rows if row[key] is not None]
        block[key] = float(np.mean(values)) if values else None
        put_interval(block, key, mean_interval(values, **options) if len(values) >= 2 else None,
                     units=len(values), noun="prompts")
    block["n_prompts"] = sum(row["kendall_tau_b"] is not None for row in rows)
    return block


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
