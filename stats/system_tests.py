"""Is system A better than system B, and is judge A closer to the humans than judge B? Paired tests (README
"Tests between systems").

Pure functions (no Django). Two sides are compared on the units both have an outcome for (the questions both systems
answered and the rater decided; the items with a human label both judges labelled):
- the effect is the difference of the means (an accuracy difference, A minus B), with a 95% percentile bootstrap
  interval: the units are resampled, each keeping its pair of outcomes, and the difference recomputed over the
  shared units drawn;
- the p-value is McNemar's exact test (statsmodels) when every outcome is 0 or 1, else a paired permutation test
  (scipy.stats.permutation_test, signs of the differences flipped);
- p-values are Holm-corrected over all the pairs of one block (statsmodels.stats.multitest.multipletests); a pair is
  significant when its corrected p is under 0.05.
Beside the paired test each pair carries Welch's t-test (`welch`: scipy.stats.ttest_ind with unequal variances) on
each side's OWN units, shared or not: the comparison studies make when their systems answered different question
sets, with its t statistic and degrees of freedom, to set beside a paper's figures (not Holm-corrected).
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
from scipy import stats as scipy_stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from stats import resampling, uncertainty
from stats.distinct import distinct

ALPHA = 0.05
PERMUTATIONS = 2_000
METHOD = ("difference of means (A minus B) on the units both have, 95% percentile bootstrap over the units "
          f"({uncertainty.BOOTSTRAP_RESAMPLES} resamples, seed {uncertainty.BOOTSTRAP_SEED}); p: McNemar's exact test "
          f"for 0/1 outcomes, else a paired permutation test ({PERMUTATIONS} resamples); Holm-corrected over the "
          "block's pairs")


def paired_test(first: Sequence[float] | np.ndarray, second: Sequence[float] | np.ndarray, *,
                interval: bool = True) -> dict:
    """The paired comparison of two sides' outcomes on the same units (FIRST[i] and SECOND[i] belong together).

    INTERVAL False leaves `difference_ci95` to the caller (pairs_block bootstraps every pair of a block at once)."""
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    n = int(a.size)
    result: dict[str, Any] = {"n": n, "mean_a": None, "mean_b": None, "difference": None, "difference_ci95": None,
                              "p": None, "test": None, "discordant": None}
    if n == 0:
        return result
    difference = a - b
    result.update(mean_a=float(a.mean()), mean_b=float(b.mean()), difference=float(difference.mean()))
    if interval:
        result["difference_ci95"] = resampling.sum_bootstrap(difference[:, np.newaxis], lambda sums: sums[:, 0] / n)[0]
    if np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all():
        only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        both, neither = int(((a == 1) & (b == 1)).sum()), int(((a == 0) & (b == 0)).sum())
        result["discordant"] = [only_a, only_b]
        result["test"] = "mcnemar-exact"
        result["p"] = 1.0 if only_a + only_b == 0 else float(mcnemar([[both, only_a], [only_b, neither]],
                                                                     exact=True).pvalue)
    else:
        result["test"] = "permutation"
        if n < 2:
            result["p"] = None  # one unit: nothing to permute
        elif np.any(difference != 0):
            result["p"] = float(scipy_stats.permutation_test(
                (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples", vectorized=True,
                n_resamples=PERMUTATIONS, random_state=np.random.default_rng(uncertainty.BOOTSTRAP_SEED)).pvalue)
        else:
            result["p"] = 1.0
    return result


def welch_test(first: Sequence[float], second: Sequence[float]) -> dict:
    """Welch's t-test of two independent samples (each side's own units): {n_a, n_b, mean_a, mean_b, t, df, p};
    t, df and p None where undefined (fewer than two units a side, or no variance on either)."""
    return welch_tests({"a": first, "b": second}, [("a", "b")])[0]


def welch_tests(sides: dict[str, Sequence[float] | np.ndarray], pairs: Sequence[tuple[str, str]]) -> list[dict]:
    """welch_test of each pair (a, b) of SIDES (name -> its outcomes), all in one call of
    scipy.stats.ttest_ind_from_stats (unequal variances) on each side's mean, standard deviation and n."""
    summary = {}
    for name, values in sides.items():
        data = np.asarray(values, dtype=float)
        summary[name] = (data.size, float(data.mean()) if data.size else None,
                         float(data.std(ddof=1)) if data.size > 1 else 0.0)
    results, tested = [], []
    for a, b in pairs:
        (n_a, mean_a, sd_a), (n_b, mean_b, sd_b) = summary[a], summary[b]
        results.append({"n_a": n_a, "n_b": n_b, "mean_a": mean_a, "mean_b": mean_b, "t": None, "df": None, "p": None})
        if n_a >= 2 and n_b >= 2 and (sd_a > 0 or sd_b > 0):
            tested.append(len(results) - 1)
    if tested:
        stats_a = np.array([summary[pairs[i][0]] for i in tested], dtype=float).T
        stats_b = np.array([summary[pairs[i][1]] for i in tested], dtype=float).T
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            test = scipy_stats.ttest_ind_from_stats(stats_a[1], stats_a[2], stats_a[0], stats_b[1], stats_b[2],
                                                    stats_b[0], equal_var=False)
        # The degrees of freedom: Welch-Satterthwaite's, as ttest_ind reports them (ttest_ind_from_stats does not).
        va, vb = stats_a[2] ** 2 / stats_a[0], stats_b[2] ** 2 / stats_b[0]
        df = (va + vb) ** 2 / (va ** 2 / (stats_a[0] - 1) + vb ** 2 / (stats_b[0] - 1))
        for row, i in enumerate(tested):
            results[i].update({key: float(value) if np.isfinite(value) else None
                               for key, value in (("t", test.statistic[row]), ("df", df[row]),
                                                  ("p", test.pvalue[row]))})
    return results


