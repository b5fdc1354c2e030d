"""Agreement at the top of two rankings: tau-AP, rank-biased overlap, overlap@k and Kendall's tau-b on the top k.

Pure functions, no Django (STYLE.md). Written here because no usable, maintained implementation exists for this
project: scipy has no tau-AP and no RBO; the PyPI `rbo` package pins numpy < 2 (Concord pins numpy 2.4), and neither
it nor the snippets that circulate handle tie groups. Kendall's tau-b itself is scipy's (stats).

A ranking is a list of tie groups of ids, best first (a human ranking as the ranking page stores it; a judge's
scores become one with `score_groups`, equal scores tied). A ranking may be PARTIAL: given the topic's UNIVERSE of
ids, the ids a ranking leaves out are unranked, and count as one tie group below every ranked id (`complete`).

Ties, one rule throughout: every statistic is its expected value when each ranking's ties are broken uniformly at
random, independently on the two sides (the average over every way of breaking them). For RBO and overlap@k this is
Corsi & Urbano's RBO^a (SIGIR-AP 2024): an id of a tie group spanning ranks t..b is in the top d with probability
(d - t + 1) / (b - t + 1). For tau-AP it is linear in the same way (see `tau_ap`). Brute force over every
tie-breaking gives the same numbers (tests/stats/test_rank_agreement.py).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from stats import batch_stats
from stats.correlation import kendall_tau_b

Groups = Sequence[Sequence[Hashable]]


def score_groups(scores: dict[Hashable, float | None]) -> list[list[Hashable]]:
    """SCORES (higher = better; None left out) as tie groups, best first; ids of equal score share a group."""
    by_value: dict[float, list[Hashable]] = {}
    for key, value in scores.items():
        if value is not None:
            by_value.setdefault(float(value), []).append(key)
    return [sorted(by_value[value], key=str) for value in sorted(by_value, reverse=True)]


def complete(groups: Groups, universe: Iterable[Hashable] | None) -> list[list[Hashable]]:
    """GROUPS restricted to UNIVERSE, with the ids of UNIVERSE it leaves out appended as one bottom tie group (the
    unranked). Without a universe, GROUPS as they are (empty groups dropped)."""
    if universe is None:
        return [list(group) for group in groups if group]
    allowed = set(universe)
    ranked = [[i for i in group if i in allowed] for group in groups]
    seen = {i for group in ranked for i in group}
    rest = sorted((i for i in allowed if i not in seen), key=str)
    return [group for group in ranked if group] + ([rest] if rest else [])


def _restricted(groups: Groups, keep: set) -> list[list[Hashable]]:
    return [kept for kept in ([i for i in group if i in keep] for group in groups) if kept]


def _group_index(groups: Groups) -> dict[Hashable, int]:
    return {i: index for index, group in enumerate(groups) for i in group}


def tau_ap(ranking: Groups, reference: Groups, *, universe: Iterable[Hashable] | None = None) -> float | None:
    """AP correlation tau_AP of RANKING against REFERENCE (Yilmaz, Aslam & Robertson, SIGIR 2008), in [-1, 1].

    tau_AP = 2/(N-1) * sum_{i=2..N} C(i)/(i-1) - 1, C(i) the number of ids above rank i in RANKING that REFERENCE
    also places above the id at rank i. Asymmetric: REFERENCE is the truth, and a swap near the top of RANKING
    costs more than one near the bottom (`tau_ap_symmetric` averages both directions).

    Over the ids both rank (after `complete` with UNIVERSE: the unranked as a bottom tie group on each side).
    Ties, as the module says, in expectation: a pair tied in REFERENCE counts 1/2 correct; an id in a tie group of
    RANKING at positions s+1..s+g has each of its g-1 group-mates above it at position i with probability
    (i-1-s)/(g-1), every group member equally likely at each position. None for fewer than two ids, or when either
    side ties every id (no order to compare).
    """
    ranking, reference = complete(ranking, universe), complete(reference, universe)
    shared = {i for group in ranking for i in group} & {i for group in reference for i in group}
    ranking, reference = _restricted(ranking, shared), _restricted(reference, shared)
    n = len(shared)
    if n < 2 or len(ranking) < 2 or len(reference) < 2:
        return None
    order = [i for group in ranking for i in group]
    where = {i: k for k, i in enumerate(order)}
    truth = np.array([_group_index(reference)[i] for i in order], dtype=float)
    # correct[z, x]: 1 when the reference places z above x, 1/2 when it ties them, 0 otherwise.
    correct = (truth[:, None] < truth[None, :]) + 0.5 * (truth[:, None] == truth[None, :])
    np.fill_diagonal(correct, 0.0)
    total, start = 0.0, 0
    for group in ranking:
        members = np.array([where[i] for i in group])
        size = len(members)
        above = correct[:start][:, members].sum(axis=0)  # A_x: ids of earlier groups placed right above x
        mates = correct[np.ix_(members, members)].sum(axis=0)  # B_x: group-mates the reference puts above x
        for position in range(start + 1, start + size + 1):  # 1-based ranks of this group
            if position < 2:
                continue
            share = (position - 1 - start) / (size - 1) if size > 1 else 0.0
            total += float(np.mean(above + share * mates)) / (position - 1)
        start += size
    return float(2.0 / (n - 1) * total - 1.0)


def tau_ap_symmetric(a: Groups, b: Groups, *, universe: Iterable[Hashable] | None = None) -> float | None:
    """The mean of tau_AP(a, b) and tau_AP(b, a): for two rankings neither of which is the truth (two annotators)."""
    first, second = tau_ap(a, b, universe=universe), tau_ap(b, a, universe=universe)
    return None if first is None or second is None else (first + second) / 2


def _in_top(groups: Groups, depth: int) -> dict[Hashable, np.ndarray]:
    """{id: P(id is in the top d) for d = 1..DEPTH} under random tie-breaking (Corsi & Urbano's a-variant)."""
    out: dict[Hashable, np.ndarray] = {}
    d = np.arange(1, depth + 1, dtype=float)
    start = 0
    for group in groups:
        size = len(group)
        chance = np.clip((d - start) / size, 0.0, 1.0)
        for i in group:
            out[i] = chance
        start += size
    return out


def _expected_overlaps(a: Groups, b: Groups, depth: int) -> np.ndarray:
    """E[X_d], d = 1..DEPTH: the expected number of ids in both top-d's (independent tie-breaking on each side)."""
    top_a, top_b = _in_top(a, depth), _in_top(b, depth)
    overlap = np.zeros(depth)
    for i, chance in top_a.items():
        if i in top_b:
            overlap += chance * top_b[i]
    return overlap


def rbo_ext(a: Groups, b: Groups, *, p: float = 0.9) -> float | None:
    """Extrapolated rank-biased overlap RBO_ext of two rankings (Webber, Moffat & Zobel, TOIS 2010, eq. 32), in
    [0, 1]; P the persistence (0 < p < 1: the chance a reader goes on to the next rank; 0.9 puts 86% of the
    weight on the top 10).

    The lists are what each side ranked (a partial ranking's unranked ids are simply not in it), of lengths s <= l:
    RBO_ext = (1-p)/p * [sum_{d=1..l} X_d/d p^d + sum_{d=s+1..l} X_s (d-s)/(s d) p^d] + [(X_l - X_s)/l + X_s/s] p^l,
    X_d the overlap of the top d's (the shorter list whole past its end). The formula is linear in the X_d, so with
    ties it takes their expected values (the module's rule). None when either list is empty.
    """
    if not 0 < p < 1:
        raise ValueError(f"the persistence p must lie strictly between 0 and 1, not {p}")
    a, b = complete(a, None), complete(b, None)
    sizes = sorted((sum(len(g) for g in a), sum(len(g) for g in b)))
    s, l = sizes  # noqa: E741 - Webber et al.'s s and l
    if s == 0:
        return None
    x = _expected_overlaps(a, b, l)
    d = np.arange(1, l + 1, dtype=float)
    weights = p ** d
    first = float(np.sum(x / d * weights))
    tail = d > s
    second = float(np.sum(x[s - 1] * (d[tail] - s) / (s * d[tail]) * weights[tail]))
    return float((1 - p) / p * (first + second) + ((x[l - 1] - x[s - 1]) / l + x[s - 1] / s) * p ** l)


def overlap_at_k(a: Groups, b: Groups, *, k: int, universe: Iterable[Hashable] | None = None) -> float | None:
    """|top-k(a) ∩ top-k(b)| / k, in expectation over tie-breaking (a tie group across the cut puts each of its ids
    in the top k with the same chance). With UNIVERSE the unranked fill a top k that a partial ranking leaves short,
    at random. k is cut to the shorter ranking's length; None when that is 0."""
    a, b = complete(a, universe), complete(b, universe)
    depth = min(k, sum(len(g) for g in a), sum(len(g) for g in b))
    if depth < 1:
        return None
    return float(_expected_overlaps(a, b, depth)[depth - 1] / depth)


def top_k_ids(groups: Groups, k: int) -> set[Hashable]:
    """The ids of every tie group that starts within the top K (a group across the cut is in whole)."""
    out: set[Hashable] = set()
    start = 0
    for group in groups:
        if start >= k:
            break
        out.update(group)
        start += len(group)
    return out


def tau_b_at_k(a: Groups, b: Groups, *, k: int, universe: Iterable[Hashable] | None = None) -> tuple[float | None, int]:
    """(Kendall's tau-b, n) over the ids in EITHER ranking's top k (`top_k_ids`), each placed by its tie group in
    the two rankings, the unranked as the bottom group (with UNIVERSE): an id one side puts in its top k and the
    other leaves low counts against them. Of the ids both rank; None as tau-b is (fewer than two, a constant side)."""
    a, b = complete(a, universe), complete(b, universe)
    pos_a, pos_b = _group_index(a), _group_index(b)
    ids = sorted((top_k_ids(a, k) | top_k_ids(b, k)) & pos_a.keys() & pos_b.keys(), key=str)
    return kendall_tau_b([-pos_a[i] for i in ids], [-pos_b[i] for i in ids]), len(ids)


def rank_agreement(ranking: Groups, reference: Groups, *, p: float, k: int,
                   universe: Iterable[Hashable] | None = None, symmetric: bool = False) -> dict:
    """The four measures of RANKING against REFERENCE as the reports carry them: {"tau_ap", "rbo", "overlap_at_k",
    "kendall_tau_b_at_k", "n_at_k"}. tau_ap is RANKING's against REFERENCE as the truth, or with SYMMETRIC the mean
    of both directions (two annotators). RBO takes each side's ranked ids only (UNIVERSE plays no part in it)."""
    universe = None if universe is None else list(universe)
    tau, n_at_k = tau_b_at_k(ranking, reference, k=k, universe=universe)
    ranking_only: Groups
    reference_only: Groups
    if universe is not None:  # RBO reads the ranked prefixes: ids outside the universe (unscored) are left out
        keep = set(universe)
        ranking_only, reference_only = _restricted(ranking, keep), _restricted(reference, keep)
    else:
        ranking_only, reference_only = ranking, reference
    return {
        "tau_ap": (tau_ap_symmetric if symmetric else tau_ap)(ranking, reference, universe=universe),
        "rbo": rbo_ext(ranking_only, reference_only, p=p),
        "overlap_at_k": overlap_at_k(ranking, reference, k=k, universe=universe),
        "kendall_tau_b_at_k": tau,
        "n_at_k": n_at_k,
    }


# Defaults of the campaign options rbo_p and top_k (README "Ranking agreement at the top"): p = 0.9 puts 86% of RBO's
# weight on the top 10; k = 5, the top of a ranking a reader looks at (a candidate list, or a leaderboard of systems).
RBO_P = 0.9
TOP_K = 5


def rank_options(options: dict | None) -> dict:
    """{"rbo_p", "top_k"} from a campaign's options, with the defaults."""
    options = options or {}
    return {"rbo_p": float(options.get("rbo_p", RBO_P)), "top_k": int(options.get("top_k", TOP_K))}


TOP_KEYS = ("tau_ap", "rbo", "overlap_at_k", "kendall_tau_b_at_k")
# The ones a system-order bootstrap gives intervals for (order_agreement_batch, in this order): all four.
TOP_INTERVAL_KEYS = ("tau_ap", "rbo", "overlap_at_k", "kendall_tau_b_at_k")


def order_agreement(reference: dict[Hashable, float | None], scores: dict[Hashable, float | None], *, p: float,
                    k: int) -> dict:
    """`rank_agreement` of two scorings of the same things (systems), each ranked by its scores (higher = better,
    equal scores tied): SCORES' order (a judge's) against REFERENCE's (the humans') as the truth, over the things
    both score."""
    shared = [key for key, value in reference.items() if value is not None and scores.get(key) is not None]
    return rank_agreement(score_groups({key: scores[key] for key in shared}),
                          score_groups({key: reference[key] for key in shared}), p=p, k=k)


def order_agreement_batch(reference: np.ndarray, scores: np.ndarray, *, p: float, k: int,
                          block: int = 2_000_000) -> np.ndarray:
    """order_agreement's tau-AP, RBO, overlap@k and tau-b@k (TOP_INTERVAL_KEYS) for many pairs of score vectors at
    once, as a system-order bootstrap needs them: REFERENCE and SCORES are (resamples x systems), one resample a row,
    without gaps; returns (4, resamples), NaN where a value is undefined. Ties as the module says, in array arithmetic:
    each entry's tie group by its start and size; tau-AP's expected credit per position from harmonic sums; RBO and
    overlap@k from each id's chance to be in the top d on each side; tau-b@k as batch_stats.kendall_tau_b over the ids
    whose tie group starts within either side's top k, the others left out (tests/stats/test_rank_agreement.py compares
    it
    with order_agreement)."""
    h_all, y_all = np.atleast_2d(np.asarray(reference, dtype=float)), np.atleast_2d(np.asarray(scores, dtype=float))
    n = h_all.shape[1]
    out = np.full((len(TOP_INTERVAL_KEYS), len(h_all)), np.nan)
    if n < 2:
        return out
    harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, n + 1))))
    d = np.arange(1, n + 1, dtype=float)
    others = ~np.eye(n, dtype=bool)
    rows = max(1, block // (n * n))
    for start in range(0, len(h_all), rows):
        h, y = h_all[start:start + rows], y_all[start:start + rows]
        # Each entry's tie group, ranked best first: its start (how many score higher) and its size.
        h_start, h_size = (h[:, None, :] > h[:, :, None]).sum(-1), (h[:, None, :] == h[:, :, None]).sum(-1)
        y_start, y_size = (y[:, None, :] > y[:, :, None]).sum(-1), (y[:, None, :] == y[:, :, None]).sum(-1)
        correct = ((h[:, :, None] > h[:, None, :]) + 0.5 * (h[:, :, None] == h[:, None, :])) * others
        earlier = y_start[:, :, None] < y_start[:, None, :]
        mates = (y_start[:, :, None] == y_start[:, None, :]) & others
        above, beside = (correct * earlier).sum(axis=1), (correct * mates).sum(axis=1)
        w_above = harmonic[y_start + y_size - 1] - harmonic[np.maximum(y_start - 1, 0)]
        counted = y_size - (y_start == 0)
        w_beside = np.where(y_size > 1, (counted - y_start * w_above) / np.maximum(y_size - 1, 1), 0.0)
        tau = 2.0 / (n - 1) * ((above * w_above + beside * w_beside) / y_size).sum(axis=1) - 1.0
        ordered = (h_size.max(axis=1) < n) & (y_size.max(axis=1) < n)  # neither side ties every id
        chance_h = np.clip((d[None, None, :] - h_start[:, :, None]) / h_size[:, :, None], 0.0, 1.0)
        chance_y = np.clip((d[None, None, :] - y_start[:, :, None]) / y_size[:, :, None], 0.0, 1.0)
        x = (chance_h * chance_y).sum(axis=1)
        part = slice(start, start + len(h))
        out[0, part] = np.where(ordered, tau, np.nan)
        out[1, part] = (1 - p) / p * (x / d * p ** d).sum(axis=1) + x[:, n - 1] / n * p ** n
        out[2, part] = x[:, min(k, n) - 1] / min(k, n)
        at_k = (h_start < k) | (y_start < k)  # top_k_ids of either side: a tie group that starts within the top k
        out[3, part] = batch_stats.kendall_tau_b(np.where(at_k, h, np.nan), np.where(at_k, y, np.nan))
    return out
