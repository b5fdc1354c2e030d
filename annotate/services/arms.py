"""Assistance experiments: which arm a lease is made in, and the suggestion an assisted arm shows.

A campaign's option `arms` lists its arms: "blind" (the page as it always is) and "assisted:JUDGE" (judge JUDGE's
verdict on the unit shown pre-selected, for the annotator to accept or change). `arm_per` says whether an arm is
an annotator's for the whole campaign ("annotator", kept in their Membership.arm) or chosen for each leased unit
("unit"); `arm_assignment` how it is chosen: "random", "balanced" (the arm with the fewest annotators, or the fewest
of the annotator's own units, so far; ties at random) or "researcher" (the People page and the API set it; per unit
this is balanced). An arm once given is fixed: an annotator's until the researcher changes it, which is refused
once they have judged anything in the campaign; a lease's for as long as the assignment row lives.
"""

import random

from django.db import transaction
from django.db.models import Count

from annotate.arms import arm_judge
from annotate.models import Assignment, AssignmentStatus, Campaign, HumanJudgment, JudgmentKind, Membership, Role, Unit
from annotate.services.data_version import campaign_data_changed
from annotate.task_types.registry import task_type_get

DEFAULT_ASSIGNMENT = "balanced"
DEFAULT_PER = "annotator"

_random = random.SystemRandom()


class ArmError(Exception):
    """An arm that cannot be set; the message is for the researcher."""


class ArmNotGiven(Exception):
    """The annotator has no arm yet and only the researcher can give one (arm_assignment "researcher"): no unit is
    leased to them. The message is for the annotator."""


def campaign_arms(campaign: Campaign) -> list[str]:
    """The campaign's arms (its option `arms`); [] when it runs no assistance experiment."""
    arms = (campaign.options or {}).get("arms")
    return [str(arm) for arm in arms] if isinstance(arms, list) else []


def arm_settings(campaign: Campaign) -> tuple[str, str]:
    """(arm_assignment, arm_per) of CAMPAIGN, their defaults filled in."""
    options = campaign.options or {}
    return options.get("arm_assignment") or DEFAULT_ASSIGNMENT, options.get("arm_per") or DEFAULT_PER


def arm_words(arm: str) -> str:
    """"blind", "assisted by gpt-4": an arm as pages name it."""
    judge = arm_judge(arm)
    return f"assisted by {judge}" if judge is not None else arm


def _pick(counts: dict[str, int], *, balanced: bool) -> str:
    """An arm of COUNTS (arm -> how many so far): the fewest when BALANCED, ties at random; else uniformly."""
    arms = list(counts)
    if balanced:
        fewest = min(counts.values())
        arms = [arm for arm in arms if counts[arm] == fewest]
    return _random.choice(arms)


def annotator_arm_ensure(*, campaign: Campaign, annotator) -> tuple[str, bool]:
    """(ANNOTATOR's arm in CAMPAIGN when arms are per annotator, given now if they have none (their first lease);
    whether it was given now). ("", False) when the campaign runs no experiment or arms are per unit. ArmNotGiven
    under "researcher" when the researcher has not given one yet.

    Call inside transaction.atomic before any unit is locked. Giving an arm locks the campaign row, so two first
    leases (of two annotators) cannot both count the arms before either is written, and balanced stays balanced.
    An arm given now is in the report (reports.arms): the caller ends its transaction with the campaign's
    next data version (annotate.services.data_version), after its units are locked.
    """
    arms = campaign_arms(campaign)
    assignment, per = arm_settings(campaign)
    if not arms or per != "annotator":
        return "", False
    current = _membership_arm(campaign=campaign, annotator=annotator)
    if current:
        return current, False
    if assignment == "researcher":
        raise ArmNotGiven("The researcher has not yet put you in an arm of this campaign's experiment, so there is "
                          "nothing to judge yet. Ask them, or come back later.")
    Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
    current = _membership_arm(campaign=campaign, annotator=annotator)  # given meanwhile, by another tab
    if current:
        return current, False
    counts = dict.fromkeys(arms, 0)
    for arm, n in (Membership.objects.filter(campaign=campaign, role=Role.ANNOTATOR, arm__in=arms)
                   .values_list("arm").annotate(n=Count("pk"))):
        counts[arm] = n
    arm = _pick(counts, balanced=assignment == "balanced")
    Membership.objects.filter(campaign=campaign, user=annotator, role=Role.ANNOTATOR).update(arm=arm)
    return arm, True


