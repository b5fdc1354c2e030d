"""stats.distinct: np.unique's answers by a sort, and RaterLabels from coded rows as rater_labels makes them."""

import numpy as np
import pytest

from stats import replacement
from stats.distinct import distinct, lookup, rows_distinct, text_order


@pytest.mark.parametrize("size", [0, 1, 2, 1000])
def test_distinct_is_np_unique(size):
    values = np.random.default_rng(size).integers(-5, 50, size=size)
    assert np.array_equal(distinct(values), np.unique(values))
    assert np.array_equal(distinct(values.reshape(-1, 1) if size else values), np.unique(values))


@pytest.mark.parametrize(("low", "high", "dtype"), [(-5, 50, np.int64), (10 ** 6, 10 ** 6 + 3000, np.int64),
                                                     (0, 2 ** 40, np.int64), (0, 200, np.int16), (3, 250, np.uint8)])
def test_distinct_by_a_table_or_a_sort_is_np_unique(low, high, dtype):
    """Values over a narrow range (a table of it) and over a wide one (a sort): np.unique's answer, its dtype too."""
    values = np.random.default_rng(high).integers(low, high, size=2000).astype(dtype)
    got = distinct(values)
    assert np.array_equal(got, np.unique(values)) and got.dtype == values.dtype


@pytest.mark.parametrize("spread", [1, 3, 10 ** 9])  # keys over the table's range and beyond it; a range too wide
def test_lookup_by_a_table_or_a_search_finds_what_a_search_finds(spread):
    rng = np.random.default_rng(spread)
    ordered = np.unique(rng.integers(100, 100 + 3000 * spread, size=2000))
    keys = np.concatenate([rng.choice(ordered, size=3000), rng.integers(0, 200 + 4000 * spread, size=3000)])
    at, found = lookup(ordered, keys)
    assert np.array_equal(found, np.isin(keys, ordered))
    assert np.array_equal(ordered[at[found]], keys[found]) and at.min() >= 0 and at.max() < len(ordered)


@pytest.mark.parametrize("high", [3, 900, 2 ** 40])  # the last too wide for one key: np.unique itself
def test_rows_distinct_is_np_unique_of_rows(high):
    rows = np.random.default_rng(1).integers(-1, high, size=(500, 3))
    rows[::7] = rows[1]  # repeats
    rows[::11, 2] = -1
    got_rows, got_counts = rows_distinct(rows)
    want_rows, want_counts = np.unique(rows, axis=0, return_counts=True)
    assert np.array_equal(got_rows, want_rows) and np.array_equal(got_counts, want_counts)


@pytest.mark.parametrize("high", [10, 1000, 10 ** 9, 10 ** 16, 10 ** 18, -1])  # 10 ** 18 and -1: by the text itself
def test_text_order_sorts_ids_as_their_text(high):
    rng = np.random.default_rng(abs(high))
    drawn = rng.integers(min(high, -50), max(high, 2), size=400)
    ids = np.unique(np.concatenate([drawn, [0, 1, 9, 10, 12, 100, 120, 1200]]) if high > 0 else drawn)
    rng.shuffle(ids)
    assert np.array_equal(text_order(ids), np.argsort(ids.astype(str), kind="stable"))
    assert len(text_order(np.zeros(0, dtype=np.int64))) == 0


def test_lookup_finds_keys_in_a_sorted_array():
    at, found = lookup(np.array([2, 5, 9]), np.array([5, 1, 9, 10, 2]))
    assert found.tolist() == [True, False, True, False, True] and at[found].tolist() == [1, 2, 0]
    assert lookup(np.zeros(0, dtype=np.int64), np.array([3]))[1].tolist() == [False]


@pytest.mark.parametrize("numeric", [False, True])
def test_rater_labels_coded_is_rater_labels(numeric):
    rng = np.random.default_rng(7)
    code_values = [0, 2, None, 1] if numeric else ["no", "yes", None, "maybe"]
    rows = 3000
    items = rng.integers(1, 1200, size=rows) * 7  # ids whose order as text is not their order as numbers
    raters = rng.integers(0, 6, size=rows)
    codes = rng.integers(0, len(code_values), size=rows)
    judged = rng.choice(np.arange(1, 1500) * 7, size=900, replace=False).tolist()
    judge = {item: code_values[n % 2] for n, item in enumerate(judged)}
    names = [f"rater{n}" for n in range(6)]
    want = replacement.rater_labels(items.tolist(), raters.tolist(), [code_values[code] for code in codes], names,
                                    judge, numeric=numeric)
    got = replacement.rater_labels_coded(items, raters, codes, code_values, names, judge, numeric=numeric)
    for name in ("item", "rater", "label", "judge"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert (got.items, got.raters, got.labels, got.numeric) == (want.items, want.raters, want.labels, want.numeric)
