"""Bootstrap resampling by sufficient statistics: every resample of a report is one row of a matrix product.

Pure functions, no Django (STYLE.md). The report's intervals are percentile bootstraps over units (items, topics,
questions), and every statistic they resample is a function of SUMS over those units: Cohen's kappa of the summed
contingency tables, Fleiss' kappa of the summed per-item category counts, Krippendorff's alpha of the summed
coincidence matrices, a system's score as its summed outcomes over its summed count. So a unit is a row of numbers (its
sufficient statistics), a resample is how often each unit was drawn, and the resample's sums are those counts times
the rows: all resamples at once are one (resamples x units) @ (units x statistics) product, and the statistic is then
computed for all of them in array arithmetic (stats.batch_stats, tested equal to the libraries' functions).

Units with the same row are interchangeable: drawing N units with replacement and counting how often each distinct
row came up is a multinomial draw over the distinct rows, with probabilities their shares of the N. A million items
rated by two people on a yes/no question are four distinct rows, so a resample costs four numbers, not a million.

The draws are numpy's (seeded: the same data give the same interval). They are not scipy.stats.bootstrap's draws,
so an interval differs from one computed the old way by Monte Carlo error only (tests/stats/test_resampling.py compares
both on several data sets, within a tolerance derived from the number of resamples).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar

import numpy as np

from stats.distinct import key_classes
from stats.quiet import quiet

RESAMPLES = 1000
SEED = 0
# The random stream every interval draws from: numpy's Generator (PCG64, numpy.random.default_rng(seed)), the units of
# a resample drawn as below (unit indices counted, or multinomial counts over distinct rows), resample after resample.
# STREAM names that recipe. Any change to it (the generator, the order or shape of the draws, RESAMPLES, SEED) moves
# interval ends by Monte Carlo error while the method text reads the same, so it is a new STREAM and a new
# agreement.stored.REPORT_SCHEMA, noted in docs/upgrading.md (docs/statistics/intervals.md).
STREAM = 1
# A resample in which the statistic is undefined (one label only, a constant ranking) is left out; with fewer than
# this share of the resamples defined, the interval is too: it would describe a few lucky resamples.
MIN_DEFINED = 0.5
# Memory per block of resamples: at most this many numbers in the counts or the sums at a time (8 bytes each).
BLOCK_NUMBERS = 4_000_000
# Units that are mostly distinct (more distinct rows than this share of them, as topics are) are drawn as unit
# indices counted per resample; others as multinomial counts over their distinct rows, whose cost is the number of
# distinct rows, not of units.
DISTINCT_SHARE = 0.25
# Row keys below this many times the rows (and 1,024) are classed by a count of each key (row_classes).
DENSE_KEYS = 4
# A statistic of each resample's sums (resamples x statistics): one array (width x resamples) or its rows as a list.
Statistic = Callable[[np.ndarray], np.ndarray | Sequence[np.ndarray]]


def random_stream() -> dict:
    """The stream the intervals draw from, as the report records it (report["random_stream"])."""
    return {"stream": STREAM, "generator": "numpy.random.Generator (PCG64) from numpy.random.default_rng(seed)",
            "numpy": np.__version__, "resamples": RESAMPLES, "seed": SEED}


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct rows of ROWS, how many units have each), in a fixed order (sorted), so the draws do not depend on
    the order the units came in."""
    rows = np.asarray(rows, dtype=float)
    if rows.ndim != 2:
        raise ValueError(f"units must be a 2-d array (units x statistics), not shape {rows.shape}")
    unique, which = row_classes(rows)
    return unique, np.bincount(which, minlength=len(unique))


