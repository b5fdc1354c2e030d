"""The report's "May a judge replace an annotator?" section (report["replacement"]), for the task types whose humans
and judges give one label per item: for each judge, the alternative annotator test and the human-likeness z-score
against every annotator's own labels (stats.replacement), and the kappa-paradox panel of the judge against the items'
human labels (stats.paradox). Null when the campaign has no judge.

The task type says how its labels read: LEVELS, a graded scale's grades in order (labels are their numbers as text;
the alt-test then scores by distance, the panel weighs AC2 linearly, and the prevalence and bias indices read the
scale cut at RELEVANT_FROM); without levels, labels are categories, compared equal or not. LABEL_MAP, when given,
rewrites each label before anything reads it (pairwise: both bad as a tie) and leaves out the labels it does not
name (an order-inconsistent verdict)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from typing import Any

import numpy as np

from reports.selectors import HumanLabels, labels_coded
from stats import paradox, replacement
from stats.distinct import lookup, sorted_as_sklearn

# A campaign option: the alt-test's epsilon (stats.replacement.EPSILON by default).
EPSILON_OPTION = "alt_test_epsilon"


def _reader(levels: list[int] | None, label_map: dict | None):
    """A label as the tests compare it, or None to leave it out."""
    def read(label) -> Hashable | None:
        if label_map is not None:
            label = label_map.get(label)
        if label is None or label == "":
            return None
        if levels is None:
            return label
        try:
            grade = int(label)
        except (TypeError, ValueError):
            return None
        return grade if grade in levels else None
    return read


def annotator_rows(humans: HumanLabels, judge: dict, read, *, numeric: bool) -> replacement.RaterLabels:
    """The current annotations of item units as rows (stats.replacement.RaterLabels), each label as READ reads it, with
    JUDGE's labels ({item: label}, read already: no None)."""
    ratings = humans.ratings
    on_items = ratings.item >= 0
    return replacement.rater_labels_coded(ratings.item[on_items], ratings.rater[on_items], ratings.label[on_items],
                                          [read(label) for label in ratings.labels], list(ratings.raters), judge,
                                          numeric=numeric)


def _read_codes(coded: tuple[np.ndarray, np.ndarray, list], read) -> tuple[np.ndarray, np.ndarray, list]:
    """Labels as codes (reports.selectors.labels_coded: items, codes, the labels they stand for) as READ reads them:
    the same items, each one's code in the values READ gives (sorted as text), the items READ leaves out left out;
    READ asked once per distinct label."""
    items, codes, labels = coded
    read_as = [read(label) for label in labels]
    values = sorted({value for value in read_as if value is not None}, key=str)
    position = {value: index for index, value in enumerate(values)}
    codes = np.array([-1 if value is None else position[value] for value in read_as] + [-1], dtype=np.int64)[codes]
    kept = codes >= 0
    return items[kept], codes[kept], values


