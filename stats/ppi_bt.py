"""Humans and a judge together on Bradley-Terry scores (stats.ppi's estimator for a logistic model): the systems'
strengths fitted on the humans' verdicts of the prompts they labelled and the judge's verdicts of every prompt by
PPI++ for logistic regression (ppi_py's ppi_logistic_pointestimate, lambda power-tuned as ppi_py tunes it), as
AutoEval (Boyeau et al. 2024) fits Bradley-Terry. Pure functions, no Django.

A comparison of systems a and b is the row x = e_a - e_b (system 0 the reference, its column left out: its strength
is 0), and enters the fit as two rows, (x, a won or tied) and (-x, b won or tied), each of weight one half: a win
counts once and a tie half a win each way, which a logistic model of 0/1 outcomes cannot take otherwise. The
comparisons of one prompt are labelled together and are not independent, so the prompt is the resampling unit: the
interval's variance is ppi_py's sandwich (the inverse Hessian around the variance of the gradients) with the
gradients summed per prompt (cluster-robust), which with one comparison a prompt is ppi_py's own
(tests/stats/test_ppi_bt.py). Scores are reported centred (their mean 0), each with its normal 95% interval; the
humans alone on the same prompts are the same fit with lambda 0. Never wider: a system whose combined interval would
be wider than the humans' alone gets the humans' alone; fewer than stats.ppi.MIN_LABELLED labelled prompts or
stats.ppi.MIN_DISAGREEMENTS differing verdicts, or a combined fit that runs off: the humans alone for every system;
no fit at all where the humans' own runs off (a system that won every comparison it had).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from stats import ppi
from stats.quiet import quiet

# A strength this large is no estimate: the fit ran off (a system that won, or lost, every comparison it had).
DIVERGED = 20.0


class FitFailed(ValueError):
    """The logistic fit found no finite strengths (complete separation) or no invertible Hessian."""


# (first system, second system, its points for the first: 1 a win, 0.5 a tie, 0 a loss)
Comparison = tuple[Hashable, Hashable, float]


@dataclass(frozen=True)
class Rows:
    """Comparisons as the logistic model's rows: X (two rows a comparison), the outcome, the weight, the prompt."""

    x: np.ndarray
    outcome: np.ndarray
    weight: np.ndarray
    prompt: np.ndarray

    @classmethod
    def of(cls, comparisons: Sequence[Comparison], prompts: Sequence[Hashable], systems: list) -> Rows:
        index = {system: n for n, system in enumerate(systems)}
        x = np.zeros((2 * len(comparisons), len(systems) - 1))
        outcome = np.zeros(2 * len(comparisons))
        for n, (first, second, points) in enumerate(comparisons):
            row = np.zeros(len(systems))
            row[index[first]], row[index[second]] = 1.0, -1.0
            x[2 * n], x[2 * n + 1] = row[1:], -row[1:]
            outcome[2 * n], outcome[2 * n + 1] = float(points >= 0.5), float(points <= 0.5)
        prompt = np.repeat(np.asarray(list(prompts), dtype=object), 2)
        return cls(x, outcome, np.full(len(outcome), 0.5), prompt)


def _cluster_covariance(gradients: np.ndarray, prompts: np.ndarray) -> tuple[np.ndarray, int]:
    """(the covariance of the per-prompt sums of GRADIENTS, times the number of prompts over the rows squared: the
    variance of their mean, cluster-robust; the number of prompts)."""
    names, inverse = np.unique(prompts.astype(str), return_inverse=True)
    sums = np.zeros((len(names), gradients.shape[1]))
    np.add.at(sums, inverse, gradients)
    covariance = np.atleast_2d(np.cov(sums.T, ddof=1)) if len(names) > 1 else np.full((gradients.shape[1],) * 2,
                                                                                        np.nan)
    return covariance * len(names) / len(gradients) ** 2, len(names)


@dataclass(frozen=True)
class Fit:
    """The strengths of every system but the reference (THETA), their COVARIANCE, LAM."""

    theta: np.ndarray
    covariance: np.ndarray
    lam: float

    def centred(self) -> tuple[np.ndarray, np.ndarray]:
        """(every system's strength less their mean, the reference's 0 included; their covariance): A (0, theta) and
        A Sigma A', A = I - 1/k."""
        k = len(self.theta) + 1
        centre = np.eye(k) - 1 / k
        full = np.zeros((k, k))
        full[1:, 1:] = self.covariance
        return centre @ np.r_[0.0, self.theta], centre @ full @ centre.T


