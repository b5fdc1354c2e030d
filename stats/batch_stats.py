"""The report's statistics for a whole batch of bootstrap resamples at once, from their summed sufficient statistics.

Pure functions, no Django (STYLE.md). A point estimate on a report page is the library's (stats: scikit-learn,
statsmodels, krippendorff, scipy); its interval needs the same statistic a thousand times, once per resample
(stats.resampling), which a library called once per resample makes the slowest part of a report. Each function
here is the library's definition written over an extra leading axis (one entry per resample), and
tests/stats/test_batch_stats.py checks each against the library's own function, resample by resample. NaN marks a
resample
in which the statistic is undefined (the libraries' 0/0).
"""

from __future__ import annotations

import numpy as np
from scipy import stats as scipy_stats

KAPPA_WEIGHTS = (None, "linear", "quadratic")


def kappa_of_tables(tables: np.ndarray, *, weights: str | None = None) -> np.ndarray:
    """Cohen's kappa of each contingency table in TABLES (resamples x L x L, first rater by row), unweighted or with
    WEIGHTS "linear" or "quadratic" over the labels' positions: 1 - sum(w O) / sum(w E), E the product of the margins
    over the total, as scikit-learn's cohen_kappa_score and statsmodels' cohens_kappa compute it."""
    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"weights must be one of {KAPPA_WEIGHTS}, not {weights!r}")
    levels = tables.shape[-1]
    i, j = np.indices((levels, levels))
    w = {None: (i != j).astype(float), "linear": np.abs(i - j).astype(float), "quadratic": (i - j) ** 2.0}[weights]
    total = tables.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = (
            tables.sum(axis=-1)[..., :, np.newaxis] * tables.sum(axis=-2)[..., np.newaxis, :] / total[..., None, None]
        )
        return 1.0 - (w * tables).sum(axis=(-2, -1)) / (w * expected).sum(axis=(-2, -1))


def agreement_of_tables(tables: np.ndarray) -> np.ndarray:
    """The share of items on the diagonal of each contingency table (raw agreement, accuracy)."""
    return np.trace(tables, axis1=-2, axis2=-1) / tables.sum(axis=(-2, -1))


def fleiss_rows(table: np.ndarray) -> np.ndarray:
    """One row per item of an items x categories count table (every item rated by the same m raters), of what
    Fleiss' kappa sums over items: [1, the item's sum of squared counts, its counts per category]."""
    table = np.asarray(table, dtype=float)
    return np.column_stack([np.ones(len(table)), (table ** 2).sum(axis=1), table])


def fleiss_of_sums(sums: np.ndarray, *, raters: int) -> np.ndarray:
    """Fleiss' kappa of each resample from its sums of fleiss_rows (resamples x (2 + categories)), RATERS ratings an
    item: (P - Pe) / (1 - Pe), P the mean share of agreeing rater pairs per item and Pe the sum of the squared
    category shares, as statsmodels' fleiss_kappa (method "fleiss") computes it."""
    items, squares, per_category = sums[:, 0], sums[:, 1], sums[:, 2:]
    agree = (squares - items * raters) / (items * raters * (raters - 1))
    shares = per_category / (items * raters)[:, np.newaxis]
    chance = (shares ** 2).sum(axis=1)
    return (agree - chance) / (1.0 - chance)


def coincidence_rows(value_counts: np.ndarray) -> np.ndarray:
    """One row per unit of a units x values count table: the unit's coincidence matrix, flattened (values x values):
    its ordered pairs of values from different raters, over the unit's ratings less one, as the krippendorff package
    builds it (a unit rated once pairs nothing and adds zeros)."""
    counts = np.asarray(value_counts, dtype=float)
    rated = counts.sum(axis=1)
    pairs = counts[:, :, np.newaxis] * counts[:, np.newaxis, :]
    values = counts.shape[1]
    pairs[:, np.arange(values), np.arange(values)] -= counts
    scale = np.where(rated >= 2, 1.0 / np.maximum(rated - 1.0, 1.0), 0.0)
    return (pairs * scale[:, np.newaxis, np.newaxis]).reshape(len(counts), values * values)


def alpha_of_coincidences(coincidences: np.ndarray, *, level: str = "nominal") -> np.ndarray:
    """Krippendorff's alpha of each resample from its summed coincidence matrix (resamples x V x V, over the ordered
    value domain's V values), at LEVEL "nominal" or "ordinal": 1 - sum(o d) / sum(e d), e the coincidences expected by
    chance from the values' totals and d the level's distance (ordinal: the values' totals from one value to the
    other, less half of the two ends, squared), as the krippendorff package computes it."""
    o = np.asarray(coincidences, dtype=float)
    totals = o.sum(axis=-1)  # (resamples, V)
    n = totals.sum(axis=-1)
    values = o.shape[-1]
    expected = (totals[:, :, np.newaxis] * totals[:, np.newaxis, :]
                - totals[:, :, np.newaxis] * np.eye(values)) / (n - 1.0)[:, np.newaxis, np.newaxis]
    if level == "nominal":
        distance = np.broadcast_to(1.0 - np.eye(values), o.shape)
    elif level == "ordinal":
        low, high = np.minimum(*np.indices((values, values))), np.maximum(*np.indices((values, values)))
        running = np.concatenate([np.zeros((len(o), 1)), np.cumsum(totals, axis=-1)], axis=-1)
        between = running[:, high + 1] - running[:, low]  # totals of the values from low to high, ends included
        distance = (between - (totals[:, low] + totals[:, high]) / 2.0) ** 2
    else:
        raise ValueError(f"level must be nominal or ordinal, not {level!r}")
    return 1.0 - (o * distance).sum(axis=(-2, -1)) / (expected * distance).sum(axis=(-2, -1))


