"""The `ais` parts of the agreement report (docs/design.md §1.3, Bohnet et al. 2022).

- Raters, per question: Fleiss' kappa and Krippendorff's alpha on Q1 (interpretable), on Q2 (supported; asked
  only after a yes to Q1, so a rater who said no to Q1 has no Q2 rating) and on attributable (yes and yes).
- Systems: AIS accuracy = the share of the system's outputs with a human label (adjudicated, else the raters'
  majority) that are attributable, with a bootstrap standard error; the same outputs under each judge. Outputs
  whose raters tied have no label: they are counted per system (`ties`), not guessed.
- Per judge: the system-level correlations (in the judge's `system` block, built by reports.verdicts), the
  instance-level agreement with the humans within each system, and the items where the judge's score is
  furthest from the raters' share of yes votes.
"""

from __future__ import annotations

from annotate.models import Campaign
from judges.families import CUTTING_FAMILIES
from reports.selectors import (
    AisAnswers,
    HumanLabels,
    JudgeLabels,
    SystemOutputs,
    ais_answers_get,
    input_cuts_get,
    items_brief_get,
)
from reports.system_level import SystemRows, judge_columns
from reports.verdicts import POSITIVE, verdict_report_build
from stats import correlation, interrater, uncertainty

DISAGREEMENTS_LISTED = 20


def ais_humans_block(answers: AisAnswers) -> dict:
    """Fleiss' kappa and Krippendorff's alpha among the raters for each of Q1, Q2 and attributable, with 95%
    intervals (bootstrap over the items rated)."""
    units = sorted(answers.by_unit)
    annotators = sorted({name for unit in units for name in answers.by_unit[unit]})
    block = {}
    for question, pick in (("interpretable", lambda a: a[0]), ("supported", lambda a: a[1]),
                           ("attributable", lambda a: a[0] and bool(a[1]))):
        def label(unit, name, pick=pick):
            answer = answers.by_unit[unit].get(name)
            if answer is None:
                return None
            value = pick(answer)
            return None if value is None else ("yes" if value else "no")

        reliability = [[label(unit, name) for unit in units] for name in annotators]
        ratings = [[value for value in column if value is not None] for column in zip(*reliability, strict=True)]
        block[question] = {
            # Each with its n (items read), its interval or why there is none (ci_note), and the raters.
            **interrater.rater_agreement(ratings, raters=len(annotators)),
            "ci_method": uncertainty.bootstrap_method("the items rated"),
            "yes_share": uncertainty.mean_defined([1.0 if v == "yes" else 0.0 for row in ratings for v in row]),
            "ratings": sum(len(row) for row in ratings),
        }
    return block


def ais_systems(*, humans: HumanLabels, outputs: SystemOutputs, coverage: dict[str, list[SystemRows]],
                counting=None) -> list[dict]:
    """Per system: AIS accuracy over its outputs with a human label, its bootstrap SE, each judge's accuracy.

    A judge's accuracy is over the outputs that have a human label and its verdict (a failed verdict counts as
    not attributable), COVERAGE[judge] (reports.verdicts._system_rows), shown as [covered, rated] per judge. ais
    has no counting rule (COUNTING is None): an output is compared on its item's human label.
    """
    rows = []
    for index, (system, pairs) in enumerate(outputs.outputs.items()):
        items = [item for _, item in pairs]
        labelled = [item for item in items if item in humans.item_label]
        outcomes = [1.0 if humans.item_label[item] == POSITIVE else 0.0 for item in labelled]
        rows.append({
            "system": system,
            "n": len(labelled),
            "outputs": len(items),
            "ties": sum(item in humans.ties for item in items),
            # Outputs whose raters are still coming and could change the majority: not labelled yet.
            "open": sum(item in humans.open for item in items),
            "human": uncertainty.mean_defined(outcomes),
            "human_se": uncertainty.bootstrap_se(outcomes),
            # judges, human_by_judge (the x of each judge's correlation) and coverage, [compared, rated].
            **judge_columns(coverage, index, of=len(labelled)),
        })
    return rows


def ais_judge_extras(*, judge: JudgeLabels, humans: HumanLabels, outputs: SystemOutputs) -> dict:
    """The judge's instance-level agreement within each system and its most disagreeing items (ids only)."""
    per_system = []
    for system, pairs in outputs.outputs.items():
        shared = [item for _, item in pairs if item in humans.item_label and item in judge.labels]
        human = [1.0 if humans.item_label[item] == POSITIVE else 0.0 for item in shared]
        model = [1.0 if judge.labels[item] == POSITIVE else 0.0 for item in shared]
        per_system.append({
            "system": system,
            "n": len(shared),
            # Pearson on two 0/1 labels is the phi coefficient.
            "pearson": correlation.pearson(human, model),
            "cohen_kappa": interrater.cohen_kappa(human, model),
        })
    return {"per_system": per_system, "disagreements": _disagreements(judge=judge, humans=humans)}


def _disagreements(*, judge: JudgeLabels, humans: HumanLabels) -> list[dict]:
    """Items where judge and humans disagree (other labels, or score and yes share 0.5 or more apart), furthest
    apart first by |raters' yes share - judge score|; the first DISAGREEMENTS_LISTED.

    The judge's score is its probability when it gave one, else 1 or 0 from its label; the raters' share is
    their yes votes over their votes (1 or 0 for an adjudicated label).
    """
    rows = []
    for item, label in judge.labels.items():
        if item not in humans.item_label:
            continue
        yes, total = humans.item_votes.get(item, (0, 0))
        if total and item not in humans.adjudicated_items:
            share = yes / total
        else:
            share = 1.0 if humans.item_label[item] == POSITIVE else 0.0
        score = judge.scores.get(item)
        if score is None:
            score = 1.0 if label == POSITIVE else 0.0
        if label != humans.item_label[item] or abs(share - score) >= 0.5:
            rows.append((abs(share - score), item, share, score, label))
    rows.sort(key=lambda row: (-row[0], row[1]))
    return [
        {"item": item, "distance": distance, "human_yes_share": share, "human": humans.item_label[item],
         "votes": list(humans.item_votes.get(item, (0, 0))), "score": score, "label": label}
        for distance, item, share, score, label in rows[:DISAGREEMENTS_LISTED]
    ]


# --- The builder ---


def ais_report_build(*, campaign: Campaign) -> dict:
    """ais: the verdict report (reports.verdicts), its systems scored on the items' human labels, plus per-question
    rater agreement, instance-level agreement and disagreements."""
    return verdict_report_build(campaign=campaign, systems=ais_systems, extend=_ais_extend)


def _ais_extend(*, report: dict, campaign: Campaign, humans: HumanLabels, judges: list[JudgeLabels],
                outputs: SystemOutputs) -> None:
    """Add the ais blocks: per-question rater agreement, per-system instance-level agreement, disagreements."""
    report["humans"]["questions"] = ais_humans_block(ais_answers_get(campaign=campaign))
    extras = {judge.name: ais_judge_extras(judge=judge, humans=humans, outputs=outputs) for judge in judges}
    listed = {row["item"] for extra in extras.values() for row in extra["disagreements"]}
    briefs = items_brief_get(item_ids=listed) if listed else {}
    passages = input_cuts_get(campaign=campaign) if any(j.family in CUTTING_FAMILIES for j in judges) else {}
    for name, extra in extras.items():
        for row in extra["disagreements"]:
            row.update(briefs.get(row["item"], {}))
        # How an NLI judge read passages longer than its input: whole, truncated or in windows (null for others).
        extra["passages"] = passages.get(name)
        report["judges"][name].update(extra)
