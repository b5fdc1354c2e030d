"""Humans and a judge together: a system's mean measure from human labels on a few units and the judge's verdicts on
all of them, by prediction-powered inference (PPI++, Angelopoulos, Duchi and Zrnic 2023: the judge's mean over every
unit, corrected by the mean of the humans' minus the judge's on the units humans labelled, the correction's weight
lambda tuned to the data). Unbiased whatever the judge's errors; its interval is narrower than the humans' alone as
far as the judge's verdicts track the humans'. Pure functions, no Django.

A unit is what the measure averages and what humans label together: an output, or a question or topic with all its
outputs (clustered: outputs of one question are not independent, so the question is the unit, and a per-query
measure such as NDCG@10 is one number a query). Units are labelled by a plan (stats.label_plans). Under a simple
random sample (the uniform plan) the estimate and its interval are ppi_py's PPI++. Under unequal inclusion
probabilities (by stratum, or where the judge is unsure: active) they are the active inference form (Zrnic and
Candès 2024) with weighted (Hajek) means, written here: the humans' weighted mean over the labelled units plus
lambda times the judge's mean over all units less its weighted mean over the labelled ones (each labelled unit
weighted by 1 / its inclusion probability), its standard error from the per-unit terms of that sum (linearised);
ppi_py's weighted PPI would count the labelled units in both of its samples and leave out their covariance, which
bench/bench_ppi.py measured as 92-93% coverage.
The humans-only estimate on the same labels is computed alike (lambda = 0); the combined one is never wider: it falls
back to the humans' alone when the tuned lambda's interval would be, when fewer than MIN_LABELLED units are labelled,
and when the labelled units show fewer than MIN_DISAGREEMENTS disagreements between the judge and the humans (too
few to measure its errors by).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

ALPHA = 0.05  # 95% intervals
Z = float(norm.ppf(1 - ALPHA / 2))
# Fewer labelled units than this on which the judge and the humans differ: the combined estimate is the humans' alone
# (the judge's errors are not measured by a handful; tests/stats/test_ppi.py, bench/bench_ppi.py).
MIN_DISAGREEMENTS = 3
# Fewer labelled units than this: the humans alone. Lambda tuned on a handful of units fits them too well and the
# interval is too narrow (TREC DL 2019, 4 of 43 topics labelled: 83-88% coverage; 10 labelled: 96-98%,
# bench/bench_ppi_trec.py; bench/bench_ppi.py --units 200 measures 10 and up).
MIN_LABELLED = 10
ESTIMATOR = "PPI++ (prediction-powered inference, power-tuned: ppi_py)"


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
    from a simple random sample of as many units (2 t sd / sqrt(n), sd the labelled units' weighted standard
    deviation), and how many human labels the judge was worth: the size of the simple random sample whose
    humans-only interval would be as narrow as the combined one, n (that width / the combined width)^2."""

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


def _t_interval(value: float, error: float, labelled: int, bounds) -> tuple[float, float] | None:
    """VALUE +- the t quantile with LABELLED - 1 degrees of freedom times its standard ERROR, within BOUNDS: the
    normal interval's small-sample form (at 100 labels 1.2% wider; bench/bench_ppi.py measured the normal one at
    93.4% for a biased judge there)."""
    if not error > 0:
        return None
    half = _t_quantile(labelled - 1) * error
    return _interval(value - half, value + half, bounds)


@lru_cache(maxsize=4096)
def _t_quantile(freedom: int) -> float:
    """The two-sided 95% quantile of Student's t with FREEDOM degrees of freedom (a report asks it thousands of times
    for a few sample sizes)."""
    return float(student_t.ppf(1 - ALPHA / 2, freedom))


def _error_of(low, high) -> float:
    """The standard error behind ppi_py's normal 95% interval (LOW, HIGH)."""
    return (float(np.ravel(high)[0]) - float(np.ravel(low)[0])) / (2 * Z)


def _weighted_interval(terms: np.ndarray, labelled: int, bounds) -> tuple[float, tuple[float, float] | None]:
    """The mean of the per-unit TERMS over all units and its interval (standard error std / sqrt(N); LABELLED units
    give the degrees of freedom)."""
    value = float(terms.mean())
    return value, _t_interval(value, float(terms.std(ddof=1)) / math.sqrt(len(terms)), labelled, bounds)


