"""The distinct values of an integer array, sorted, as np.unique gives them, by a sort or a table.

numpy 2.3 and later find np.unique's values (when nothing else is asked of it) with a hash table, which on a million
integer ids takes 0.5 s where a sort and a comparison of neighbours take 0.01 s (measured here with numpy 2.4.6); a
report of a million judgments asks that dozens of times (issue 52: the report's build). Where the values span a range
not much wider than their number (a campaign's ids, positions in a list) a table over that range does it in linear
time: distinct marks the values present, lookup writes each one's position, a tenth of a sort's or a search's time
on a million values. Pure functions, no Django.
"""

from __future__ import annotations

import numpy as np

# A table over the values' range serves when the range is at most this many times their number (and some).
TABLE_SPAN = 4
TABLE_SLACK = 4096


def _span(values: np.ndarray) -> tuple[int, int] | None:
    """(the least of VALUES, the width of their range) when a table over that range serves (TABLE_SPAN), else None;
    VALUES integers, flat."""
    if values.dtype.kind not in "iu" or values.size < 2:
        return None
    low, high = int(values.min()), int(values.max())
    width = high - low + 1
    return (low, width) if width <= TABLE_SPAN * values.size + TABLE_SLACK else None


def distinct(values) -> np.ndarray:
    """np.unique(VALUES) for an array of integers (or booleans): its distinct values, sorted, flattened."""
    values = np.asarray(values).ravel()
    span = _span(values)
    if span is not None:
        low, width = span
        present = np.zeros(width, dtype=bool)
        present[values - values.dtype.type(low)] = True
        return (np.flatnonzero(present) + low).astype(values.dtype, copy=False)
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]


def key_classes(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """np.unique(KEY, return_index=True, return_inverse=True, return_counts=True) for a 1-d array of integers: (the
    distinct values, sorted; each one's first position; each element's class, its value's rank among them; each
    class's count). By a hash table (pandas.factorize), which gives the classes in the order they first come, then
    a sort of the few distinct values: a fifth of np.unique's sort on half a million keys of a few thousand values."""
    import pandas as pd  # on first use: start-up stays without pandas (tests/project/test_startup.py)

    key = np.asarray(key)
    if key.dtype.kind not in "iu" or key.ndim != 1 or not len(key):
        values, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
        return values, first, inverse.reshape(-1), counts
    codes, values = pd.factorize(key, sort=False)
    # A class first comes where the running largest code grows: the codes come in the order of their first showing.
    first = np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1) > 0)
    order = np.argsort(values, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return values[order], first[order], rank[codes], np.bincount(codes, minlength=len(order))[order]


def rows_distinct(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(ROWS, axis=0, return_counts=True) for a 2-d array of integers of -1 or more: (the distinct rows,
    sorted as numpy sorts rows, the first column most significant; how many times each comes). By one integer per row
    in mixed radix where that fits in 62 bits (a sort of integers, not of rows), else by np.unique itself."""
    rows = np.asarray(rows)
    if rows.ndim != 2 or not rows.size or rows.min() < -1:
        return np.unique(rows, axis=0, return_counts=True)
    shifted = rows.astype(np.int64) + 1
    radix = shifted.max(axis=0) + 1
    if np.sum(np.log2(radix.astype(float))) >= 62:
        return np.unique(rows, axis=0, return_counts=True)
    key = np.zeros(len(rows), dtype=np.int64)
    for column, size in zip(shifted.T, radix.tolist(), strict=True):
        key = key * size + column
    _, first, _, counts = key_classes(key)
    return rows[first], counts


def lookup(ordered: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of KEYS sits in ORDERED (sorted, distinct) and whether it is there: (positions, found), a position
    meaningful only where found."""
    keys = np.asarray(keys)
    if not len(ordered):
        return np.zeros(len(keys), dtype=np.int64), np.zeros(len(keys), dtype=bool)
    span = _span(ordered) if len(keys) >= len(ordered) // 8 else None  # a table pays for itself on many keys
    if span is not None and keys.dtype.kind in "iu":
        low, width = span
        position = np.full(width, -1, dtype=np.int64)
        position[ordered - low] = np.arange(len(ordered))
        offset = keys.astype(np.int64) - low
        inside = (offset >= 0) & (offset < width)
        at = position[np.where(inside, offset, 0)]
        found = inside & (at >= 0)
        return np.where(found, at, 0), found  # a key not found: position 0, an index into ORDERED all the same
    at = np.minimum(np.searchsorted(ordered, keys), len(ordered) - 1)
    return at, ordered[at] == keys


# The powers of ten an int64 holds, for text_order.
_POWERS = 10 ** np.arange(1, 19, dtype=np.int64)


def text_order(ids: np.ndarray) -> np.ndarray:
    """np.argsort(IDS.astype(str), kind="stable") for distinct integer ids: the order that sorts them as their decimal
    text sorts ("10" before "9"), without writing the text. Ids of 0 or more and at most 17 digits: each one's digits
    read as a number padded with zeros to the longest's length, ties (one id a prefix of another, then zeros) broken
    by length, the shorter first, as text breaks them; other ids by their text."""
    ids = np.asarray(ids, dtype=np.int64)
    if not len(ids) or ids.min() < 0 or ids.max() >= 10 ** 17:
        return np.argsort(ids.astype(str), kind="stable")
    digits = 1 + np.searchsorted(_POWERS, ids, side="right")
    padded = ids * _POWERS[0] ** (int(digits.max()) - digits)
    return np.argsort(padded * 20 + digits, kind="stable")


def narrow(codes: np.ndarray) -> np.ndarray:
    """CODES (integers of 0 or more) as 16 bits where they fit: numpy sorts those stably by a radix sort, in linear
    time, in the same order as the wider integers."""
    codes = np.asarray(codes)
    if len(codes) and codes.min() >= 0 and codes.max() < 2 ** 15:
        return codes.astype(np.int16)
    return codes


def sorted_as_sklearn(labels: set) -> list:
    """LABELS sorted as sklearn sorts the labels it meets (stats.interrater codes them so)."""
    try:
        return sorted(labels)
    except TypeError:  # mixed types: sklearn refuses them too; any fixed order keeps kappa unweighted-equal
        return sorted(labels, key=str)
