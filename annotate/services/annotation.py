"""Human annotation: leasing units of work with exact overlap k, submitting and editing verdicts.

The overlap rule: a unit's taken slots are its recorded judgments (`Unit.judgments_done`, which
counts imported judgments too) plus the unexpired active leases on it; a lease is only granted,
and a first verdict only accepted, while taken slots stay below `Unit.judgments_needed`. Both
checks run with the unit row locked, so two annotators can never both take the last slot:
on PostgreSQL `select_for_update` serialises them per unit; on SQLite (no row locks) the
database's IMMEDIATE transaction mode serialises every writing transaction instead.
"""

import json
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from annotate.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    HumanJudgment,
    Item,
    JudgmentKind,
    JudgmentSource,
    TaskType,
    Unit,
)
from annotate.images import ImageMissingError, image_file
from annotate.selectors.annotation import assignment_held, units_open_to

# How many candidate units one lease attempt reads before locking them one by one; when all of
# them are taken by concurrent annotators meanwhile, the next batch is read.
CANDIDATE_BATCH = 25

# A draft is the page's own arrangement of a unit; anything larger than this is not one.
DRAFT_MAX_BYTES = 64 * 1024

# The label of a ranking judgment for agreement: the order itself lives in the value (docs/answer_ranking.md).
RANKED_LABEL = "ranked"


class JudgmentError(Exception):
    """A verdict that cannot be recorded; the message is shown to the annotator."""


class JudgmentValueError(JudgmentError):
    """The verdict itself is malformed (nothing was recorded); the annotator can fix it on the same unit."""


def unit_lease_next(*, campaign: Campaign, annotator) -> Assignment | None:
    """The unit ANNOTATOR should judge next in CAMPAIGN, leased to them; None when nothing is left.

    An unexpired active lease the annotator already holds is returned as it is, so reloading the
    page keeps the same unit. Otherwise stale leases of the campaign are expired (freeing their
    slots) and the first open unit by position is leased for settings.ANNOTATION_LEASE_SECONDS.
    A unit whose own earlier lease by this annotator expired may be leased to them again while
    its slot is free (the unique (unit, annotator) row is reactivated). Opens its own transaction.
    """
    held = assignment_held(campaign=campaign, annotator=annotator)
    if held is not None:
        return held
    with transaction.atomic():
        now = timezone.now()
        # Re-check inside the transaction: another tab of the same annotator may have leased meanwhile.
        held = assignment_held(campaign=campaign, annotator=annotator, now=now)
        if held is not None:
            return held
        _leases_expire(campaign=campaign, now=now)
        tried: set[int] = set()
        while True:
            candidates = list(
                units_open_to(campaign=campaign, annotator=annotator, now=now)
                .exclude(pk__in=tried)
                .order_by("position", "pk")
                .values_list("pk", flat=True)[:CANDIDATE_BATCH]
            )
            if not candidates:
                return None
            for unit_id in candidates:
                tried.add(unit_id)
                unit = _unit_lock(unit_id)
                if unit is None or not _slot_free(unit=unit, annotator=annotator, now=now):
                    continue
                return _assignment_grant(unit=unit, annotator=annotator, now=now)