def holm(pairs: list[dict]) -> None:
    """Add `p_holm` and `significant` to each pair that has a p-value, corrected over all of them."""
    tested = [pair for pair in pairs if pair["p"] is not None]
    for pair in pairs:
        pair["p_holm"], pair["significant"] = None, False
    if not tested:
        return
    # statsmodels' Holm branch calls gc.collect(): a full collection over every live object of the process (0.2 s
    # per block with a report's data in memory, more at scale). Frozen objects are left out of it.
    gc.freeze()
    try:
        reject, corrected, _, _ = multipletests([pair["p"] for pair in tested], alpha=ALPHA, method="holm")
    finally:
        gc.unfreeze()
    for pair, rejected, p in zip(tested, reject, corrected, strict=True):
        pair["p_holm"], pair["significant"] = float(p), bool(rejected)


def pairs_block(outcomes: Mapping[str, Mapping[Any, float] | tuple[np.ndarray, np.ndarray]], *,
                order: list[str] | None = None) -> dict:
    """Every pair of the sides in OUTCOMES (side -> unit -> outcome, or side -> (units, outcomes) as two arrays of
    integer units and their outcomes), tested on the units both have, Holm-corrected.

    ORDER lists the sides as the matrix shows them (by default as given); a pair is (a, b) with a before b. The
    intervals of all pairs come from one bootstrap: the units are resampled and each pair's difference recomputed over
    the shared units drawn (as the system correlations resample topics)."""
    names = order or list(outcomes)
    # Units in sorted order (ids): the resamples must not depend on the order the database returned the rows in. Each
    # side as arrays over those units: its units' positions in its own order, its outcomes, and both spread out.
    columns = [_side_columns(outcomes[name]) for name in names]
    count, positions = _unit_positions([units for units, _ in columns])
    value_at, has = {}, {}
    where = dict(zip(names, positions, strict=True))
    values = {name: side_values for name, (_, side_values) in zip(names, columns, strict=True)}
    for name, at in where.items():
        value_at[name], has[name] = np.zeros(count), np.zeros(count, dtype=bool)
        value_at[name][at], has[name][at] = values[name], True
    pairs, sums, counts = [], [], []
    for first, second in combinations(names, 2):
        both = has[second][where[first]]  # FIRST's units, in its order, that SECOND has too
        shared = where[first][both]
        test = paired_test(values[first][both], value_at[second][shared], interval=False)
        pairs.append({"a": first, "b": second, **test})
        in_both = has[first] & has[second]
        sums.append(np.where(in_both, value_at[first] - value_at[second], 0.0))
        counts.append(in_both.astype(float))
    welch = welch_tests({name: values[name] for name in names},
                        [(pair["a"], pair["b"]) for pair in pairs])
    for pair, test in zip(pairs, welch, strict=True):
        pair["welch"] = test
    if pairs and count >= 2:
        # A unit's row: its difference in every pair, then whether the pair has it; a resample's difference of a
        # pair is its summed differences over its summed count (stats.resampling).
        rows = np.concatenate([np.array(sums), np.array(counts)]).T
        intervals = resampling.sum_bootstrap(rows, lambda drawn: (drawn[:, :len(pairs)] / drawn[:, len(pairs):]).T)
        for pair, bounds in zip(pairs, intervals, strict=True):
            pair["difference_ci95"] = bounds if pair["n"] >= 2 else None
    holm(pairs)
    return {"order": names, "pairs": pairs, "method": METHOD, "alpha": ALPHA,
            "significant": sum(pair["significant"] for pair in pairs)}


def _side_columns(side: Mapping[Any, float] | tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray | list, np.ndarray]:
    """A side's (units, outcomes): integer units as an array (numpy sorts and searches them), others as a list."""
    if isinstance(side, tuple):
        return np.asarray(side[0], dtype=np.int64), np.asarray(side[1], dtype=float)
    values = np.fromiter(side.values(), dtype=float, count=len(side))
    if set(map(type, side)) <= {int}:
        try:
            return np.fromiter(side.keys(), dtype=np.int64, count=len(side)), values
        except OverflowError:  # beyond 64 bits
            pass
    return list(side), values


def _unit_positions(sides: list[np.ndarray | list]) -> tuple[int, list[np.ndarray]]:
    """(how many units SIDES (each side's units) have, each side's units' positions among them all sorted, in the
    side's own order). Integer units (ids) by numpy's sort and search, others by Python's."""
    if sides and all(isinstance(units, np.ndarray) for units in sides):
        ordered = distinct(np.concatenate(sides))
        return len(ordered), [np.searchsorted(ordered, units) for units in sides]
    lists = [units.tolist() if isinstance(units, np.ndarray) else units for units in sides]
    position = {unit: i for i, unit in enumerate(sorted(set().union(*lists)))}
    return len(position), [np.fromiter(map(position.__getitem__, units), dtype=np.int64, count=len(units))
                           for units in lists]


def per_unit(rows: list[tuple[object, float]]) -> dict[object, float]:
    """(unit, outcome) rows as unit -> outcome; a unit with several outcomes (a system answering one question twice)
    gets their mean, so nothing is dropped and the pair falls back on the permutation test."""
    sums: dict[object, list[float]] = {}
    for unit, value in rows:
        sums.setdefault(unit, []).append(value)
    return {unit: float(np.mean(values)) for unit, values in sums.items()}
