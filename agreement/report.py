"""The agreement report document (DESIGN.md §5): one builder behind the page, the CSV, the API and the command.

Null semantics: a statistic that is undefined on the data (fewer than two items, a constant input,
no shared items) is None / JSON null. A block that the task type does not compute is empty:
for `qa_correctness` each judge's `per_topic` is [] and `topic_mean` is {} (a question has a handful
of candidate answers, too few for a per-topic statistic); ranking task types fill them.
"""

from __future__ import annotations


from agreement import stats
from agreement.report_ablation import ablation_build
from agreement.report_ais import ais_humans_block, ais_judge_extras, ais_systems
from agreement.report_humans import humans_block
from agreement.report_images import image_report_build
from agreement.report_ranking import ranking_report_build
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
from annotate.models import Campaign, TaskType

POSITIVE = "yes"
# Task types whose labels are a yes/no verdict on an item, so a system's accuracy is the share of its
# outputs labelled "yes".
BINARY_TASK_TYPES = {TaskType.QA_CORRECTNESS, TaskType.AIS}


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


def agreement_report_build(*, campaign: Campaign) -> dict:
    """The report document for CAMPAIGN, a JSON-ready dict in the shape of DESIGN.md §5.

    Reads a fixed number of queries (see agreement.selectors); numbers are unrounded floats.
    answer_ranking campaigns have their own document (per-topic Kendall tau-b, agreement.report_ranking).
    """
    if campaign.task_type == TaskType.ANSWER_RANKING:
        return ranking_report_build(campaign=campaign)
    if campaign.task_type == TaskType.IMAGE_RELEVANCE:
        return image_report_build(campaign=campaign)
    humans = human_labels_get(campaign=campaign)
    judges = judge_labels_get(campaign=campaign)
    binary = campaign.task_type in BINARY_TASK_TYPES
    outputs = system_outputs_get(campaign=campaign) if binary else SystemOutputs()

    ais = campaign.task_type == TaskType.AIS
    if ais:
        systems = ais_systems(humans=humans, judges=judges, outputs=outputs)
    else:
        partial = {judge.name for judge in judges if _covers_fewer_than_humans(judge, humans)}
        systems = _systems(humans=humans, judges=judges, outputs=outputs, partial=partial)
    report = {
        "campaign": campaign.slug,
        "task_type": campaign.task_type,
        "humans": humans_block(humans),
        "judges": {judge.name: _judge_block(judge=judge, humans=humans, systems=systems) for judge in judges},
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


def _covers_fewer_than_humans(judge: JudgeLabels, humans: HumanLabels) -> bool:
    """True when some item with a human label was never put to JUDGE (a run on a sample, a stopped run).

    Such a judge's system accuracies would fall back to the exact-match rule on the outputs it never saw,
    and so measure EM more than the judge: the report leaves its system-level figures undefined.
    """
    asked = judge.labels.keys() | judge.failed
    return any(item not in asked for item in humans.item_label)


def _judge_block(*, judge: JudgeLabels, humans: HumanLabels, systems: list[dict]) -> dict:
    shared = sorted(item for item in judge.labels if item in humans.item_label)
    human = [humans.item_label[item] for item in shared]
    model = [judge.labels[item] for item in shared]
    human_acc = [row["human"] for row in systems if row["judges"].get(judge.name) is not None]
    judge_acc = [row["judges"][judge.name] for row in systems if row["judges"].get(judge.name) is not None]
    return {
        "family": judge.family,
        "item": {
            "n": len(shared),
            "cohen_kappa": stats.cohen_kappa(human, model),
            "accuracy": stats.agreement_rate(human, model),
            "failed": len(judge.failed),
            # Items with a human label the judge was asked about, out of all of them.
            "coverage": [len(shared) + len(judge.failed & humans.item_label.keys()), len(humans.item_label)],
        },
        "per_topic": [],
        "topic_mean": {},
        "system": {
            "n_systems": len(human_acc),
            "kendall_tau_b": stats.kendall_tau_b(human_acc, judge_acc),
            "spearman": stats.spearman(human_acc, judge_acc),
            "pearson": stats.pearson(human_acc, judge_acc),
        },
    }


def _systems(*, humans: HumanLabels, judges: list[JudgeLabels], outputs: SystemOutputs,
             partial: set[str] = frozenset()) -> list[dict]:
    """Per system: its outputs, human accuracy and each judge's (None for judges in PARTIAL)."""
    rows = []
    for system, pairs in outputs.outputs.items():
        items = [item for _, item in pairs]
        n = len(items)

        def accuracy(labels: dict[int, str], failed: set[int] = frozenset()) -> float | None:
            if not n:
                return None
            correct = sum(
                output_correct(label=labels.get(item), gold_match=outputs.gold_match[item], failed=item in failed)
                for item in items
            )
            return correct / n

        rows.append(
            {
                "system": system,
                "n": n,
                "human": accuracy(humans.item_label),
                "judges": {judge.name: None if judge.name in partial else accuracy(judge.labels, judge.failed)
                           for judge in judges},
            }
        )
    return rows
