"""The agreement report document (DESIGN.md §5): one builder behind the page, the CSV, the API and the command.

Null semantics: a statistic that is undefined on the data (fewer than two items, a constant input,
no shared items) is None / JSON null. A block that the task type does not compute is empty:
for `qa_correctness` each judge's `per_topic` is [] and `topic_mean` is {} (a question has a handful
of candidate answers, too few for a per-topic statistic); ranking task types fill them.
"""

from __future__ import annotations


from agreement import stats
from agreement.system_level import (
    MIN_SYSTEM_COVERAGE,
    MIN_SYSTEM_OUTPUTS,
    SystemRows,
    judge_columns,
    system_level_block,
)
from agreement.report_ablation import ablation_build
from agreement.report_ais import ais_humans_block, ais_judge_extras, ais_systems
from agreement.report_humans import humans_block
from agreement.selectors import (
    HumanLabels,
    JudgeLabels,
    SystemOutputs,
    ais_answers_get,
    input_cuts_get,
    human_labels_get,
    items_brief_get,
    judge_labels_get,
    llm_judge_costs_get,
    system_outputs_get,
)
from annotate.models import Campaign
from annotate.task_types import task_type_get

POSITIVE = "yes"
# Statistics over fewer shared items (or topics) than this are flagged on the page as small samples (option
# small_sample).
SMALL_SAMPLE = 30


def output_correct(*, label: str | None, gold_match: bool, failed: bool = False) -> bool:
    """Whether one system output counts as correct under a rater (the humans, or one judge).

    The single rule for every rater, so the human and judge accuracies of a system are computed
    over the same outputs (all of them: the denominator is the system's number of outputs):
    1. the rater's label for the output's item, when it has one ("yes" = correct);
    2. a judge that was asked but gave no readable verdict (a failed judgment) has not accepted
       the answer: NOT correct. (In NQ301, 10 GPT-4 verdicts such as "The candidate is partially
       correct ..." start with neither Yes nor No; the study counts them as not correct.)
    3. a rater that was never asked about the output: an exact match after SQuAD normalisation
       with a gold answer of the question counts as correct. In the NQ301 study only answers that
       did not match a gold answer went to humans and to GPT-4 / InstructGPT, so an exact match is
       correct by the study's own protocol;
    4. else (no verdict at all) the output counts as NOT correct.
    An item whose human annotations tie has no human label and falls through to rule 3.
    """
    if label is not None:
        return label == POSITIVE
    if failed:
        return False
    return gold_match


def report_options(campaign: Campaign) -> dict:
    """The campaign's options that govern the report's coverage rules, with their defaults (README "Coverage")."""
    options = campaign.options or {}
    return {
        "min_system_outputs": int(options.get("min_system_outputs", MIN_SYSTEM_OUTPUTS)),
        "min_system_coverage": float(options.get("min_system_coverage", MIN_SYSTEM_COVERAGE)),
        "small_sample": int(options.get("small_sample", SMALL_SAMPLE)),
    }


def agreement_report_build(*, campaign: Campaign) -> dict:
    """The report document for CAMPAIGN, a JSON-ready dict in the shape of DESIGN.md §5, built by the campaign's
    task type (its report_builder: qa_report_build, ais_report_build, agreement.report_ranking, agreement.report_graded).

    Reads a fixed number of queries (see agreement.selectors); numbers are unrounded floats.
    """
    return task_type_get(campaign.task_type).report_build(campaign=campaign)


def qa_report_build(*, campaign: Campaign) -> dict:
    """qa_correctness: yes/no verdicts on items; a system's accuracy is the share of its outputs labelled "yes"."""
    return _verdict_report_build(campaign=campaign, ais=False)


def ais_report_build(*, campaign: Campaign) -> dict:
    """ais: the verdict report, plus per-question rater agreement, instance-level agreement and disagreements."""
    return _verdict_report_build(campaign=campaign, ais=True)


def _verdict_report_build(*, campaign: Campaign, ais: bool) -> dict:
    options = report_options(campaign)
    humans = human_labels_get(campaign=campaign)
    judges = judge_labels_get(campaign=campaign)
    outputs = system_outputs_get(campaign=campaign)
    coverage = {judge.name: _system_rows(judge=judge, humans=humans, outputs=outputs, ais=ais) for judge in judges}
    if ais:
        systems = ais_systems(humans=humans, outputs=outputs, coverage=coverage)
    else:
        systems = _systems(humans=humans, outputs=outputs, coverage=coverage)
    report = {
        "campaign": campaign.slug,
        "task_type": campaign.task_type,
        "options": options,
        "humans": humans_block(humans, small_sample=options["small_sample"]),
        "judges": {judge.name: _judge_block(judge=judge, humans=humans, system_rows=coverage[judge.name],
                                            options=options) for judge in judges},
        "systems": systems,
        # LLM judges side by side on the same items (agreement and cost); null without LLM judges.
        "ablation": ablation_build(judges=judges, humans=humans, costs=llm_judge_costs_get(campaign=campaign)
                                   if any(judge.family == "llm" for judge in judges) else []),
    }
    if ais:
        _ais_extend(report=report, campaign=campaign, humans=humans, judges=judges, outputs=outputs)
    return report