def _pairs(human: tuple[np.ndarray, np.ndarray, list], judge: tuple[np.ndarray, np.ndarray, list]) -> Counter:
    """{(human label, judge label): how many items} over the items both sides (_read_codes) have."""
    (human_items, human_codes, human_values), (items, codes, values) = human, judge
    at, both = lookup(human_items, items)
    counts = np.bincount(human_codes[at[both]] * len(values) + codes[both], minlength=len(human_values) * len(values))
    return Counter({(human_values[cell // len(values)], values[cell % len(values)]): int(counts[cell])
                    for cell in np.flatnonzero(counts).tolist()})


def _table(pairs: Counter, categories: list) -> np.ndarray:
    """The contingency table of PAIRS {(human label, judge label): how many items} over CATEGORIES."""
    code = {label: i for i, label in enumerate(categories)}
    table = np.zeros((len(categories), len(categories)), dtype=np.int64)
    for (human, judge), count in pairs.items():
        table[code[human], code[judge]] += count
    return table


def replacement_block(*, humans: HumanLabels, judges: list[tuple[str, str, dict]], options: dict,
                      selected: list[str], levels: list[int] | None = None, relevant_from: int | None = None,
                      label_map: dict | None = None, coded: dict[str, tuple] | None = None) -> dict | None:
    """The section for JUDGES [(name, family, {item: label})] against HUMANS (see the module's docstring). SELECTED:
    the annotators the humans block found to have judged a selected sample (reports.humans.selected_samples):
    named where the alt-test leaves them out, and left out of the human-likeness z. CODED: judges' labels as codes
    (reports.selectors.labels_coded), by name, where the caller has them already."""
    if not judges:
        return None
    epsilon = float(options.get(EPSILON_OPTION, replacement.EPSILON))
    read = _reader(levels, label_map)
    item_label = _read_codes(humans.item_label_codes, read)
    blocks: dict[str, dict[str, Any]] = {}
    # The annotators' rows, and what the human-likeness z reads of them alone: found once for every judge whose items
    # and labels are among theirs (the usual case), each judge's labels then put beside the same rows.
    annotators_only = annotator_rows(humans, {}, read, numeric=levels is not None)
    annotators: replacement.Annotators | None = None
    for name, family, labels in judges:
        own = _read_codes(coded[name] if coded and name in coded else labels_coded(labels), read)
        pairs = _pairs(item_label, own)
        categories = list(levels) if levels is not None else sorted_as_sklearn(
            {label for pair in pairs for label in pair})
        binary = None
        if levels is not None and relevant_from is not None:
            relevant: Counter = Counter()
            for (human, judge), count in pairs.items():
                relevant[human >= relevant_from, judge >= relevant_from] += count
            binary = _table(relevant, [False, True])
        beside = replacement.with_judge_coded(annotators_only, *own)
        if beside is not None and annotators is None:
            annotators = replacement.Annotators(annotators_only, selected=selected)
        rows = beside if beside is not None else annotator_rows(
            humans, dict(zip(own[0].tolist(), map(own[2].__getitem__, own[1].tolist()), strict=True)), read,
            numeric=levels is not None)
        blocks[name] = {
            "family": family,
            "alt_test": replacement.alt_test(rows, epsilon=epsilon, selected=selected),
            "human_likeness": replacement.human_likeness(rows, selected=selected,
                                                         annotators=annotators if beside is not None else None),
            "paradox": paradox.paradox_panel(_table(pairs, categories), ordinal=levels is not None, binary=binary)
            if len(categories) >= 2 else None,
        }
    how_many = len(set(humans.ratings.rater[humans.ratings.item >= 0].tolist()))
    return {"epsilon": epsilon, "epsilon_default": epsilon == replacement.EPSILON, "annotators": how_many,
            "selected_samples": list(selected),
            # The margins each judge's verdict is given at, in the order of its alt_test's by_epsilon.
            "epsilons": sorted({*replacement.EPSILONS, epsilon}),
            "alt_tests_ran": sum(block["alt_test"]["ran"] for block in blocks.values()),
            "graded": levels is not None, "paradox_method": paradox.IRRCAC_METHOD,
            "index_method": paradox.INDEX_METHOD,
            "judges": blocks,
            "thresholds": {"annotators": replacement.MIN_ANNOTATORS, "items": replacement.MIN_ITEMS,
                           "items_per_annotator": replacement.MIN_ITEMS_PER_ANNOTATOR,
                           "pass_rate": replacement.PASS_RATE, "q": replacement.FDR_Q},
            "scoring": "minus the root mean squared distance between grades" if levels is not None
            else "the share of labels equal"}


def _number(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def replacement_text(block: dict) -> str:
    """The section as plain text (manage.py agreement_report): per judge the alternative annotator test, the
    human-likeness z and the paradox panel's figures, or what is missing for a test."""
    annotators = block["annotators"]
    lines = ["", f"May a judge replace an annotator? ({annotators} annotator{'' if annotators == 1 else 's'}; "
                 f"alt-test epsilon {block['epsilon']:g})"]
    for name, judge in block["judges"].items():
        alt, likeness, panel = judge["alt_test"], judge["human_likeness"], judge["paradox"]
        if alt["ran"]:
            verdict = "may replace" if alt["passes"] else "may not replace"
            lines.append(f"  {name}: alt-test winning rate {_number(alt['winning_rate'])} ({alt['rejected']} of "
                         f"{len(alt['annotators'])} annotators), {verdict}; advantage probability "
                         f"{_number(alt['advantage'])} (n = {alt['n_items']} items)")
            lines.append(f"  {name}: the verdict rests on {', '.join(alt['rests_on'])} (items per annotator: "
                         + ", ".join(f"{row['annotator']} {row['n']}" for row in alt["annotators"]) + ")")
            lines.append(f"  {name}: by epsilon: " + "; ".join(
                f"{each['epsilon']:g}: {_number(each['winning_rate'])} ({each['rejected']} of {each['of']}), "
                f"{'may replace' if each['passes'] else 'may not replace'}" for each in alt["by_epsilon"]))
        else:
            lines.append(f"  {name}: alt-test not run: {alt['missing']}")
        for row in alt["left_out"]:
            lines.append(f"  {name}: alt-test leaves out {row['annotator']}: {row['reason']}")
        if alt["undecidable"]:
            lines.append(f"  {name}: items not counted where the other annotators split evenly: "
                         + ", ".join(f"{who} {count}" for who, count in alt["undecidable"].items()))
        aside = f"; left out as a selected sample: {', '.join(likeness['left_out'])}" if likeness["left_out"] else ""
        lines.append(f"  {name}: human-likeness z {_number(likeness['z'])} ({likeness['verdict']}; "
                     f"{len(likeness['judge_kappas'])} annotators, {len(likeness['human_pairs'])} pairs{aside})"
                     if likeness["ran"] else f"  {name}: human-likeness z not computed: {likeness['missing']}")
        if panel:
            lines.append(f"  {name}: n = {panel['n']}, agreement {_number(panel['agreement'])}, kappa "
                         f"{_number(panel['cohen_kappa'])}, {panel['ac_name']} {_number(panel['ac'])}, "
                         f"{panel['bp_name']} {_number(panel['bp'])}, prevalence index "
                         f"{_number(panel['prevalence_index'])}, bias index {_number(panel['bias_index'])}")
    return "\n".join(lines)
