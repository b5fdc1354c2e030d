"""The humans and each judge together (stats.ppi): every system's score from the human labels there are plus the
judge's verdicts on all its outputs, with the humans-only and the judge-only figures beside it, the labels the judge
was worth, the pairs of systems the combined intervals separate, and the order. docs/statistics/ppi.md.

The unit is the topic (a question): a system's value on a topic is the mean of its outputs there, humans' and
judge's, so that outputs of one question count as one unit (clustered), and humans label a topic's outputs together.
A campaign whose humans judged (nearly) every unit has nothing to gain: its block is a check of the method instead,
the same figures computed on a share of the units drawn by the campaign's plan (option ppi_plan; ppi_check_share of
the units; a fixed seed), each beside the all-human figure it should cover. Elsewhere the units humans labelled are
taken as a simple random sample of the units: an interval is valid as far as they are one (a plan the annotation
queue follows records each unit's probability: to come).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import combinations

import numpy as np

from reports.system_level import SystemSides
from stats import label_plans, ppi

DEFAULT_PLAN = "active"
DEFAULT_CHECK_SHARE = 0.1
# Humans on at least this share of a judge's units: the block checks the method on a draw (there is nothing to gain).
CHECKED_FROM = 0.9
CHECK_SEED = 20231
SCORE, DIFFERENCE = (0.0, 1.0), (-1.0, 1.0)  # the ranges of a system's score (an accuracy) and of a difference
MIN_UNITS = 10  # fewer units than this: no block for the judge (an interval over a handful of topics means little)


def ppi_options(options: dict) -> dict:
    """The campaign's options of this block, with their defaults."""
    plan = options.get("ppi_plan", DEFAULT_PLAN)
    return {"plan": plan if plan in label_plans.PLANS else DEFAULT_PLAN,
            "check_share": float(options.get("ppi_check_share", DEFAULT_CHECK_SHARE))}


def _unit_values(sides: SystemSides) -> tuple[dict, dict]:
    """({topic: the humans' mean}, {topic: the judge's mean}) over SIDES' outputs, a topic only where the side decided
    every output the system has there."""
    def means(decided):
        values: dict[Hashable, list] = {}
        for topic, value in decided:
            values.setdefault(topic, []).append(value)
        return values

    counts: dict[Hashable, int] = {}
    for topic, *_ in sides.each:
        counts[topic] = counts.get(topic, 0) + 1
    human, judge = means(sides.human), means(sides.judge)
    return ({topic: float(np.mean(v)) for topic, v in human.items() if len(v) == counts[topic]},
            {topic: float(np.mean(v)) for topic, v in judge.items() if len(v) == counts[topic]})


def _expected_errors(topics: list, sides: list[SystemSides], committee: dict[int, list[float]]) -> np.ndarray:
    """Each topic's expected squared error of the judge, what the active plan spends labels on: over the topic's
    outputs, p (1 - p) where the judge gives a probability p (its scores in [0, 1], not all 0 or 1), else the share of
    the campaign's other judges whose verdict on the output differs from its own (COMMITTEE: item -> their
    verdicts)."""
    error: dict[Hashable, list[float]] = {topic: [] for topic in topics}
    # Scores are probabilities when some lies strictly between 0 and 1 (EM's 0/1 says nothing of its doubt).
    probabilities = all(score is None or 0 <= score <= 1 for system in sides for *_, score in system.each) and any(
        score is not None and 0 < score < 1 for system in sides for *_, score in system.each)
    for system in sides:
        for topic, item, _, verdict, score in system.each:
            if topic not in error or verdict is None:
                continue
            if probabilities and score is not None:
                error[topic].append(score * (1 - score))
            elif committee.get(item):
                error[topic].append(float(np.mean([other != verdict for other in committee[item]])))
    return np.array([float(np.mean(error[topic])) if error[topic] else 0.0 for topic in topics])


def _inclusion(plan: str, topics: list, budget: float, error: np.ndarray) -> np.ndarray | None:
    if plan == "uniform" or not error.any():
        return None
    if plan == "stratified":  # strata: the topics the judge finds hard and those it does not
        return label_plans.stratified_inclusion([e > np.median(error) for e in error], budget, error)
    return label_plans.active_inclusion(error, budget)


def _row(system: str, human: dict, judge: dict, topics: list, labelled: np.ndarray,
         inclusion: np.ndarray | None, bounds: tuple[float, float]) -> dict | None:
    values = np.array([human.get(topic, np.nan) for topic in topics])
    verdicts = np.array([judge.get(topic, np.nan) for topic in topics])
    present = ~np.isnan(verdicts)
    chosen = labelled & present & ~np.isnan(values)
    if present.sum() < MIN_UNITS or chosen.sum() < 2:
        return None
    combined = ppi.combined_mean(np.where(chosen, values, np.nan)[present], verdicts[present], chosen[present],
                                 None if inclusion is None else inclusion[present], bounds)
    return {"system": system, **combined.as_dict()}


