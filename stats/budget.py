"""How many more human labels: how a headline statistic's 95% interval narrows with more units (README "Labelling
budget"). Pure functions, no Django.

The width at a size m is the width of the report's own interval (stats: a 95% bootstrap over the statistic's units,
each a topic or question with its items where the report resamples topics) computed as if the study had m units: an
m-out-of-n bootstrap, each resample m units drawn with replacement from the n judged so far (stats.resampling, from
the same sufficient statistics as the report's interval), at a quarter, a half, three quarters and all of the n units,
BUDGET_RESAMPLES resamples each, the ends Harrell-Davis percentiles (interval_width; at m = n it is the report's
interval within Monte Carlo error; the row's current width is the report's).

Monte Carlo error: a 2.5th or 97.5th percentile of 200 resamples moves by about 7% of the width from one random stream
to another, and units needed go as the square of the widths: with 200 resamples a size, em's system tau-b on NQ301
needed 5,733 to 7,532 units over ten seeds (a 29% change was seen between two versions); with 4,000, 6,239 to 6,813
(a standard deviation of 153 units, 2.3%, over 30 seeds), so two seeds could still differ by 8.8%. So each size draws
10,000 (two seeds then differ by under 5% but once in a few hundred pairs), and each figure carries its Monte Carlo
standard error (batch means: the resamples of every size are split into MC_GROUPS groups, the figure is computed from
each group alone, and the spread of those figures over sqrt(groups) is the error of the figure from all of them, a
percentile's error going as 1 / sqrt(resamples); twenty groups, so that the error is itself known within about 16%).

The fit: width = c / sqrt(n), c fitted by least squares on log width (log c = the mean of log w + log n / 2). Why not
the free power law a * n^-b: the statistics here (kappa, Kendall's tau, a mean over topics) are sqrt(n)-consistent,
so their interval narrows as 1 / sqrt(n) once n is not tiny; and a slope fitted on four noisy points from n / 4 to n
and extrapolated past n is unstable (an error of 0.1 in b is a factor 1.3 at 16 n). The power law is still fitted in
log-log (numpy.polyfit) as a check: when its exponent is under MIN_EXPONENT the widths do not shrink with more units
(a statistic at its bound, too few units to resample) and the answer is None, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from stats import batch_stats, interrater, resampling, system_order, uncertainty

FRACTIONS = (0.25, 0.5, 0.75, 1.0)
BUDGET_RESAMPLES = 10_000
BUDGET_SEED = uncertainty.BOOTSTRAP_SEED
MC_GROUPS = 20  # groups of resamples whose figures' spread gives each figure's Monte Carlo error
# At least this many units: the quarter size then resamples 2 units, the least a statistic is defined on.
MIN_UNITS = 8
MIN_POINTS = 3  # sizes with a defined width a fit needs
MIN_EXPONENT = 0.2  # the free power law's exponent below which the widths are taken not to shrink
SLOW_EXPONENT = 0.35  # below this (and above MIN_EXPONENT) the answer stands, with a note that it is a low estimate
FIT_MODEL = "width = c / sqrt(n)"
DEFAULT_TARGET_WIDTH = 0.1  # campaign option budget_width
CURVE_POINTS = 24  # points of the fitted curve the report carries (for the plot)

METHOD = (
    f"the report's 95% percentile bootstrap interval recomputed as if the study had a quarter, a half, three "
    f"quarters and all of its units (m-out-of-n bootstrap, {BUDGET_RESAMPLES} resamples a size, seed "
    f"{BUDGET_SEED}); {FIT_MODEL} fitted by least squares on log width; labels needed: (c / target)^2 units, "
    f"times the labels a unit holds now; ± is the Monte Carlo standard error of a figure (the figure from each of "
    f"{MC_GROUPS} groups of {BUDGET_RESAMPLES // MC_GROUPS} resamples a size, their standard deviation over "
    f"sqrt({MC_GROUPS}))"
)


@dataclass(frozen=True)
class Statistic:
    """A statistic as the report's interval resamples it (stats.resampling): one row of sufficient statistics per
    unit (ROWS), and the statistic of a batch of resamples' sums (OF_SUMS: resamples x statistics in, one value per
    resample out, NaN where undefined)."""

    rows: np.ndarray
    of_sums: Callable[[np.ndarray], np.ndarray]


@dataclass
class BudgetInput:
    """One headline statistic of one judge, ready to be estimated: its N_UNITS resampled units (topics, questions, or
    items), the human labels they hold (N_LABELS), the STATISTIC its interval resamples,
    and the report's current interval (CURRENT, None when undefined) and its WHY when there is none."""

    judge: str
    statistic_key: str  # "cohen_kappa", "system_kendall_tau_b", "topic_mean_kendall_tau_b"
    title: str
    unit_noun: str
    n_units: int
    n_labels: int
    statistic: Statistic
    current: list[float] | None
    why: str | None = None


