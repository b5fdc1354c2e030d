"""Humans and a judge together: a system's mean measure from human labels on a few units and the judge's verdicts on
all of them, by prediction-powered inference (PPI++, Angelopoulos, Duchi and Zrnic 2023: the judge's mean over every
unit, corrected by the mean of the humans' minus the judge's on the units humans labelled, the correction's weight
lambda tuned to the data). Unbiased whatever the judge's errors; its interval is narrower than the humans' alone as
far as the judge's verdicts track the humans'. Pure functions, no Django; the estimators are ppi_py's.

A unit is what the measure averages and what humans label together: an output, or a question or topic with all its
outputs (clustered: outputs of one question are not independent, so the question is the unit, and a per-query
measure such as NDCG@10 is one number a query). Units are labelled by a plan (stats.label_plans): a simple random
sample (uniform), or unequal inclusion probabilities (by stratum, or where the judge is unsure: active), whose
estimate weights each labelled unit by 1 / its inclusion probability (inverse-probability weighting, Zrnic and Candès
2024: the judge's mean over all units, plus the weighted mean correction). The humans-only estimate on the same labels
is weighted alike; it is never narrower than the combined one, which falls back to it (lambda = 0) when the tuned
lambda's interval would be wider (as power tuning intends: lambda = 0 is one of its choices).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

ALPHA = 0.05  # 95% intervals
Z = float(norm.ppf(1 - ALPHA / 2))
ESTIMATOR = "PPI++ (power-tuned prediction-powered inference, ppi_py.ppi_mean_ci)"


def _ppi():
    """ppi_py, imported when first needed (numba's start costs seconds) and without its import's side effect: it sets
    a process-wide filter that ignores every warning, which the catch restores."""
    with warnings.catch_warnings():
        import ppi_py
    return ppi_py


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval (None when undefined: fewer than two labelled units) from N labelled units;
    LAM: the weight given to the judge (1: plain PPI; 0: the humans alone), None for the humans-only estimate."""

    value: float | None
    ci95: tuple[float, float] | None
    n: int
    lam: float | None = None

    @property
    def width(self) -> float | None:
        return None if self.ci95 is None else self.ci95[1] - self.ci95[0]

    def as_dict(self) -> dict:
        return {"value": self.value, "ci95": list(self.ci95) if self.ci95 else None, "n": self.n, "lam": self.lam}


@dataclass(frozen=True)
class Combined:
    """A system's three figures on one set of labels: the humans and judge together, the humans alone, the judge
    alone (its mean over every unit, with no interval: its bias is unknown); the width the humans alone would have
    from a simple random sample of as many units (what an unequal plan's weights cost them), and how many human labels
    the judge was worth: the size of the simple random sample whose humans-only interval is as narrow as the combined
    one, (2 z sd / combined width)^2, sd the labelled units' (weighted) standard deviation."""

    combined: Estimate
    human: Estimate
    judge: float | None
    units: int
    human_uniform_width: float | None
    effective_labels: float | None

    def as_dict(self) -> dict:
        return {"combined": self.combined.as_dict(), "human": self.human.as_dict(), "judge": self.judge,
                "units": self.units, "human_uniform_width": self.human_uniform_width,
                "effective_labels": self.effective_labels}


def _labelled(human, judge, labelled, inclusion):
    human, judge = np.asarray(human, dtype=float), np.asarray(judge, dtype=float)
    labelled = np.asarray(labelled, dtype=bool)
    if not (human.shape == judge.shape == labelled.shape) or human.ndim != 1:
        raise ValueError(f"human, judge and labelled differ in shape: {human.shape}, {judge.shape}, {labelled.shape}")
    if np.isnan(judge).any():
        raise ValueError("the judge has no verdict on some units: leave them out of the population")
    if np.isnan(human[labelled]).any():
        raise ValueError("a labelled unit has no human value")
    weights = None
    if inclusion is not None:
        inclusion = np.asarray(inclusion, dtype=float)
        if inclusion.shape != human.shape or (inclusion[labelled] <= 0).any() or (inclusion > 1).any():
            raise ValueError("inclusion probabilities are one per unit, in (0, 1] for every labelled unit")
        weights = 1 / inclusion[labelled]
    return human[labelled], judge[labelled], judge, labelled, weights


def _interval(low, high, bounds: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """(LOW, HIGH) as floats, within BOUNDS (the measure's range: an accuracy's interval stops at 1)."""
    low, high = float(np.ravel(low)[0]), float(np.ravel(high)[0])
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return (max(low, bounds[0]), min(high, bounds[1])) if bounds else (low, high)


def human_mean(human, labelled, inclusion=None, bounds: tuple[float, float] | None = None) -> Estimate:
    """The humans alone: the (inverse-probability weighted) mean of the labelled units' human values, with the
    normal interval (ppi_py.classical_mean_ci), within BOUNDS."""
    y, _, _, _, weights = _labelled(human, np.zeros(len(human)), labelled, inclusion)
    if len(y) == 0:
        return Estimate(None, None, 0)
    value = float(np.average(y, weights=weights))
    if len(y) < 2:
        return Estimate(value, None, len(y))
    return Estimate(value, _interval(*_ppi().classical_mean_ci(y, w=weights, alpha=ALPHA), bounds), len(y))


def combined_mean(human, judge, labelled, inclusion=None, bounds: tuple[float, float] | None = None) -> Combined:
    """A system's mean over its units from HUMAN values (read where LABELLED) and the JUDGE's on every unit.
    INCLUSION: each unit's probability of being labelled under the plan that drew them; None for a simple random
    sample (every unit alike), when the judge's part is its mean over the units humans did not label, as ppi_py
    takes it; with unequal probabilities it is the judge's mean over all units and the correction is weighted.
    BOUNDS: the measure's range, which intervals are kept within (0 to 1 for an accuracy)."""
    y, yhat, judge_all, labelled, weights = _labelled(human, judge, labelled, inclusion)
    human_only = human_mean(human, labelled, inclusion, bounds)
    judge_value = float(judge_all.mean()) if len(judge_all) else None
    units = len(judge_all)
    unlabelled = judge_all if weights is not None else judge_all[~labelled]
    if len(y) < 2 or len(unlabelled) == 0:
        return Combined(Estimate(human_only.value, human_only.ci95, len(y), 0.0), human_only, judge_value, units,
                        human_only.width, None)
    ppi = _ppi()
    lam = _tuned_lambda(ppi, y, yhat, unlabelled, weights)
    value = float(np.ravel(ppi.ppi_mean_pointestimate(y, yhat, unlabelled, lam=lam, w=weights))[0])
    ci = _interval(*ppi.ppi_mean_ci(y, yhat, unlabelled, alpha=ALPHA, lam=lam, w=weights), bounds)
    combined = Estimate(value, ci, len(y), lam)
    if human_only.width is not None and (combined.width is None or combined.width > human_only.width):
        combined = Estimate(human_only.value, human_only.ci95, len(y), 0.0)
    spread = math.sqrt(float(np.average((y - np.average(y, weights=weights)) ** 2, weights=weights)))
    uniform_width = 2 * Z * spread / math.sqrt(len(y))
    effective = (2 * Z * spread / combined.width) ** 2 if combined.width else None
    return Combined(combined, human_only, judge_value, units, uniform_width, effective)


def _tuned_lambda(ppi, y, yhat, unlabelled, weights) -> float:
    """PPI++'s power-tuning lambda (ppi_py's, clipped to [0, 1]), as ppi_mean_ci computes it when given none."""
    w = ppi.construct_weight_vector(len(y), weights, vectorized=True)
    w_unlabelled = ppi.construct_weight_vector(len(unlabelled), None, vectorized=True)
    point = ppi.ppi_mean_pointestimate(y, yhat, unlabelled, lam=1, w=weights)
    y2, yhat2, unlabelled2 = (ppi.reshape_to_2d(a) for a in (y, yhat, unlabelled))
    lam = ppi.ppi._calc_lam_glm(w * (y2 - point), w * (yhat2 - point), w_unlabelled * (unlabelled2 - point),
                                np.eye(1), coord=None, clip=True, optim_mode="overall")
    return float(np.ravel(lam)[0]) if math.isfinite(float(np.ravel(lam)[0])) else 0.0
