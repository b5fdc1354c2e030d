"""A campaign's current annotation labels as integer-coded columns, and what the reports count on them with numpy.

A million labels held as a dict per unit cost more to build than every statistic computed from them; as three
integer arrays (unit, rater, label), the humans block's tables (pairs of raters, Fleiss' count table, Krippendorff's
label counts, the selected-sample counts) are each a sort or a bincount. Pure functions, no Django:
reports.selectors reads the rows, reports.humans and stats count on them.

Every function that takes GROUP (a unit's or item's index per row) expects a group's rows to be contiguous
(reports.selectors sorts them by unit), in the order the group's ratings are preferred where that matters (Fleiss'
kappa takes a unit's first m).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np


def coded(values: Sequence[Hashable]) -> tuple[np.ndarray, list]:
    """(each value's position in the distinct values, the distinct values sorted as text): integer codes whose order
    is the values' sorted order, so a table's columns come out as the statistics modules sort labels (key=str)."""
    distinct = sorted(set(values), key=str)
    position = {value: index for index, value in enumerate(distinct)}
    return np.fromiter(map(position.__getitem__, values), dtype=np.int64, count=len(values)), distinct


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Ratings:
    """Current annotation labels, one row per (unit, rater), the rows sorted by unit (a unit's raters in no particular
    order). `raters` and `labels` are sorted; `rater` and `label` are positions in them, so comparing codes compares
    names. `item` is each row's unit's item, -1 for a unit that is not an item (a ranking topic)."""

    unit: np.ndarray = field(default_factory=_empty)
    item: np.ndarray = field(default_factory=_empty)
    rater: np.ndarray = field(default_factory=_empty)
    label: np.ndarray = field(default_factory=_empty)
    raters: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)

    @cached_property
    def groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(each row's unit as 0, 1, ... in unit order, each unit's first row, each unit's number of rows)."""
        return groups_of(self.unit)

    def by_unit(self) -> dict[int, dict[str, str]]:
        """{unit id: {rater: label}}: the same labels as dicts, for the reports that read them one unit at a time."""
        result: dict[int, dict[str, str]] = {}
        names, labels = self.raters, self.labels
        for unit, rater, label in zip(self.unit.tolist(), self.rater.tolist(), self.label.tolist(), strict=True):
            entry = result.get(unit)
            if entry is None:
                entry = result[unit] = {}
            entry[names[rater]] = labels[label]
        return result


def groups_of(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For KEYS with equal keys contiguous: (each row's group as 0, 1, ... in the order the groups come, each group's
    first row, its size)."""
    if not len(keys):
        return _empty(), _empty(), _empty()
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    sizes = np.diff(np.r_[starts, len(keys)])
    return np.repeat(np.arange(len(starts)), sizes), starts, sizes


def rows_coded(groups: Sequence[Sequence[Hashable]]) -> tuple[np.ndarray, np.ndarray, list]:
    """One list of labels per unit as columns: (each row's unit index, its label's code, the labels sorted as text),
    each unit's labels in their list order."""
    sizes = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    label, labels = coded([label for labels in groups for label in labels])
    return np.repeat(np.arange(len(groups)), sizes), label, labels


def label_counts(group: np.ndarray, label: np.ndarray, *, groups: int, labels: int) -> np.ndarray:
    """Groups x labels: how many of each group's rows carry each label."""
    return np.bincount(group * labels + label, minlength=groups * labels).reshape(groups, labels)


def fleiss_table(group: np.ndarray, label: np.ndarray, *, labels: int) -> tuple[np.ndarray | None, int]:
    """(the items x categories count table Fleiss' kappa reads, or None when it is undefined; how many items it
    reads). The panel size m is the commonest number of ratings among the groups rated at least twice (the larger on a
    tie); groups with fewer than m rows are left out and those with more give their first m (stats
    .fleiss_kappa says why). The categories are the labels used in those rows; None with fewer than two items or
    one category."""
    _, starts, sizes = groups_of(group)
    twice = sizes[sizes >= 2]
    if not len(twice):
        return None, 0
    frequency = np.bincount(twice)
    m = int(np.flatnonzero(frequency == frequency.max())[-1])
    kept = np.flatnonzero(sizes >= m)
    if len(kept) < 2:
        return None, len(kept)
    rows = (starts[kept][:, None] + np.arange(m)).reshape(-1)
    table = label_counts(np.repeat(np.arange(len(kept)), m), label[rows], groups=len(kept), labels=labels)
    table = table[:, table.sum(axis=0) > 0]
    return (table if table.shape[1] >= 2 else None), len(kept)


def alpha_counts(group: np.ndarray, label: np.ndarray, *, labels: int) -> tuple[np.ndarray | None, int]:
    """(units x labels counts of the units rated at least twice, what Krippendorff's alpha reads from value counts,
    or None when it is undefined: fewer than two labels among all the ratings, or no unit rated twice; how many units
    it reads)."""
    index, _, sizes = groups_of(group)
    pairable = np.flatnonzero(sizes >= 2)
    if labels < 2 or not len(pairable):
        return None, len(pairable)
    counts = label_counts(index, label, groups=len(sizes), labels=labels)
    return counts[pairable].astype(float), len(pairable)


def rater_pairs(ratings: Ratings) -> tuple[np.ndarray, np.ndarray]:
    """Every two ratings of one unit as (first row, second row), the first's rater before the second's, ordered by
    the pair of raters, then by unit: each pair of raters' shared units, in unit order, as one slice."""
    _, starts, sizes = ratings.groups
    firsts, seconds = [], []
    for size in np.unique(sizes[sizes >= 2]).tolist():
        base = starts[sizes == size]
        for i in range(size):
            for j in range(i + 1, size):
                firsts.append(base + i)
                seconds.append(base + j)
    if not firsts:
        return _empty(), _empty()
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    swap = ratings.rater[first] > ratings.rater[second]
    first, second = np.where(swap, second, first), np.where(swap, first, second)
    order = np.lexsort((ratings.unit[first], ratings.rater[second], ratings.rater[first]))
    return first[order], second[order]


def preference_order(ratings: Ratings) -> np.ndarray:
    """The rows reordered so that within each unit the most prolific raters come first (by how many units they
    rated, then by name): the order Fleiss' kappa takes a unit's first m ratings in."""
    rated = np.bincount(ratings.rater, minlength=len(ratings.raters))
    rank = np.empty(len(ratings.raters), dtype=np.int64)
    rank[np.lexsort((np.arange(len(ratings.raters)), -rated))] = np.arange(len(ratings.raters))
    group, raters = ratings.groups[0], max(len(ratings.raters), 1)
    if len(group) and int(group.max()) < 2 ** 62 // raters:
        # The rows come by unit: one key per row, unit then rank, nearly in order already, sorts far faster than
        # lexsort's two passes, in the same order.
        return np.argsort(group * raters + rank[ratings.rater], kind="stable")
    return np.lexsort((rank[ratings.rater], group))