# --- The statistics, as the report's intervals resample them ---


def kappa_statistic(first: Sequence[Hashable], second: Sequence[Hashable], clusters: Sequence[Hashable], *,
                    levels: Sequence[Hashable] | None = None) -> tuple[int, Statistic]:
    """(units, statistic) of Cohen's kappa between two raters' labels, resampling CLUSTERS (each item's topic), as
    interrater.item_agreement_intervals does: one contingency table per cluster (interrater.cluster_tables), kappa of
    the drawn clusters' summed table (batch_stats.kappa_of_tables)."""
    levels = list(levels) if levels is not None else interrater.sorted_as_sklearn(set(first) | set(second))
    return kappa_statistic_of_tables(interrater.cluster_tables(first, second, clusters, levels))


def kappa_statistic_of_tables(tables: np.ndarray) -> tuple[int, Statistic]:
    """kappa_statistic from the clusters' contingency tables (interrater.cluster_tables or code_tables)."""
    size = tables.shape[1]
    return len(tables), Statistic(tables.reshape(len(tables), size * size),
                                  lambda sums: batch_stats.kappa_of_tables(sums.reshape(-1, size, size)))


def system_tau_statistic(human: np.ndarray, judge: np.ndarray, counts: np.ndarray,
                         judge_counts: np.ndarray | None = None) -> tuple[int, Statistic]:
    """(units, statistic) of Kendall's tau-b between the systems' human and judge scores, resampling topics and
    recomputing every system's score, as system_order.system_correlation_intervals does (systems x topics sums and
    counts; a system with no output in a resample sits it out)."""
    judge_counts = counts if judge_counts is None else judge_counts
    systems = human.shape[0] if human.ndim == 2 else 0
    rows = system_order.system_topic_rows(human, judge, counts, judge_counts) if systems else np.zeros((0, 0))
    return human.shape[1] if systems else 0, Statistic(
        rows, lambda sums: batch_stats.kendall_tau_b(*system_order.system_scores(sums, systems=systems)))


def mean_statistic(values: Sequence[float | None]) -> tuple[int, Statistic]:
    """(units, statistic) of the mean of per-topic VALUES (undefined ones left out), resampling topics, as
    uncertainty.mean_interval does (the bootstrap_ci95 of uncertainty.topic_mean_summary)."""
    data = np.asarray([float(v) for v in values if v is not None and math.isfinite(float(v))], dtype=float)
    return data.size, Statistic(np.column_stack([data, np.ones(data.size)]), lambda sums: sums[:, 0] / sums[:, 1])


# --- Width against units, the fit, and the labels needed ---


def size_draws(n: int, statistic: Statistic, *, fractions: Sequence[float] = FRACTIONS,
               resamples: int = BUDGET_RESAMPLES, seed: int = BUDGET_SEED) -> list[tuple[int, np.ndarray]]:
    """[(m, STATISTIC in each of RESAMPLES resamples of m units, NaN where undefined)] for m = each fraction of N (at
    least 2): m units drawn with replacement from the N (resampling.resampled_values with m draws a resample). Each
    size draws from its own stream, seeded with (SEED, m): one seed for all would make the smaller sizes' resamples
    pieces of the larger ones' (the same integers, cut shorter), their widths' errors alike, and the figures' Monte
    Carlo error larger than the groups show."""
    sizes = [max(2, min(n, round(fraction * n))) for fraction in fractions]
    classes = resampling.distinct_rows(statistic.rows)  # the same units at every size: their classes found once
    return [(m, resampling.class_values(*classes, statistic.of_sums, resamples=resamples, seed=[seed, m], size=m))
            for m in sizes]