def human_mean(human, labelled, inclusion=None, bounds: tuple[float, float] | None = None) -> Estimate:
    """The humans alone, within BOUNDS: under a simple random sample (INCLUSION None) the labelled units' mean with its
    interval (ppi_py.classical_mean_ci's standard error); under unequal inclusion the weighted (Hajek) mean, each
    labelled unit weighted by 1 / its inclusion probability, with the interval of its linearised terms
    (_centred_terms); t intervals, n - 1 degrees of freedom."""
    y, _, _, labelled, weights = _labelled(human, np.zeros(len(human)), labelled, inclusion)
    if len(y) < 2:
        return Estimate(float(y.mean()) if len(y) else None, None, len(y))
    if weights is None:
        value = float(y.mean())
        return Estimate(value, _t_interval(value, _error_of(*_ppi().classical_mean_ci(y, alpha=ALPHA)), len(y), bounds),
                        len(y))
    value, ci = _weighted_interval(_centred_terms(human, labelled, inclusion), len(y), bounds)
    return Estimate(value, ci, len(y))


def _centred_terms(values, labelled, inclusion) -> np.ndarray:
    """Per unit, m + xi (v - m) / pi, m the labelled VALUES' weighted (Hajek) mean: their mean is m, and their spread
    over sqrt(N) its linearised standard error (xi: labelled or not, pi: the unit's inclusion probability)."""
    values, inclusion = np.nan_to_num(np.asarray(values, dtype=float)), np.asarray(inclusion, dtype=float)
    mean = float(np.average(values[labelled], weights=1 / inclusion[labelled]))
    return mean + np.where(labelled, (values - mean) / inclusion, 0.0)


def combined_mean(human, judge, labelled, inclusion=None, bounds: tuple[float, float] | None = None) -> Combined:
    """A system's mean over its units from HUMAN values (read where LABELLED) and the JUDGE's on every unit.
    INCLUSION: each unit's probability of being labelled under the plan that drew them. None for a simple random
    sample (every unit alike): PPI++ as ppi_py computes it, the judge's mean over the units humans did not label plus
    the labelled units' mean correction, lambda power-tuned. With unequal probabilities, the active inference form
    (Zrnic and Candès 2024) with weighted means: the humans' weighted mean plus lambda times (the judge's mean over
    all units less its weighted mean over the labelled ones), its standard error from the per-unit terms, lambda the
    value that minimises their variance (clipped to [0, 1]).
    BOUNDS: the measure's range, which intervals are kept within (0 to 1 for an accuracy). With fewer than
    MIN_DISAGREEMENTS labelled units on which the judge and the humans differ, the judge's errors cannot be measured
    (an interval from two disagreements is far too narrow): the combined estimate is the humans' alone."""
    y, yhat, judge_all, labelled, weights = _labelled(human, judge, labelled, inclusion)
    human_only = human_mean(human, labelled, inclusion, bounds)
    judge_value = float(judge_all.mean()) if len(judge_all) else None
    units = len(judge_all)
    spread = math.sqrt(float(np.average((y - np.average(y, weights=weights)) ** 2, weights=weights))) if len(y) else 0
    uniform_width = 2 * _t_quantile(len(y) - 1) * spread / math.sqrt(len(y)) if len(y) >= 2 else None
    humans_alone = Combined(Estimate(human_only.value, human_only.ci95, len(y), 0.0), human_only, judge_value, units,
                            uniform_width, len(y) if human_only.width else None)
    if len(y) < MIN_LABELLED or labelled.all() or disagreements(y, yhat) < MIN_DISAGREEMENTS:
        return humans_alone
    if weights is None:
        ppi = _ppi()
        rest = judge_all[~labelled]
        lam = _tuned_lambda(ppi, y, yhat, rest)
        value = float(np.ravel(ppi.ppi_mean_pointestimate(y, yhat, rest, lam=lam))[0])
        ci = _t_interval(value, _error_of(*ppi.ppi_mean_ci(y, yhat, rest, alpha=ALPHA, lam=lam)), len(y), bounds)
    else:
        # z = a + lambda b, a: the humans' centred terms, b = (yhat - m) (1 - xi / pi), m the labelled units'
        # weighted mean of yhat: mean(z) is the humans' weighted mean plus lambda times the judge's mean over all
        # units less its weighted mean over the labelled ones. Var(a + lambda b) is least at -Cov(a, b) / Var(b).
        a = _centred_terms(human, labelled, inclusion)
        b = judge_all - _centred_terms(judge_all, labelled, inclusion)
        variance = float(np.var(b, ddof=1))
        lam = float(np.clip(-np.cov(a, b)[0, 1] / variance, 0, 1)) if variance > 0 else 0.0
        value, ci = _weighted_interval(a + lam * b, len(y), bounds)
    combined = Estimate(value, ci, len(y), lam)
    if human_only.width is None or combined.width is None or combined.width > human_only.width:
        return humans_alone
    effective = len(y) * (uniform_width / combined.width) ** 2 if combined.width and uniform_width else None
    return Combined(combined, human_only, judge_value, units, uniform_width, effective)


