"""The statistics of an assistance experiment (reports.arms): pure functions, no Django.

Per arm: agreement of its judgments with a reference and with a judge, the share of assisted judgments equal to the
suggestion shown, time per judgment; between an assisted arm and blind, the difference with a permutation test and a
bootstrap interval. The arithmetic is scipy's and statsmodels' (permutation_test, bootstrap, proportion_confint).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special
from scipy import stats as scipy_stats
from statsmodels.stats.proportion import proportion_confint

from stats import correlation, uncertainty
from stats.quiet import quiet

SEED = 0
PERMUTATIONS = 9999
RESAMPLES = 2000


# --- How judgments are compared (a task type's arm_comparison) ---


class LabelComparison:
    """Verdicts and grades: agreement is 1 when two labels are equal, else 0; a unit's reference without an
    adjudication is the strict majority of its blind labels (none on a tie)."""

    measure = "share of judgments equal to the reference (or to the judge's verdict)"

    @staticmethod
    def agreement(key, reference) -> float | None:
        if key is None or reference is None:
            return None
        return float(key == reference)

    @staticmethod
    def reference(keys: Sequence) -> object | None:
        keys = [key for key in keys if key is not None]
        if not keys:
            return None
        ranked = Counter(keys).most_common()
        if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
            return None
        return ranked[0][0]


class RankingComparison:
    """Rankings ({dimension: tie groups, best first}): agreement is Kendall's tau-b, the mean over the dimensions
    both rank; a topic's reference without an adjudication is its most typical blind ranking (the highest mean tau-b
    with the others, the first on a tie): rankings have no majority."""

    measure = "mean Kendall's tau-b with the reference ranking (or the judge's order)"

    @staticmethod
    def agreement(key, reference) -> float | None:
        if key is None or reference is None:
            return None
        return uncertainty.mean_defined([correlation.ranking_ranking_tau_b(key[name], reference[name])
                                         for name in key if name in reference])

    @classmethod
    def reference(cls, keys: Sequence) -> object | None:
        keys = [key for key in keys if key is not None]
        if len(keys) <= 1:
            return keys[0] if keys else None

        def typical(index: int) -> float:
            mean = uncertainty.mean_defined([cls.agreement(keys[index], other)
                                             for n, other in enumerate(keys) if n != index])
            return -2.0 if mean is None else mean

        return keys[max(range(len(keys)), key=lambda index: (typical(index), -index))]


COMPARISONS: dict[str, type[LabelComparison] | type[RankingComparison]] = {
    "labels": LabelComparison, "rankings": RankingComparison}


# --- Summaries with intervals ---


def _defined(values: Sequence[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def share_summary(values: Sequence[float | None]) -> dict:
    """{"n", "value", "ci95", "method"}: the mean of VALUES (None left out). 0/1 values are a proportion with a 95%
    Wilson interval (statsmodels); others (tau-b) a mean with a t interval (stats.uncertainty.mean_ci95)."""
    data = _defined(values)
    n = len(data)
    if n == 0:
        return {"n": 0, "value": None, "ci95": None, "method": None}
    if all(v in (0.0, 1.0) for v in data):
        hits = int(sum(data))
        low, high = proportion_confint(hits, n, alpha=0.05, method="wilson")
        return {"n": n, "value": hits / n, "ci95": [float(low), float(high)], "method": "95% Wilson interval",
                "ci_over": "Wilson"}
    summary = uncertainty.mean_ci95(data)
    return {"n": n, "value": summary["mean"], "ci95": summary["ci95"], "method": "95% t interval of the mean",
            "ci_over": "t-based"}


def median_summary(values: Sequence[float | None], *, seed: int = SEED) -> dict:
    """{"n", "median", "ci95", "method"}: the median of VALUES (seconds) with a 95% percentile bootstrap interval."""
    data = np.asarray(_defined(values), dtype=float)
    if data.size == 0:
        return {"n": 0, "median": None, "ci95": None, "method": None}
    interval = uncertainty.bootstrap_interval(data.size, lambda idx: float(np.median(data[idx])), seed=seed)
    return {"n": int(data.size), "median": float(np.median(data)), "ci95": interval,
            "method": uncertainty.bootstrap_method("judgments", seed=seed), "ci_over": "judgments"}


def difference_test(first: Sequence[float | None], second: Sequence[float | None], *, over: str,
                    seed: int = SEED) -> dict:
    """The difference of the means of FIRST and SECOND (FIRST minus SECOND), each a list of observations (an
    annotator's mean agreement, or one judgment's), with a two-sided permutation test of no difference
    (scipy.stats.permutation_test, observations exchanged between the two groups) and a 95% percentile bootstrap
    interval (scipy.stats.bootstrap, each group resampled on its own). OVER names the observations."""
    a, b = np.asarray(_defined(first)), np.asarray(_defined(second))
    result: dict[str, Any] = {
        "n": [int(a.size), int(b.size)], "difference": None, "ci95": None, "p_value": None,
        "method": (f"difference of means over {over}; two-sided permutation test ({PERMUTATIONS} "
                   f"permutations at most, seed {seed}); 95% percentile bootstrap interval ({RESAMPLES} "
                   f"resamples, seed {seed})")}
    if a.size == 0 or b.size == 0:
        return result
    result["difference"] = float(a.mean() - b.mean())
    if a.size < 2 or b.size < 2:
        return result

    def diff(x, y, axis=-1):
        return np.mean(x, axis=axis) - np.mean(y, axis=axis)

    with quiet():
        test = scipy_stats.permutation_test((a, b), diff, permutation_type="independent", vectorized=True,
                                            n_resamples=PERMUTATIONS, alternative="two-sided",
                                            random_state=np.random.default_rng(seed))
        boot = scipy_stats.bootstrap((a, b), diff, vectorized=True, paired=False, n_resamples=RESAMPLES,
                                     method="percentile", random_state=np.random.default_rng(seed))
    result["p_value"] = float(test.pvalue)
    low, high = boot.confidence_interval
    if math.isfinite(low) and math.isfinite(high):
        result["ci95"] = [float(low), float(high)]
    return result


# --- The comparison of the arms ---


@dataclass
class ArmRow:
    """One judgment, as the arms report sees it."""

    arm: str
    annotator: str
    reference: float | None  # agreement with the unit's reference
    judges: dict  # judge name -> agreement with that judge's verdict (None: no verdict on the unit)
    shown: bool  # a suggestion was shown (assisted arms)
    equal: bool | None  # the judgment is the suggestion (None when none was shown)
    right: bool | None  # the suggestion agrees fully with the reference (None: no reference or no suggestion)
    seconds: float | None


def _equal(row: ArmRow) -> float:
    """1.0 when ROW's judgment is the suggestion shown, else 0.0; a row with a suggestion shown always says which."""
    assert row.equal is not None
    return float(row.equal)


