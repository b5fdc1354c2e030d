"""Human annotation: leasing units of work with exact overlap k, submitting and editing verdicts.

The overlap rule: a unit's taken slots are its recorded judgments (`Unit.judgments_done`, which
counts imported judgments too) plus the unexpired active leases on it; a lease is only granted,
and a first verdict only accepted, while taken slots stay below `Unit.judgments_needed`. Both
checks run with the unit row locked, so two annotators can never both take the last slot:
on PostgreSQL `select_for_update` serialises them per unit; on SQLite (no row locks) the
database's IMMEDIATE transaction mode serialises every writing transaction instead.
"""

import json
import re
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.db.models import Count, Exists, F, FilteredRelation, IntegerField, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotate.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    HumanJudgment,
    JudgmentKind,
    JudgmentSource,
    Unit,
)
from annotate.precompiled import Precompiled
from annotate.selectors.annotation import (
    assignment_held,
    own_known,
    page_columns_of,
    progress_columns,
    progress_known,
    units_open_to,
)
from annotate.selectors.campaigns import guidelines_current_of
from annotate.services.arms import annotator_arm_ensure, annotator_arm_given, campaign_arms, lease_arm
from annotate.services.data_version import campaign_data_changed
from annotate.task_types.registry import UnknownTaskType, task_type_get
from annotate.task_types.spec import JudgmentError, JudgmentValueError
from annotate.writes import written_together

# How many candidate units one lease attempt reads before locking them one by one; when all of
# them are taken by concurrent annotators meanwhile, the next batch is read.
CANDIDATE_BATCH = 25
# How many times a lease looks again after finding only units that concurrent transactions held (unit_lease_next).
BUSY_RETRIES = 20

# A draft is the page's own arrangement of a unit; anything larger than this is not one.
DRAFT_MAX_BYTES = 64 * 1024


class DraftSuperseded(JudgmentError):
    """A draft for a unit its annotator has submitted: the judgment holds the work now, so the draft is not kept. A
    page's own draft can arrive after its submit (the requests race), so this is a conflict, not a bad draft."""


class JudgmentStale(JudgmentError):
    """The verdict was made on a view of the unit that is out of date: since it was shown, the annotator's verdict on
    the unit was given or changed elsewhere (another tab or window) to something else. Nothing was recorded; CURRENT
    is that newer judgment, for the page to offer the choice between the two."""

    def __init__(self, message: str, *, current: HumanJudgment):
        super().__init__(message)
        self.current = current


class _Unchecked:
    """The shown_version of a caller that does not say which judgment its verdict was made on (a script, a test)."""

    def __repr__(self):
        return "UNCHECKED"


UNCHECKED = _Unchecked()

# A submission id is made by the page, one per verdict the annotator gives, and sent again with every resend of it.
SUBMISSION_ID = re.compile(r"[A-Za-z0-9-]{8,64}")