def annotator_arm_given(*, campaign: Campaign, annotator) -> str:
    """ANNOTATOR's arm in CAMPAIGN when arms are per annotator and they have one already; else "" (one query)."""
    if not campaign_arms(campaign) or arm_settings(campaign)[1] != "annotator":
        return ""
    return _membership_arm(campaign=campaign, annotator=annotator)


def _membership_arm(*, campaign: Campaign, annotator) -> str:
    return (Membership.objects.filter(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
            .values_list("arm", flat=True).first()) or ""


def lease_arm(*, unit: Unit, annotator, annotator_arm: str, given: str = "") -> tuple[str, dict | None]:
    """(arm, suggestion) of a lease of UNIT to ANNOTATOR: ANNOTATOR_ARM (annotator_arm_ensure's) when arms are per
    annotator, else one chosen now among the annotator's own leases in the campaign (random, or balanced: the arm of
    fewest). The suggestion is the task type's for the arm's judge; None for blind, and when the judge does not exist
    or has no verdict on the unit. ("", None) outside experiments. GIVEN is the arm an earlier lease of the unit to
    the annotator was made in (an expired assignment row leased again): per unit, it stays.

    Call inside transaction.atomic with the unit row locked (the lease's own lock).
    """
    campaign = unit.campaign
    arms = campaign_arms(campaign)
    if not arms:
        return "", None
    arm = annotator_arm or (given if given in arms else "")
    if not arm:
        assignment, _ = arm_settings(campaign)
        counts = dict.fromkeys(arms, 0)
        for given, n in (Assignment.objects.filter(unit__campaign=campaign, annotator=annotator, arm__in=arms)
                         .exclude(unit=unit).values_list("arm").annotate(n=Count("pk"))):
            counts[given] = n
        arm = _pick(counts, balanced=assignment != "random")
    return arm, suggestion_for(unit=unit, arm=arm)


def suggestion_for(*, unit: Unit, arm: str) -> dict | None:
    """What ARM shows pre-selected on UNIT: None for blind, a missing judge, or a judge with no verdict on it."""
    name = arm_judge(arm)
    if name is None:
        return None
    judge = unit.campaign.judges.filter(name=name).first()  # judges.models.Judge, by its reverse relation
    if judge is None:
        return None
    return task_type_get(unit.campaign.task_type).suggestion(unit=unit, judge=judge)


def member_arm_set(*, campaign: Campaign, user, arm: str) -> Membership:
    """Put annotator USER in ARM (one of the campaign's arms; "" takes them out of any). Refused (ArmError) when the
    campaign runs no experiment, USER is not its annotator, or they have judged anything in the campaign already: an
    arm once judged in stays fixed, or the comparison would mix conditions. Opens its own transaction."""
    arms = campaign_arms(campaign)
    who = user.get_username()
    if not arms:
        raise ArmError("this campaign runs no assistance experiment: set the option arms first")
    if arm and arm not in arms:
        raise ArmError(f"{arm!r} is not an arm of this campaign; its arms are {', '.join(arms)}")
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        membership = (Membership.objects.select_for_update()
                      .filter(campaign=campaign, user=user, role=Role.ANNOTATOR).first())
        if membership is None:
            raise ArmError(f"{who} is not an annotator of this campaign; only annotators are put in arms")
        if membership.arm == arm:
            return membership
        judged = HumanJudgment.objects.filter(unit__campaign=campaign, annotator=user,
                                              kind=JudgmentKind.ANNOTATION).exists()
        if judged:
            raise ArmError(f"{who} has judged units of this campaign already, in the arm "
                           f"{arm_words(membership.arm) if membership.arm else 'none'}; an arm cannot change once "
                           "judged in, or the arms' figures would mix conditions")
        membership.arm = arm
        membership.save(update_fields=["arm"])
        # A unit they hold was leased in the arm they had: it goes back, to be leased again in the new one.
        Assignment.objects.filter(unit__campaign=campaign, annotator=user, status=AssignmentStatus.ACTIVE).update(
            status=AssignmentStatus.EXPIRED)
        campaign_data_changed(campaign_id=campaign.pk)  # the report lists the annotators' arms
    return membership

