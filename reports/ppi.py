"""The humans and each judge together (stats.ppi): every system's score from the human labels there are plus the
judge's figures on all its units, with the humans-only and the judge-only figures beside it, the labels the judge
was worth, the pairs of systems the combined intervals separate, the order, and the labels more that would narrow
or separate them; per measure of the task type (a verdict report's score; a graded report's NDCG@10, P@10 and mean
grade, answer ranking's NRP, pairwise preference's win rate: tasktypes.*.ppi). docs/statistics/ppi.md.

The unit is the topic (a question, a query): a system's value on a topic is the mean of its outputs there, humans'
and judge's, or the topic's per-query measure, so that outputs of one topic count as one unit (clustered), and
humans label a topic's outputs together. A campaign whose humans judged (nearly) every unit has nothing to gain: its
block is a check of the method instead, the same figures computed on a share of the units drawn by the campaign's
plan (option ppi_plan; ppi_check_share of the units; a fixed seed), each beside the all-human figure it should cover.
Where the annotation queue follows a label plan (queue order "sample", annotate.models.LabelPlan) the labelled units
are the finished beginning of its order, each weighted by 1 / its probability; elsewhere the units humans labelled
are taken as a simple random sample of the units: an interval is valid as far as they are one.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from scipy.stats import norm

from reports.system_level import SystemSides
from reports.tables import SpreadsheetCsv, interval_cells, value_cell
from stats import label_plans, ppi, uncertainty
from stats.budget import target_width

DEFAULT_PLAN = "active"
DEFAULT_CHECK_SHARE = 0.1
# Humans on at least this share of a judge's units: the block checks the method on a draw (there is nothing to gain).
CHECKED_FROM = 0.9
CHECK_SEED = 20231
CHECK_DRAWS = 40  # draws more for a check's summary (each a combined estimate per system: about 1 s a judge)
MIN_UNITS = 10  # fewer units than this: no block for the judge (an interval over a handful of topics means little)
# Fewer labelled units than this: the block says its intervals' coverage is approximate. Simulated with 10-20 labels
# of 200 units, the humans-only and the combined intervals covered 88-97% (under the stratified and active plans
# 88-93%), with 40 labels 92.6-95.8% (docs/statistics/ppi.md, bench/bench_ppi.py --units 200).
FEW_LABELS = 40


@dataclass(frozen=True)
class Measure:
    """A system-level measure the block estimates: its KEY (in downloads), LABEL (on the page) and the range of a
    system's value (its intervals stop there)."""

    key: str
    label: str
    bounds: tuple[float, float] = (0.0, 1.0)
    interval: str = "t-based"  # how its intervals are made, as the page labels them

    @property
    def difference_bounds(self) -> tuple[float, float]:
        """The range of the difference of two systems' values."""
        return (self.bounds[0] - self.bounds[1], self.bounds[1] - self.bounds[0])


SCORE = Measure("score", "score")  # a verdict report's: the share of outputs the humans (or the judge) accept


def method_text(unit_one: str) -> str:
    """The methods line of the block, its unit named UNIT_ONE ("question", "topic")."""
    return (f"{ppi.ESTIMATOR} over {unit_one}s (a system's value on a {unit_one} is one unit), 95% t intervals (the "
            f"standard error ppi_py's normal interval gives, n - 1 degrees of freedom) within the measure's range; "
            f"under a plan of unequal probabilities (stratified, active) the active-inference form, each labelled "
            f"{unit_one} weighted by 1 / its inclusion probability; the humans alone where fewer than "
            f"{ppi.MIN_LABELLED} {unit_one}s are labelled, where they show fewer than {ppi.MIN_DISAGREEMENTS} "
            f"disagreements with the judge, or where the combined interval would be wider; the labels the judge was "
            f"worth: the simple random sample whose humans-only interval is as narrow")


def ppi_options(options: dict) -> dict:
    """The campaign's options of this block (checked when saved: annotate.task_types.options), with their defaults;
    width: the interval width the labels needed aim at (option budget_width, the labelling budget's)."""
    return {"plan": options.get("ppi_plan", DEFAULT_PLAN),
            "check_share": float(options.get("ppi_check_share", DEFAULT_CHECK_SHARE)),
            "width": target_width(options)}


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


