"""Which units humans label: a plan gives each unit its probability of being labelled (its inclusion probability),
which the estimate then weights by (stats.ppi). Pure functions, no Django.

- uniform: every unit alike, budget / units (drawn as a simple random sample of that many units);
- stratified: the budget split between strata (topics, systems) in proportion to each stratum's size times the
  spread of the judge's errors there (Neyman allocation; proportional to size when nothing is known of the spread);
- active: more labels where the judge is unsure (Zrnic and Candès 2024): a unit's probability in proportion to the
  square root of the judge's expected squared error on it (p (1 - p) for a verdict given with probability p), mixed
  with the uniform plan (half each by default) so that no unit's weight 1 / probability grows without bound.

Each plan's probabilities sum to the budget (the number of labelled units), none over 1: a unit that would get more
is labelled for certain and the rest share what is left. Unequal probabilities are drawn by systematic sampling in a
random order (drawn), which labels each unit with its probability, so that inverse-probability weighted means are
unbiased, and spends exactly the budget.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
from numpy.typing import ArrayLike

PLANS = ("uniform", "stratified", "active")
ACTIVE_UNIFORM_SHARE = 0.5  # the active plan's share of the uniform plan


def _capped(raw: np.ndarray, budget: float) -> np.ndarray:
    """RAW (non-negative) scaled to sum to BUDGET with none over 1: the capped ones at 1, the others scaled up."""
    raw = np.asarray(raw, dtype=float)
    if (raw < 0).any() or raw.sum() <= 0:
        raise ValueError("a plan's weights are non-negative and not all zero")
    budget = min(float(budget), float((raw > 0).sum()))
    inclusion = np.zeros_like(raw)
    certain = np.zeros(len(raw), dtype=bool)
    for _ in range(len(raw) + 1):
        rest = budget - certain.sum()
        free = raw * ~certain
        inclusion = np.where(certain, 1.0, free * rest / free.sum()) if free.sum() > 0 else certain * 1.0
        over = (inclusion > 1) & ~certain
        if not over.any():
            return np.clip(inclusion, 0.0, 1.0)
        certain |= over
    return np.clip(inclusion, 0.0, 1.0)


def _budget_checked(units: int, budget: float) -> None:
    if units < 1:
        raise ValueError("a plan needs at least one unit")
    if not 0 < budget:
        raise ValueError(f"the budget is a positive number of labels, not {budget}")


def from_weights(weights: ArrayLike, budget: float) -> np.ndarray:
    """Each unit's inclusion probability at BUDGET under a plan of WEIGHTS (non-negative, one per unit): in
    proportion to its weight, summing to the budget, none over 1 (a recorded plan's probabilities at the number of
    units labelled so far)."""
    _budget_checked(len(np.asarray(weights)), budget)
    return _capped(np.asarray(weights, dtype=float), budget)


def sequential_keys(weights: ArrayLike, rng: np.random.Generator) -> np.ndarray:
    """Sequential Poisson sampling's keys (Ohlsson 1998): a uniform draw over each unit's weight. The units in the
    order of their keys, lowest first, are a sample whose every beginning of n units is drawn by the plan of WEIGHTS
    at budget n (inclusion probabilities from_weights(WEIGHTS, n), approximately: exactly for equal weights, a
    simple random sample), so that a queue can follow the plan whatever the number labelled when it stops."""
    weights = np.asarray(weights, dtype=float)
    if (weights <= 0).any() or not np.isfinite(weights).all():
        raise ValueError("a sequential plan's weights are finite and positive")
    return rng.random(len(weights)) / weights


def uniform_inclusion(units: int, budget: float) -> np.ndarray:
    _budget_checked(units, budget)
    return np.full(units, min(1.0, budget / units))


def stratified_inclusion(strata: Sequence[Hashable], budget: float,
                         expected_error: ArrayLike | None = None) -> np.ndarray:
    """Each unit of stratum h gets n_h / N_h, n_h in proportion to N_h times the square root of the stratum's mean
    EXPECTED_ERROR (the judge's expected squared error on each unit; None: proportional allocation)."""
    _budget_checked(len(strata), budget)
    index = {key: k for k, key in enumerate(dict.fromkeys(strata))}
    stratum = np.array([index[key] for key in strata])
    error = np.ones(len(stratum)) if expected_error is None else np.asarray(expected_error, dtype=float)
    if len(error) != len(stratum):
        raise ValueError("one expected error per unit")
    # A unit's share: its stratum's spread (the root of the mean expected error there); the stratum's size comes
    # from its units' count.
    spread = np.sqrt(np.bincount(stratum, weights=error) / np.bincount(stratum))
    if not spread.any():
        spread = np.ones(len(spread))
    return _capped(spread[stratum], budget)


def active_inclusion(expected_error: ArrayLike, budget: float,
                     uniform_share: float = ACTIVE_UNIFORM_SHARE) -> np.ndarray:
    """Each unit's probability in proportion to sqrt(EXPECTED_ERROR), UNIFORM_SHARE of the budget spread evenly."""
    error = np.asarray(expected_error, dtype=float)
    _budget_checked(len(error), budget)
    if (error < 0).any() or not np.isfinite(error).all():
        raise ValueError("expected errors are finite and non-negative")
    root = np.sqrt(error)
    focused = root / root.mean() if root.sum() > 0 else np.ones(len(error))
    return _capped(uniform_share + (1 - uniform_share) * focused, budget)


def plan_inclusion(plan: str, budget: float, expected_error: ArrayLike) -> np.ndarray | None:
    """Each unit's inclusion probability at BUDGET under PLAN (one of PLANS) from the judge's EXPECTED_ERROR on each:
    stratified between the units above the median error and the others, or active; None for the uniform plan, and
    for any plan where no unit has an expected error above 0 (nothing to tell them apart: uniform)."""
    error = np.asarray(expected_error, dtype=float)
    if plan == "uniform" or not error.any():
        return None
    if plan == "stratified":  # strata: the units the judge finds hard and those it does not
        return stratified_inclusion([e > np.median(error) for e in error], budget, error)
    return active_inclusion(error, budget)


def drawn(inclusion: ArrayLike, rng: np.random.Generator) -> np.ndarray:
    """The labelled units under INCLUSION, round(its sum) of them: where the probabilities are equal, a simple random
    sample; else systematic sampling in a random order (Madow 1949: the units in a shuffled row, each taking a length
    of its probability, one unit picked every 1 from a random start), which labels each unit with exactly its
    probability and spends exactly the budget, where independent coins would spend it only on average."""
    probabilities = np.asarray(inclusion, dtype=float)
    chosen = np.zeros(len(probabilities), dtype=bool)
    if np.allclose(probabilities, probabilities[0]):
        chosen[rng.choice(len(probabilities), size=int(round(probabilities.sum())), replace=False)] = True
        return chosen
    order = rng.permutation(len(probabilities))
    ends = np.cumsum(probabilities[order])
    points = rng.random() + np.arange(int(np.floor(ends[-1] + 1e-9)))
    picked = np.searchsorted(ends, points, side="right")
    chosen[order[picked[picked < len(order)]]] = True
    return chosen
