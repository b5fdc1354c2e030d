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
from typing import Any

import numpy as np

from reports.system_level import SystemSides
from reports.tables import SpreadsheetCsv, interval_cells, value_cell
from stats import label_plans, ppi, uncertainty

DEFAULT_PLAN = "active"
DEFAULT_CHECK_SHARE = 0.1
# Humans on at least this share of a judge's units: the block checks the method on a draw (there is nothing to gain).
CHECKED_FROM = 0.9
CHECK_SEED = 20231
CHECK_DRAWS = 40  # draws more for a check's summary (each a combined estimate per system: about 1 s a judge)
SCORE, DIFFERENCE = (0.0, 1.0), (-1.0, 1.0)  # the ranges of a system's score (an accuracy) and of a difference
MIN_UNITS = 10  # fewer units than this: no block for the judge (an interval over a handful of topics means little)


METHOD = (
    f"{ppi.ESTIMATOR} over questions (a system's outputs on a question are one unit), 95% t intervals (the standard "
    f"error ppi_py's normal interval gives, n - 1 degrees of freedom) within "
    f"the score's range; under a plan of unequal probabilities (stratified, active) the active-inference form, each "
    f"labelled question weighted by 1 / its inclusion probability; the humans alone where the labelled questions "
    f"show fewer than {ppi.MIN_DISAGREEMENTS} disagreements with the judge, or where the combined interval would be "
    f"wider; the labels the judge was worth: the simple random sample whose humans-only interval is as narrow"
)