def unit_lease_next(*, campaign: Campaign, annotator, look_first: bool = True) -> Assignment | None:
    """The unit ANNOTATOR should judge next in CAMPAIGN, leased to them; None when nothing is left.

    An unexpired active lease the annotator already holds is returned as it is, so reloading the
    page keeps the same unit. Otherwise stale leases of the campaign are expired (freeing their
    slots) and the first open unit by position is leased for settings.ANNOTATION_LEASE_SECONDS.
    A unit whose own earlier lease by this annotator expired may be leased to them again while
    its slot is free (the unique (unit, annotator) row is reactivated). Opens its own transaction.

    LOOK_FIRST=False skips the look for a held lease before the transaction (the one inside it is enough): for a
    caller that is about to write anyway, a submit leasing the next unit.

    In an assistance experiment the lease is made in an arm, with the arm's suggestion (annotate.services.arms);
    an annotator whom only the researcher can put in an arm, and who has none yet, gets ArmNotGiven.
    """
    if look_first and (held := assignment_held(campaign=campaign, annotator=annotator)) is not None:
        return held
    for _ in range(BUSY_RETRIES):
        with transaction.atomic():
            now = timezone.now()
            # Re-check inside the transaction: another tab of the same annotator may have leased meanwhile.
            held = assignment_held(campaign=campaign, annotator=annotator, now=now)
            if held is not None:
                return held
            _leases_expire_now_and_then(campaign=campaign, now=now)
            # Before any unit is locked (the lock order is campaign, then units): an annotator's arm, given at their
            # first lease while anything is open to them.
            annotator_arm, arm_given = "", False
            if campaign_arms(campaign):
                annotator_arm = annotator_arm_given(campaign=campaign, annotator=annotator)
                if not annotator_arm and units_open_to(campaign=campaign, annotator=annotator, now=now).exists():
                    annotator_arm, arm_given = annotator_arm_ensure(campaign=campaign, annotator=annotator)
            assignment, busy = _lease_first_open(campaign=campaign, annotator=annotator, now=now,
                                                 annotator_arm=annotator_arm)
            if arm_given:
                # The report lists the annotators' arms (reports.arms); a lease otherwise changes nothing it reads.
                campaign_data_changed(campaign_id=campaign.pk)
            if assignment is not None or not busy:
                return assignment
        # Every unit still open to the annotator was held by another transaction (a lease, or a verdict being
        # written): once that commits, the unit may still have a slot for them. Wait for those transactions to end,
        # holding no lock, then look again; "nothing left" is only said of units seen as they are.
        _units_wait(busy)
    return None


def _lease_first_open(*, campaign: Campaign, annotator, now, annotator_arm: str) -> tuple[Assignment | None, list[int]]:
    """Lease ANNOTATOR the first unit open to them by position: (the assignment, []); (None, []) when none is; (None,
    the units skipped) when the only ones left were held by concurrent transactions (PostgreSQL skips a locked unit
    rather than wait for it, so that annotators do not queue behind each other). Call inside transaction.atomic.

    The usual case is one query: the first open unit that no transaction holds, locked as it is read (with its topic
    and item, for the page), its slot then checked by _lease_state. Should that slot be gone, or no unit be free of
    locks, candidates are read in batches and locked one by one, which tells the units held by others apart."""
    tried: set[int] = set()
    busy: list[int] = []
    first = _FIRST_OPEN_LOCKED(campaign=campaign.pk, annotator=annotator.pk, now=now)
    candidates = [first[0]] if first else []
    while True:
        if not candidates:
            candidates = list(
                units_open_to(campaign=campaign, annotator=annotator, now=now)
                .exclude(pk__in=tried)
                .order_by("position", "pk")
                .values_list("pk", flat=True)[:CANDIDATE_BATCH]
            )
            if not candidates:
                return None, busy
        for candidate in candidates:
            unit = candidate if isinstance(candidate, Unit) else _unit_lock(candidate)
            tried.add(unit.pk if unit is not None else candidate)
            if unit is None:
                busy.append(candidate)
                continue
            state = _lease_state(unit=unit, annotator=annotator, now=now, task_type=campaign.task_type)
            if not state.slot_free(unit):
                continue
            unit.campaign = campaign  # the lease's arm reads it: no second read of the campaign row
            granted = _assignment_grant(unit=unit, annotator=annotator, now=now, mine=state.mine,
                                        annotator_arm=annotator_arm)
            if state.page:
                task_type_get(campaign.task_type).page_columns_read(unit, state.page)
            return progress_known(granted, state.progress) if state.progress else granted, []
        candidates = []


def _lock_skipping() -> dict:
    """select_for_update's arguments for a lock that skips rows other transactions hold (PostgreSQL; SQLite has no
    row locks: its IMMEDIATE transactions serialise the writers) and locks only the unit, not its topic and item."""
    lock: dict = {"skip_locked": True} if connection.features.has_select_for_update_skip_locked else {}
    if connection.features.has_select_for_update_of:
        lock["of"] = ("self",)
    return lock


# The first open unit no other transaction holds, locked, with its topic and item: the one nearly every lease takes.
_FIRST_OPEN_LOCKED = Precompiled(lambda campaign, annotator, now: (
    units_open_to(campaign=campaign, annotator=annotator, now=now).order_by("position", "pk")
    .select_related("topic", "item").select_for_update(**_lock_skipping())[:1]
))


