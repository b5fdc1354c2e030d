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

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping

from scipy.stats import hypergeom

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
    # One pass over the ratings, not one over the units per annotator: a unit X did not rate is in X's pool when two
    # or more rated it (counted once for everyone, then taken back for its own raters); a unit X rated is in X's
    # pool when two or more others rated it, split when those others gave more than one label.
    pool_all = split_all = 0
    own: dict[Hashable, list[int]] = {}  # name -> [rated units in the all-count, split of them, items, split]
    for labels in units:
        rated = len(labels)
        if rated <= 2:  # most units: a pair (or one rating) is in no rater's own pool, no Counter needed
            split = rated == 2 and len(set(labels.values())) > 1
            pool_all += rated == 2
            split_all += split
            for name in labels:
                entry = own.setdefault(name, [0, 0, 0, 0])
                entry[0] += rated == 2
                entry[1] += split
            continue
        # Three ratings or more: in everyone's all-count, and in each rater's own pool (two or more others).
        counts = Counter(labels.values())
        pool_all += 1
        split_all += len(counts) > 1
        for name, label in labels.items():
            entry = own.setdefault(name, [0, 0, 0, 0])
            entry[0] += 1
            entry[1] += len(counts) > 1
            entry[2] += 1
            entry[3] += len(counts) - (counts[label] == 1) > 1
    rows = []
    for name in sorted(own):
        taken, taken_split, items, split = own[name]
        pool, pool_split = pool_all - taken + items, split_all - taken_split + split
        share = split / items if items else None
        pool_share = pool_split / pool if pool else None
        p_value = float(hypergeom.sf(split - 1, pool, pool_split, items)) if items else None
        selected = (share is not None and pool_share is not None and items < pool
                    and share >= SELECTED_RATIO * pool_share and p_value < SELECTED_P)
        rows.append({"annotator": name, "items": items, "split": split, "share": share, "pool": pool,
                     "pool_split": pool_split, "pool_share": pool_share, "p_value": p_value, "selected": selected})
    return rows
