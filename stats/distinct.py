"""The distinct values of an integer array, sorted, as np.unique gives them, by a sort.

numpy 2.3 and later find np.unique's values (when nothing else is asked of it) with a hash table, which on a million
integer ids takes 0.5 s where a sort and a comparison of neighbours take 0.01 s (measured here with numpy 2.4.6); a
report of a million judgments asks that dozens of times (issue 52: the report's build). Pure functions, no Django.
"""

from __future__ import annotations

import numpy as np


def distinct(values) -> np.ndarray:
    """np.unique(VALUES) for an array of integers (or booleans): its distinct values, sorted, flattened."""
    ordered = np.sort(np.asarray(values).ravel())
    if len(ordered) < 2:
        return ordered
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]


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
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    return rows[first], counts


def lookup(ordered: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of KEYS sits in ORDERED (sorted, distinct) and whether it is there: (positions, found), a position
    meaningful only where found."""
    keys = np.asarray(keys)
    if not len(ordered):
        return np.zeros(len(keys), dtype=np.int64), np.zeros(len(keys), dtype=bool)
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