def judgment_submit(*, assignment: Assignment, annotator, value: dict) -> HumanJudgment:
    """Record ANNOTATOR's verdict VALUE on the unit of ASSIGNMENT; returns the current judgment.

    A first verdict marks the assignment submitted and counts one more judgment on the unit.
    A verdict on an assignment the annotator already submitted is an edit: a new version,
    the count unchanged (see judgment_edit). A lease that expired is still accepted when its
    slot is free (nobody else took it meanwhile), and refused with JudgmentError when it was
    taken, so a unit never gets k+1 judgments. A unit the annotator cannot see whole (an image not
    imported yet) is refused, see check_unit_gradable. Opens its own transaction and locks the unit.
    """
    if assignment.annotator_id != annotator.pk:
        raise JudgmentError("This answer is leased to another annotator.")
    campaign = assignment.unit.campaign
    label = judgment_value_check(task_type=campaign.task_type, value=value, unit=assignment.unit)
    check_unit_gradable(unit=assignment.unit)
    with transaction.atomic():
        now = timezone.now()
        unit = Unit.objects.select_for_update().get(pk=assignment.unit_id)
        current = _judgment_current(unit=unit, annotator=annotator, lock=True)
        if current is not None:
            return _judgment_version_add(current=current, value=value, label=label)
        assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if not _slot_free(unit=unit, annotator=annotator, now=now):
            expired = assignment.status == AssignmentStatus.EXPIRED or assignment.expires_at <= now
            if expired:
                raise JudgmentError(
                    "Your time on this answer ran out and another annotator has taken it; your verdict was not saved."
                )
            raise JudgmentError("This answer already has all the judgments it needs; your verdict was not saved.")
        judgment = HumanJudgment.objects.create(
            unit=unit, annotator=annotator, assignment=assignment, kind=JudgmentKind.ANNOTATION,
            source=JudgmentSource.WEB, value=value, label=label, version=1, is_current=True,
        )
        assignment.status = AssignmentStatus.SUBMITTED
        assignment.submitted_at = now
        assignment.draft = None  # the judgment now holds the work; a stale draft must not shadow it
        assignment.save(update_fields=["status", "submitted_at", "draft"])
        Unit.objects.filter(pk=unit.pk).update(judgments_done=F("judgments_done") + 1)
    return judgment


def judgment_edit(*, judgment: HumanJudgment, annotator, value: dict) -> HumanJudgment:
    """Change ANNOTATOR's current verdict JUDGMENT to VALUE: a new version becomes current, the old row stays.

    The unit's count does not move (the same person, the same slot). Setting the value it
    already has records nothing new and returns JUDGMENT. Opens its own transaction and locks
    the unit, then the current judgment row.
    """
    if judgment.annotator_id != annotator.pk:
        raise JudgmentError("You can only change your own verdicts.")
    label = judgment_value_check(task_type=judgment.unit.campaign.task_type, value=value, unit=judgment.unit)
    check_unit_gradable(unit=judgment.unit)
    with transaction.atomic():
        unit = Unit.objects.select_for_update().get(pk=judgment.unit_id)
        current = _judgment_current(unit=unit, annotator=annotator, lock=True)
        if current is None or current.pk != judgment.pk:
            raise JudgmentError("That verdict has been changed since; reload the page.")
        return _judgment_version_add(current=current, value=value, label=label)


def judgment_value_check(*, task_type: str, value, unit: Unit | None = None) -> str:
    """Validate VALUE for TASK_TYPE and return its label for agreement; JudgmentValueError when it is malformed.

    Task types whose value depends on the unit (answer_ranking: the topic's candidates and the
    campaign's dimensions and ties option) need UNIT.
    """
    if task_type == TaskType.QA_CORRECTNESS:
        if not isinstance(value, dict) or set(value) != {"correct"} or not isinstance(value["correct"], bool):
            raise JudgmentValueError('A QA verdict is {"correct": true} or {"correct": false}.')
        return "yes" if value["correct"] else "no"
    if task_type == TaskType.AIS:
        return _ais_check(value)
    if task_type == TaskType.IMAGE_RELEVANCE:
        return _image_grade_check(value)
    if task_type == TaskType.ANSWER_RANKING:
        if unit is None:
            raise JudgmentValueError("A ranking can only be checked against its topic.")
        _ranking_check(value=value, unit=unit)
        return RANKED_LABEL
    raise JudgmentValueError(f"Judging {task_type} units in the browser is not available yet.")


def ais_value_from_answers(*, interpretable: str | None, supported: str | None) -> dict:
    """The AIS value for the form's answers: each "yes" or "no", SUPPORTED absent (None or "") when not asked.

    Only the words are translated here; which answers go together is judged by judgment_value_check
    (through _ais_check), so a form post and a stored value are refused with the same messages.
    Anything but yes/no is passed on as it is, to be refused there.
    """
    return {"interpretable": _yes_no(interpretable), "supported": _yes_no(supported) if supported else None}


