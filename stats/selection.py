"""Whether an annotator judged a selected sample rather than a random one: pure functions, no Django.

A study may send a third annotator only the items the first two disagreed on (NQ-open 301: annotator 3 judged 216
items with two other verdicts, 195 of them items annotators 1 and 2 had split on). Kappa of such an annotator against
the others is computed over hard items only and reads far lower than the others' kappa; the number is right, but the
report must say why. For each annotator X:

- the pool: the units rated by at least two annotators other than X (whether or not X rated them);
- the pool's split units: those on which the others' labels are not all the same;
- X's sample: the pool's units X rated, and how many of them are split.

X judged a selected sample when the split share of X's sample is at least SELECTED_RATIO times the pool's and a random
sample of that size from the pool would find that many split units with probability below SELECTED_P (one-sided
hypergeometric test, scipy.stats.hypergeom: sampling without replacement from the pool). An annotator who rated the
whole pool is the pool, and never flagged.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping

import numpy as np
from scipy.stats import hypergeom

from stats.ratings import coded, groups_of, label_counts

SELECTED_RATIO = 2.0
SELECTED_P = 0.001
SELECTED_RULE = (f"split share of the annotator's items is at least {SELECTED_RATIO:g} times the campaign's and a "
                 f"one-sided hypergeometric test gives p below {SELECTED_P:g} (could a random sample of as many items "
                 f"find as many split ones?)")


def annotator_samples(units: Iterable[Mapping[str, Hashable]]) -> list[dict]:
    """For each annotator in UNITS (one mapping annotator -> label per unit), how their units compare with the pool
    of units that at least two other annotators rated: `items` (X's units in the pool), `split` (of those, units the
    others did not agree on), `share` and `pool_share` (split shares; None on an empty sample or pool), `pool`,
    `p_value` (the chance that a random sample finds at least `split` split units) and `selected` (see the module)."""
    units = list(units)
    sizes = np.fromiter(map(len, units), dtype=np.int64, count=len(units))
    rater, raters = coded([name for labels in units for name in labels])
    label, labels = coded([label for labels in units for label in labels.values()])
    return annotator_samples_columns(np.repeat(np.arange(len(units)), sizes), rater, label, raters=raters,
                                     labels=len(labels))


def annotator_samples_columns(group: np.ndarray, rater: np.ndarray, label: np.ndarray, *, raters: list,
                              labels: int) -> list[dict]:
    """annotator_samples from the ratings as columns (stats.ratings): each rating's unit index (a unit's ratings
    contiguous), its rater's position in RATERS (sorted) and its label's code among LABELS labels."""
    # Counted per rating, not per unit and annotator: a unit X did not rate is in X's pool when two or more rated it
    # (counted once for everyone, then taken back for its own raters); a unit X rated is in X's pool when two or more
    # others rated it, split when those others gave more than one label.
    group, _, sizes = groups_of(group)
    tally = label_counts(group, label, groups=len(sizes), labels=labels)
    distinct = np.count_nonzero(tally, axis=1)
    paired, split = sizes >= 2, (sizes >= 2) & (distinct > 1)
    pool_all, split_all = int(paired.sum()), int(split.sum())
    # Per rating: its unit counts in the all-count (taken), is split there, and, with three ratings or more, is in
    # the rater's own pool (items), split among the others (a label only the rater gave leaves one fewer).
    crowded = sizes[group] >= 3
    others_split = crowded & (distinct[group] - (tally[group, label] == 1) > 1)

    def per_rater(flags: np.ndarray) -> list[int]:
        return np.bincount(rater, weights=flags, minlength=len(raters)).astype(int).tolist()

    rated = np.bincount(rater, minlength=len(raters))
    columns = zip(per_rater(paired[group]), per_rater(split[group]), per_rater(crowded), per_rater(others_split),
                  strict=True)
    rows = []
    for name, count, (taken, taken_split, items, split_items) in zip(raters, rated.tolist(), columns, strict=True):
        if not count:
            continue
        pool, pool_split = pool_all - taken + items, split_all - taken_split + split_items
        share = split_items / items if items else None
        pool_share = pool_split / pool if pool else None
        p_value = float(hypergeom.sf(split_items - 1, pool, pool_split, items)) if items else None
        selected = (share is not None and pool_share is not None and items < pool
                    and share >= SELECTED_RATIO * pool_share and p_value is not None and p_value < SELECTED_P)
        rows.append({"annotator": name, "items": items, "split": split_items, "share": share, "pool": pool,
                     "pool_split": pool_split, "pool_share": pool_share, "p_value": p_value, "selected": selected})
    return rows
