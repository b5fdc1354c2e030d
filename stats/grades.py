"""From a judge's scores to grades 0..N on a campaign's scale (graded relevance, docs/design.md §1.2). Pure functions:
no Django.

- Quantile rule: cut points at given percentiles of the judge's scores in the campaign. On the 0/1/2 scale of
  image_relevance they are the median and the 75th percentile (Yang & Lin, LLM4Eval 2024): below the median 0, from
  the median to the 75th percentile 1, above it 2. A scale of other length has its own percentiles
  (quantile_percentiles).
- Fitted thresholds: the N cut points t1 <= ... <= tN that agree best with the human grades (linear-weighted
  Cohen's kappa, sklearn), chosen on a grid of the scores' quantiles; how well that generalises is measured by
  k-fold cross-validation (thresholds fitted on k-1 folds, kappa on the held-out fold), and reported as fitted.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from itertools import combinations_with_replacement

import numpy as np
from sklearn.model_selection import KFold

from stats import interrater, uncertainty

LEVELS = [0, 1, 2]  # the default scale (image_relevance)
# Quantiles of the scores tried as cut points: a finer grid for three grades (two cuts), a coarser one beyond,
# where the number of combinations grows with the power of the cuts.
GRID = np.linspace(0.05, 0.95, 19)
GRID_COARSE = np.linspace(0.1, 0.9, 9)
# The quantile rule's percentiles on the 0/1/2 scale (Yang & Lin).
THREE_GRADE_PERCENTILES = (50.0, 75.0)


def quantile_percentiles(levels: Sequence[int]) -> tuple[float, ...]:
    """The percentiles at which the quantile rule cuts a judge's scores into LEVELS: Yang & Lin's 50 and 75 for three
    grades; for any other scale, the 50th percentile and then the upper half split evenly (0/1/2/3: 50, 66.7, 83.3),
    so that as for three grades half the scores fall in the lowest grade."""
    cuts = len(levels) - 1
    if cuts == 2:
        return THREE_GRADE_PERCENTILES
    return tuple(50.0 + 50.0 * i / cuts for i in range(cuts))


def quantile_cuts(scores: list[float], *, levels: Sequence[int] = LEVELS) -> tuple[float, ...] | None:
    """The quantile rule's cut points of SCORES for LEVELS; None without scores."""
    if not scores:
        return None
    return tuple(float(cut) for cut in np.percentile(np.asarray(scores, dtype=float), quantile_percentiles(levels)))


def grade_of(score: float, cuts: Sequence[float], *, upper_inclusive: bool) -> int:
    """The grade of SCORE under CUTS (t1 <= t2 <= ...): below t1 -> 0; from t1 up to t2 -> 1; and so on.

    UPPER_INCLUSIVE puts a score equal to a higher cut in the grade below it (the quantile rule: "median to 75th
    percentile"); fitted thresholds put it in the grade above (a cut is where its grade starts).
    """
    if score < cuts[0]:
        return 0
    grade = 1
    for cut in cuts[1:]:
        if score > cut or (not upper_inclusive and score == cut):
            grade += 1
    return grade


def quantile_grades(scores: Mapping[Hashable, float], *, levels: Sequence[int] = LEVELS) -> dict[Hashable, int]:
    cuts = quantile_cuts(list(scores.values()), levels=levels)
    return {key: grade_of(score, cuts, upper_inclusive=True) for key, score in scores.items()} if cuts else {}


def _cut(scores: np.ndarray, cuts: Sequence[float]) -> list[int]:
    """Grades under fitted cut points, vectorised: grade_of(..., upper_inclusive=False) for every score."""
    grades = sum((scores >= cut).astype(int) for cut in cuts)
    assert isinstance(grades, np.ndarray)  # one cut at least: two grades or more
    return grades.tolist()


def _fit(scores: np.ndarray, grades: np.ndarray, levels: Sequence[int]) -> tuple[float, ...]:
    grid = GRID if len(levels) <= 3 else GRID_COARSE
    candidates = sorted(set(np.quantile(scores, grid).tolist()))
    best, best_kappa = (candidates[0],) * (len(levels) - 2) + (candidates[-1],), -2.0
    human = grades.tolist()
    for cuts in combinations_with_replacement(candidates, len(levels) - 1):
        kappa = interrater.cohen_kappa(human, _cut(scores, cuts), weights="linear", labels=list(levels))
        if kappa is not None and kappa > best_kappa:
            best, best_kappa = cuts, kappa
    return best


def fitted_thresholds(
    scores: Mapping[Hashable, float],
    human: Mapping[Hashable, int],
    *,
    levels: Sequence[int] = LEVELS,
    folds: int = 5,
    seed: int = 0,
) -> dict | None:
    """Cut points fitted on the items with both a score and a human grade, with their cross-validated kappa.

    {"thresholds": [t1, ...], "cv_kappa_linear": mean held-out linear kappa, "cv_kappa": mean held-out
    unweighted kappa, "folds": k, "items": n}; None with fewer than 2 * FOLDS such items.
    """
    keys = sorted((key for key in scores if key in human), key=str)
    if len(keys) < 2 * folds:
        return None
    x = np.asarray([scores[key] for key in keys], dtype=float)
    y = np.asarray([human[key] for key in keys], dtype=int)
    labels = list(levels)
    linear, plain = [], []
    for train, test in KFold(n_splits=folds, shuffle=True, random_state=seed).split(x):
        predicted = _cut(x[test], _fit(x[train], y[train], levels))
        linear.append(interrater.cohen_kappa(y[test].tolist(), predicted, weights="linear", labels=labels))
        plain.append(interrater.cohen_kappa(y[test].tolist(), predicted, labels=labels))
    return {"thresholds": list(_fit(x, y, levels)), "cv_kappa_linear": uncertainty.mean_defined(linear),
            "cv_kappa": uncertainty.mean_defined(plain), "folds": folds, "items": len(keys)}


def fitted_grades(scores: Mapping[Hashable, float], thresholds: list[float]) -> dict[Hashable, int]:
    return {key: grade_of(score, thresholds, upper_inclusive=False) for key, score in scores.items()}