def _yes_no(answer):
    return {"yes": True, "no": False}.get(answer, answer)


def _ais_check(value) -> str:
    """Check an AIS value, {"interpretable": bool, "supported": bool | None}, and return its label.

    Support is only asked of an answer the rater could interpret (the two questions of AIS,
    Rashkin et al.): supported is a bool when interpretable is true and null when it is false.
    The label is "yes" for attributable (interpretable and supported), "no" otherwise.
    """
    if not isinstance(value, dict) or set(value) != {"interpretable", "supported"}:
        raise JudgmentValueError(
            'An AIS verdict is {"interpretable": true or false, "supported": true or false, '
            'or null when not interpretable}.'
        )
    interpretable, supported = value["interpretable"], value["supported"]
    if not isinstance(interpretable, bool):
        raise JudgmentValueError("Say whether the answer is interpretable: yes or no.")
    if interpretable and not isinstance(supported, bool):
        raise JudgmentValueError("You found the answer interpretable: say whether the passage supports it, yes or no.")
    if not interpretable and supported is not None:
        raise JudgmentValueError(
            "You found the answer not interpretable, so it is not judged for support: leave that question unanswered."
        )
    return "yes" if interpretable and supported else "no"


# The three grades of image_relevance (TREC AToMiC, Yang & Lin 2024); the label is the grade as a digit.
IMAGE_GRADES = {0: "Non-relevant", 1: "Related", 2: "Relevant"}


def image_grade_value(*, grade: str | None) -> dict:
    """The image_relevance value for the form's GRADE, "0", "1" or "2".

    Only the digits are translated; anything else is passed on as it is, so judgment_value_check
    (through _image_grade_check) refuses a form post and a stored value with the same messages.
    """
    return {"grade": int(grade) if grade in ("0", "1", "2") else grade}


def _image_grade_check(value) -> str:
    """Check an image_relevance value, {"grade": 0 | 1 | 2}, and return its label "0", "1" or "2"."""
    if not isinstance(value, dict) or set(value) != {"grade"}:
        raise JudgmentValueError('An image grade is {"grade": 0, 1 or 2}.')
    grade = value["grade"]
    if grade is None or grade == "":
        raise JudgmentValueError("Choose a grade: 0 non-relevant, 1 related or 2 relevant.")
    # bool is an int in Python, and "2" is not 2: a grade is exactly one of the three integers.
    if isinstance(grade, bool):
        raise JudgmentValueError("A grade is 0, 1 or 2, not true or false.")
    if not isinstance(grade, int):
        raise JudgmentValueError("A grade is one of the whole numbers 0, 1 or 2 (not text or a fraction).")
    if grade not in IMAGE_GRADES:
        raise JudgmentValueError(f"There is no grade {grade}: choose 0 non-relevant, 1 related or 2 relevant.")
    return str(grade)


def check_unit_gradable(*, unit: Unit) -> None:
    """Refuse (JudgmentValueError) a verdict made in the browser on a unit whose content the annotator cannot see.

    image_relevance: the item's image file must be there; an image named but not imported yet is
    shown as missing, and no grade may be recorded for it. Imported judgments do not come this way.
    """
    if unit.campaign.task_type != TaskType.IMAGE_RELEVANCE:
        return
    try:
        image_file(unit.item.data if unit.item_id else {}, key="image")
    except ImageMissingError:
        raise JudgmentValueError(
            "This image is missing (not imported yet), so it cannot be graded. Tell the campaign's researcher."
        ) from None


def ranking_dimensions(campaign: Campaign) -> list[str]:
    """The dimensions a ranking of CAMPAIGN covers, in the campaign's order; ["overall"] unless it lists some."""
    dimensions = (campaign.options or {}).get("dimensions") or ["overall"]
    return [str(name) for name in dimensions]