def _row(system: str, values: np.ndarray, verdicts: np.ndarray, labelled: np.ndarray,
         inclusion: np.ndarray | None, bounds: tuple[float, float], needs: Needs | None = None) -> dict | None:
    """SYSTEM's figures from its VALUES (the humans') and VERDICTS (the judge's) by topic; None with too few. With
    NEEDS, the labels each plan needs for an interval of NEEDS' width (or of a width that separates, for a
    difference: Needs.width_for)."""
    present = ~np.isnan(verdicts)
    chosen = labelled & present & ~np.isnan(values)
    if present.sum() < MIN_UNITS or chosen.sum() < 2:
        return None
    human, judge = np.where(chosen, values, np.nan)[present], verdicts[present]
    weights = None if inclusion is None else inclusion[present]
    combined = ppi.combined_mean(human, judge, chosen[present], weights, bounds)
    row = {"system": system, **combined.as_dict()}
    if needs is not None:
        row["needed"] = needs.labels(human, judge, chosen[present], weights, combined, present, bounds)
    return row


# A pair's difference is taken as separable at this power: the interval leaves out 0 in 80% of studies where the
# difference is what it is estimated to be now (its half-width at most |d| z_0.975 / (z_0.975 + z_0.8)).
SEPARATING_POWER = 0.8


@dataclass(frozen=True)
class Needs:
    """What the labels needed are computed for: an interval WIDTH (option budget_width), under PLANS ({name: the
    inclusion probabilities of every unit for a budget}, each over the block's units), the humans alone too."""

    width: float
    plans: dict

    def width_for(self, difference: float | None) -> float | None:
        """The width of an interval that separates a DIFFERENCE of this size at SEPARATING_POWER."""
        if not difference:
            return None
        z80 = float(norm.ppf(SEPARATING_POWER))
        return 2 * abs(difference) * ppi.Z / (ppi.Z + z80)

    def labels(self, human, judge, chosen, weights, combined: ppi.Combined, present, bounds) -> dict:
        """{"width": the width aimed at, "by_plan": [{plan, labels: the labels in all the combined interval needs
        under it}], "humans": those the humans alone need (uniform)}, None where even every unit would not do; a
        difference (BOUNDS below 0) is aimed at the width that separates it (width_for)."""
        width = self.width_for(combined.combined.value) if bounds[0] < 0 else self.width
        if width is None:
            return {"width": None}
        by_plan = [{"plan": name, "labels": ppi.labels_needed(human, judge, chosen, weights,
                                                             combined.combined.lam or 0.0, width,
                                                             lambda budget, plan=plan: plan(budget)[present])}
                   for name, plan in self.plans.items()]
        humans = ppi.labels_needed(human, judge, chosen, weights, 0.0, width,
                                   lambda budget: label_plans.uniform_inclusion(int(present.sum()), budget))
        return {"width": width, "by_plan": by_plan, "humans": humans}


def _pairs(rows: dict, arrays: dict, labelled: np.ndarray, inclusion, measure: Measure,
           needs: Needs | None) -> list[dict]:
    """Each pair of systems: the difference of their values (first minus second, over the topics both have), its
    combined interval, and whether it separates them (the interval leaves out 0); for two systems next to each other
    in the order, `adjacent`, with the labels each plan needs to separate them (NEEDS)."""
    pairs = []
    order = sorted(rows, key=lambda s: -(rows[s]["combined"]["value"] or 0))
    for first, second in combinations(order, 2):
        (h1, j1), (h2, j2) = arrays[first], arrays[second]
        adjacent = order.index(second) == order.index(first) + 1
        row = _row(f"{first} - {second}", h1 - h2, j1 - j2, labelled, inclusion, measure.difference_bounds,
                   needs if adjacent else None)
        if row is None:
            continue
        ci = row["combined"]["ci95"]
        pairs.append({"first": first, "second": second, "difference": row["combined"], "human": row["human"],
                      "separated": ci is not None and (ci[0] > 0 or ci[1] < 0), "adjacent": adjacent,
                      "needed": row.get("needed")})
    return pairs


def _system_rows(arrays: dict, labelled: np.ndarray, inclusion, checked: bool, measure: Measure,
                 needs: Needs | None = None) -> dict[str, dict]:
    """{system: its row} from the units LABELLED (under INCLUSION); CHECKED: each row beside its all-human value;
    NEEDS: with the labels each plan needs."""
    rows = {}
    for system, (values, verdicts) in arrays.items():
        row = _row(system, values, verdicts, labelled, inclusion, measure.bounds, needs)
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


