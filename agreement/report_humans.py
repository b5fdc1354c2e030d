"""The report's block on the humans themselves: how well the annotators agree with each other."""

from __future__ import annotations

from itertools import combinations

from agreement import stats
from agreement.selectors import HumanLabels


def humans_block(humans: HumanLabels, *, levels: list[int] | None = None) -> dict:
    """Fleiss' kappa, Krippendorff's alpha and pairwise Cohen's kappa among the annotators.

    LEVELS: the labels are ordinal grades (image_relevance: [0, 1, 2]; labels "0".."2"): pairwise kappa is then
    computed on the numbers, and linear-weighted kappa is added (`kappa_linear`).
    """
    units = sorted(humans.by_unit)

    def values(name: str, shared: list[int]) -> list:
        labels = [humans.by_unit[unit][name] for unit in shared]
        return [int(label) for label in labels] if levels else labels

    pairwise = []
    for a, b in combinations(humans.annotators, 2):
        shared = [unit for unit in units if a in humans.by_unit[unit] and b in humans.by_unit[unit]]
        if not shared:
            continue
        left, right = values(a, shared), values(b, shared)
        pair = {"a": a, "b": b, "kappa": stats.cohen_kappa(left, right, labels=levels), "n": len(shared)}
        if levels:
            pair["kappa_linear"] = stats.cohen_kappa(left, right, weights="linear", labels=levels)
        pairwise.append(pair)
    # Fleiss takes each unit's first m ratings (see stats.fleiss_kappa): put the most prolific annotators first.
    rated = {name: sum(name in humans.by_unit[unit] for unit in units) for name in humans.annotators}
    panel = sorted(humans.annotators, key=lambda name: (-rated[name], name))
    ratings = [[humans.by_unit[unit][name] for name in panel if name in humans.by_unit[unit]] for unit in units]
    reliability = [[humans.by_unit[unit].get(name) for unit in units] for name in humans.annotators]
    return {
        "annotators": len(humans.annotators),
        "fleiss_kappa": stats.fleiss_kappa(ratings),
        "fleiss_items": stats.fleiss_kappa_items(ratings),
        "krippendorff_alpha": stats.krippendorff_alpha(reliability),
        "pairwise_cohen_kappa": pairwise,
        "items_labelled": len(humans.item_label),
        "adjudicated": humans.adjudicated,
        "ties": len(humans.ties),
    }
