"""The verdict report (docs/design.md §5) that qa_correctness and ais share: yes/no verdicts on items, systems scored by
the share of their outputs the humans and each judge accept. Each task type's builder calls verdict_report_build with
what differs: qa_correctness its counting rule (tasktypes.qa_correctness.counting), ais its systems table and its
own blocks (tasktypes.ais.report).

Null semantics: a statistic that is undefined on the data (fewer than two items, a constant input,
no shared items) is None / JSON null. A block that the task type does not compute is empty:
for `qa_correctness` each judge's `per_topic` is [] and `topic_mean` is {} (a question has a handful
of candidate answers, too few for a per-topic statistic); ranking task types fill them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from annotate.models import Campaign
from judges.families import SAMPLE_FAMILIES
from reports.ablation import ablation_build
from reports.adjudication import adjudication_items_block
from reports.beside import beside
from reports.budget import verdict_budget
from reports.build_steps import HUMANS, JUDGES, READING, SYSTEM_LEVEL, build_step
from reports.categories import categories_block
from reports.humans import humans_block, selected_samples
from reports.ppi import ppi_block
from reports.replacement import replacement_block
from reports.selectors import (
    HumanLabels,
    JudgeLabels,
    Paired,
    SystemOutputs,
    human_labels_of,
    human_labels_read,
    item_categories_get,
    judge_human_pairs,
    judge_labels_get,
    label_plan_get,
    llm_judge_costs_get,
    system_outputs_get,
)
from reports.system_level import (
    MIN_SYSTEM_COVERAGE,
    MIN_SYSTEM_OUTPUTS,
    SystemRows,
    SystemSides,
    judge_columns,
    system_level_block,
)
from stats import interrater, system_tests, uncertainty
from stats.budget import target_width
from stats.rank_agreement import rank_options

# Statistics over fewer shared items (or topics) than this are flagged on the page as small samples (option
# small_sample).
SMALL_SAMPLE = 30


def report_options(campaign: Campaign) -> dict:
    """The campaign's options that govern the report's coverage rules, with their defaults (README "Coverage")."""
    options = campaign.options or {}
    return {
        "min_system_outputs": int(options.get("min_system_outputs", MIN_SYSTEM_OUTPUTS)),
        "min_system_coverage": float(options.get("min_system_coverage", MIN_SYSTEM_COVERAGE)),
        "small_sample": int(options.get("small_sample", SMALL_SAMPLE)),
        # Agreement at the top of the system orders (stats.rank_agreement).
        **rank_options(options),
    }


POSITIVE = "yes"  # the label a verdict report counts as accepted


class Output(NamedTuple):
    """One system output as a counting rule reads it. PREDICTION and GOLD (the answers its own file gave, None when
    they are the topic's) are read by the qa-eval rule only (tasktypes.qa_correctness.counting); else both are None."""

    topic: int
    item: int
    prediction: str | None = None
    gold: list[str] | None = None


@dataclass(frozen=True)
class CountingRule:
    """How a task type counts a system output as correct (qa_correctness: tasktypes.qa_correctness.counting).

    MAKE(humans, outputs) gives the rule's counting object: human(output) and human_decided(output), judge(judge,
    output) and judge_score(judge, output). READS_TEXTS: the rule reads each output's prediction and own gold
    answers (SystemOutputs.predictions, own_gold). NAME and DESCRIPTION are the report's `counting` block."""

    name: str
    description: str
    reads_texts: bool
    make: Callable


def verdict_report_build(*, campaign: Campaign, counting: CountingRule | None = None,
                         systems: Callable | None = None, extend: Callable | None = None) -> dict:
    """The verdict report of CAMPAIGN. COUNTING: how a system output counts as correct; without one, an output is
    compared on the item's human label and the judge's verdict. SYSTEMS(humans=, outputs=, coverage=, counting=):
    the systems table, by default each system's accuracy under COUNTING. EXTEND(report=, campaign=, humans=,
    judges=, outputs=): the task type's own blocks, added to the report."""
    build_step(READING)
    options = report_options(campaign)
    # The humans' labels, then their agreement among themselves, found in threads beside the reads that follow
    # (reports.beside).
    humans_beside = beside(human_labels_of, human_labels_read(campaign=campaign))
    humans_part_beside = beside(lambda: humans_block(humans_beside.result(), small_sample=options["small_sample"]))
    judges = judge_labels_get(campaign=campaign)
    outputs = system_outputs_get(campaign=campaign, texts=counting is not None and counting.reads_texts)
    humans = humans_beside.result()
    # May a judge replace an annotator (the alt-test, the human-likeness z-score, the kappa-paradox panel): beside the
    # rest of the build, from now on.
    replacement = beside(_replacement, humans=humans, judges=judges, options=campaign.options or {},
                         selected=[row["annotator"] for row in selected_samples(humans)])
    rule = None if counting is None else counting.make(humans, outputs)
    # A judge read on one part of a development split is compared with the humans on that part alone, both sides:
    # the rule that counts its outputs reads the humans' labels of that part only (a string the humans accepted on
    # the other part decides nothing here), so that its figures are those of a campaign holding its part only.
    rules = {judge.part: rule if judge.part is None or counting is None
             else counting.make(humans_on_part(humans, judge.part), outputs) for judge in judges}
    coverage = {judge.name: _system_rows(judge=judge, humans=humans, outputs=outputs, counting=rules[judge.part])
                for judge in judges}
    everything = {judge.name: system_sides(judge=judge, humans=humans, outputs=outputs,
                                            counting=rules[judge.part]) for judge in judges}
    if systems is None:
        systems = _systems
    table = systems(humans=humans, outputs=outputs, coverage=coverage, counting=rule)
    for index, row in enumerate(table):
        row["judges_all"] = {name: _all_outputs_cell(sides[index]) for name, sides in everything.items()}
    build_step(HUMANS)
    humans_part = humans_part_beside.result()
    build_step(JUDGES)
    paired = {judge.name: judge_human_pairs(judge=judge, humans=humans) for judge in judges}
    report = {
        "campaign": campaign.slug,
        "task_type": campaign.task_type,
        "options": options,
        "humans": humans_part,
        "judges": {judge.name: _judge_block(judge=judge, humans=humans, paired=paired[judge.name],
                                            system_rows=coverage[judge.name],
                                            everything=everything[judge.name], options=options) for judge in judges},
        "systems": table,
        # LLM judges side by side on the same items (agreement and cost); null without LLM judges.
        "ablation": ablation_build(judges=judges, humans=humans, costs=llm_judge_costs_get(campaign=campaign)
                                   if any(judge.family in SAMPLE_FAMILIES for judge in judges) else [], outputs=outputs,
                                   base=(campaign.options or {}).get("ablation_base")),
    }
    judge_labels = [(judge.name, judge.family, judge.labels) for judge in judges]
    report["adjudication"] = adjudication_items_block(humans=humans, judges=judge_labels)
    # Agreement within each item category (null when no item has one).
    report["categories"] = categories_block(humans=humans, judges=judge_labels,
                                            categories=item_categories_get(campaign=campaign))
    report["replacement"] = None  # its place among the blocks; filled in below, once computed beside the rest
    build_step(SYSTEM_LEVEL)
    report["budget"] = verdict_budget(report=report, judges=judges, paired=paired, coverage=coverage,
                                      options=options, target=target_width(campaign.options))
    # The systems' order the tests between systems under a judge follow: the humans' (the systems table's), on the
    # judge's part of a development split where it has one (the table the same report has on that part alone).
    orders: dict[frozenset[int] | None, list[str]] = {None: _human_order(table)}
    for judge in judges:
        if judge.part is not None and judge.part not in orders:
            orders[judge.part] = _human_order(systems(
                humans=humans_on_part(humans, judge.part), outputs=_outputs_on_part(outputs, judge.part), coverage={},
                counting=rules[judge.part]))
    report["system_tests"] = _system_tests(humans=humans, paired=paired, outputs=outputs, counting=rule,
                                           everything=everything, order=orders[None],
                                           judge_orders={judge.name: orders[judge.part] for judge in judges})
    # Each system's score from the humans' labels and the judge's verdicts together (PPI++), or its check on a draw.
    report["ppi"] = ppi_block(judges=judges, everything=everything, options=campaign.options or {},
                              plan=label_plan_get(campaign=campaign))
    report["replacement"] = replacement.result()
    if counting is not None:
        report["counting"] = {"rule": counting.name, "description": counting.description}
    if extend is not None:
        extend(report=report, campaign=campaign, humans=humans, judges=judges, outputs=outputs)
    return report


def _replacement(*, humans: HumanLabels, judges: list[JudgeLabels], options: dict, selected: list[str]) -> dict | None:
    """The "May a judge replace an annotator?" section (reports.replacement) of JUDGES against HUMANS, with the
    judges' labels as codes found here."""
    return replacement_block(humans=humans, judges=[(judge.name, judge.family, judge.labels) for judge in judges],
                             options=options, selected=selected,
                             coded={judge.name: judge.label_codes for judge in judges})


def _outputs(outputs: SystemOutputs, system: str, judge: JudgeLabels | None = None):
    """SYSTEM's outputs as counting.Output: prediction and own gold only where the counting rule reads them. With
    JUDGE, only the outputs of its part of a development split (JudgeLabels.reads_item): an output of the other part
    is no output for that judge, whatever a gold match or the judge's verdicts on its own part could decide of it."""
    predictions, gold = outputs.predictions.get(system), outputs.own_gold.get(system)
    for index, (topic, item) in enumerate(outputs.outputs[system]):
        if judge is not None and not judge.reads_item(item):
            continue
        # PREDICTIONS and GOLD are read together (reports.selectors.system_outputs_get): one is there when the other is.
        yield (Output(topic, item, predictions[index], gold[index]) if predictions and gold is not None
               else Output(topic, item))


def _part_size(outputs: SystemOutputs, system: str, judge: JudgeLabels) -> int:
    """How many of SYSTEM's outputs JUDGE is read on: all of them without a development split, its part's with one."""
    pairs = outputs.outputs[system]
    return len(pairs) if judge.part is None else sum(item in judge.part for _, item in pairs)


def humans_on_part(humans: HumanLabels, part: frozenset[int]) -> HumanLabels:
    """HUMANS with the verdicts of PART's items only (labels, ties, open items): the humans' side of a comparison
    with a judge read on that part of a development split."""
    return replace(humans, item_label={item: label for item, label in humans.item_label.items() if item in part},
                   ties=humans.ties & part, open=humans.open & part)


def _system_rows(*, judge: JudgeLabels, humans: HumanLabels, outputs: SystemOutputs, counting) -> list[SystemRows]:
    """Per system, the outputs on which the humans and JUDGE are compared, as (topic, human 0/1, judge 0/1).

    qa_correctness counts by the campaign's rule (COUNTING, tasktypes.qa_correctness.counting): every output is
    compared, except an output the humans gave a verdict that the judge was never asked about (a judge run on a
    sample, an answer assessors judged after the judge ran), and an output whose annotations are still open: those
    are left out of both sides' scores, never counted against the side that was not asked. The outputs with a human
    verdict or a gold match are the system's evidence (SystemRows.evidence), what its coverage is measured by.
    ais (COUNTING None): an output is compared when it has a human label and a verdict (or failure) of the judge.
    """
    rows = []
    for system in outputs.outputs:
        # A judge read on a part of a development split is measured against its part's outputs (coverage rules).
        system_rows = SystemRows(system=system, outputs=_part_size(outputs, system, judge))
        for output in _outputs(outputs, system, judge):
            topic, item = output.topic, output.item
            asked = item in judge.labels or item in judge.failed
            if counting is None:
                if item in humans.item_label and asked:
                    system_rows.add(topic, float(humans.item_label[item] == POSITIVE),
                                    float(judge.labels.get(item) == POSITIVE), evidence=True)
                continue
            human = counting.human(output)
            if human is None:
                continue
            gold = outputs.gold_match.get(item, False)
            human_asked = item in humans.item_label or item in humans.ties
            if human_asked and not asked and not gold:
                continue
            system_rows.add(topic, float(human), float(bool(counting.judge(judge, output))),
                            evidence=gold or (human_asked and asked))
        rows.append(system_rows)
    return rows


def system_sides(*, judge: JudgeLabels, humans: HumanLabels, outputs: SystemOutputs, counting) -> list[SystemSides]:
    """Per system, each side over every output it decided, scored apart: the humans' verdicts (as the systems table
    has them), the judge's (a system no human rated still gets the judge's), and the judge's mean score over the
    outputs it gave a score (in `scores`, beside the SystemSides: (topic, score) each). Both sides over JUDGE's part
    of a development split, where there is one."""
    rows = []
    for system in outputs.outputs:
        sides = SystemSides(system=system, outputs=_part_size(outputs, system, judge))
        for output in _outputs(outputs, system, judge):
            topic, item = output.topic, output.item
            if counting is None:
                human = humans.item_label[item] == POSITIVE if item in humans.item_label else None
                asked = item in judge.labels or item in judge.failed
                verdict = judge.labels.get(item) == POSITIVE if asked else None
                score = judge.scores.get(item)
            else:
                human, verdict, score = counting.human_decided(output), counting.judge(judge, output), \
                    counting.judge_score(judge, output)
            if human is not None:
                sides.human.append((topic, float(human)))
            if verdict is not None:
                sides.judge.append((topic, float(verdict)))
            if score is not None:
                sides.scores.append((topic, score))
            sides.each.append((topic, item, None if human is None else float(human),
                               None if verdict is None else float(verdict), score))
        rows.append(sides)
    return rows


def _all_outputs_cell(sides: SystemSides) -> dict:
    """A system's score under a judge over every output the judge decided, and its mean score where it scored."""
    judge = [value for _, value in sides.judge]
    scores = [value for _, value in sides.scores]
    return {"accuracy": uncertainty.mean_defined(judge), "n": len(judge),
            "mean_score": uncertainty.mean_defined(scores), "n_scored": len(scores)}


def _mean_score_sides(everything: list[SystemSides]) -> list[SystemSides]:
    """The same systems with the judge's side replaced by its scores: the mean score's system order."""
    return [SystemSides(system=s.system, outputs=s.outputs, human=s.human, judge=s.scores) for s in everything]


def _judge_block(*, judge: JudgeLabels, humans: HumanLabels, paired: Paired, system_rows: list[SystemRows],
                 everything: list[SystemSides], options: dict) -> dict:
    n = len(paired.item)
    intervals = interrater.tables_agreement_intervals(paired.tables)
    kappa = interrater.kappa_of_codes(paired.human_code, paired.model_code)
    item = {"n": n, "cohen_kappa": kappa,
            "accuracy": int(np.count_nonzero(paired.human_code == paired.model_code)) / n if n else None}
    for key in ("cohen_kappa", "accuracy"):  # an interval, or None and why (ci_note)
        uncertainty.put_interval(item, key, intervals[key], units=len(paired.tables), noun="questions")
    return {
        "family": judge.family,
        # The part of the development split every figure of this judge is read on, humans' side included
        # ("development", "held_out"); null without a split (reports.selectors.JudgeLabels.part).
        "part": _part_name(judge),
        "item": {
            **item,
            "ci_method": uncertainty.bootstrap_method("questions (the items of a question together)"),
            "small": n < options["small_sample"],
            "why": _kappa_why(n) if kappa is None else None,
            "failed": len(judge.failed),
            # Items left out of n, by why: the raters tied (no human label; an even k invites it), or the judge was
            # asked and gave no readable verdict on an item with a human label.
            "dropped": {"ties": len(humans.ties & (judge.labels.keys() | judge.failed)),
                        "failed": len(judge.failed & humans.item_label.keys())},
            # Items with a human label the judge was asked about, out of all of them (of its part, with a split).
            "coverage": [n + len(judge.failed & humans.item_label.keys()),
                         len(humans.item_label) if judge.part is None else len(judge.part & humans.item_label.keys())],
        },
        "per_topic": [],
        "topic_mean": {},
        # The systems' order under the judge against the humans', three ways: each system scored on the outputs both
        # sides decided (the headline); each side over every output it decided; the judge's mean score (judges
        # that score) over every output it scored.
        **_system_orders(system_rows, everything, scores=bool(judge.scores), options=options),
    }


def _system_orders(system_rows: list[SystemRows], everything: list[SystemSides], *, scores: bool,
                   options: dict) -> dict:
    """The systems' order under the judge against the humans', three ways: each system scored on the outputs both sides
    decided (`system`, the headline); each side over every output it decided (`system_all`); the judge's mean score
    over every output it scored (`system_mean_score`, judges that score; else None). A way whose scores are the same
    as the one before it (every output decided by both; scores that are the 0/1 verdicts) reuses its block rather
    than bootstrap it again."""
    def block(systems, over):
        return {**system_level_block(systems, min_outputs=options["min_system_outputs"],
                                     min_coverage=options["min_system_coverage"], topics_word="questions",
                                     rbo_p=options["rbo_p"], top_k=options["top_k"]),
                "over": over}

    orders = {"system": block(system_rows, "the outputs both sides decided")}
    over = "every output each side decided"
    same = all(rows.sides() == sides.sides() for rows, sides in zip(system_rows, everything, strict=True))
    orders["system_all"] = {**orders["system"], "over": over} if same else block(everything, over)
    orders["system_mean_score"] = None
    if scores:
        over = "the judge's mean score over every output it scored; the humans' accuracy over every output they decided"
        by_score = _mean_score_sides(everything)
        same = all(sides.sides() == scored.sides() for sides, scored in zip(everything, by_score, strict=True))
        orders["system_mean_score"] = {**orders["system_all"], "over": over} if same else block(by_score, over)
    return orders


def _human_order(systems: list[dict]) -> list[str]:
    """The systems of a systems table by the humans' accuracy, best first, those without one last."""
    return [row["system"] for row in sorted(systems, key=lambda row: (row["human"] is None, -(row["human"] or 0)))]


def _outputs_on_part(outputs: SystemOutputs, part: frozenset[int]) -> SystemOutputs:
    """OUTPUTS with the outputs of PART's items only, every system kept (a system without one has none)."""
    keep = {system: [index for index, (_, item) in enumerate(pairs) if item in part]
            for system, pairs in outputs.outputs.items()}

    def kept(columns: dict[str, list]) -> dict[str, list]:
        return {system: [values[i] for i in keep[system]] for system, values in columns.items()}

    return replace(outputs, outputs=kept(outputs.outputs), predictions=kept(outputs.predictions),
                   own_gold=kept(outputs.own_gold))


def _system_tests(*, humans: HumanLabels, paired: dict[str, Paired], outputs: SystemOutputs, counting,
                  everything: dict[str, list[SystemSides]], order: list[str],
                  judge_orders: dict[str, list[str]]) -> dict:
    """Paired tests between every two systems under the humans and under each judge (per question, on the questions
    both answered and the rater decided), and between every two judges' agreement with the human label (per item, on
    the items with a human label both judges labelled); stats.system_tests. ORDER: the systems by the humans'
    accuracy; JUDGE_ORDERS[judge]: the same on the judge's part of a development split."""
    human_rows = {}
    for system in outputs.outputs:
        rows = []
        for output in _outputs(outputs, system):
            if counting is None:
                verdict = humans.item_label[output.item] == POSITIVE if output.item in humans.item_label else None
            else:
                verdict = counting.human_decided(output)
            if verdict is not None:
                rows.append((output.topic, float(verdict)))
        human_rows[system] = system_tests.per_unit(rows)
    by_judge = {name: system_tests.pairs_block({sides.system: system_tests.per_unit(sides.judge) for sides in rows},
                                               order=judge_orders[name])
                for name, rows in everything.items()}
    agreement = {name: (pairs.item, (pairs.model_code == pairs.human_code).astype(float))
                 for name, pairs in paired.items()}
    return {"humans": system_tests.pairs_block(human_rows, order=order), "judges": by_judge,
            "judge_agreement": system_tests.pairs_block(agreement)}


def _part_name(judge: JudgeLabels) -> str | None:
    if judge.part is None:
        return None
    return "held_out" if judge.held_out else "development"


def _kappa_why(n: int) -> str:
    if n < 2:
        return f"{n} item(s) labelled by both, at least 2 needed"
    return "one and the same label throughout: agreement by chance is total"


def _systems(*, humans: HumanLabels, outputs: SystemOutputs, coverage: dict[str, list[SystemRows]],
             counting) -> list[dict]:
    """Per system: its outputs, its accuracy under the humans (every output but those still open, by the counting
    rule), and under each judge over the outputs compared with the humans (_system_rows), with their numbers."""
    rows = []
    for index, system in enumerate(outputs.outputs):
        verdicts = [counting.human(output) for output in _outputs(outputs, system)]
        decided = [verdict for verdict in verdicts if verdict is not None]
        rows.append({
            "system": system,
            "n": len(verdicts),
            "human": sum(decided) / len(decided) if decided else None,
            "human_coverage": [len(decided), len(verdicts)],
            # judges, human_by_judge (the x of each judge's correlation) and coverage.
            **judge_columns(coverage, index, of=len(verdicts)),
        })
    return rows