def check_summary(rows: list[dict]) -> dict:
    """How a check's draw did: of the systems' intervals (a system whose labels drawn are all alike has none), how many
    cover the all-human value, and the combined widths over the humans-only ones on the same labels and over those a
    simple random sample of as many units would give."""
    return {"covered": sum(bool(r.get("covers")) for r in rows), "systems": len(rows),
            "intervals": sum(r.get("covers") is not None for r in rows),
            "mean_width_ratio": _width_ratio(rows, lambda r: r["human"]["ci95"] and
                                             r["human"]["ci95"][1] - r["human"]["ci95"][0]),
            "mean_width_ratio_uniform": _width_ratio(rows, lambda r: r["human_uniform_width"])}


@dataclass(frozen=True)
class Units:
    """One judge's units for one measure: TOPICS (the population, in a fixed order), ARRAYS ({system: (the humans'
    values, the judge's) by topic in TOPICS' order, NaN where that side has none}), and ERRORS: each topic's expected
    error of the judge, what the active and stratified plans spend labels on (all 0: no way to tell, uniform)."""

    topics: list
    arrays: dict[str, tuple[np.ndarray, np.ndarray]]
    errors: np.ndarray

    @classmethod
    def from_values(cls, values: dict[str, tuple[dict, dict]], errors: dict[Hashable, float]) -> Units:
        """From VALUES ({system: ({topic: the humans' value}, {topic: the judge's})}) and ERRORS by topic; the
        topics: every one the judge has a value on, sorted (the same order each build, so a seeded draw repeats)."""
        topics = sorted({topic for _, judge in values.values() for topic in judge})
        return cls(topics, {system: (np.array([human.get(topic, np.nan) for topic in topics]),
                                     np.array([judge.get(topic, np.nan) for topic in topics]))
                            for system, (human, judge) in values.items()},
                   np.array([errors.get(topic, 0.0) for topic in topics]))


@dataclass(frozen=True)
class Recorded:
    """The label plan the campaign's queue follows (annotate.models.LabelPlan): its PLAN's name and each topic's
    (place in the queue's order, weight), keyed as the report keys its topics (ids or external ids)."""

    plan: str
    places: dict[Hashable, tuple[int, float]]

    @classmethod
    def of(cls, found: tuple[str, list[list]] | None, *, by_id: bool) -> Recorded | None:
        """From reports.selectors.label_plan_get's FOUND, the topics keyed by id (BY_ID) or by external id."""
        if found is None:
            return None
        plan, topics = found
        return cls(plan, {(topic if by_id else external): (place, weight)
                          for place, (topic, external, weight, _) in enumerate(topics)})


def _followed(topics: list, labelled: np.ndarray, recorded: Recorded) -> tuple[np.ndarray, np.ndarray | None, int]:
    """(the topics that count as labelled, their inclusion probabilities, the labelled topics left out): the longest
    beginning of the plan's order (among TOPICS) whose every topic is LABELLED, the plan's probabilities at that many
    (None for equal weights: a simple random sample); a topic labelled beyond it waits for those before it."""
    order = sorted(range(len(topics)), key=lambda index: recorded.places[topics[index]][0])
    count = 0
    while count < len(order) and labelled[order[count]]:
        count += 1
    followed = np.zeros(len(topics), dtype=bool)
    followed[order[:count]] = True
    weights = np.array([recorded.places[topic][1] for topic in topics])
    inclusion = None if count == 0 or np.allclose(weights, weights[0]) else label_plans.from_weights(weights, count)
    return followed, inclusion, int((labelled & ~followed).sum())


def check_budget(units: int, share: float) -> float:
    """The units a check draws of UNITS: SHARE of them (option ppi_check_share), but at least the labels the judge
    is read with (ppi.MIN_LABELLED: a smaller check would show the humans alone), and one short of all."""
    return min(float(units - 1), max(float(ppi.MIN_LABELLED), share * units))


def disagreement_by_topic(own: dict[int, Hashable], committee: dict[int, list], topic_of: dict[int, Hashable],
                          key=None) -> dict[Hashable, float]:
    """{topic: the mean over its items of the share of the other judges (COMMITTEE: item -> their verdicts) whose
    verdict differs from OWN's}, over the items both have that TOPIC_OF places; KEY: what a verdict is compared as
    (a label as a, b or tie), the verdict itself by default."""
    key = key or (lambda verdict: verdict)
    shares: dict[Hashable, list[float]] = {}
    for item, verdict in own.items():
        if committee.get(item) and item in topic_of:
            shares.setdefault(topic_of[item], []).append(
                float(np.mean([key(other) != key(verdict) for other in committee[item]])))
    return {topic: float(np.mean(values)) for topic, values in shares.items()}