def disagreements(y: np.ndarray, yhat: np.ndarray) -> int:
    """The labelled units on which the judge's value is not the humans'."""
    return int((np.abs(np.asarray(y) - np.asarray(yhat)) > 1e-9).sum())


def _tuned_lambda(ppi, y, yhat, unlabelled) -> float:
    """PPI++'s power-tuning lambda (ppi_py's, clipped to [0, 1]), as ppi_mean_ci computes it when given none."""
    point = ppi.ppi_mean_pointestimate(y, yhat, unlabelled, lam=1)
    y2, yhat2, unlabelled2 = (ppi.reshape_to_2d(a) for a in (y, yhat, unlabelled))
    lam = ppi.ppi._calc_lam_glm(y2 - point, yhat2 - point, unlabelled2 - point, np.eye(1), coord=None, clip=True,
                                optim_mode="overall")
    return float(np.ravel(lam)[0]) if math.isfinite(float(np.ravel(lam)[0])) else 0.0


def predicted_width(human, judge, labelled, inclusion, lam: float, plan: np.ndarray) -> float | None:
    """The width of the combined 95% interval were the units labelled by PLAN (each unit's inclusion probability
    under a new budget, their sum that budget), estimated from the labels there are (HUMAN values where LABELLED,
    drawn with INCLUSION, None for a simple random sample) and the JUDGE's values on every unit, with the weight
    LAM. The estimator's variance is, per unit, e^2 / pi summed over the units and over N^2 (e = (y - m) - lam
    (yhat - m_hat), the residual of its labelled part about the weighted means), plus lam^2 var(yhat) / N (its judge
    part); the sum over every unit is estimated from the labelled ones, each weighted by 1 / its current inclusion
    probability. Under the uniform plan this is PPI++'s variance, var(y - lam yhat) / n + lam^2 var(yhat) / N.
    None with fewer than two labelled units."""
    y, yhat, judge_all, labelled, weights = _labelled(human, judge, labelled, inclusion)
    if len(y) < 2:
        return None
    weights = np.ones(len(y)) if weights is None else weights
    plan = np.asarray(plan, dtype=float)
    units = len(judge_all)
    residual = (y - np.average(y, weights=weights)) - lam * (yhat - np.average(yhat, weights=weights))
    total = units * float(np.average(residual ** 2 / plan[labelled], weights=weights))
    variance = total / units ** 2 + lam ** 2 * float(np.var(judge_all, ddof=1)) / units
    return 2 * _t_quantile(max(1, int(round(plan.sum())) - 1)) * math.sqrt(variance)


def labels_needed(human, judge, labelled, inclusion, lam: float, width: float, plan_for) -> int | None:
    """The fewest labelled units (the whole budget, those labelled now included) whose combined interval
    predicted_width gives as narrow as WIDTH, the units drawn by PLAN_FOR(budget) (each unit's inclusion probability
    under that budget); None when even every unit labelled would not (or there is too little to predict from)."""
    units = len(np.asarray(judge))
    now = int(np.asarray(labelled, dtype=bool).sum())

    def wide(budget: int) -> bool:
        found = predicted_width(human, judge, labelled, inclusion, lam, plan_for(float(budget)))
        return found is None or found > width

    if now < 2 or wide(units):
        return None
    low, high = max(2, now) - 1, units  # wide(low) is taken as true, wide(high) is false
    if not wide(low + 1):
        return low + 1
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if wide(middle) else (low, middle)
    return high