def _pairs(rows: dict, units: dict, topics: list, labelled: np.ndarray, inclusion) -> list[dict]:
    """Each pair of systems: the difference of their scores (first minus second, over the topics both have), its
    combined interval, and whether it separates them (the interval leaves out 0)."""
    pairs = []
    for first, second in combinations(sorted(rows, key=lambda s: -(rows[s]["combined"]["value"] or 0)), 2):
        (h1, j1), (h2, j2) = units[first], units[second]
        human = {t: h1[t] - h2[t] for t in h1.keys() & h2.keys()}
        judge = {t: j1[t] - j2[t] for t in j1.keys() & j2.keys()}
        row = _row(f"{first} - {second}", human, judge, topics, labelled, inclusion, DIFFERENCE)
        if row is None:
            continue
        ci = row["combined"]["ci95"]
        pairs.append({"first": first, "second": second, "difference": row["combined"], "human": row["human"],
                      "separated": ci is not None and (ci[0] > 0 or ci[1] < 0)})
    return pairs


def judge_ppi_block(*, sides: list[SystemSides], committee: dict[int, list[float]], options: dict,
                    seed: int = CHECK_SEED) -> dict | None:
    """One judge's block: its systems' SIDES (every output each side decided, reports.verdicts.system_sides);
    COMMITTEE: the other judges' verdicts by item, for the active plan; OPTIONS: ppi_options'; SEED: the check's
    draw's."""
    units = {s.system: _unit_values(s) for s in sides}
    topics = sorted({topic for _, judge in units.values() for topic in judge}, key=str)
    if len(topics) < MIN_UNITS:
        return None
    labelled_topics = {topic for human, _ in units.values() for topic in human}
    share = len(labelled_topics & set(topics)) / len(topics)
    block = {"units": len(topics), "labelled_units": len(labelled_topics & set(topics)), "plan": None, "check": None}
    labelled = np.array([topic in labelled_topics for topic in topics])
    inclusion = None
    if share >= CHECKED_FROM:
        budget = max(2.0, options["check_share"] * len(topics))
        error = _expected_errors(topics, sides, committee)
        inclusion = _inclusion(options["plan"], topics, budget, error)
        drawn = label_plans.drawn(inclusion if inclusion is not None else label_plans.uniform_inclusion(
            len(topics), budget), np.random.default_rng(seed))
        labelled &= drawn
        block["plan"] = options["plan"] if inclusion is not None else "uniform"
        block["check"] = {"share": options["check_share"], "seed": seed, "drawn": int(drawn.sum())}
    rows = {}
    for system, (human, judge) in units.items():
        row = _row(system, human, judge, topics, labelled, inclusion, SCORE)
        if row is not None:
            if block["check"] is not None:
                everyone = [human[t] for t in topics if t in human and t in judge]
                row["all_human"] = float(np.mean(everyone)) if everyone else None
                ci = row["combined"]["ci95"]
                row["covers"] = None if ci is None or row["all_human"] is None else ci[0] <= row["all_human"] <= ci[1]
            rows[system] = row
    if not rows:
        return None
    block["systems"] = sorted(rows.values(), key=lambda row: -(row["combined"]["value"] or 0))
    block["order"] = [row["system"] for row in block["systems"]]
    block["pairs"] = _pairs(rows, units, topics, labelled, inclusion)
    if block["check"] is not None:
        def mean_ratio(other):
            ratios = [(r["combined"]["ci95"][1] - r["combined"]["ci95"][0]) / other(r) for r in block["systems"]
                      if r["combined"]["ci95"] and other(r)]
            return float(np.mean(ratios)) if ratios else None

        # The combined widths over the humans-only ones on the same labels, and over those of a simple random
        # sample of as many units (the humans-only interval an unweighted draw would give).
        block["check"].update(covered=sum(bool(r.get("covers")) for r in block["systems"]),
                              systems=len(block["systems"]),
                              mean_width_ratio=mean_ratio(lambda r: r["human"]["ci95"] and
                                                          r["human"]["ci95"][1] - r["human"]["ci95"][0]),
                              mean_width_ratio_uniform=mean_ratio(lambda r: r["human_uniform_width"]))
    return block


def committees(everything: dict[str, list[SystemSides]]) -> dict[str, dict[int, list[float]]]:
    """{judge: {item: the other judges' verdicts on it}} from EVERYTHING (each judge's systems' sides)."""
    verdicts = {name: {item: verdict for system in sides for _, item, _, verdict, _ in system.each
                       if verdict is not None} for name, sides in everything.items()}
    found: dict[str, dict[int, list[float]]] = {name: {} for name in everything}
    for name, committee in found.items():
        for other, by_item in verdicts.items():
            if other != name:
                for item, verdict in by_item.items():
                    committee.setdefault(item, []).append(verdict)
    return found


def ppi_block(*, judges: Sequence, everything: dict[str, list[SystemSides]], options: dict) -> dict | None:
    """The report's `ppi` block: {estimator, unit, judges: {name: its block}}; None when no judge has one."""
    settings = ppi_options(options)
    found = committees(everything)
    blocks = {}
    for judge in judges:
        block = judge_ppi_block(sides=everything[judge.name], committee=found[judge.name], options=settings)
        if block is not None:
            blocks[judge.name] = block
    if not blocks:
        return None
    return {"estimator": ppi.ESTIMATOR, "unit": "questions", "alpha": ppi.ALPHA, "options": settings,
            "judges": blocks}