def _units_wait(unit_ids: list[int]) -> None:
    """Wait until no transaction holds the units UNIT_IDS, one at a time, each in a transaction of its own that holds
    nothing else (so that waiting can never close a cycle of locks)."""
    for unit_id in unit_ids:
        with transaction.atomic():
            list(Unit.objects.select_for_update().filter(pk=unit_id).values_list("pk", flat=True))


def judgment_submit(
    *, assignment: Assignment, annotator, value: dict, shown_version: "int | None | _Unchecked" = UNCHECKED,
    submission: str = "",
) -> HumanJudgment:
    """Record ANNOTATOR's verdict VALUE on the unit of ASSIGNMENT; returns the current judgment.

    A first verdict marks the assignment submitted and counts one more judgment on the unit.
    A verdict on an assignment the annotator already submitted is an edit: a new version,
    the count unchanged (see judgment_edit). A lease that expired is still accepted when its
    slot is free (nobody else took it meanwhile), and refused with JudgmentError when it was
    taken, so a unit never gets k+1 judgments. A unit the annotator cannot see whole (an image not
    imported yet) is refused, see check_unit_gradable. Opens its own transaction and locks the unit.

    SHOWN_VERSION is the version of the annotator's current judgment of the unit that the page making this verdict
    was shown with (None: it was shown unjudged). When the current judgment is another version by now and says
    something else than VALUE (another tab judged the unit meanwhile), nothing is recorded and JudgmentStale is
    raised, so a stale view never silently overwrites a newer verdict; the same value is simply kept.
    SUBMISSION, the page's own id for this verdict (SUBMISSION_ID), makes a resend harmless: a submission this
    assignment has already recorded returns the current judgment and records nothing, even after other changes.
    """
    if assignment.annotator_id != annotator.pk:
        raise JudgmentError("This answer is leased to another annotator.")
    if submission and not SUBMISSION_ID.fullmatch(submission):
        raise JudgmentValueError("This verdict came with a malformed submission id; reload the page and try again.")
    campaign = assignment.unit.campaign
    label = judgment_value_check(task_type=campaign.task_type, value=value, unit=assignment.unit)
    check_unit_gradable(unit=assignment.unit)
    with transaction.atomic():
        now = timezone.now()
        (unit,) = _UNIT_LOCKED(unit=assignment.unit_id)
        state = _verdict_state(unit=unit, annotator=annotator, now=now)
        current = state.current
        if current is not None:
            if submission and _submission_recorded(unit=unit, annotator=annotator, submission=submission):
                # A resend of a verdict already recorded whose answer never reached the page.
                return current
            if (current.value != value and shown_version is not UNCHECKED
                    and shown_version != current.version):
                raise JudgmentStale(
                    "Since this page was shown, this was judged differently in another tab or window; "
                    "nothing was changed.", current=current)
            return _judgment_version_add(unit=unit, current=current, value=value, label=label, submission=submission,
                                         guidelines_id=state.guidelines_id)
        assignment = state.mine or assignment  # as it is now, under the lock (the one row of unit and annotator)
        if not state.slot_free(unit):
            expired = assignment.status == AssignmentStatus.EXPIRED or assignment.expires_at <= now
            if expired:
                raise JudgmentError(
                    "Your time on this answer ran out and another annotator has taken it; your verdict was not saved."
                )
            raise JudgmentError("This answer already has all the judgments it needs; your verdict was not saved.")
        judgment = HumanJudgment(
            unit=unit, annotator=annotator, assignment=assignment, kind=JudgmentKind.ANNOTATION,
            source=JudgmentSource.WEB, value=value, label=label, version=1, is_current=True,
            guidelines_id=state.guidelines_id, submission=submission,
            # The condition it was made under, and how long it took from the lease (the arms report's time).
            arm=assignment.arm, suggestion=assignment.suggestion,
            seconds=max(0.0, (now - assignment.leased_at).total_seconds()) if assignment.leased_at else None,
        )
        assignment.status = AssignmentStatus.SUBMITTED
        assignment.submitted_at = now
        assignment.draft = None  # the judgment now holds the work; a stale draft must not shadow it
        # One statement on PostgreSQL (annotate.writes): the judgment, its assignment, the unit's count, the version.
        written_together(created=judgment, campaign_id=unit.campaign_id, updates=[
            (Assignment.objects.filter(pk=assignment.pk), {"status": assignment.status, "submitted_at": now,
                                                           "draft": None}),
            (Unit.objects.filter(pk=unit.pk), {"judgments_done": F("judgments_done") + 1}),
        ])
    return judgment