def _ranking_check(*, value, unit: Unit) -> None:
    """Check a ranking value against docs/answer_ranking.md: {"rankings": {dimension: [[item_pk, ...], ...]}}.

    Exactly the campaign's dimensions; per dimension every candidate Item of the unit's topic
    exactly once, best group first; groups of more than one only when the campaign allows ties.
    """
    campaign = unit.campaign
    if not isinstance(value, dict) or set(value) != {"rankings"} or not isinstance(value["rankings"], dict):
        raise JudgmentValueError('A ranking is {"rankings": {dimension: [[candidate, ...], ...]}}.')
    rankings = value["rankings"]
    dimensions = ranking_dimensions(campaign)
    missing_dims = [name for name in dimensions if name not in rankings]
    unknown_dims = sorted(str(name) for name in rankings if name not in dimensions)
    if unknown_dims:
        raise JudgmentValueError(f"This campaign does not rank by {', '.join(unknown_dims)}; "
                                 f"it ranks by {', '.join(dimensions)}.")
    if missing_dims:
        verb = "is" if len(missing_dims) == 1 else "are"
        raise JudgmentValueError(f"Rank by every dimension: {', '.join(missing_dims)} {verb} missing.")
    candidates = set(
        Item.objects.filter(topic_id=unit.topic_id, campaign_id=unit.campaign_id).values_list("pk", flat=True)
    )
    ties = bool((campaign.options or {}).get("ties"))
    for name in dimensions:
        where = f"{name.replace('_', ' ').capitalize()} — " if len(dimensions) > 1 else ""
        groups = rankings[name]
        if not isinstance(groups, list) or not all(isinstance(group, list) and group for group in groups):
            raise JudgmentValueError(
                _sentence(f"{where}a ranking is a list of non-empty groups of candidates, best first.")
            )
        seen: set[int] = set()
        twice = unknown = 0
        for group in groups:
            if len(group) > 1 and not ties:
                raise JudgmentValueError(
                    _sentence(f"{where}ties are not allowed in this campaign: give each candidate its own place.")
                )
            for pk in group:
                # bool is an int in Python; true/false are not candidate ids.
                if isinstance(pk, bool) or not isinstance(pk, int) or pk not in candidates:
                    unknown += 1
                elif pk in seen:
                    twice += 1
                else:
                    seen.add(pk)
        if unknown:
            what = "ranked id is not a candidate" if unknown == 1 else "ranked ids are not candidates"
            raise JudgmentValueError(_sentence(f"{where}{unknown} {what} of this topic."))
        if twice:
            raise JudgmentValueError(_sentence(f"{where}place each candidate once: {_count(twice)} placed twice."))
        left_out = len(candidates - seen)
        if left_out:
            raise JudgmentValueError(_sentence(f"{where}place every candidate: {_count(left_out, 'missing')}."))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _count(n: int, adjective: str = "") -> str:
    """The counts in ranking errors read as sentences: 1 is (missing), 2 are (missing)."""
    verb = "is" if n == 1 else "are"
    return f"{n} {verb} {adjective}".rstrip()


def assignment_draft_save(*, assignment: Assignment, annotator, draft: dict) -> None:
    """Keep DRAFT, ANNOTATOR's unsubmitted arrangement of ASSIGNMENT's unit, for the next page load.

    A draft is not a judgment: it takes no slot, is not validated beyond its shape and size, and
    is refused (JudgmentError) once the assignment is submitted, when edits go through judgment_edit.
    The write is one conditional UPDATE, so a draft racing a submit never lands on a submitted row.
    """
    if assignment.annotator_id != annotator.pk:
        raise JudgmentError("This unit is leased to another annotator.")
    if not isinstance(draft, dict):
        raise JudgmentValueError("A draft is a JSON object.")
    if len(json.dumps(draft)) > DRAFT_MAX_BYTES:
        raise JudgmentValueError("This draft is too large to keep.")
    saved = (
        Assignment.objects.filter(pk=assignment.pk, annotator=annotator)
        .exclude(status=AssignmentStatus.SUBMITTED)
        .update(draft=draft)
    )
    if not saved:
        raise JudgmentError("This unit is already submitted; submit again to change it.")