def _fit(labelled: Rows, human: np.ndarray, judged: np.ndarray, rest: Rows, rest_judged: np.ndarray,
         lam: float | None) -> Fit:
    """PPI++'s logistic fit of HUMAN outcomes on LABELLED's rows with the JUDGED outcomes on them and REST_JUDGED on
    the REST; LAM None: tuned (ppi_py's _calc_lam_glm, clipped to [0, 1])."""
    with quiet(FutureWarning):  # scikit-learn's warning of a parameter ppi_py passes, not ours to change
        return _fitted(labelled, human, judged, rest, rest_judged, lam)


def _fitted(labelled: Rows, human: np.ndarray, judged: np.ndarray, rest: Rows, rest_judged: np.ndarray,
            lam: float | None) -> Fit:
    ppi_py = ppi._ppi()
    options = {"ftol": 1e-12}

    def point(at: float) -> np.ndarray:
        return np.atleast_1d(ppi_py.ppi_logistic_pointestimate(
            labelled.x, human, judged, rest.x, rest_judged, lam=at, optimizer_options=dict(options),
            w=labelled.weight, w_unlabeled=rest.weight))

    def stats(theta):
        return ppi_py.ppi._logistic_get_stats(theta, labelled.x, human, judged, rest.x, rest_judged,
                                              labelled.weight, rest.weight)

    if lam is None:
        # Tuned at the humans' own fit (lambda 0), where ppi_py tunes at plain PPI's (lambda 1): with a few dozen
        # labelled prompts the rectified loss at lambda 1 can have no minimum (its labelled judge term enters with a
        # minus), and its strengths run off to infinity.
        lam = float(np.ravel(ppi_py.ppi._calc_lam_glm(*stats(point(0.0)), clip=True))[0])
        lam = lam if np.isfinite(lam) else 0.0
    theta = point(lam)
    if not np.isfinite(theta).all() or np.abs(theta).max() > DIVERGED:
        raise FitFailed(f"the strengths ran off ({np.abs(theta).max():.3g})")
    try:
        grads, grads_hat, grads_hat_rest, inverse = stats(theta)
    except np.linalg.LinAlgError as error:
        raise FitFailed(str(error)) from error
    labelled_part, _ = _cluster_covariance(grads - lam * grads_hat, labelled.prompt)
    rest_part, _ = _cluster_covariance(grads_hat_rest, rest.prompt) if len(rest.x) else (0.0, 0)
    return Fit(theta, inverse @ (labelled_part + lam ** 2 * rest_part) @ inverse, lam)


@dataclass(frozen=True)
class BradleyTerry:
    """Per system (in SYSTEMS' order): the combined centred strength with its 95% interval, the humans' alone on the
    same prompts, the judge's alone (its fit on every prompt, no interval); lambda; the prompts labelled and in all."""

    systems: list
    combined: list[ppi.Estimate]
    human: list[ppi.Estimate]
    judge: list[float]
    lam: float
    prompts: int
    # Each two systems (indices into SYSTEMS, i < j): the difference of their strengths, i's less j's, combined and
    # the humans' alone (the combined one the humans' where it would be wider).
    differences: dict[tuple[int, int], tuple[ppi.Estimate, ppi.Estimate]]


def _estimates(fit: Fit, n: int) -> list[ppi.Estimate]:
    scores, covariance = fit.centred()
    half = ppi.Z * np.sqrt(np.clip(np.diag(covariance), 0, None))
    return [ppi.Estimate(float(value), (float(value - h), float(value + h)) if np.isfinite(h) and h > 0 else None, n,
                         fit.lam) for value, h in zip(scores, half, strict=True)]


def _differences(fit: Fit, n: int) -> dict[tuple[int, int], ppi.Estimate]:
    """Each two systems' difference of strengths with its normal 95% interval (variance e' Sigma e, e = e_i - e_j)."""
    scores, covariance = fit.centred()
    found = {}
    for i in range(len(scores)):
        for j in range(i + 1, len(scores)):
            value = float(scores[i] - scores[j])
            half = ppi.Z * float(np.sqrt(max(covariance[i, i] + covariance[j, j] - 2 * covariance[i, j], 0.0)))
            found[(i, j)] = ppi.Estimate(value, (value - half, value + half) if half > 0 else None, n, fit.lam)
    return found


