"""Reads for assistance experiments (annotate.services.arms, reports.arms): a judge's verdicts on units,
which the task types turn into suggestions, and a campaign's judgments with the arm each was made in.

A judge (judges.models.Judge) is read through its reverse relations (judge.judgments, campaign.judges): annotate
sits below judges and does not import it."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotate.models import Campaign, HumanJudgment, JudgmentKind, Unit


def judge_item_verdicts(*, campaign: Campaign, judge, units=None) -> dict[int, tuple[str, float | None]]:
    """{unit id: (label, score)} of JUDGE's readable verdicts on the items of UNITS (every item unit of CAMPAIGN
    when None): a label, a score or both ("" and None where it gave none). A verdict that failed, or that has
    neither, is left out. Two queries."""
    if units is None:
        unit_items = dict(Unit.objects.filter(campaign=campaign, item__isnull=False).values_list("item_id", "pk"))
    else:
        unit_items = {unit.item_id: unit.pk for unit in units if unit.item_id is not None}
    # Its ModelJudgments (judges.models).
    rows = judge.judgments.filter(failed=False).exclude(label="", score__isnull=True)
    if units is not None:
        rows = rows.filter(item_id__in=list(unit_items))
    return {unit_items[item]: (label, score) for item, label, score in rows.values_list("item_id", "label", "score")
            if item in unit_items}


def judge_scores_all(*, judge) -> list[float]:
    """Every score JUDGE gave in its campaign (failed verdicts left out): what a quantile mapping cuts. One query."""
    return [float(score) for score in judge.judgments.filter(failed=False, score__isnull=False)
            .values_list("score", flat=True)]


def judge_topic_scores(*, campaign: Campaign, judge, units=None) -> dict[int, dict[int, float | None]]:
    """{unit id: {candidate item id: JUDGE's score, None when it has none}} for the topic units of UNITS (every
    topic unit of CAMPAIGN when None). Three queries."""
    from annotate.models import Item

    if units is None:
        unit_topics = dict(Unit.objects.filter(campaign=campaign, topic__isnull=False, item__isnull=True)
                           .values_list("topic_id", "pk"))
    else:
        unit_topics = {unit.topic_id: unit.pk for unit in units if unit.topic_id is not None}
    candidates: dict[int, dict[int, float | None]] = {}
    for item, topic in Item.objects.filter(campaign=campaign, topic_id__in=list(unit_topics)).values_list("pk",
                                                                                                         "topic_id"):
        candidates.setdefault(unit_topics[topic], {})[item] = None
    item_unit = {item: unit for unit, items in candidates.items() for item in items}
    for item, score in (judge.judgments.filter(failed=False, score__isnull=False, item_id__in=list(item_unit))
                        .values_list("item_id", "score")):
        candidates[item_unit[item]][item] = float(score)
    return candidates


@dataclass
class ArmJudgment:
    """One annotator's current judgment of a unit, with what it was made under."""

    unit: int
    annotator: str
    arm: str
    value: object
    suggestion: object
    seconds: float | None  # of its first version


@dataclass
class ArmData:
    judgments: list[ArmJudgment] = field(default_factory=list)
    adjudicated: dict[int, object] = field(default_factory=dict)  # unit -> the adjudicated value
    annotator_arms: dict[str, str] = field(default_factory=dict)  # annotators' fixed arms (per annotator)


def arm_data_get(*, campaign: Campaign) -> ArmData:
    """Every current annotation of CAMPAIGN with its arm, suggestion and time (the first version's), the current
    adjudicated value of each unit that has one, and each annotator's arm. Three queries."""
    from annotate.models import Membership, Role

    data = ArmData()
    first_seconds = dict(
        ((unit, who), seconds) for unit, who, seconds in HumanJudgment.objects.filter(
            unit__campaign=campaign, kind=JudgmentKind.ANNOTATION, version=1, seconds__isnull=False)
        .values_list("unit_id", "annotator__username", "seconds"))
    rows = (
        HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True)
        .values_list("unit_id", "annotator__username", "kind", "arm", "value", "suggestion")
        .order_by("unit_id", "id")
    )
    for unit, who, kind, arm, value, suggestion in rows:
        if kind == JudgmentKind.ADJUDICATION:
            data.adjudicated[unit] = value
        elif kind == JudgmentKind.ANNOTATION:
            data.judgments.append(ArmJudgment(unit=unit, annotator=who, arm=arm, value=value, suggestion=suggestion,
                                              seconds=first_seconds.get((unit, who))))
    data.annotator_arms = dict(Membership.objects.filter(campaign=campaign, role=Role.ANNOTATOR).exclude(arm="")
                               .values_list("user__username", "arm"))
    return data


def member_arms_add(*, campaign: Campaign, members: list[dict]) -> None:
    """Put each member's arm ("" for none) in MEMBERS (annotate.selectors.campaigns.campaign_members' rows) as
    "arm", when CAMPAIGN runs an assistance experiment; nothing otherwise. One query, only then."""
    from annotate.models import Membership

    if not isinstance((campaign.options or {}).get("arms"), list):
        return
    given = dict(Membership.objects.filter(campaign=campaign).values_list("pk", "arm"))
    for member in members:
        member["arm"] = given.get(member["id"], "")