def _leases_expire(*, campaign: Campaign, now) -> int:
    """Mark the campaign's active leases that ran out as expired, freeing their slots. Returns how many.

    Call inside transaction.atomic. On PostgreSQL the stale rows are locked in id order and rows
    another transaction already holds are skipped (that one is expiring or submitting them), so two
    annotators expiring overlapping sets never wait on each other or deadlock.
    """
    stale = Assignment.objects.filter(
        unit__campaign=campaign, status=AssignmentStatus.ACTIVE, expires_at__lte=now
    ).order_by("pk")
    if connection.features.has_select_for_update_skip_locked and connection.features.has_select_for_update_of:
        stale = stale.select_for_update(skip_locked=True, of=("self",))
    ids = list(stale.values_list("pk", flat=True))
    return Assignment.objects.filter(pk__in=ids).update(status=AssignmentStatus.EXPIRED) if ids else 0


def _unit_lock(unit_id: int) -> Unit | None:
    """Lock the unit row; None when a concurrent transaction holds it (PostgreSQL skips it instead of waiting).

    Call inside transaction.atomic.
    """
    queryset = Unit.objects.filter(pk=unit_id)
    if connection.features.has_select_for_update_skip_locked:
        queryset = queryset.select_for_update(skip_locked=True)
    else:
        queryset = queryset.select_for_update()
    return queryset.first()


def _slot_free(*, unit: Unit, annotator, now) -> bool:
    """Whether ANNOTATOR may take a slot on UNIT: not judged by them, and taken slots below k.

    Call inside transaction.atomic with the unit row locked: every lease and every first
    verdict on the unit is written under that lock, so the counts read here cannot move.
    `unit` must be the row as read under the lock (its judgments_done is current).
    """
    if HumanJudgment.objects.filter(unit=unit, annotator=annotator, kind=JudgmentKind.ANNOTATION).exists():
        return False
    others_active = (
        Assignment.objects.filter(unit=unit, status=AssignmentStatus.ACTIVE, expires_at__gt=now)
        .exclude(annotator=annotator)
        .count()
    )
    return unit.judgments_done + others_active < unit.judgments_needed


def _assignment_grant(*, unit: Unit, annotator, now) -> Assignment:
    """Lease UNIT to ANNOTATOR, reusing their expired assignment row if there is one.

    Call inside transaction.atomic with the unit row locked and _slot_free checked.
    """
    expires_at = now + timedelta(seconds=settings.ANNOTATION_LEASE_SECONDS)
    assignment, created = Assignment.objects.get_or_create(
        unit=unit, annotator=annotator, defaults={"leased_at": now, "expires_at": expires_at}
    )
    if not created:
        assignment.status = AssignmentStatus.ACTIVE
        assignment.leased_at = now
        assignment.expires_at = expires_at
        assignment.submitted_at = None
        assignment.save(update_fields=["status", "leased_at", "expires_at", "submitted_at"])
    return assignment


def _judgment_current(*, unit: Unit, annotator, lock: bool) -> HumanJudgment | None:
    queryset = HumanJudgment.objects.filter(unit=unit, annotator=annotator, kind=JudgmentKind.ANNOTATION, is_current=True)
    if lock:
        queryset = queryset.select_for_update()
    return queryset.first()


def _judgment_version_add(*, current: HumanJudgment, value: dict, label: str) -> HumanJudgment:
    """Make a new current version after CURRENT. Call inside transaction.atomic with CURRENT locked."""
    if current.value == value:
        # A repeated key press or a resent request: nothing changed, so no new version.
        return current
    current.is_current = False
    current.save(update_fields=["is_current"])
    return HumanJudgment.objects.create(
        unit_id=current.unit_id, annotator_id=current.annotator_id, assignment_id=current.assignment_id,
        kind=current.kind, source=JudgmentSource.WEB, value=value, label=label,
        version=current.version + 1, is_current=True,
    )
