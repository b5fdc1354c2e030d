"""The kappa paradox made visible: two raters who agree on nearly every item can still get a low Cohen's kappa when
one label dominates (most passages irrelevant, most answers correct), because kappa's chance agreement grows with that
label's prevalence. Beside kappa, from the same contingency table:

- Gwet's AC1, whose chance agreement shrinks as a label dominates (AC2 when the scale is ordinal and disagreements are
  weighted by distance), and the Brennan-Prediger coefficient, whose chance agreement is 1/q for q categories (for two
  categories it is PABAK, 2 x agreement - 1); both irrCAC's (its table.CAC), each with irrCAC's 95% interval (Gwet's
  variance, t-based; the upper end capped at 1). Cohen's kappa and the raw agreement come from the same place so the
  panel's figures are computed one way.
- For two categories (a yes/no verdict, or a graded scale cut at the report's relevance threshold), the prevalence
  index |a - d| / n and the bias index |b - c| / n of the 2 x 2 table (a, d: the agreements on each category; b, c:
  the two kinds of disagreement), with 95% percentile bootstrap intervals: the table's n items drawn again with
  replacement (stats.resampling, multinomial over the four cells), 1000 resamples, seed 0. A high prevalence index
  is what drags kappa down; a high bias index says the two raters use the labels at different rates.

Items are taken as independent here; the report's own kappa intervals resample topics.
Pure functions, no Django (STYLE.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from irrCAC.table import CAC

from stats import resampling
from stats.checks import finite
from stats.quiet import quiet

# Raw agreement at least this high with kappa at most KAPPA_LOW: the page says the labels' skew explains the gap.
HIGH_AGREEMENT = 0.8
KAPPA_LOW = 0.4
# irrCAC rounds its results; to this many digits they are exact for the page.
DIGITS = 12
IRRCAC_METHOD = "95% interval by irrCAC (Gwet's variance estimator, t-based, upper end capped at 1)"
INDEX_METHOD = (f"95% percentile bootstrap over items ({resampling.RESAMPLES} resamples, seed {resampling.SEED}; "
                "the 2 x 2 table's items drawn again with replacement)")


def _coefficient(table: np.ndarray, weights: str, method: str) -> tuple[float | None, list[float] | None]:
    """(value, 95% interval) of irrCAC's METHOD ("gwet", "bp", "cohen", "pa2") on the contingency TABLE; the interval
    kept within the statistic's range (a share from 0, a coefficient from -1; irrCAC caps only the upper end)."""
    with quiet():
        estimate = getattr(CAC(pd.DataFrame(table), weights=weights, digits=DIGITS), method)()["est"]
    # irrCAC gives some figures as one-element arrays.
    value = finite(np.asarray(estimate["coefficient_value"]).reshape(-1)[0])
    low, high = (finite(np.asarray(end).reshape(-1)[0]) for end in estimate["confidence_interval"])
    if value is None or low is None or high is None or low == high:
        return value, None
    return value, [max(low, 0.0 if method == "pa2" else -1.0), min(high, 1.0)]


def _indices(tables: np.ndarray) -> np.ndarray:
    """(2, resamples): the prevalence and bias indices of each 2 x 2 table of TABLES (resamples x 4: a, b, c, d)."""
    a, b, c, d = tables.T
    n = tables.sum(axis=1)
    return np.vstack([np.abs(a - d) / n, np.abs(b - c) / n])


def two_by_two_indices(table: np.ndarray) -> dict:
    """{"prevalence_index", "bias_index", each with its _ci95}: Byrt, Bishop and Carlin's indices of a 2 x 2 TABLE
    (first rater by row), with bootstrap intervals (INDEX_METHOD); None values for an empty table."""
    cells = np.asarray(table, dtype=np.int64).reshape(4)
    n = int(cells.sum())
    if n == 0:
        return {"prevalence_index": None, "prevalence_index_ci95": None, "bias_index": None, "bias_index_ci95": None}
    prevalence, bias = _indices(cells[np.newaxis, :].astype(float))[:, 0]
    drawn = resampling.draw_counts(cells, resamples=resampling.RESAMPLES, rng=np.random.default_rng(resampling.SEED))
    with np.errstate(invalid="ignore", divide="ignore"):
        intervals = resampling.percentile_intervals(_indices(drawn.astype(float)))
    return {"prevalence_index": float(prevalence), "prevalence_index_ci95": intervals[0] if n > 1 else None,
            "bias_index": float(bias), "bias_index_ci95": intervals[1] if n > 1 else None}


def paradox_panel(table, *, ordinal: bool = False, binary=None) -> dict:
    """The panel for two raters' contingency TABLE (q x q counts over the scale's q categories in order, the first
    rater by row): n, raw agreement, Cohen's kappa, Gwet's AC1 (AC2 with linear weights when ORDINAL and q > 2) and
    Brennan-Prediger (named PABAK for q = 2), each with irrCAC's interval; for two categories, or with BINARY (the
    2 x 2 table of a cut of the scale), the prevalence and bias indices. "paradox" is True when the raw agreement is
    high and kappa low (HIGH_AGREEMENT, KAPPA_LOW), which the page explains with the indices."""
    table = np.asarray(table, dtype=np.int64)
    q, n = table.shape[0], int(table.sum())
    weighted = ordinal and q > 2
    panel = {"n": n, "categories": q, "ac_name": "AC2 (linear weights)" if weighted else "AC1",
             "bp_name": "PABAK" if q == 2 else "Brennan-Prediger", "method": IRRCAC_METHOD,
             "index_method": INDEX_METHOD, "index_table": None}
    for key, method, weights in (("agreement", "pa2", "identity"), ("cohen_kappa", "cohen", "identity"),
                                 ("ac", "gwet", "linear" if weighted else "identity"), ("bp", "bp", "identity")):
        value, interval = _coefficient(table, weights, method) if n >= 2 else (None, None)
        panel[key], panel[f"{key}_ci95"] = value, interval
    two = table if q == 2 else (None if binary is None else np.asarray(binary, dtype=np.int64))
    if two is not None:
        panel.update(two_by_two_indices(two))
        panel["index_table"] = "the table" if q == 2 else "the scale cut in two"
    else:
        panel.update({"prevalence_index": None, "prevalence_index_ci95": None, "bias_index": None,
                      "bias_index_ci95": None})
    panel["paradox"] = bool(panel["agreement"] is not None and panel["cohen_kappa"] is not None
                            and panel["agreement"] >= HIGH_AGREEMENT and panel["cohen_kappa"] <= KAPPA_LOW)
    return panel