def ppi_options(options: dict) -> dict:
    """The campaign's options of this block (checked when saved: annotate.task_types.options), with their defaults."""
    return {"plan": options.get("ppi_plan", DEFAULT_PLAN),
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


def _inclusion(plan: str, budget: float, error: np.ndarray) -> np.ndarray | None:
    if plan == "uniform" or not error.any():
        return None
    if plan == "stratified":  # strata: the topics the judge finds hard and those it does not
        return label_plans.stratified_inclusion([e > np.median(error) for e in error], budget, error)
    return label_plans.active_inclusion(error, budget)


def _arrays(units: dict, topics: list) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{system: (the humans' values, the judge's) by topic in TOPICS' order, NaN where that side has none}."""
    return {system: (np.array([human.get(topic, np.nan) for topic in topics]),
                     np.array([judge.get(topic, np.nan) for topic in topics]))
            for system, (human, judge) in units.items()}


def _row(system: str, values: np.ndarray, verdicts: np.ndarray, labelled: np.ndarray,
         inclusion: np.ndarray | None, bounds: tuple[float, float]) -> dict | None:
    """SYSTEM's figures from its VALUES (the humans') and VERDICTS (the judge's) by topic; None with too few."""
    present = ~np.isnan(verdicts)
    chosen = labelled & present & ~np.isnan(values)
    if present.sum() < MIN_UNITS or chosen.sum() < 2:
        return None
    combined = ppi.combined_mean(np.where(chosen, values, np.nan)[present], verdicts[present], chosen[present],
                                 None if inclusion is None else inclusion[present], bounds)
    return {"system": system, **combined.as_dict()}


def _pairs(rows: dict, arrays: dict, labelled: np.ndarray, inclusion) -> list[dict]:
    """Each pair of systems: the difference of their scores (first minus second, over the topics both have), its
    combined interval, and whether it separates them (the interval leaves out 0)."""
    pairs = []
    for first, second in combinations(sorted(rows, key=lambda s: -(rows[s]["combined"]["value"] or 0)), 2):
        (h1, j1), (h2, j2) = arrays[first], arrays[second]
        row = _row(f"{first} - {second}", h1 - h2, j1 - j2, labelled, inclusion, DIFFERENCE)
        if row is None:
            continue
        ci = row["combined"]["ci95"]
        pairs.append({"first": first, "second": second, "difference": row["combined"], "human": row["human"],
                      "separated": ci is not None and (ci[0] > 0 or ci[1] < 0)})
    return pairs


def _system_rows(arrays: dict, labelled: np.ndarray, inclusion, checked: bool) -> dict[str, dict]:
    """{system: its row} from the units LABELLED (under INCLUSION); CHECKED: each row beside its all-human score."""
    rows = {}
    for system, (values, verdicts) in arrays.items():
        row = _row(system, values, verdicts, labelled, inclusion, SCORE)
        if row is None:
            continue
        if checked:
            everyone = values[~np.isnan(values) & ~np.isnan(verdicts)]
            row["all_human"] = float(everyone.mean()) if len(everyone) else None
            ci = row["combined"]["ci95"]
            row["covers"] = None if ci is None or row["all_human"] is None else ci[0] <= row["all_human"] <= ci[1]
        rows[system] = row
    return rows


def _width_ratio(rows, other) -> float | None:
    """The mean over ROWS of the combined interval's width over OTHER(row)'s width."""
    ratios = [(r["combined"]["ci95"][1] - r["combined"]["ci95"][0]) / other(r) for r in rows
              if r["combined"]["ci95"] and other(r)]
    return float(np.mean(ratios)) if ratios else None


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _check_summary(rows: list[dict]) -> dict:
    """How a check's draw did: of the systems' intervals (a system whose labels drawn are all alike has none), how many
    cover the all-human score, and the combined widths over the humans-only ones on the same labels and over those a
    simple random sample of as many units would give."""
    return {"covered": sum(bool(r.get("covers")) for r in rows), "systems": len(rows),
            "intervals": sum(r.get("covers") is not None for r in rows),
            "mean_width_ratio": _width_ratio(rows, lambda r: r["human"]["ci95"] and
                                             r["human"]["ci95"][1] - r["human"]["ci95"][0]),
            "mean_width_ratio_uniform": _width_ratio(rows, lambda r: r["human_uniform_width"])}


def judge_ppi_block(*, sides: list[SystemSides], committee: dict[int, list[float]], options: dict) -> dict | None:
    """One judge's block: its systems' SIDES (every output each side decided, reports.verdicts.system_sides);
    COMMITTEE: the other judges' verdicts by item, for the active plan; OPTIONS: ppi_options'. A check draws its
    table's units with CHECK_SEED, then CHECK_DRAWS more (seeds CHECK_SEED + 1 on) for its summary: one draw's
    systems share its units, so they miss the all-human scores together; many draws say how often they do."""
    units = {s.system: _unit_values(s) for s in sides}
    topics = sorted({topic for _, judge in units.values() for topic in judge})  # topic ids: the same order each build
    if len(topics) < MIN_UNITS:
        return None
    labelled_topics = {topic for human, _ in units.values() for topic in human}
    block: dict[str, Any] = {"units": len(topics), "labelled_units": len(labelled_topics & set(topics)),
                             "plan": None, "check": None}
    labelled = np.array([topic in labelled_topics for topic in topics])
    arrays = _arrays(units, topics)
    inclusion = None
    checked = block["labelled_units"] >= CHECKED_FROM * len(topics)
    if checked:
        budget = max(2.0, options["check_share"] * len(topics))
        inclusion = _inclusion(options["plan"], budget, _expected_errors(topics, sides, committee))
        plan = inclusion if inclusion is not None else label_plans.uniform_inclusion(len(topics), budget)
        draws = [label_plans.drawn(plan, np.random.default_rng(CHECK_SEED + n)) for n in range(CHECK_DRAWS + 1)]
        block["plan"] = options["plan"] if inclusion is not None else "uniform"
        repeated = [_check_summary(list(_system_rows(arrays, labelled & draw, inclusion, True).values()))
                    for draw in draws[1:]]
        labelled &= draws[0]
        block["check"] = {"share": options["check_share"], "seed": CHECK_SEED, "drawn": int(draws[0].sum()),
                          "draws": {"n": CHECK_DRAWS, "seeds": [CHECK_SEED + 1, CHECK_SEED + CHECK_DRAWS],
                                    "covered": _share(sum(d["covered"] for d in repeated),
                                                      sum(d["intervals"] for d in repeated)),
                                    "all_but_one": sum(bool(d["intervals"]) and d["covered"] >= d["intervals"] - 1
                                                       for d in repeated),
                                    **{key: uncertainty.mean_defined([d[key] for d in repeated])
                                       for key in ("mean_width_ratio", "mean_width_ratio_uniform")}}}
    rows = _system_rows(arrays, labelled, inclusion, checked)
    if not rows:
        return None
    block["systems"] = sorted(rows.values(), key=lambda row: -(row["combined"]["value"] or 0))
    block["order"] = [row["system"] for row in block["systems"]]
    block["pairs"] = _pairs(rows, arrays, labelled, inclusion)
    block["separated_count"] = sum(pair["separated"] for pair in block["pairs"])
    if checked:
        block["check"].update(_check_summary(block["systems"]))
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
    return {"estimator": ppi.ESTIMATOR, "unit": "questions", "unit_one": "question", "alpha": ppi.ALPHA,
            "options": settings, "method": METHOD, "judges": blocks}


PPI_COLUMNS = ("judge", "system", "combined", "combined_ci95_low", "combined_ci95_high", "lambda", "human",
               "human_ci95_low", "human_ci95_high", "judge_alone", "human_labels", "units", "effective_labels",
               "human_uniform_width", "plan", "all_human", "covers")


def ppi_csv(report: dict) -> str:
    """The `ppi` block of REPORT as CSV, one row per judge and system (PPI_COLUMNS; all_human and covers in a check)."""
    writer = SpreadsheetCsv()
    writer.writerow(PPI_COLUMNS)
    for name, judge in ((report.get("ppi") or {}).get("judges") or {}).items():
        for row in judge["systems"]:
            combined, human = row["combined"], row["human"]
            writer.writerow([name, row["system"], value_cell(combined["value"]), *interval_cells(combined["ci95"]),
                             value_cell(combined["lam"]), value_cell(human["value"]),
                             *interval_cells(human["ci95"]), value_cell(row["judge"]), combined["n"], row["units"],
                             value_cell(row["effective_labels"]), value_cell(row["human_uniform_width"]),
                             judge["plan"] or "", value_cell(row.get("all_human")),
                             "" if row.get("covers") is None else str(row["covers"]).lower()])
    return writer.text()
