"""The report's block on the humans themselves: how well the annotators agree with each other."""

from __future__ import annotations

import numpy as np

from reports.selectors import HumanLabels
from stats import interrater, uncertainty
from stats.ratings import groups_of, preference_order, rater_pairs
from stats.selection import SELECTED_RULE, annotator_samples_columns


def humans_block(humans: HumanLabels, *, levels: list[int] | None = None, small_sample: int = 30) -> dict:
    """Fleiss' kappa, Krippendorff's alpha and pairwise Cohen's kappa among the annotators, each with a 95%
    interval (bootstrap over the items rated; a pair's over the items both rated). A pair with fewer shared
    items than SMALL_SAMPLE is flagged `small`.

    LEVELS: the labels are ordinal grades (image_relevance: [0, 1, 2]; labels "0".."2"): pairwise kappa is then
    computed on the numbers, and linear-weighted kappa is added (`kappa_linear`).

    Counted on the labels as columns (stats.ratings): each table is a sort or a bincount over the ratings.
    """
    ratings = humans.ratings
    unit_index = ratings.groups[0]
    # An annotator sent mostly items the others split on (a selected sample): their pairs' kappa is over hard items.
    samples = [row for row in annotator_samples_columns(unit_index, ratings.rater, ratings.label,
                                                        raters=ratings.raters, labels=len(ratings.labels))
               if row["selected"]]
    selected = {row["annotator"] for row in samples}
    values = np.array([int(label) for label in ratings.labels] if levels else ratings.labels, dtype=object)
    first, second = rater_pairs(ratings)
    pair_key = ratings.rater[first] * len(ratings.raters) + ratings.rater[second]
    pairwise = []
    _, starts, sizes = groups_of(pair_key)
    for start, end in zip(starts.tolist(), (starts + sizes).tolist(), strict=True):
        a, b = ratings.raters[ratings.rater[first[start]]], ratings.raters[ratings.rater[second[start]]]
        left, right = (
            values[ratings.label[first[start:end]]].tolist(),
            values[ratings.label[second[start:end]]].tolist(),
        )
        shared = ratings.unit[first[start:end]].tolist()
        pair = {"a": a, "b": b, "kappa": interrater.cohen_kappa(left, right, labels=levels), "n": len(shared),
                "small": len(shared) < small_sample, "selected_sample": [name for name in (a, b) if name in selected]}
        intervals = interrater.item_agreement_intervals(left, right, shared, levels=levels, weighted=bool(levels))
        uncertainty.put_interval(pair, "kappa", intervals["cohen_kappa"], units=len(shared), noun="items")
        if levels:
            pair["kappa_linear"] = interrater.cohen_kappa(left, right, weights="linear", labels=levels)
            uncertainty.put_interval(pair, "kappa_linear", intervals["cohen_kappa_linear"], units=len(shared),
                                     noun="items")
        pairwise.append(pair)
    # Fleiss takes each unit's first m ratings, m >= 2 (see interrater.fleiss_kappa): the most prolific annotators
    # first.
    preferred = preference_order(ratings)
    return {
        "annotators": len(humans.annotators),
        # fleiss_kappa, krippendorff_alpha: each with its n, its interval or why there is none (ci_note), raters.
        **interrater.rater_agreement_columns(unit_index[preferred], ratings.label[preferred],
                                             labels=len(ratings.labels), raters=len(humans.annotators)),
        "ci_method": uncertainty.bootstrap_method("the items rated"),
        "pairwise_ci_method": uncertainty.bootstrap_method("the items both rated"),
        "pairwise_cohen_kappa": pairwise,
        "selected_samples": samples,
        "selected_sample_rule": SELECTED_RULE,
        "items_labelled": len(humans.item_label),
        "adjudicated": humans.adjudicated,
        "ties": len(humans.ties),
        # Items with some annotations whose majority is not decided yet (k not all in): no label, not guessed.
        "items_open": len(humans.open),
    }


def selected_annotators(block: dict) -> list[str]:
    """The annotators BLOCK (humans_block's) found to have judged a selected sample, by name: the report's other
    sections read them from here rather than testing again."""
    return [row["annotator"] for row in block["selected_samples"]]