def _ais_extend(*, report: dict, campaign: Campaign, humans: HumanLabels, judges: list[JudgeLabels],
                outputs: SystemOutputs) -> None:
    """Add the ais blocks: per-question rater agreement, per-system instance-level agreement, disagreements."""
    report["humans"]["questions"] = ais_humans_block(ais_answers_get(campaign=campaign))
    extras = {judge.name: ais_judge_extras(judge=judge, humans=humans, outputs=outputs) for judge in judges}
    listed = {row["item"] for extra in extras.values() for row in extra["disagreements"]}
    briefs = items_brief_get(item_ids=listed) if listed else {}
    passages = input_cuts_get(campaign=campaign, family="autoais") if any(j.family == "autoais" for j in judges) else {}
    for name, extra in extras.items():
        for row in extra["disagreements"]:
            row.update(briefs.get(row["item"], {}))
        # How an NLI judge read passages longer than its input: whole, truncated or in windows (null for others).
        extra["passages"] = passages.get(name)
        report["judges"][name].update(extra)


def _system_rows(*, judge: JudgeLabels, humans: HumanLabels, outputs: SystemOutputs, ais: bool) -> list[SystemRows]:
    """Per system, the outputs on which the humans and JUDGE are compared, as (topic, human 0/1, judge 0/1).

    qa_correctness follows the study's protocol (output_correct): every output is compared, with its exact-match
    rule and its default (an output nobody gave a verdict is not correct), except an output the humans gave a
    verdict that the judge was never asked about (a judge run on a sample, an answer assessors judged after the
    judge ran), and an output whose annotations are still open: those are left out of both sides' scores, never
    counted against the side that was not asked. The outputs with a human verdict or a gold match are the
    system's evidence (SystemRows.evidence), what its coverage is measured by.
    ais: an output is compared when it has a human label and a verdict (or failure) of the judge.
    """
    rows = []
    for system, pairs in outputs.outputs.items():
        system_rows = SystemRows(system=system, outputs=len(pairs))
        for topic, item in pairs:
            asked = item in judge.labels or item in judge.failed
            if ais:
                if item in humans.item_label and asked:
                    system_rows.add(topic, float(humans.item_label[item] == POSITIVE),
                                    float(judge.labels.get(item) == POSITIVE), evidence=True)
                continue
            if item in humans.open:
                continue
            gold = outputs.gold_match.get(item, False)
            human_asked = item in humans.item_label or item in humans.ties
            if human_asked and not asked and not gold:
                continue
            system_rows.add(
                topic,
                float(output_correct(label=humans.item_label.get(item), gold_match=gold)),
                float(output_correct(label=judge.labels.get(item), gold_match=gold, failed=item in judge.failed)),
                evidence=gold or (human_asked and asked),
            )
        rows.append(system_rows)
    return rows


def _judge_block(*, judge: JudgeLabels, humans: HumanLabels, system_rows: list[SystemRows], options: dict) -> dict:
    shared = sorted(item for item in judge.labels if item in humans.item_label)
    human = [humans.item_label[item] for item in shared]
    model = [judge.labels[item] for item in shared]
    topics = [humans.item_topic.get(item, item) for item in shared]
    resamples = stats.resamples_for(len(shared))
    intervals = stats.item_agreement_intervals(human, model, topics, resamples=resamples)
    kappa = stats.cohen_kappa(human, model)
    return {
        "family": judge.family,
        "item": {
            "n": len(shared),
            "cohen_kappa": kappa,
            "cohen_kappa_ci95": intervals["cohen_kappa"] if kappa is not None else None,
            "accuracy": stats.agreement_rate(human, model),
            "accuracy_ci95": intervals["accuracy"],
            "ci_method": stats.bootstrap_method("questions (the items of a question together)", resamples=resamples),
            "small": len(shared) < options["small_sample"],
            "why": _kappa_why(human, model) if kappa is None else None,
            "failed": len(judge.failed),
            # Items with a human label the judge was asked about, out of all of them.
            "coverage": [len(shared) + len(judge.failed & humans.item_label.keys()), len(humans.item_label)],
        },
        "per_topic": [],
        "topic_mean": {},
        "system": system_level_block(system_rows, min_outputs=options["min_system_outputs"],
                                     min_coverage=options["min_system_coverage"], topics_word="questions"),
    }


def _kappa_why(first: list, second: list) -> str:
    if len(first) < 2:
        return f"{len(first)} item(s) labelled by both, at least 2 needed"
    return "one and the same label throughout: agreement by chance is total"


def _systems(*, humans: HumanLabels, outputs: SystemOutputs, coverage: dict[str, list[SystemRows]]) -> list[dict]:
    """Per system: its outputs, its accuracy under the humans (every output but those still open, by the rules of
    output_correct), and under each judge over the outputs compared with the humans (_system_rows), with their
    numbers."""
    rows = []
    for index, (system, pairs) in enumerate(outputs.outputs.items()):
        items = [item for _, item in pairs]
        labelled = [item for item in items if item not in humans.open]
        correct = sum(output_correct(label=humans.item_label.get(item), gold_match=outputs.gold_match[item])
                      for item in labelled)
        rows.append({
            "system": system,
            "n": len(items),
            "human": correct / len(labelled) if labelled else None,
            "human_coverage": [len(labelled), len(items)],
            # judges, human_by_judge (the x of each judge's correlation) and coverage.
            **judge_columns(coverage, index, of=len(items)),
        })
    return rows
