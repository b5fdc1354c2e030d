"""The report's block on the humans themselves: how well the annotators agree with each other."""

from __future__ import annotations

import numpy as np

from reports.selectors import HumanLabels
from stats import interrater, uncertainty
from stats.distinct import distinct
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
    samples = selected_samples(humans)
    selected = {row["annotator"] for row in samples}
    # Each label's position in LEVELS (grades); without levels the labels' codes, which sort as their labels do.
    grade = np.array([levels.index(int(label)) for label in ratings.labels], dtype=np.int64) if levels else None
    first, second = rater_pairs(ratings)
    pair_key = ratings.rater[first] * len(ratings.raters) + ratings.rater[second]
    pairwise = []
    _, starts, sizes = groups_of(pair_key)
    for start, end in zip(starts.tolist(), (starts + sizes).tolist(), strict=True):
        a, b = ratings.raters[ratings.rater[first[start]]], ratings.raters[ratings.rater[second[start]]]
        left, right, size = _pair_codes(ratings.label[first[start:end]], ratings.label[second[start:end]], levels,
                                         grade)
        shared = ratings.unit[first[start:end]]
        pair = {"a": a, "b": b, "kappa": interrater.kappa_of_codes(left, right, levels=size if levels else None),
                "n": len(shared), "small": len(shared) < small_sample,
                "selected_sample": [name for name in (a, b) if name in selected]}
        intervals = interrater.tables_agreement_intervals(interrater.code_tables(left, right, shared, size),
                                                          weighted=bool(levels))
        uncertainty.put_interval(pair, "kappa", intervals["cohen_kappa"], units=len(shared), noun="items")
        if levels:
            pair["kappa_linear"] = interrater.kappa_of_codes(left, right, weights="linear", levels=size)
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


def _pair_codes(first: np.ndarray, second: np.ndarray, levels: list[int] | None,
                grade: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, int]:
    """Two raters' label codes as interrater.cohen_kappa codes their labels: positions in LEVELS (GRADE: each label's
    position there), or without levels in the labels the two gave, sorted; and how many positions."""
    if levels and grade is not None:
        return grade[first], grade[second], len(levels)
    used = distinct(np.concatenate([first, second]))
    return np.searchsorted(used, first), np.searchsorted(used, second), len(used)


def selected_samples(humans: HumanLabels) -> list[dict]:
    """The annotators of HUMANS who judged a selected sample (stats.selection.annotator_samples_columns' rows of
    them): what the humans block shows, and what a build that starts the report's other sections before that block
    is done hands them (reports.verdicts)."""
    ratings = humans.ratings
    return [row for row in annotator_samples_columns(ratings.groups[0], ratings.rater, ratings.label,
                                                     raters=ratings.raters, labels=len(ratings.labels))
            if row["selected"]]


def selected_annotators(block: dict) -> list[str]:
    """The annotators BLOCK (humans_block's) found to have judged a selected sample, by name: the report's other
    sections read them from here rather than testing again."""
    return [row["annotator"] for row in block["selected_samples"]]
