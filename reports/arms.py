"""The report's assistance experiment section (report["arms"]): how the arms of a campaign that runs one compare.

- Reference of a unit: its adjudicated verdict where there is one; else, from the blind arm's judgments of the unit,
  their majority (a ranking type: the most typical blind ranking, stats.stats_arms). A blind judgment is
  compared with the majority of the *other* blind judgments of its unit, so that it never agrees with itself. A unit
  with neither has no reference, and its judgments do not count in the reference figures.
- Agreement of a judgment with the reference, and with each judge an arm names (the judge's verdict as the task
  type's suggestion stands for it, annotate.task_types.spec.TaskTypeSpec.suggestions): equal or not for verdicts and
  grades (a share, 95% Wilson interval); Kendall's tau-b for rankings (a mean, 95% t interval).
- Each assisted arm against blind: the difference of means with a permutation test and a bootstrap interval, over
  annotators (each annotator's mean) when arms are per annotator, over judgments when per unit.
- Assisted arms: the share of judgments equal to the suggestion shown, overall and split by whether the suggestion
  agreed with the reference (right) or not (wrong). Judgments whose arm had no suggestion for the unit are counted
  apart (not_available).
- Time per judgment: seconds from the lease of the unit to the first version of the judgment; median with a
  bootstrap interval. Judgments made before the time was recorded, and imported ones, have none.
Only current judgments count; the judgments of no arm (made before the experiment, or imported) are left out.
"""

from __future__ import annotations

from annotate.arms import ARM_BLIND, arm_judge
from annotate.models import Campaign
from annotate.selectors.arms import arm_data_get
from annotate.services.arms import arm_settings, arm_words, campaign_arms
from annotate.task_types.registry import task_type_get
from stats import stats_arms

REFERENCE_RULE = ("the adjudicated verdict of the unit where there is one, else the majority of the blind arm's "
                  "judgments of the unit (for a blind judgment, of the other blind judgments); a unit with neither "
                  "has no reference")
RANKING_REFERENCE_RULE = ("the adjudicated ranking of the topic where there is one, else the blind ranking that agrees "
                          "best with the topic's other blind rankings (for a blind ranking, chosen among the others); "
                          "a topic with neither has no reference")


def arms_report_build(*, campaign: Campaign) -> dict | None:
    """The arms section of CAMPAIGN's report (see the module's docstring); None when it runs no experiment."""
    arms = campaign_arms(campaign)
    if not arms:
        return None
    spec = task_type_get(campaign.task_type)
    comparison = stats_arms.COMPARISONS[spec.arm_comparison]
    assignment, per = arm_settings(campaign)
    judges_of = {arm: arm_judge(arm) for arm in arms}
    judge_names = list(dict.fromkeys(name for name in judges_of.values() if name))
    data = arm_data_get(campaign=campaign)
    existing = {judge.name: judge for judge in campaign.judges.filter(name__in=judge_names)}
    judge_keys = {name: {unit: spec.arm_key(value)
                         for unit, value in spec.suggestions(campaign=campaign, judge=existing[name]).items()}
                  for name in judge_names if name in existing}

    blind_keys: dict[int, list[tuple[str, object]]] = {}
    for judgment in data.judgments:
        if judgment.arm == ARM_BLIND:
            blind_keys.setdefault(judgment.unit, []).append((judgment.annotator, spec.arm_key(judgment.value)))
    adjudicated = {unit: spec.arm_key(value) for unit, value in data.adjudicated.items()}
    unit_reference = {unit: comparison.reference([key for _, key in keys]) for unit, keys in blind_keys.items()}

    def reference_of(unit: int, *, blind_annotator: str | None):
        if unit in adjudicated:
            return adjudicated[unit]
        if blind_annotator is None:
            return unit_reference.get(unit)
        return comparison.reference([key for who, key in blind_keys.get(unit, []) if who != blind_annotator])

    by_arm: dict[str, list[stats_arms.ArmRow]] = {arm: [] for arm in arms}
    for judgment in data.judgments:
        if judgment.arm not in by_arm:
            continue
        key = spec.arm_key(judgment.value)
        reference = reference_of(judgment.unit, blind_annotator=judgment.annotator if judgment.arm == ARM_BLIND
                                 else None)
        shown = judgment.suggestion is not None
        suggested = spec.arm_key(judgment.suggestion) if shown else None
        right = None
        if shown and reference is not None:
            agreement = comparison.agreement(suggested, reference)
            right = None if agreement is None else agreement == 1.0
        by_arm[judgment.arm].append(stats_arms.ArmRow(
            arm=judgment.arm, annotator=judgment.annotator,
            reference=comparison.agreement(key, reference),
            judges={name: comparison.agreement(key, keys.get(judgment.unit)) for name, keys in judge_keys.items()},
            shown=shown, equal=(key == suggested) if shown else None, right=right, seconds=judgment.seconds))

    notes = [f"arm {arm}: this campaign has no judge called {name}, so the arm has shown no suggestion"
             for arm, name in judges_of.items() if name and name not in existing]
    if ARM_BLIND not in arms:
        notes.append("no blind arm: the arms are not compared with blind, and references come from adjudications "
                     "only")
    differences = [{**row, "words": arm_words(row["arm"])} for row in stats_arms.arm_differences(
        by_arm, judges={arm: name for arm, name in judges_of.items() if name in judge_keys}, per=per)]
    for row in differences:
        smallest = stats_arms.smallest_p_value(*row["n"])
        if row["measure"] == "reference" and smallest is not None and smallest > 0.05:
            notes.append(f"{row['words']} against {row['versus']}: with {row['n'][0]} and {row['n'][1]} "
                         f"{'annotators' if per == 'annotator' else 'judgments'} the permutation test cannot give a "
                         f"p-value below {smallest:.3g}, and the bootstrap interval rests on as few; put more "
                         f"annotators in each arm for a test that can tell the arms apart")
    return {
        "arms": arms,
        "assignment": assignment,
        "per": per,
        "annotator_arms": data.annotator_arms if per == "annotator" else {},
        "measure": comparison.measure,
        "reference_rule": RANKING_REFERENCE_RULE if spec.arm_comparison == "rankings" else REFERENCE_RULE,
        "adjudicated_units": len(adjudicated),
        "judges": list(judge_keys),
        "per_arm": [{**stats_arms.arm_summary(by_arm[arm], arm=arm, judge=judges_of[arm], judges=list(judge_keys)),
                     "words": arm_words(arm)} for arm in arms],
        "differences": differences,
        "notes": notes,
    }