def distinct_rows_sparse(shape: tuple[int, int], row: np.ndarray, column: np.ndarray,
                         value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """distinct_rows of the units' rows given by their nonzero cells (ROW[i], COLUMN[i]) = VALUE[i], of SHAPE, each cell
    given once: the same distinct rows in the same order and their multiplicities, without writing a row per unit
    when the rows are small counts whose mixed-radix key (_integer_key) fits, as a unit's few cells of a wide row
    are (an item's annotators among many); else from the rows written out."""
    row, column = np.asarray(row, dtype=np.int64), np.asarray(column, dtype=np.int64)
    value = np.asarray(value, dtype=float)
    units, width = shape
    if not len(value) or units < 2 or value.min() < 0 or not np.array_equal(value, np.floor(value)):
        return distinct_rows(_written(shape, row, column, value))
    radix = np.ones(width, dtype=np.int64)
    np.maximum.at(radix, column, value.astype(np.int64) + 1)
    bits = np.sum(np.log2(radix.astype(float)))
    if bits >= 62:
        return distinct_rows(_written(shape, row, column, value))
    place = np.concatenate([[1], np.cumprod(radix[:-1])])  # as _integer_key: the first column least significant
    if bits < 52:  # every partial sum an integer below 2 ** 53: exact in floats
        key = np.bincount(row, weights=value * place[column], minlength=units).astype(np.int64)
    else:  # integers: exact where float weights would round
        key = np.zeros(units, dtype=np.int64)
        np.add.at(key, row, value.astype(np.int64) * place[column])
    _, first, inverse, _ = key_classes(key)
    class_of = np.full(units, -1, dtype=np.int64)
    class_of[first] = np.arange(len(first))
    unique = np.zeros((len(first), width))
    kept = class_of[row] >= 0
    unique[class_of[row[kept]], column[kept]] = value[kept]
    return unique, np.bincount(inverse.reshape(-1), minlength=len(first))


def _written(shape: tuple[int, int], row: np.ndarray, column: np.ndarray, value: np.ndarray) -> np.ndarray:
    rows = np.zeros(shape)
    rows[row, column] = value
    return rows


def row_classes(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct rows of ROWS, each row's position among them), in distinct_rows' order."""
    key = _row_key(rows)
    if key is not None:
        if len(key) and key.max() < DENSE_KEYS * len(key) + 1024:
            # Few possible keys (counts of a few labels): their classes by a count of each key, not a sort. Any row
            # of a class stands for it, all being equal.
            counts = np.bincount(key)
            present = np.flatnonzero(counts)
            member = np.empty(len(counts), dtype=np.int64)
            member[key] = np.arange(len(key))
            return rows[member[present]], (np.cumsum(counts > 0) - 1)[key]
        _, first, inverse, _ = key_classes(key)
        return rows[first], inverse
    keys = _row_keys(rows)
    if keys is None:
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        return unique, inverse.reshape(-1)
    # A stable lexicographic sort of the keys (the first most significant, as numpy sorts rows), and a new class
    # wherever they change: the classes in np.unique's order, and the same distinct rows.
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    starts = np.concatenate([[True], np.any(ordered[1:] != ordered[:-1], axis=1)])
    inverse = np.empty(len(rows), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return rows[order[starts]], inverse


def _row_key(rows: np.ndarray) -> np.ndarray | None:
    """One int64 per row that two rows share exactly when they are equal, sorting as the rows sort, so that a sort of
    integers stands in for numpy's row-wise unique (ten times slower at 500,000 rows): rows of small counts as
    themselves in mixed radix (_integer_key); other finite rows (the coincidences of a unit rated three times are
    halves) as each column's rank among its distinct values, the first column most significant as numpy sorts rows.
    None when neither fits in 62 bits."""
    key = _integer_key(rows)
    if key is not None or rows.size == 0 or not np.isfinite(rows).all():
        return key
    # Each column that varies takes a bit at least: with 62 such columns no ranks can fit (and ranking each of
    # hundreds of columns would cost more than the rest).
    if np.count_nonzero(rows.max(axis=0) != rows.min(axis=0)) >= 62:
        return None
    ranks, sizes = [], []
    for column in rows.T:
        values, rank = np.unique(column, return_inverse=True)
        ranks.append(rank.reshape(-1))
        sizes.append(len(values))
    if np.sum(np.log2(sizes)) >= 62:
        return None
    key = np.zeros(len(rows), dtype=np.int64)
    for rank, size in zip(ranks, sizes, strict=True):
        key = key * size + rank
    return key


def _integer_key(rows: np.ndarray) -> np.ndarray | None:
    """One int64 per row that two rows share exactly when they are equal, for rows of small non-negative integers
    (counts, the usual sufficient statistics); None for any other rows."""
    if rows.size == 0 or rows.min() < 0 or not np.array_equal(rows, np.floor(rows)):
        return None
    radix = rows.max(axis=0).astype(np.int64) + 1
    if np.sum(np.log2(radix.astype(float))) >= 62:
        return None
    place = np.concatenate([[1], np.cumprod(radix[:-1])])
    return rows.astype(np.int64) @ place


def _row_keys(rows: np.ndarray) -> np.ndarray | None:
    """(units, k) int64 keys for rows too wide for one key (_row_key): two rows share them exactly when they are
    equal, and they sort lexicographically as numpy sorts the rows, so a sort of a few integer columns stands in for
    numpy's row-wise unique (seconds on 20,000 rows of 800 columns). Each column as its steps above its least value
    when it moves in whole or half steps, else as its rank among its distinct values; consecutive columns packed in
    mixed radix into one key while they fit in 62 bits, the first column most significant. None for rows that are not
    all finite."""
    if rows.size == 0:
        return np.zeros((len(rows), 1), dtype=np.int64)
    if not np.isfinite(rows).all():
        return None
    # Each column less its least value, in whole or half steps (counts; ties counted half): digits as they are,
    # in the columns' order. Else each column's rank among its values.
    shifted = rows - rows.min(axis=0)
    for steps in (shifted, shifted * 2):
        if np.array_equal(steps, np.floor(steps)):
            digits = steps.astype(np.int64)
            sizes = digits.max(axis=0) + 1
            break
    else:
        digits = np.empty(rows.shape, dtype=np.int64)
        sizes = np.empty(rows.shape[1], dtype=np.int64)
        for c, column in enumerate(rows.T):
            values, rank = np.unique(column, return_inverse=True)
            digits[:, c], sizes[c] = rank.reshape(-1), len(values)
    widths = np.log2(sizes.astype(float))
    if widths.max() >= 62:
        return None
    starts, bits = [0], 0.0
    for c, width in enumerate(widths.tolist()):
        if bits + width >= 62 and bits > 0:
            starts.append(c)
            bits = 0.0
        bits += width
    keys = []
    for start, end in zip(starts, [*starts[1:], rows.shape[1]], strict=True):
        # Mixed radix, the chunk's first column most significant: column c's place is the product of the sizes after.
        place = np.concatenate([np.cumprod(sizes[start + 1:end][::-1])[::-1], [1]]).astype(np.int64)
        keys.append((digits[:, start:end] * place).sum(axis=1))
    return np.stack(keys, axis=1)


def draw_counts(multiplicity: np.ndarray, *, resamples: int, rng: np.random.Generator,
                size: int | None = None) -> np.ndarray:
    """(resamples, distinct rows): how often each distinct row was drawn in each resample of SIZE units (by default
    all of them, the ordinary bootstrap; fewer for an m-out-of-n bootstrap) drawn with replacement from the units,
    MULTIPLICITY[r] of which have row r."""
    multiplicity = np.asarray(multiplicity, dtype=np.int64)
    units = int(multiplicity.sum())
    size = units if size is None else int(size)
    if _by_index(multiplicity):
        # Unit indices, mapped to their row (the units sorted by row) through a table rather than a search of the
        # rows' bounds: the same rows (the same stream), at a seventh of the time when the units are all distinct.
        owner = np.repeat(np.arange(len(multiplicity)), multiplicity)
        drawn = owner[rng.integers(0, units, size=(resamples, size))]
        offsets = np.arange(resamples)[:, np.newaxis] * len(multiplicity)
        return np.bincount((drawn + offsets).ravel(),
                           minlength=resamples * len(multiplicity)).reshape(resamples, len(multiplicity))
    return rng.multinomial(size, multiplicity / units, size=resamples)


def _by_index(multiplicity: np.ndarray) -> bool:
    return len(multiplicity) > DISTINCT_SHARE * multiplicity.sum()


def resampled_sums(rows: np.ndarray, *, resamples: int = RESAMPLES, seed: int | list[int] = SEED,
                   size: int | None = None) -> np.ndarray:
    """(resamples, statistics): each resample's sums of the units' ROWS (one row per unit), the units drawn with
    replacement (SIZE of them; by default as many as there are)."""
    unique, multiplicity = distinct_rows(rows)
    return class_sums(unique, multiplicity, resamples=resamples, seed=seed, size=size)


def class_sums(unique: np.ndarray, multiplicity: np.ndarray, *, resamples: int = RESAMPLES,
               seed: int | list[int] = SEED,
               size: int | None = None) -> np.ndarray:
    """resampled_sums of units given as their distinct rows: UNIQUE[r] is the row that MULTIPLICITY[r] of them share
    (distinct_rows' answer, or the classes a caller found more cheaply than a row-wise unique of its units)."""
    # A sparse UNIQUE (scipy.sparse: rows of mostly zeros, as a prompt's win matrix is) stays sparse: the product
    # below is then as dear as its nonzeros.
    unique = unique if _sparse(unique) else np.asarray(unique, dtype=float)
    multiplicity = np.asarray(multiplicity, dtype=np.int64)
    rng = np.random.default_rng(seed)
    drawn = int(multiplicity.sum()) if size is None else int(size)
    # Numbers held per resample: its counts over the distinct rows, its sums, and its unit indices when drawn so.
    per_resample = max(unique.shape[0], unique.shape[1], drawn if _by_index(multiplicity) else 0, 1)
    block = max(1, BLOCK_NUMBERS // per_resample)
    parts = []
    for start in range(0, resamples, block):
        counts = draw_counts(multiplicity, resamples=min(block, resamples - start), rng=rng, size=size)
        parts.append(np.asarray(counts @ unique))
    return np.concatenate(parts) if parts else np.zeros((0, unique.shape[1]))


def _sparse(value) -> bool:
    """Whether VALUE is a scipy.sparse matrix, without importing scipy (a report's selectors import this module, and
    start-up stays without scipy: tests/project/test_startup.py): one can exist only once scipy.sparse is loaded."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and module.issparse(value)


# The interval ends' Monte Carlo errors of the build under way (interval_errors_recorded), or None when none is.
_ERRORS: ContextVar[list[tuple[float, float, float]] | None] = ContextVar("interval_errors", default=None)
ENDS = (2.5, 97.5)  # the percentiles an interval's ends are
# Standard errors each way of the order statistics bracketing an end (_end_ranks). One each way (68%) reads a
# statistic of few values (a kappa on a few items, a tau of a few systems) as 0 where its end still jumps now and
# then; two each way, a quarter of their distance, matched the ends' spread over 2,000 streams within 10% for normal,
# exponential and few-valued resamples, at 1,000 and 4,000 resamples (tests/stats/test_resampling.py).
BRACKET = 2.0


@contextlib.contextmanager
def interval_errors_recorded() -> Iterator[list[tuple[float, float, float]]]:
    """While open, every percentile interval computed (percentile_intervals) adds (its low end's Monte Carlo standard
    error, its high end's, its width) to the list this yields: what a report says of how far its interval ends would
    move under another random stream (reports.methods.interval_errors)."""
    recorded: list[tuple[float, float, float]] = []
    token = _ERRORS.set(recorded)
    try:
        yield recorded
    finally:
        _ERRORS.reset(token)


@functools.lru_cache(maxsize=64)
def _end_ranks(defined: int) -> tuple[tuple[int, int], ...]:
    """For each of ENDS, the 0-based ranks among DEFINED sorted resamples between which that percentile of the
    resampled distribution lies with probability 95.4% (BRACKET standard errors each way): the distribution-free
    interval for a quantile from order statistics, its ranks binomial quantiles (scipy.stats.binom)."""
    from scipy import stats as scipy_stats  # imported on first use: start-up stays without scipy

    below, above = scipy_stats.norm.cdf([-BRACKET, BRACKET])
    ranks = []
    for percent in ENDS:
        low, high = scipy_stats.binom.ppf([below, above], defined, percent / 100)
        ranks.append((int(max(0, low - 1)), int(min(defined - 1, high))))
    return tuple(ranks)


def end_errors(defined: np.ndarray) -> tuple[float, float]:
    """The Monte Carlo standard error of each end of the percentile interval of the resamples DEFINED: the
    distance between the order statistics that bracket that percentile of the resampled distribution by BRACKET
    standard errors each way (_end_ranks), over 2 * BRACKET. About what a second random stream would move the end by."""
    ordered = np.sort(defined)
    low_end, high_end = (float(ordered[high] - ordered[low]) / (2 * BRACKET) for low, high in _end_ranks(ordered.size))
    return low_end, high_end


def percentile_intervals(values: np.ndarray) -> list[list[float] | None]:
    """The 95% percentile interval of each row of VALUES (statistics x resamples, NaN where undefined): the 2.5th and
    97.5th percentiles of its defined values, so never outside the statistic's range; None for a row with fewer than
    MIN_DEFINED of its resamples defined. Each interval's ends' Monte Carlo errors (end_errors) are recorded where a
    build records them (interval_errors_recorded)."""
    intervals: list[list[float] | None] = []
    recorded = _ERRORS.get()
    for row in np.atleast_2d(np.asarray(values, dtype=float)):
        defined = row[np.isfinite(row)]
        if row.size == 0 or defined.size < MIN_DEFINED * row.size:
            intervals.append(None)
            continue
        low, high = np.percentile(defined, ENDS)
        intervals.append([float(low), float(high)])
        if recorded is not None:
            recorded.append((*end_errors(defined), float(high - low)))
    return intervals


def sum_bootstrap(rows: np.ndarray, statistic: Statistic, *, resamples: int = RESAMPLES,
                  seed: int = SEED, size: int | None = None) -> list[list[float] | None]:
    """95% percentile intervals of statistics of sums, resampling units: ROWS holds one row of sufficient statistics
    per unit; STATISTIC gets each resample's sums (resamples x statistics) and returns an array (width x resamples),
    NaN where a resample leaves a statistic undefined. None for each statistic when there are fewer than two units
    (nothing to resample)."""
    rows = np.asarray(rows, dtype=float)
    if rows.ndim != 2 or rows.shape[0] < 2:
        probe = np.zeros((1, rows.shape[1] if rows.ndim == 2 else 0))
        return [None] * len(np.atleast_2d(_quiet(statistic, probe)))
    return percentile_intervals(_quiet(statistic, resampled_sums(rows, resamples=resamples, seed=seed, size=size)))


def resampled_values(rows: np.ndarray, statistic: Statistic, *,
                     resamples: int = RESAMPLES, seed: int | list[int] = SEED, size: int | None = None) -> np.ndarray:
    """The first statistic of STATISTIC (sum_bootstrap's) in each resample of SIZE units drawn from ROWS (resamples,
    NaN where undefined): the values sum_bootstrap takes its percentiles of, for callers that take their own."""
    return class_values(*distinct_rows(rows), statistic, resamples=resamples, seed=seed, size=size)


def class_values(unique: np.ndarray, multiplicity: np.ndarray, statistic: Statistic, *,
                 resamples: int = RESAMPLES, seed: int | list[int] = SEED, size: int | None = None) -> np.ndarray:
    """resampled_values of units given as their distinct rows (class_sums): for a caller that draws the same units
    again and again (at several sizes), their rows' classes found once."""
    sums = class_sums(unique, multiplicity, resamples=resamples, seed=seed, size=size)
    return np.atleast_2d(_quiet(statistic, sums))[0]


def class_bootstrap(unique: np.ndarray, multiplicity: np.ndarray, statistic: Statistic, *,
                    resamples: int = RESAMPLES, seed: int = SEED) -> list[list[float] | None]:
    """sum_bootstrap of units given as their distinct rows (class_sums)."""
    if int(np.sum(multiplicity)) < 2:
        return [None] * len(np.atleast_2d(_quiet(statistic, np.zeros((1, np.shape(unique)[1])))))
    return percentile_intervals(_quiet(statistic, class_sums(unique, multiplicity, resamples=resamples, seed=seed)))


def _quiet(statistic: Statistic, sums: np.ndarray) -> np.ndarray:
    """STATISTIC of SUMS with numpy's warnings for 0/0 silenced: an undefined resample is NaN, which is expected."""
    with quiet(RuntimeWarning):
        return np.atleast_2d(np.asarray(statistic(sums), dtype=float))