def _needs(options: dict, units: Units, count: int) -> Needs:
    """The labels needed under the uniform plan and the campaign's (ppi_plan), for the option budget_width."""
    def uniform(budget: float) -> np.ndarray:
        return label_plans.uniform_inclusion(count, budget)

    def chosen(budget: float) -> np.ndarray:
        found = label_plans.plan_inclusion(options["plan"], budget, units.errors)
        return uniform(budget) if found is None else found

    plans = {"uniform": uniform}
    if options["plan"] != "uniform" and units.errors.any():
        plans[options["plan"]] = chosen
    return Needs(options["width"], plans)


def measure_block(units: Units, *, options: dict, measure: Measure, recorded: Recorded | None = None) -> dict | None:
    """One judge's block for one MEASURE over its UNITS; OPTIONS: ppi_options'. A topic is labelled where some system
    has the humans' value on it. A check draws its table's units with CHECK_SEED, then CHECK_DRAWS more (seeds
    CHECK_SEED + 1 on) for its summary: one draw's systems share its units, so they miss the all-human values
    together; many draws say how often they do. RECORDED: the label plan the queue follows, when it holds every
    topic: the labelled topics are the beginning of its order, weighted by its probabilities (_followed). None with
    fewer than MIN_UNITS topics or no system's row."""
    topics, arrays = units.topics, units.arrays
    if len(topics) < MIN_UNITS:
        return None
    labelled = np.zeros(len(topics), dtype=bool)
    for human, _ in arrays.values():
        labelled |= ~np.isnan(human)
    block: dict[str, Any] = {"units": len(topics), "labelled_units": int(labelled.sum()), "plan": None,
                             "check": None, "followed": None}
    inclusion = None
    checked = block["labelled_units"] >= CHECKED_FROM * len(topics)
    if not checked and recorded is not None and all(topic in recorded.places for topic in topics):
        labelled, inclusion, outside = _followed(topics, labelled, recorded)
        block["plan"] = recorded.plan
        block["followed"] = {"labelled": int(labelled.sum()), "outside": outside}
    if checked:
        budget = check_budget(len(topics), options["check_share"])
        inclusion = label_plans.plan_inclusion(options["plan"], budget, units.errors)
        plan = inclusion if inclusion is not None else label_plans.uniform_inclusion(len(topics), budget)
        draws = [label_plans.drawn(plan, np.random.default_rng(CHECK_SEED + n)) for n in range(CHECK_DRAWS + 1)]
        block["plan"] = options["plan"] if inclusion is not None else "uniform"
        repeated = [check_summary(list(_system_rows(arrays, labelled & draw, inclusion, True, measure).values()))
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
    needs = _needs(options, units, len(topics))
    rows = _system_rows(arrays, labelled, inclusion, checked, measure, needs)
    if not rows:
        return None
    block["few_labels"] = int(labelled.sum()) < FEW_LABELS
    block["systems"] = sorted(rows.values(), key=lambda row: -(row["combined"]["value"] or 0))
    block["order"] = [row["system"] for row in block["systems"]]
    block["pairs"] = _pairs(rows, arrays, labelled, inclusion, measure, needs)
    block["needed"] = {"width": needs.width, "plans": list(needs.plans)}
    block["separated_count"] = sum(pair["separated"] for pair in block["pairs"])
    if checked:
        block["check"].update(check_summary(block["systems"]))
    return block


def judge_ppi_block(*, sides: list[SystemSides], committee: dict[int, list[float]], options: dict,
                    recorded: Recorded | None = None) -> dict | None:
    """One judge's block on a verdict report: its systems' SIDES (every output each side decided,
    reports.verdicts.system_sides), a system's value on a question the mean of its outputs there; COMMITTEE: the other
    judges' verdicts by item, for the active plan; OPTIONS: ppi_options'; RECORDED: the label plan the queue follows
    (topics by id)."""
    values = {s.system: _unit_values(s) for s in sides}
    topics = sorted({topic for _, judge in values.values() for topic in judge})
    errors = dict(zip(topics, _expected_errors(topics, sides, committee), strict=True))
    return measure_block(Units.from_values(values, errors), options=options, measure=SCORE, recorded=recorded)


def committees(verdicts: dict[str, dict[int, float]]) -> dict[str, dict[int, list[float]]]:
    """{judge: {item: the other judges' verdicts on it}} from VERDICTS ({judge: {item: its verdict}})."""
    found: dict[str, dict[int, list[float]]] = {name: {} for name in verdicts}
    for name, committee in found.items():
        for other, by_item in verdicts.items():
            if other != name:
                for item, verdict in by_item.items():
                    committee.setdefault(item, []).append(verdict)
    return found


def ppi_section(measures: list[tuple[Measure, dict[str, dict]]], *, options: dict, unit_one: str) -> dict | None:
    """The report's `ppi` block: {estimator, unit, unit_one, alpha, options, method, measures: [{key, label, bounds,
    judges: {name: its block}}]} from MEASURES (each measure with its judges' blocks: measure_block's); None when no
    judge has a block."""
    found = [{"key": measure.key, "label": measure.label, "bounds": list(measure.bounds),
              "interval": measure.interval, "judges": blocks}
             for measure, blocks in measures if blocks]
    if not found:
        return None
    return {"estimator": ppi.ESTIMATOR, "unit": f"{unit_one}s", "unit_one": unit_one, "alpha": ppi.ALPHA,
            "options": ppi_options(options), "method": method_text(unit_one), "few_labels": FEW_LABELS,
            "measures": found}


def ppi_block(*, judges: Sequence, everything: dict[str, list[SystemSides]], options: dict,
              plan: tuple[str, list[list]] | None = None) -> dict | None:
    """A verdict report's `ppi` block (ppi_section's), its one measure the score, its unit the question; PLAN: the
    label plan the queue follows (reports.selectors.label_plan_get)."""
    settings = ppi_options(options)
    recorded = Recorded.of(plan, by_id=True)
    found = committees({name: {item: verdict for system in sides for _, item, _, verdict, _ in system.each
                               if verdict is not None} for name, sides in everything.items()})
    blocks = {}
    for judge in judges:
        block = judge_ppi_block(sides=everything[judge.name], committee=found[judge.name], options=settings,
                                recorded=recorded)
        if block is not None:
            blocks[judge.name] = block
    return ppi_section([(SCORE, blocks)], options=options, unit_one="question")


PPI_COLUMNS = ("measure", "judge", "system", "combined", "combined_ci95_low", "combined_ci95_high", "lambda", "human",
               "human_ci95_low", "human_ci95_high", "judge_alone", "human_labels", "units", "effective_labels",
               "human_uniform_width", "plan", "all_human", "covers", "needed_width", "needed_uniform",
               "needed_plan", "needed_humans_alone")


def ppi_csv(report: dict) -> str:
    """The `ppi` block of REPORT as CSV, one row per measure, judge and system (PPI_COLUMNS; all_human and covers in a
    check)."""
    writer = SpreadsheetCsv()
    writer.writerow(PPI_COLUMNS)
    for measure, name, judge in ppi_judges(report.get("ppi")):
        for row in judge["systems"]:
            combined, human = row["combined"], row["human"]
            writer.writerow([measure["key"], name, row["system"], value_cell(combined["value"]),
                             *interval_cells(combined["ci95"]), value_cell(combined["lam"]), value_cell(human["value"]),
                             *interval_cells(human["ci95"]), value_cell(row["judge"]), combined["n"], row["units"],
                             value_cell(row["effective_labels"]), value_cell(row["human_uniform_width"]),
                             judge["plan"] or "", value_cell(row.get("all_human")),
                             "" if row.get("covers") is None else str(row["covers"]).lower(),
                             *_needed_cells(row.get("needed"))])
    return writer.text()


def _needed_cells(needed: dict | None) -> list:
    """The labels needed as CSV cells: the width, under the uniform plan, under the campaign's other plan (empty when
    uniform), the humans alone; empty where more than every unit."""
    if not needed or needed.get("width") is None:
        return [""] * 4
    by_plan = {entry["plan"]: entry["labels"] for entry in needed["by_plan"]}
    other = [labels for plan, labels in by_plan.items() if plan != "uniform"]
    return [value_cell(needed["width"]), *("" if n is None else n for n in (by_plan.get("uniform"),
                                                                           other[0] if other else None,
                                                                           needed["humans"]))]


def ppi_judges(block: dict | None) -> list[tuple[dict, str, dict]]:
    """(measure, judge name, the judge's block) for every judge of every measure of a report's `ppi` BLOCK."""
    return [(measure, name, judge) for measure in (block or {}).get("measures") or []
            for name, judge in measure["judges"].items()]
