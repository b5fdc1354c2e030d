"""Correlations of two scorings (Kendall's tau-b, Spearman's rho, Pearson's r, by scipy), rankings as tie groups,
and where a generated answer lands among documents (NRP).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
from scipy import stats as scipy_stats

from stats.checks import check_paired, finite
from stats.quiet import quiet


def _correlation(func, x: Sequence[float], y: Sequence[float]) -> float | None:
    check_paired(x, y)
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    with quiet():
        return finite(func(list(x), list(y)).statistic)


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b (ties in either ranking corrected for; scipy.stats.kendalltau). None if constant or n < 2."""
    return _correlation(lambda a, b: scipy_stats.kendalltau(a, b, variant="b"), x, y)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho (scipy.stats.spearmanr). None if either input is constant or n < 2."""
    return _correlation(scipy_stats.spearmanr, x, y)


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r (scipy.stats.pearsonr). None if either input is constant or n < 2."""
    return _correlation(scipy_stats.pearsonr, x, y)


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