def interval_width(values: np.ndarray) -> float | None:
    """The width of the 95% interval of the resampled VALUES (NaN where undefined) between their Harrell-Davis 2.5th
    and 97.5th percentiles (scipy.stats.mstats.hdquantiles: a weighted mean of every order statistic), None with
    fewer than resampling.MIN_DEFINED of them defined. Not the plain percentiles of the report's interval: a system
    tau-b of 24 systems takes a few hundred values, and the plain percentile of 10,000 resamples then jumps between
    them, its Monte Carlo error twice what the groups' spread shows (em on NQ301: a standard deviation of 93 units
    over 20 streams, 66 reported); the Harrell-Davis ends move less (72 units) and their groups show it (71)."""
    from scipy.stats.mstats import hdquantiles  # on first use: start-up stays without scipy

    defined = values[np.isfinite(values)]
    if defined.size < 2 or defined.size < resampling.MIN_DEFINED * values.size:
        return None
    low, high = hdquantiles(defined, prob=[0.025, 0.975])
    return float(high - low)


def _widths(draws: Sequence[tuple[int, np.ndarray]], part: slice = slice(None)) -> list[dict]:
    return [{"units": m, "width": interval_width(values[part])} for m, values in draws]


def width_curve(n: int, statistic: Statistic, *, fractions: Sequence[float] = FRACTIONS,
                resamples: int = BUDGET_RESAMPLES, seed: int = BUDGET_SEED) -> list[dict]:
    """[{"units": m, "width": the interval's width at m units, or None}] for m = each fraction of N (at least 2):
    the 95% percentile interval of STATISTIC over m units drawn with replacement from the N (size_draws)."""
    return _widths(size_draws(n, statistic, fractions=fractions, resamples=resamples, seed=seed))


def group_parts(resamples: int, groups: int = MC_GROUPS) -> list[slice]:
    """The GROUPS consecutive slices of RESAMPLES resamples whose figures give a figure's Monte Carlo error."""
    size = resamples // groups
    return [slice(g * size, (g + 1) * size) for g in range(groups)] if size >= 2 else []


def mc_error(values: Sequence[float | None]) -> float | None:
    """The Monte Carlo standard error of a figure computed from all the groups' resamples, from its value in each
    group alone (VALUES, None where a group gives none): their standard deviation over sqrt(groups). None when under
    half of the groups give a value."""
    defined = [v for v in values if v is not None and math.isfinite(v)]
    if len(defined) < max(2, len(values) / 2):
        return None
    return float(np.std(defined, ddof=1) / math.sqrt(len(defined)))


def width_fit(points: Sequence[dict], *, exponent_mc: float | None = None) -> dict:
    """{"c", "exponent", "usable", "why"}: c of width = c / sqrt(units) over the POINTS with a positive width, and
    the free power law's exponent b (width = a * units^-b, numpy.polyfit in log-log) as its check. Not usable (why
    says so) with fewer than MIN_POINTS such points or an exponent under MIN_EXPONENT by more than twice its Monte
    Carlo error EXPONENT_MC (given: the exponent of four widths moves by about 0.03 with the stream, and a figure that
    comes and goes with the seed is no figure to plan with)."""
    defined = [(p["units"], p["width"]) for p in points if p["width"] is not None and p["width"] > 0]
    if len(defined) < MIN_POINTS:
        return {"c": None, "exponent": None, "usable": False,
                "why": f"{len(defined)} of the {len(points)} sizes have an interval of some width; "
                       f"a fit needs {MIN_POINTS}", "note": None}
    log_n = np.log([units for units, _ in defined])
    log_w = np.log([width for _, width in defined])
    c = float(np.exp(np.mean(log_w + 0.5 * log_n)))
    exponent = float(-np.polyfit(log_n, log_w, 1)[0]) if len(set(log_n)) > 1 else None
    if exponent is None or exponent + 2 * (exponent_mc or 0.0) < MIN_EXPONENT:
        shown = "undefined" if exponent is None else f"{exponent:.2f}"
        if exponent is not None and exponent_mc is not None:
            shown += f" ± {exponent_mc:.2f}"
        return {"c": c, "exponent": exponent, "usable": False,
                "why": f"the interval does not narrow with more units here (fitted exponent {shown}, about 0.5 "
                       f"expected): more labels of the same kind may not help", "note": None}
    note = None
    if exponent < SLOW_EXPONENT:
        note = (f"the interval narrows more slowly than 1 / sqrt(n) here (fitted exponent {exponent:.2f}): the labels "
                f"needed are a low estimate")
    return {"c": c, "exponent": exponent, "usable": True, "why": None, "note": note}


def units_for_width(c: float, target: float) -> float:
    """Units needed for an interval of width TARGET under width = c / sqrt(units)."""
    return (c / target) ** 2