def kendall_tau_b(x: np.ndarray, y: np.ndarray, *, block: int = 2_000_000) -> np.ndarray:
    """Kendall's tau-b between the rows of X and Y (resamples x systems; NaN marks a system a resample leaves out):
    (concordant - discordant pairs) / sqrt((pairs - pairs tied in x) (pairs - pairs tied in y)) over the pairs of
    systems present in both, as scipy.stats.kendalltau (variant "b") computes it. NaN with fewer than two systems or
    a constant side."""
    x, y = np.atleast_2d(np.asarray(x, dtype=float)), np.atleast_2d(np.asarray(y, dtype=float))
    first, second = np.triu_indices(x.shape[1], 1)
    out = np.full(len(x), np.nan)
    rows = max(1, block // max(len(first), 1))
    for start in range(0, len(x), rows):
        part = slice(start, start + rows)
        dx = np.sign(x[part, first] - x[part, second])
        dy = np.sign(y[part, first] - y[part, second])
        present = np.isfinite(dx) & np.isfinite(dy)
        dx, dy = np.where(present, dx, 0.0), np.where(present, dy, 0.0)
        pairs = present.sum(axis=1)
        untied_x = pairs - (present & (dx == 0)).sum(axis=1)
        untied_y = pairs - (present & (dy == 0)).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[part] = (dx * dy).sum(axis=1) / np.sqrt(untied_x * untied_y.astype(float))
    return np.where(np.isfinite(out), out, np.nan)


def pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r between the rows of X and Y (resamples x systems, no gaps): scipy.stats.pearsonr along the rows."""
    return np.asarray(scipy_stats.pearsonr(x, y, axis=1).statistic, dtype=float)


def spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho between the rows of X and Y (no gaps): Pearson's r of their ranks (scipy.stats.rankdata, ties
    averaged), which is its definition and what scipy.stats.spearmanr computes."""
    return pearson(scipy_stats.rankdata(x, axis=1), scipy_stats.rankdata(y, axis=1))


def bradley_terry_of_matrices(matrices: np.ndarray, *, alpha: float, initial: np.ndarray | None = None,
                              tol: float = 1e-8, max_iter: int = 100) -> np.ndarray:
    """Bradley-Terry log-strengths (mean 0) of each win matrix in MATRICES (resamples x S x S, [i, j] the wins of i
    over j), as choix.ilsr_pairwise_dense computes them: Iterative Luce Spectral Ranking, each step the stationary
    distribution of the Markov chain whose rate from i to j is ALPHA + wins of j over i / (w_i + w_j), until a step
    moves the log-strengths by at most TOL x S (the L1 norm); from INITIAL (log-strengths, one row or one per
    resample) or equal strengths. The stationary distribution solves pi Q = 0 with pi summing to S (choix reads it
    off an LU factorisation; here one batched solve). NaN rows for matrices without a comparison."""
    matrices = np.asarray(matrices, dtype=float)
    count, size = matrices.shape[0], matrices.shape[-1]
    params = np.zeros((count, size)) if initial is None else np.broadcast_to(
        np.asarray(initial, dtype=float), (count, size)).copy()
    params -= params.mean(axis=1, keepdims=True)
    live = matrices.sum(axis=(1, 2)) > 0
    done = ~live
    ones = np.ones(size)
    for _ in range(max_iter):
        todo = np.flatnonzero(~done)
        if not len(todo):
            break
        weights = np.exp(params[todo])
        weights *= size / weights.sum(axis=1, keepdims=True)
        chain = alpha + np.swapaxes(matrices[todo], 1, 2) / (weights[:, :, None] + weights[:, None, :])
        diagonal = np.arange(size)
        chain[:, diagonal, diagonal] = 0.0
        chain[:, diagonal, diagonal] = -chain.sum(axis=2)  # a generator's rows sum to 0
        # pi Q = 0, sum(pi) = S: Q's transpose with its last equation replaced by the sum.
        system = np.swapaxes(chain, 1, 2).copy()
        system[:, -1, :] = ones
        target = np.zeros((len(todo), size))
        target[:, -1] = size
        stationary = np.linalg.solve(system, target[..., None])[..., 0]
        fresh = np.log(stationary)
        fresh -= fresh.mean(axis=1, keepdims=True)
        moved = np.abs(fresh - params[todo]).sum(axis=1)
        params[todo] = fresh
        done[todo[moved <= tol * size]] = True
    params[~live] = np.nan
    return params
