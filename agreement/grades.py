"""From a judge's scores to grades 0/1/2 (image_relevance, DESIGN.md §1.2). Pure functions: no Django.

- Quantile rule (Yang & Lin, LLM4Eval 2024): over the judge's scores in the campaign, a score below the median
  is 0, from the median to the 75th percentile 1, above the 75th percentile 2.
- Fitted thresholds: the two cut points t1 <= t2 that agree best with the human grades (linear-weighted
  Cohen's kappa, sklearn), chosen on a grid of the scores' quantiles; how well that generalises is measured by
  k-fold cross-validation (thresholds fitted on k-1 folds, kappa on the held-out fold), and reported as fitted.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from itertools import combinations_with_replacement

import numpy as np
from sklearn.model_selection import KFold

from agreement import stats

GRID = np.linspace(0.05, 0.95, 19)  # quantiles of the scores tried as cut points
LEVELS = [0, 1, 2]


def quantile_cuts(scores: list[float]) -> tuple[float, float] | None:
    """(median, 75th percentile) of SCORES; None without scores."""
    if not scores:
        return None
    median, upper = np.percentile(np.asarray(scores, dtype=float), [50, 75])
    return float(median), float(upper)


def grade_of(score: float, cuts: tuple[float, float], *, upper_inclusive: bool) -> int:
    """The grade of SCORE under CUTS (t1, t2): below t1 -> 0; t1 up to t2 -> 1; above t2 -> 2.

    UPPER_INCLUSIVE puts a score equal to t2 in grade 1 (the quantile rule: "median to 75th percentile");
    fitted thresholds put it in grade 2 (t2 is where grade 2 starts).
    """
    low, high = cuts
    if score < low:
        return 0
    if score < high or (upper_inclusive and score == high):
        return 1
    return 2


def quantile_grades(scores: Mapping[Hashable, float]) -> dict[Hashable, int]:
    cuts = quantile_cuts(list(scores.values()))
    return {key: grade_of(score, cuts, upper_inclusive=True) for key, score in scores.items()} if cuts else {}


def _cut(scores: np.ndarray, low: float, high: float) -> list[int]:
    """Grades under fitted cut points, vectorised: grade_of(..., upper_inclusive=False) for every score."""
    return ((scores >= low).astype(int) + (scores >= high).astype(int)).tolist()


def _fit(scores: np.ndarray, grades: np.ndarray) -> tuple[float, float]:
    candidates = sorted(set(np.quantile(scores, GRID).tolist()))
    best, best_kappa = (candidates[0], candidates[-1]), -2.0
    human = grades.tolist()
    for low, high in combinations_with_replacement(candidates, 2):
        kappa = stats.cohen_kappa(human, _cut(scores, low, high), weights="linear", labels=LEVELS)
        if kappa is not None and kappa > best_kappa:
            best, best_kappa = (low, high), kappa
    return best


def fitted_thresholds(scores: Mapping[Hashable, float], human: Mapping[Hashable, int], *, folds: int = 5,
                      seed: int = 0) -> dict | None:
    """Cut points fitted on the items with both a score and a human grade, with their cross-validated kappa.

    {"thresholds": [t1, t2], "cv_kappa_linear": mean held-out linear kappa, "cv_kappa": mean held-out
    unweighted kappa, "folds": k, "items": n}; None with fewer than 2 * FOLDS such items.
    """
    keys = sorted((key for key in scores if key in human), key=str)
    if len(keys) < 2 * folds:
        return None
    x = np.asarray([scores[key] for key in keys], dtype=float)
    y = np.asarray([human[key] for key in keys], dtype=int)
    linear, plain = [], []
    for train, test in KFold(n_splits=folds, shuffle=True, random_state=seed).split(x):
        predicted = _cut(x[test], *_fit(x[train], y[train]))
        linear.append(stats.cohen_kappa(y[test].tolist(), predicted, weights="linear", labels=LEVELS))
        plain.append(stats.cohen_kappa(y[test].tolist(), predicted, labels=LEVELS))
    low, high = _fit(x, y)
    return {"thresholds": [low, high], "cv_kappa_linear": stats.mean_defined(linear),
            "cv_kappa": stats.mean_defined(plain), "folds": folds, "items": len(keys)}


def fitted_grades(scores: Mapping[Hashable, float], thresholds: list[float]) -> dict[Hashable, int]:
    cuts = (thresholds[0], thresholds[1])
    return {key: grade_of(score, cuts, upper_inclusive=False) for key, score in scores.items()}
