"""The report's block on the humans themselves: how well the annotators agree with each other."""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import chain, combinations

from agreement import stats
from agreement.selection import SELECTED_RULE, annotator_samples
from agreement.selectors import HumanLabels


def humans_block(humans: HumanLabels, *, levels: list[int] | None = None, small_sample: int = 30) -> dict:
    """Fleiss' kappa, Krippendorff's alpha and pairwise Cohen's kappa among the annotators, each with a 95%
    interval (bootstrap over the items rated; a pair's over the items both rated). A pair with fewer shared
    items than SMALL_SAMPLE is flagged `small`.

    LEVELS: the labels are ordinal grades (image_relevance: [0, 1, 2]; labels "0".."2"): pairwise kappa is then
    computed on the numbers, and linear-weighted kappa is added (`kappa_linear`).
    """
    units = sorted(humans.by_unit)

    def values(name: str, shared: list[int]) -> list:
        labels = [humans.by_unit[unit][name] for unit in shared]
        return [int(label) for label in labels] if levels else labels

    # One pass over the units: each unit's few annotators give its pairs (not every pair over every unit).
    shared_units: dict[tuple[str, str], list[int]] = defaultdict(list)
    for unit in units:
        labels = humans.by_unit[unit]
        if len(labels) == 2:
            a, b = labels
            shared_units[(a, b) if a < b else (b, a)].append(unit)
        else:
            for pair in combinations(sorted(labels), 2):
                shared_units[pair].append(unit)
    # An annotator sent mostly items the others split on (a selected sample): their pairs' kappa is over hard items.
    samples = [row for row in annotator_samples(humans.by_unit[unit] for unit in units) if row["selected"]]
    selected = {row["annotator"] for row in samples}
    pairwise = []
    for a, b in combinations(humans.annotators, 2):
        shared = shared_units.get((a, b))
        if not shared:
            continue
        left, right = values(a, shared), values(b, shared)
        pair = {"a": a, "b": b, "kappa": stats.cohen_kappa(left, right, labels=levels), "n": len(shared),
                "small": len(shared) < small_sample, "selected_sample": [name for name in (a, b) if name in selected]}
        intervals = stats.item_agreement_intervals(left, right, shared, levels=levels, weighted=bool(levels))
        stats.put_interval(pair, "kappa", intervals["cohen_kappa"], units=len(shared), noun="items")
        if levels:
            pair["kappa_linear"] = stats.cohen_kappa(left, right, weights="linear", labels=levels)
            stats.put_interval(pair, "kappa_linear", intervals["cohen_kappa_linear"], units=len(shared), noun="items")
        pairwise.append(pair)
    # Fleiss takes each unit's first m ratings, m >= 2 (see stats.fleiss_kappa): the most prolific annotators
    # first. Only a unit with more than two ratings can have more than m, so only those need that order.
    rated = Counter(chain.from_iterable(humans.by_unit.values()))
    rank = {name: position for position, name in enumerate(sorted(humans.annotators, key=lambda n: (-rated[n], n)))}
    ratings = [list(labels.values()) if len(labels) <= 2 else [labels[name] for name in sorted(labels, key=rank.get)]
               for labels in (humans.by_unit[unit] for unit in units)]
    return {
        "annotators": len(humans.annotators),
        # fleiss_kappa, krippendorff_alpha: each with its n, its interval or why there is none (ci_note), raters.
        **stats.rater_agreement(ratings, raters=len(humans.annotators)),
        "ci_method": stats.bootstrap_method("the items rated"),
        "pairwise_ci_method": stats.bootstrap_method("the items both rated"),
        "pairwise_cohen_kappa": pairwise,
        "selected_samples": samples,
        "selected_sample_rule": SELECTED_RULE,
        "items_labelled": len(humans.item_label),
        "adjudicated": humans.adjudicated,
        "ties": len(humans.ties),
        # Items with some annotations whose majority is not decided yet (k not all in): no label, not guessed.
        "items_open": len(humans.open),
    }