def budget_estimate(item: BudgetInput, *, target: float, resamples: int = BUDGET_RESAMPLES,
                    seed: int = BUDGET_SEED) -> dict:
    """The budget row of ITEM for a TARGET width: n now, the current width (the report's interval's), the observed
    widths (curve), the fit and its curve (fitted), and units_needed / labels_needed / more_labels (None, with why,
    when the fit is unusable; 0 when the current interval is already as narrow as TARGET), with the Monte Carlo
    standard errors of units and labels needed (units_needed_mc, labels_needed_mc: mc_error over the MC_GROUPS groups
    of resamples; None where no figure is extrapolated) and of the fit's exponent (fit["exponent_mc"])."""
    per_unit = item.n_labels / item.n_units if item.n_units else 0.0
    width = None if item.current is None else item.current[1] - item.current[0]
    row: dict[str, Any] = {
        "judge": item.judge, "statistic": item.statistic_key, "title": item.title, "unit": item.unit_noun,
        "n_units": item.n_units, "n_labels": item.n_labels, "ci95": item.current, "width": width,
        "target": target, "curve": [], "fit": None, "fitted": [], "units_needed": None, "labels_needed": None,
        "more_labels": None, "units_needed_mc": None, "labels_needed_mc": None, "why": None}
    if width is None or width == 0:
        # No interval, or one that degenerated (uncertainty.interval_checked): no width to extrapolate, so no estimate,
        # never "0 more labels" read off an interval that only looks certain.
        row["why"] = item.why or ("the statistic has no interval yet" if width is None
                                  else "all resamples equal: the interval shows no spread to narrow")
        row["width"] = row["ci95"] = None
        return row
    if item.n_units < MIN_UNITS:
        row["why"] = f"{item.n_units} {item.unit_noun} so far; an estimate needs at least {MIN_UNITS}"
        if width <= target:
            row.update(units_needed=item.n_units, labels_needed=item.n_labels, more_labels=0, why=None)
        return row
    draws = size_draws(item.n_units, item.statistic, resamples=resamples, seed=seed)
    curve = _widths(draws)
    groups = [width_fit(_widths(draws, part)) for part in group_parts(resamples)]
    for point in curve:
        point["labels"] = round(point["units"] * per_unit)
    exponent_mc = mc_error([group["exponent"] for group in groups])
    fit = {**width_fit(curve, exponent_mc=exponent_mc), "exponent_mc": exponent_mc}
    row.update(curve=curve, fit=fit)
    if width <= target:
        row.update(units_needed=item.n_units, labels_needed=item.n_labels, more_labels=0)
    elif not fit["usable"]:
        row["why"] = fit["why"]
    else:
        units = units_for_width(fit["c"], target)
        labels = math.ceil(units * per_unit)
        row.update(units_needed=math.ceil(units), labels_needed=labels, more_labels=max(0, labels - item.n_labels))
        error = mc_error([None if group["c"] is None else units_for_width(group["c"], target) for group in groups])
        if error is not None:
            row.update(units_needed_mc=math.ceil(error), labels_needed_mc=math.ceil(error * per_unit))
    if fit["c"] is not None:
        last = max(item.n_units, row["units_needed"] or 0) * 1.1
        first = curve[0]["units"]
        grid = np.geomspace(first, max(last, first + 1), CURVE_POINTS)
        row["fitted"] = [{"units": float(u), "labels": float(u * per_unit), "width": fit["c"] / math.sqrt(u)}
                         for u in grid]
    return row


def budget_block(inputs: Sequence[BudgetInput], *, target: float, resamples: int = BUDGET_RESAMPLES,
                 seed: int | None = None) -> dict:
    """The report's budget block: {"target_width", "fit_model", "method", "seed", "rows": a budget_estimate per
    input}, drawn with SEED (BUDGET_SEED as it stands when called, when not given)."""
    seed = BUDGET_SEED if seed is None else seed
    return {"target_width": target, "fit_model": FIT_MODEL, "method": METHOD, "seed": seed,
            "rows": [budget_estimate(item, target=target, resamples=resamples, seed=seed) for item in inputs]}


def target_width(options: dict) -> float:
    """The campaign option budget_width (the interval width the budget aims at), DEFAULT_TARGET_WIDTH when unset."""
    value = (options or {}).get("budget_width")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 \
        else DEFAULT_TARGET_WIDTH