def strengths(comparisons: Sequence[Comparison], prompts: Sequence[Hashable], systems: list) -> dict | None:
    """{system: its centred strength} of the maximum-likelihood fit of COMPARISONS ((a, b, the points for a)), each
    on its prompt (PROMPTS), over SYSTEMS (the reference first): the humans' alone, with no interval (a check's
    all-human figure); None where the fit runs off."""
    rows = Rows.of(comparisons, prompts, systems)
    with quiet(FutureWarning):
        theta = np.atleast_1d(ppi._ppi().ppi_logistic_pointestimate(
            rows.x, rows.outcome, rows.outcome, rows.x, rows.outcome, lam=0.0, optimizer_options={"ftol": 1e-12},
            w=rows.weight, w_unlabeled=rows.weight))
    if not np.isfinite(theta).all() or np.abs(theta).max() > DIVERGED:
        return None
    return dict(zip(systems, (float(v) for v in Fit(theta, np.zeros((len(theta),) * 2), 0.0).centred()[0]),
                    strict=True))


def combined_bradley_terry(comparisons: Sequence[Comparison], prompts: Sequence[Hashable],
                           human: Sequence[float | None], judge: Sequence[float]) -> BradleyTerry | None:
    """The systems' Bradley-Terry strengths from COMPARISONS ((a, b, the judge's points for a)), each on its prompt
    (PROMPTS), HUMAN: the humans' points for a where the prompt is labelled (None elsewhere: a prompt is labelled or
    not as a whole), JUDGE: the judge's points for a on every comparison. None with fewer than two systems."""
    systems = sorted({s for a, b, _ in comparisons for s in (a, b)}, key=str)
    if len(systems) < 2:
        return None
    rows = Rows.of([(a, b, p) for (a, b, _), p in zip(comparisons, judge, strict=True)], prompts, systems)
    labelled_pairs = np.array([h is not None for h in human])
    labelled = np.repeat(labelled_pairs, 2)
    human_rows = Rows.of([(a, b, h) for (a, b, _), h in zip(comparisons, human, strict=True) if h is not None],
                         [p for p, h in zip(prompts, human, strict=True) if h is not None], systems)
    part = Rows(rows.x[labelled], human_rows.outcome, rows.weight[labelled], rows.prompt[labelled])
    rest = Rows(rows.x[~labelled], rows.outcome[~labelled], rows.weight[~labelled], rows.prompt[~labelled])
    judged = rows.outcome[labelled]
    n_prompts = len(set(map(str, part.prompt)))
    if n_prompts < 2:
        return None
    # Lambda 0: the rest's rows only enter the Hessian; every comparison stands in for them where none is left.
    try:
        alone = _fit(part, part.outcome, judged, rest if len(rest.x) else rows,
                     (rest if len(rest.x) else rows).outcome, 0.0)
        whole = _fit(rows, rows.outcome, rows.outcome, rows, rows.outcome, 0.0)
    except FitFailed:
        return None
    human_estimates = _estimates(alone, n_prompts)
    disagreeing = int((np.abs(part.outcome - judged) > 1e-9).sum()) // 2
    fit = None
    if n_prompts >= ppi.MIN_LABELLED and disagreeing >= ppi.MIN_DISAGREEMENTS and len(rest.x):
        try:
            fit = _fit(part, part.outcome, judged, rest, rest.outcome, None)
        except FitFailed:
            fit = None  # the humans alone, as where the judge cannot be read
    human_differences = _differences(alone, n_prompts)
    if fit is None:
        combined, lam, combined_differences = human_estimates, 0.0, human_differences
    else:
        lam = fit.lam
        combined = [_narrower(c, h) for c, h in zip(_estimates(fit, n_prompts), human_estimates, strict=True)]
        combined_differences = {pair: _narrower(c, human_differences[pair])
                                for pair, c in _differences(fit, n_prompts).items()}
    return BradleyTerry(systems, combined, human_estimates, [float(v) for v in whole.centred()[0]], lam,
                        len(set(map(str, rows.prompt))),
                        {pair: (combined_differences[pair], human_differences[pair]) for pair in human_differences})


def _narrower(combined: ppi.Estimate, human: ppi.Estimate) -> ppi.Estimate:
    """COMBINED, unless the humans' alone (HUMAN) is narrower or it has no interval: then the humans' (lambda 0)."""
    if combined.width is not None and human.width is not None and combined.width <= human.width:
        return combined
    return ppi.Estimate(human.value, human.ci95, human.n, 0.0)