def _submission_recorded(*, unit: Unit, annotator, submission: str) -> bool:
    """Whether a version of ANNOTATOR's judgment of UNIT was made by SUBMISSION (rolled-back ones never were). Call
    inside transaction.atomic with the unit row locked."""
    return HumanJudgment.objects.filter(unit=unit, annotator=annotator, submission=submission).exists()


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
        (unit,) = _UNIT_LOCKED(unit=judgment.unit_id)
        state = _verdict_state(unit=unit, annotator=annotator, now=timezone.now())
        current = state.current
        if current is None or current.pk != judgment.pk:
            raise JudgmentError("That verdict has been changed since; reload the page.")
        return _judgment_version_add(unit=unit, current=current, value=value, label=label,
                                     guidelines_id=state.guidelines_id)


def judgment_value_check(*, task_type: str, value, unit: Unit | None = None) -> str:
    """Validate VALUE for TASK_TYPE and return its label for agreement; JudgmentValueError when it is malformed.

    The check is the task type's own (annotate.task_types); task types whose value depends on the unit
    (answer_ranking: the topic's candidates and the campaign's dimensions and ties option) need UNIT.
    """
    try:
        spec = task_type_get(task_type)
    except UnknownTaskType as exc:
        raise JudgmentValueError(str(exc)) from None
    return spec.value_check(value, unit=unit)


def check_unit_gradable(*, unit: Unit) -> None:
    """Refuse (JudgmentValueError) a verdict made in the browser on a unit whose content the annotator cannot see
    (the task type's unit_gradable; image_relevance: an image named but not imported yet). Imported judgments do
    not come this way."""
    task_type_get(unit.campaign.task_type).unit_gradable(unit)