def arm_summary(rows: list[ArmRow], *, arm: str, judge: str | None, judges: list[str]) -> dict:
    """One arm's figures from its ROWS: annotators, judgments, agreement with the reference and with each judge of
    JUDGES, time per judgment, and for an assisted arm (JUDGE its judge) the share equal to the suggestion, split by
    whether the suggestion was right."""
    summary = {
        "arm": arm, "judge": judge,
        "annotators": len({row.annotator for row in rows}), "judgments": len(rows),
        "reference": share_summary([row.reference for row in rows]),
        "judges": {name: share_summary([row.judges.get(name) for row in rows]) for name in judges},
        "seconds": median_summary([row.seconds for row in rows]),
        "suggestion": None,
    }
    if judge is not None:
        shown = [row for row in rows if row.shown]
        summary["suggestion"] = {
            "shown": len(shown), "not_available": len(rows) - len(shown),
            "equal": share_summary([_equal(row) for row in shown]),
            "equal_when_right": share_summary([_equal(row) for row in shown if row.right is True]),
            "equal_when_wrong": share_summary([_equal(row) for row in shown if row.right is False]),
        }
    return summary


def annotator_means(rows: list[ArmRow], value) -> list[float]:
    """Each annotator's mean of VALUE(row) over their ROWS (those where it is defined)."""
    per: dict[str, list[float]] = {}
    for row in rows:
        v = value(row)
        if v is not None:
            per.setdefault(row.annotator, []).append(float(v))
    return [float(np.mean(values)) for _, values in sorted(per.items())]


def smallest_p_value(first: int, second: int) -> float | None:
    """The smallest two-sided p-value a permutation test of two groups of FIRST and SECOND observations can give: the
    two most extreme of the comb(first + second, first) ways to split them. None when either group is empty."""
    if first < 1 or second < 1:
        return None
    return min(1.0, 2 / float(special.comb(first + second, first, exact=True)))


def _reference_agreement(row: ArmRow):
    """Whether ROW's judgment agrees with the reference (None where there is none)."""
    return row.reference


def _judge_agreement(judge: str) -> Callable[[ArmRow], Any]:
    """Whether a row's judgment agrees with JUDGE's verdict (None where the judge has none)."""
    return lambda row: row.judges.get(judge)


def arm_differences(by_arm: dict[str, list[ArmRow]], *, judges: dict[str, str | None], per: str,
                    seed: int = SEED) -> list[dict]:
    """Each assisted arm against blind: the difference in agreement with the reference and with the arm's judge.
    Arms per annotator compare annotators (each one observation: their mean), so that an annotator's many
    judgments do not pass for independent evidence; arms per unit compare judgments."""
    blind = by_arm.get("blind")
    if blind is None:
        return []
    result = []
    for arm, rows in by_arm.items():
        judge = judges.get(arm)
        if judge is None:
            continue
        measures = [("reference", _reference_agreement), (f"judge:{judge}", _judge_agreement(judge))]
        for measure, value in measures:
            if per == "annotator":
                first, second, over = annotator_means(rows, value), annotator_means(blind, value), "annotators"
            else:
                first, second, over = [value(r) for r in rows], [value(r) for r in blind], "judgments"
            result.append({"arm": arm, "versus": "blind", "measure": measure,
                           **difference_test(first, second, over=over, seed=seed)})
    return result
