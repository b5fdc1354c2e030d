"""The report's block by item category (report["categories"]; verdict and graded reports): how the judges and the
humans agree within each kind of item the researcher named (Item.category: semantic, symbolic, granularity, ...),
and among the items without a category, as a row of their own, once some items have one. Null when no item has a
category.

Per category:
- each judge against the human label of the items (the label the report uses throughout: adjudicated, else the
  decided majority): n, the share agreeing with its 95% Wilson interval (statsmodels proportion_confint), and Cohen's
  kappa (stats.interrater.cohen_kappa, scikit-learn) with a 95% percentile bootstrap interval over the items
  (stats.interrater.item_agreement_intervals, each item its own cluster); a judge's failed verdicts and items without
  a human label (ties, still open) are left out;
- the humans among themselves (stats.interrater.rater_agreement): Fleiss' kappa and Krippendorff's alpha (nominal) over
  the category's items rated at least twice, each with its n and a 95% bootstrap interval over those items, or a
  note why there is none.

answer_ranking has no such block: its human verdict is one ranking of all a topic's candidates, and a category
belongs to a candidate, so a per-category agreement would compare fragments of rankings (docs/reports.md).

The statistics are the pure functions below (no Django); the builders hand them what reports.selectors read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING

from stats import interrater, uncertainty
from stats.interrater import WILSON, share_with_interval

if TYPE_CHECKING:  # the module stays free of Django: the builder only reads the dataclass's fields
    from reports.selectors import HumanLabels

# The row of the items without a category (a category is never empty, so it cannot clash with one).
WITHOUT = None


# --- Pure statistics ---


def judge_against_humans(labels: Sequence[Hashable], reference: Sequence[Hashable]) -> dict:
    """How a judge's LABELS agree with the human REFERENCE labels of the same items: {"n", "agree", "share",
    "share_ci95" (Wilson), "kappa", "kappa_ci95", "kappa_ci_note"}; kappa is None where undefined (fewer than two
    items, one label throughout) and its interval None with a note where it degenerates."""
    n = len(labels)
    agree = sum(a == b for a, b in zip(labels, reference, strict=True))
    row = {"n": n, "agree": agree, **share_with_interval(agree, n), "kappa": interrater.cohen_kappa(list(labels),
                                                                                                list(reference))}
    interval = None
    if row["kappa"] is not None:
        interval = interrater.item_agreement_intervals(list(labels), list(reference), list(range(n)))["cohen_kappa"]
    uncertainty.put_interval(row, "kappa", interval, units=n, noun="items")
    return row


def agreement_by_category(*, categories: dict[int, str], item_label: dict[int, str],
                          ratings: dict[int, dict[str, Hashable]],
                          judges: Sequence[tuple[str, str, Mapping[int, Hashable]]]) -> list[dict] | None:
    """The block's rows: one per category, the largest first, then the items without one (category WITHOUT) when
    there are any; None when no item has a category. CATEGORIES: every item's category ("" for none).

    ITEM_LABEL: the human label of each labelled item; RATINGS: each item's current annotation labels by annotator
    (the raters' agreement reads the items rated twice or more; Fleiss' kappa takes an item's first m ratings, the
    most prolific annotators' first, as the report's humans block does); JUDGES: (name, family, {item: label})."""
    members: dict[str | None, list[int]] = {}
    for item, named in sorted(categories.items()):
        members.setdefault(named or WITHOUT, []).append(item)
    if not any(category is not WITHOUT for category in members):
        return None
    order: list[str | None] = sorted((category for category in members if category is not WITHOUT),
                                     key=lambda category: (-len(members[category]), category))
    if WITHOUT in members:
        order.append(WITHOUT)
    rated = Counter(name for labels in ratings.values() for name in labels)
    rank = {name: position for position, name in enumerate(sorted(rated, key=lambda name: (-rated[name], name)))}
    rows = []
    for category in order:
        group = members[category]
        labelled = [item for item in group if item in item_label]
        rated_twice = [ratings[item] for item in group if len(ratings.get(item, ())) >= 2]
        panel = [[labels[name] for name in sorted(labels, key=rank.__getitem__)] for labels in rated_twice]
        raters = len({name for labels in rated_twice for name in labels})
        judge_rows = []
        for name, family, labels in judges:
            both = [item for item in labelled if item in labels]
            judge_rows.append({"name": name, "family": family, **judge_against_humans(
                [labels[item] for item in both], [item_label[item] for item in both])})
        rows.append({"category": category, "items": len(group), "items_labelled": len(labelled),
                     "humans": interrater.rater_agreement(panel, raters=raters),
                     "judges": judge_rows})
    return rows


# --- Builders ---


def categories_block(*, humans: HumanLabels, judges: Sequence[tuple[str, str, Mapping[int, Hashable]]],
                     categories: dict[int, str]) -> dict | None:
    """The block from the campaign's HUMANS labels, its JUDGES as (name, family, {item: label}) (the same list the
    adjudication block takes) and every item's category (reports.selectors.item_categories_get: {} when no item
    has one); None when no item has a category."""
    if not any(categories.values()):  # agreement_by_category's answer too, without gathering every item's ratings
        return None
    ratings: dict[int, dict[str, Hashable]] = {}
    for unit, labels in humans.by_unit.items():
        item = humans.unit_item.get(unit)
        if item is not None:
            ratings.setdefault(item, {}).update(labels)
    rows = agreement_by_category(categories=categories, item_label=humans.item_label, ratings=ratings, judges=judges)
    if rows is None:
        return None
    return {
        "rows": rows,
        "judges": [name for name, _, _ in judges],
        "items_categorised": sum(1 for category in categories.values() if category),
        "method": f"each judge against the human label of the category's items (failed verdicts and items without a "
                  f"human label left out): share agreeing, {WILSON}; Cohen's kappa, "
                  f"{uncertainty.bootstrap_method('the items')}. Humans among themselves: Fleiss' "
                  f"kappa and Krippendorff's alpha (nominal) over the items rated twice or more, "
                  f"{uncertainty.bootstrap_method('those items')}",
    }