def assignment_draft_save(*, assignment: Assignment, annotator, draft: dict) -> None:
    """Keep DRAFT, ANNOTATOR's unsubmitted arrangement of ASSIGNMENT's unit, for the next page load.

    A draft is not a judgment: it takes no slot, is not validated beyond its shape and size, and
    is refused (DraftSuperseded) once the assignment is submitted, when edits go through judgment_edit.
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
        raise DraftSuperseded("This unit is already submitted, so its draft was not kept; submit again to change it.")


def _leases_expire_now_and_then(*, campaign: Campaign, now) -> None:
    """_leases_expire, at most once every settings.LEASE_EXPIRY_INTERVAL seconds a campaign (0: every time). An
    expired lease's status is bookkeeping: every check of a slot counts only unexpired active leases (expires_at),
    so a lease that ran out frees its slot the moment it runs out, marked expired or not. Call inside
    transaction.atomic."""
    interval = settings.LEASE_EXPIRY_INTERVAL
    if interval <= 0 or cache.add(f"concord:leases-expired:{campaign.pk}", True, timeout=interval):
        _leases_expire(campaign=campaign, now=now)


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
    """Lock the unit row; None when a concurrent transaction holds it (PostgreSQL skips it instead of waiting). Its
    topic and item come in the same query, for the page that shows the lease, and are not locked.

    Call inside transaction.atomic.
    """
    return Unit.objects.filter(pk=unit_id).select_related("topic", "item").select_for_update(**_lock_skipping()).first()


@dataclass(frozen=True)
class _UnitState:
    """What a lease or a verdict needs to know of a unit and one annotator, read in one query under the unit's lock
    (after it: a query that waits for a row lock would see its subqueries as of before the wait)."""

    judged: bool  # the annotator has judged the unit (an annotation, any version)
    others_active: int  # other annotators' unexpired active leases on it
    current: HumanJudgment | None = None  # a verdict's: the annotator's current annotation of it
    guidelines_id: int | None = None  # a verdict's: the campaign's current guidelines
    mine: Assignment | None = None  # the annotator's assignment row of the unit, should they have one
    progress: tuple[int, int] | None = None  # a lease's: the annotator's progress counts (progress_columns)
    page: dict | None = None  # a lease's: the task type's page columns (TaskTypeSpec.page_columns)

    def slot_free(self, unit: Unit) -> bool:
        """Whether the annotator may take a slot on UNIT (read under the lock): not judged by them, and taken
        slots below k."""
        return not self.judged and unit.judgments_done + self.others_active < unit.judgments_needed


def _slot_columns(unit, annotator, now) -> list:
    """_UnitState's first two columns, of UNIT for ANNOTATOR at NOW."""
    judged = HumanJudgment.objects.filter(unit=unit, annotator=annotator, kind=JudgmentKind.ANNOTATION)
    others_active = (
        Assignment.objects.filter(unit=unit, status=AssignmentStatus.ACTIVE, expires_at__gt=now)
        .exclude(annotator=annotator)
        .values("unit")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return [Exists(judged), Coalesce(Subquery(others_active, output_field=IntegerField()), Value(0))]


_JUDGMENT_FIELDS = [field.attname for field in HumanJudgment._meta.concrete_fields]
_ASSIGNMENT_FIELDS = [field.attname for field in Assignment._meta.concrete_fields]
# The unit's rows of the annotator's joined to it, by these names: their assignment row (one at most:
# assignment_one_per_annotator) and their current annotation (one at most: judgment_one_current).
_MINE, _CURRENT = "mine_joined", "current_joined"


def _unit_with_mine(unit, annotator, *, current: bool = False):
    """Unit UNIT (one row) with ANNOTATOR's assignment row of it joined (_MINE; with CURRENT their current annotation
    too, _CURRENT), NULLs where there is none. Joined once, not a subquery a field: each such subquery looked the
    annotator's row up again (16 look-ups of the judgment for one row), and an annotator the planner's statistics
    have not seen yet had each look-up read all their judgments."""
    joined = {_MINE: FilteredRelation("assignments", condition=Q(assignments__annotator=annotator))}
    if current:
        joined[_CURRENT] = FilteredRelation("judgments", condition=Q(
            judgments__annotator=annotator, judgments__kind=JudgmentKind.ANNOTATION, judgments__is_current=True))
    return Unit.objects.filter(pk=unit).annotate(**joined)


def _joined_fields(name: str, fields: list[str]) -> list[str]:
    return [f"{name}__{field}" for field in fields]


_VERDICT_STATE = Precompiled(lambda unit, annotator, now: _unit_with_mine(unit, annotator, current=True).values_list(
    *_slot_columns(unit, annotator, now), Subquery(guidelines_current_of(unit)[:1]),
    *_joined_fields(_MINE, _ASSIGNMENT_FIELDS), *_joined_fields(_CURRENT, _JUDGMENT_FIELDS)))
# A lease's state brings the annotator's progress, which the page that shows the lease reads (the lease changes
# neither count: the unit leased stays open to them).
_LEASE_STATE = Precompiled(lambda task_type, unit, annotator, now, campaign: _unit_with_mine(
    unit, annotator).values_list(
    *_slot_columns(unit, annotator, now), *_joined_fields(_MINE, _ASSIGNMENT_FIELDS),
    *progress_columns(campaign=campaign, annotator=annotator, now=now).values(),
    *page_columns_of(task_type, unit_path="", campaign=campaign, annotator=annotator, now=now).values()),
    variants=True)


def _verdict_state(*, unit: Unit, annotator, now) -> _UnitState:
    """_UnitState of UNIT for a verdict of ANNOTATOR's. Call inside transaction.atomic with the unit row locked."""
    ((judged, others, guidelines_id, *rest),) = _VERDICT_STATE(unit=unit.pk, annotator=annotator.pk, now=now)
    mine, current = rest[:len(_ASSIGNMENT_FIELDS)], rest[len(_ASSIGNMENT_FIELDS):]
    return _UnitState(judged=bool(judged), others_active=others, guidelines_id=guidelines_id,
                      mine=_row_instance(Assignment, _ASSIGNMENT_FIELDS, mine),
                      current=_row_instance(HumanJudgment, _JUDGMENT_FIELDS, current))


def _lease_state(*, unit: Unit, annotator, now, task_type: str) -> _UnitState:
    """_UnitState of UNIT for a lease to ANNOTATOR, with their progress and the task type's page columns. Call inside
    transaction.atomic with the unit row locked."""
    ((judged, others, *rest),) = _LEASE_STATE(variant=task_type, unit=unit.pk, annotator=annotator.pk, now=now,
                                              campaign=unit.campaign_id)
    fields = len(_ASSIGNMENT_FIELDS)
    mine, (done, remaining), page = rest[:fields], rest[fields:fields + 2], rest[fields + 2:]
    return _UnitState(judged=bool(judged), others_active=others, progress=(done, remaining),
                      page=dict(zip(task_type_get(task_type).page_column_names, page, strict=True)),
                      mine=_row_instance(Assignment, _ASSIGNMENT_FIELDS, mine))


def _row_instance(model, fields: list[str], values: list):
    """The MODEL instance whose FIELDS are VALUES, as read from the database; None when there was no row (no id)."""
    return model.from_db(DEFAULT_DB_ALIAS, fields, values) if values[0] is not None else None


def _assignment_grant(*, unit: Unit, annotator, now, mine: Assignment | None, annotator_arm: str = "") -> Assignment:
    """Lease UNIT to ANNOTATOR, reusing their expired assignment row if there is one, in its assistance arm
    (ANNOTATOR_ARM when arms are per annotator) with the arm's suggestion fixed now. MINE is that expired row, as
    _lease_state read it.

    Call inside transaction.atomic with the unit row locked and the slot found free.
    """
    expires_at = now + timedelta(seconds=settings.ANNOTATION_LEASE_SECONDS)
    existing = mine
    arm, suggestion = lease_arm(unit=unit, annotator=annotator, annotator_arm=annotator_arm,
                                given=existing.arm if existing else "")
    if existing is None:
        return own_known(Assignment.objects.create(unit=unit, annotator=annotator, leased_at=now,
                                                   expires_at=expires_at, arm=arm, suggestion=suggestion), None)
    existing.status = AssignmentStatus.ACTIVE
    existing.leased_at = now
    existing.expires_at = expires_at
    existing.submitted_at = None
    existing.arm, existing.suggestion = arm, suggestion
    existing.save(update_fields=["status", "leased_at", "expires_at", "submitted_at", "arm", "suggestion"])
    existing.unit = unit  # as read under the lock, with its topic and item
    return own_known(existing, None)


# The rows every verdict locks, read with queries built once (annotate.precompiled).
_UNIT_LOCKED = Precompiled(lambda unit: Unit.objects.select_for_update().filter(pk=unit))


def _judgment_version_add(*, unit: Unit, current: HumanJudgment, value: dict, label: str, guidelines_id: int | None,
                          submission: str = "") -> HumanJudgment:
    """Make a new current version after CURRENT, UNIT's; the campaign's next data version with it. Call inside
    transaction.atomic with UNIT and CURRENT locked."""
    if current.value == value:
        # A repeated key press or a resent request: nothing changed, so no new version.
        return current
    current.is_current = False
    current.save(update_fields=["is_current"])
    judgment = HumanJudgment.objects.create(
        unit_id=current.unit_id, annotator_id=current.annotator_id, assignment_id=current.assignment_id,
        kind=current.kind, source=JudgmentSource.WEB, value=value, label=label,
        version=current.version + 1, is_current=True, guidelines_id=guidelines_id,
        submission=submission, arm=current.arm, suggestion=current.suggestion,
    )
    campaign_data_changed(campaign_id=unit.campaign_id)
    return judgment
