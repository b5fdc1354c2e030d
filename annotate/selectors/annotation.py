"""Reads for the annotation page: the units open to an annotator, their progress, and what the page shows.

Blindness lives here and in the task types' unit_context (tasktypes/): `unit_display` holds the question, the
candidate and the annotator's own verdict, never a system name, a model judgment or anyone else's judgment; a task
type adds only the fields its page needs (the gold answers, an evidence passage and its source, the section texts
and the image's size and format: the page fetches an image by item id, never by file name).
`ranking_display` does the same for a topic of answer_ranking: candidates under neutral labels
("Candidate A") in an order shuffled per (unit, annotator), never a system, a prompt, a docno, an
item id or whether a candidate is a document.
"""

import hashlib
import json

from django.db.models import Count, F, IntegerField, OuterRef, Q, QuerySet, Subquery, TextField, Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils import timezone

from annotate.arms import arm_judge
from annotate.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    HumanJudgment,
    Item,
    JudgmentKind,
    Unit,
)
from annotate.precompiled import Precompiled
from annotate.task_types.registry import UnknownTaskType, task_type_get

# Candidate texts longer than this many characters start collapsed, the full text one click or key away.
LONG_TEXT_CHARS = 600


def assignment_held(*, campaign: Campaign, annotator, now=None) -> Assignment | None:
    """ANNOTATOR's (a user or their id) unexpired active lease in CAMPAIGN (the oldest, should there be two), or None;
    with its unit, topic and item, the annotator's own current judgment of the unit (with_own), their progress
    (progress_columns) and what the task type's page reads (page_columns_of). One query."""
    held = _HELD(variant=campaign.task_type, campaign=campaign.pk, annotator=getattr(annotator, "pk", annotator),
                 now=now or timezone.now())
    if not held:
        return None
    page_columns_kept(campaign.task_type, held[0].unit, held[0])
    return own_attach(held[0])


_HELD = Precompiled(lambda task_type, campaign, annotator, now: (
    with_own(Assignment.objects.filter(
        unit__campaign=campaign, annotator=annotator, status=AssignmentStatus.ACTIVE, expires_at__gt=now
    ))
    .annotate(**progress_columns(campaign=campaign, annotator=annotator, now=now),
              **page_columns_of(task_type, unit_path="unit__", campaign=campaign, annotator=annotator, now=now))
    .select_related("unit__campaign", "unit__topic", "unit__item")
    .order_by("leased_at", "pk")[:1]
), variants=True)


def page_columns_of(task_type: str, **refs) -> dict:
    """TASK_TYPE's page columns (TaskTypeSpec.page_columns) for REFS; none for a name no task type has (a guess that
    missed: annotate.access)."""
    try:
        spec = task_type_get(task_type)
    except UnknownTaskType:
        return {}
    return spec.page_columns(**refs)


def page_columns_kept(task_type: str, unit: Unit, row) -> None:
    """Hand the page columns that ROW (a unit or an assignment, read with page_columns_of) carries to the task type,
    for UNIT."""
    spec = task_type_get(task_type)
    values = {name: getattr(row, name) for name in spec.page_column_names if hasattr(row, name)}
    if values:
        spec.page_columns_read(unit, values)


def current_annotation(*, unit, annotator) -> QuerySet[HumanJudgment]:
    """ANNOTATOR's current annotation of UNIT (ids, instances or OuterRefs): one row at most."""
    return HumanJudgment.objects.filter(unit=unit, annotator=annotator, kind=JudgmentKind.ANNOTATION,
                                        is_current=True).order_by("pk")


# The fields of the annotator's own current judgment the page reads (judgment_current_of).
OWN_FIELDS = ("id", "label", "value", "version", "created_at")


def with_own(assignments: QuerySet[Assignment]) -> QuerySet[Assignment]:
    """ASSIGNMENTS, each with its annotator's current annotation of its unit read in the same query (OWN_FIELDS as
    own_<field>, None when there is none); own_attach turns them into the judgment judgment_current_of returns."""
    own = current_annotation(unit=OuterRef("unit_id"), annotator=OuterRef("annotator_id"))
    return assignments.annotate(**{f"own_{name}": Subquery(own.values(name)[:1]) for name in OWN_FIELDS})


# The attribute an assignment keeps its annotator's own current judgment in, once read (None: read, there is none).
_OWN = "_own_judgment"


def own_attach(assignment: Assignment) -> Assignment:
    """Keep on ASSIGNMENT (read through with_own) its annotator's current judgment of the unit, for
    judgment_current_of."""
    own = None
    if assignment.own_id is not None:
        own = HumanJudgment(pk=assignment.own_id, unit_id=assignment.unit_id, annotator_id=assignment.annotator_id,
                            kind=JudgmentKind.ANNOTATION, is_current=True,
                            **{name: getattr(assignment, f"own_{name}") for name in OWN_FIELDS[1:]})
    return own_known(assignment, own)


def own_known(assignment: Assignment, own: HumanJudgment | None) -> Assignment:
    """Say that OWN is ASSIGNMENT's annotator's current judgment of its unit (None: they have none; a new lease, granted
    only while they have not judged the unit), so that judgment_current_of need not read it."""
    setattr(assignment, _OWN, own)
    return assignment


def units_open_to(*, campaign: Campaign, annotator, now=None) -> QuerySet[Unit]:
    """Units of CAMPAIGN that ANNOTATOR may still judge: not judged (annotated or adjudicated) or submitted by them, and
    with a
    slot left once recorded judgments (imported ones included) and other people's unexpired
    leases are counted. A unit the annotator holds a lease on is open to them.

    A read without locks: leasing re-checks each candidate under the unit's lock.
    """
    now = now or timezone.now()
    others_active = (
        Assignment.objects.filter(unit=OuterRef("pk"), status=AssignmentStatus.ACTIVE, expires_at__gt=now)
        .exclude(annotator=annotator)
        .values("unit")
        .annotate(n=Count("pk"))
        .values("n")
    )
    # Any kind: a unit the annotator adjudicated is closed to them as an annotator too (they saw every verdict on it).
    # NOT IN an uncorrelated list, which PostgreSQL reads once into a hash table and probes for each open unit it
    # walks: as NOT EXISTS it planned an anti join by its estimate of the annotator's rows, and an annotator the
    # statistics have not seen yet is estimated at one row, so every walked unit was compared with every unit the
    # annotator had judged (43,000 comparisons a count at 214 judgments; docs/benchmarks.md).
    judged_by_me = HumanJudgment.objects.filter(annotator=annotator).values("unit")
    submitted_by_me = Assignment.objects.filter(annotator=annotator, status=AssignmentStatus.SUBMITTED).values("unit")
    return (
        Unit.objects.filter(campaign=campaign, judgments_done__lt=F("judgments_needed"))
        .annotate(others_active=Coalesce(Subquery(others_active, output_field=IntegerField()), Value(0)))
        .filter(judgments_done__lt=F("judgments_needed") - F("others_active"))
        .exclude(pk__in=judged_by_me).exclude(pk__in=submitted_by_me)
    )


# How many open units the progress line counts at most: counting every open unit of a million-unit campaign
# on each page would cost more than the rest of the page; past this the line says "more than".
REMAINING_COUNTED = 200


def annotation_progress(*, campaign: Campaign, annotator, read_with: Assignment | None = None) -> dict:
    """How far ANNOTATOR is in CAMPAIGN: {"done", "remaining", "more", "total", "percent"}.

    done = units they have judged here; remaining = units still open to them (see units_open_to,
    the unit they hold included); total = done + remaining. So "12 of 40 done" means: 12 judged,
    28 more they could take now. Remaining shrinks when other annotators fill units first.
    Remaining is counted up to REMAINING_COUNTED: beyond it "more" is True and total and percent are None.

    READ_WITH: an assignment of ANNOTATOR's this request read with the counts (progress_columns: the held lease, a
    lease just granted), which then need no query of their own.
    """
    if read_with is not None and hasattr(read_with, PROGRESS_DONE):
        done, remaining = getattr(read_with, PROGRESS_DONE), getattr(read_with, PROGRESS_OPEN)
    else:
        ((done, remaining),) = _PROGRESS(campaign=campaign.pk, annotator=annotator.pk, now=timezone.now())
    if remaining > REMAINING_COUNTED:
        return {"done": done, "remaining": REMAINING_COUNTED, "more": True, "total": None, "percent": None}
    total = done + remaining
    return {"done": done, "remaining": remaining, "more": False, "total": total,
            "percent": round(100 * done / total) if total else 100}


# The names progress_columns gives its counts, as attributes of the rows that carry them.
PROGRESS_DONE, PROGRESS_OPEN = "progress_done", "progress_open"


def progress_columns(*, campaign, annotator, now) -> dict[str, Subquery]:
    """annotation_progress's two counts as columns another query can carry (by PROGRESS_DONE and PROGRESS_OPEN), so
    that the query a request makes anyway (the held lease, a lease's slot check) brings them: the units ANNOTATOR has
    judged in CAMPAIGN, and those open to them at NOW counted up to one past REMAINING_COUNTED."""
    judged = (HumanJudgment.objects.filter(unit__campaign=campaign, annotator=annotator, kind=JudgmentKind.ANNOTATION,
                                           is_current=True).order_by().values("unit").distinct())
    open_ = (units_open_to(campaign=campaign, annotator=annotator, now=now).order_by("position", "pk")
             .values("pk")[:REMAINING_COUNTED + 1])
    return {PROGRESS_DONE: _counted(judged), PROGRESS_OPEN: _counted(open_)}


def progress_known(assignment: Assignment, counts: tuple[int, int]) -> Assignment:
    """Keep on ASSIGNMENT the progress COUNTS (done, open: progress_columns) read with it, for annotation_progress."""
    setattr(assignment, PROGRESS_DONE, counts[0])
    setattr(assignment, PROGRESS_OPEN, counts[1])
    return assignment


def _counted(queryset: QuerySet) -> Subquery:
    """The number of rows of QUERYSET (a sliced one counted up to its limit), as a column."""
    return Subquery(queryset, template="(SELECT COUNT(*) FROM (%(subquery)s) AS counted)", output_field=IntegerField())


_PROGRESS = Precompiled(lambda campaign, annotator, now: Campaign.objects.filter(pk=campaign).values_list(
    *progress_columns(campaign=campaign, annotator=annotator, now=now).values()))


def assignment_of_annotator(*, campaign: Campaign, annotator, assignment_id) -> Assignment:
    """ANNOTATOR's own assignment ASSIGNMENT_ID in CAMPAIGN; Http404 for anyone else's or a malformed id."""
    try:
        found = _OF_ANNOTATOR(assignment=int(assignment_id), campaign=campaign.pk, annotator=annotator.pk)
    except (TypeError, ValueError):
        found = None
    if not found:
        raise Http404("No such assignment.")
    return found[0]


_OF_ANNOTATOR = Precompiled(lambda assignment, campaign, annotator: (
    Assignment.objects.select_related("unit__campaign", "unit__topic", "unit__item")
    .filter(pk=assignment, unit__campaign=campaign, annotator=annotator)
))


def assignment_previous(*, campaign: Campaign, annotator, before: Assignment | None) -> Assignment | None:
    """The assignment ANNOTATOR submitted just before BEFORE (or their last one when BEFORE is
    None or not yet submitted), ordered by first submission, so edits do not reorder the history."""
    submitted = Assignment.objects.filter(
        unit__campaign=campaign, annotator=annotator, status=AssignmentStatus.SUBMITTED
    ).select_related("unit__campaign", "unit__topic", "unit__item")
    if before is not None and before.status == AssignmentStatus.SUBMITTED and before.submitted_at is not None:
        submitted = submitted.filter(
            Q(submitted_at__lt=before.submitted_at) | Q(submitted_at=before.submitted_at, pk__lt=before.pk)
        )
    return submitted.order_by("-submitted_at", "-pk").first()


def unit_display(*, assignment: Assignment) -> dict:
    """What the annotation page shows for ASSIGNMENT's unit, and nothing more (blind).

    The question, the candidate and the annotator's own verdict; each task type's unit_context adds its own fields
    (qa_correctness the gold answers, ais the evidence, image_relevance the section texts and the image).
    """
    unit = assignment.unit
    own = judgment_current_of(assignment=assignment)
    return {
        "assignment_id": assignment.pk,
        "question": unit.topic.text,
        "candidate": unit.item.text if unit.item_id else "",
        "own_label": own.label if own else None,
        "own_value": own.value if own else None,
        "shown_version": own.version if own else "",
        "expires_at": assignment.expires_at,
    }


def assist_display(*, assignment: Assignment, shown: dict) -> dict | None:
    """What the page of an assisted arm (annotate.services.arms) says of its suggestion, beside SHOWN (the unit's
    display). None on every blind page (the blind arm, or no experiment) and on a unit the annotator has judged
    already (their own verdict is what shows then). {"available": False} when the arm's judge has no verdict on the
    unit (the page says so and is blind); else {"available": True, "value": the suggested value, "key": its label
    (a ranking type: its order), "words": the value as the page words a verdict}."""
    if arm_judge(assignment.arm) is None or shown.get("shown_version") not in ("", None):
        return None
    if assignment.suggestion is None:
        return {"available": False}
    spec = task_type_get(assignment.unit.campaign.task_type)
    return {"available": True, "value": assignment.suggestion, "key": spec.arm_key(assignment.suggestion),
            "words": spec.value_words(assignment.suggestion, assignment=assignment)}


def judgment_current_of(*, assignment: Assignment) -> HumanJudgment | None:
    """The current annotation of ASSIGNMENT's annotator on its unit, or None. Its version goes into the page's form
    (shown_version), so a submit made from a view that another tab has overtaken is refused, not applied. Read
    already when ASSIGNMENT came with it (own_attach, own_known)."""
    if hasattr(assignment, _OWN):
        return getattr(assignment, _OWN)
    return (current_annotation(unit=assignment.unit_id, annotator=assignment.annotator_id)
            .only("label", "value", "version", "created_at").first())



def ranking_candidates(*, assignment: Assignment) -> list[tuple[str, Item]]:
    """(label, item) for every candidate of ASSIGNMENT's topic, in the annotator's own shuffled order.

    The order and so the labels ("A", "B", ...) are a hash of (unit, annotator, item): stable across
    reloads and edits for one person, different between people, and unrelated to item ids, which
    follow import order and would otherwise group answers apart from documents or by system.
    """
    unit = assignment.unit
    items = topic_candidates(unit=unit)

    def key(item):
        return hashlib.sha256(f"{unit.pk}:{assignment.annotator_id}:{item.pk}".encode()).hexdigest()

    return [(letter_label(n), item) for n, item in enumerate(sorted(items, key=key))]


def topic_candidates_column(*, unit_path: str) -> Subquery:
    """topic_candidates' items as one column, a JSON array of [id, text] (for a page column: TaskTypeSpec.page_columns),
    of the unit UNIT_PATH leads to; topic_candidates_known takes its value."""
    return _JSONPairs(Item.objects.filter(topic_id=OuterRef(f"{unit_path}topic_id"),
                                          campaign_id=OuterRef(f"{unit_path}campaign_id")).order_by("pk")
                      .values("id", "text"), output_field=TextField())


def topic_candidates_known(unit: Unit, value) -> None:
    """Keep on UNIT its topic's candidates as topic_candidates_column read them (a JSON text or a list; None: none)."""
    pairs = json.loads(value) if isinstance(value, str) else value or []
    unit._topic_candidates = [Item(pk=pk, text=text) for pk, text in sorted(pairs)]


class _JSONPairs(Subquery):
    """The rows of a subquery of two columns as one JSON array of [first, second] (PostgreSQL, SQLite)."""

    def as_sql(self, compiler, connection, template=None, **extra_context):
        first, second = (connection.ops.quote_name(name) for name in self.query.values_select)
        array, aggregate = (("json_build_array", "json_agg") if connection.vendor == "postgresql"
                            else ("json_array", "json_group_array"))
        template = f"(SELECT {aggregate}({array}(pairs.{first}, pairs.{second})) FROM (%(subquery)s) AS pairs)"
        return super().as_sql(compiler, connection, template=template, **extra_context)


def topic_candidates(*, unit: Unit) -> list[Item]:
    """The items of UNIT's topic (a unit of a whole topic: its candidates), with their text; read once per unit
    object (a submit checks the ranking against them and translates its labels with them)."""
    if not hasattr(unit, "_topic_candidates"):
        unit._topic_candidates = list(_TOPIC_ITEMS(topic=unit.topic_id, campaign=unit.campaign_id))
    return unit._topic_candidates


_TOPIC_ITEMS = Precompiled(lambda topic, campaign: (
    Item.objects.filter(topic_id=topic, campaign_id=campaign).only("pk", "text").order_by("pk")
))


def ranking_display(
    *, assignment: Assignment, dimensions: list[str], ties: bool, arrangement: dict | None = None
) -> dict:
    """What the ranking page shows for ASSIGNMENT's topic, and nothing more (blind).

    Each dimension's list starts from, in order of preference: ARRANGEMENT (a ranking just posted
    and refused, so nothing the annotator did is lost), their own current judgment (editing), their
    draft, the suggestion of an assisted arm (the judge's order, annotate.services.arms), or the shuffled order. Ids
    the arrangement names that are not candidates are dropped,
    candidates it lacks are appended, and tie groups are split when the campaign allows no ties.
    """
    unit = assignment.unit
    own = judgment_current_of(assignment=assignment)
    if arrangement is None:
        arrangement = own.value if own else (assignment.draft or assignment.suggestion)
    rankings = (arrangement or {}).get("rankings") if isinstance(arrangement, dict) else None
    rankings = rankings if isinstance(rankings, dict) else {}
    candidates = ranking_candidates(assignment=assignment)
    by_pk = {item.pk: (label, item) for label, item in candidates}
    lists = []
    for name in dimensions:
        groups = _groups_known(rankings.get(name), by_pk=by_pk, ties=ties)
        placed = {pk for group in groups for pk in group}
        groups += [[item.pk] for _, item in candidates if item.pk not in placed]
        entries = []
        for position, group in enumerate(groups, start=1):
            for n, pk in enumerate(group):
                label, item = by_pk[pk]
                entries.append({"key": label, "label": f"Candidate {label}", "text": item.text,
                                "long": len(item.text) > LONG_TEXT_CHARS, "tied": n > 0, "position": position})
        lists.append({"name": name, "title": name.replace("_", " ").capitalize(), "entries": entries})
    return {
        "assignment_id": assignment.pk,
        "query": unit.topic.text,
        "narrative": str((unit.topic.data or {}).get("narrative") or ""),
        "dimensions": lists,
        "ties": ties,
        "ranked_before": own is not None,
        "has_draft": own is None and bool(assignment.draft),
        "shown_version": own.version if own else "",
        **_order_confirmed_shown(arrangement, dimensions=dimensions, own=own, from_draft=own is None and
                                 arrangement is assignment.draft),
        "expires_at": assignment.expires_at,
    }


# How the annotator settled each dimension's order (docs/answer_ranking.md, "order_confirmed").
ORDER_MOVED = "moved"  # they moved candidates
ORDER_KEPT = "kept"  # they confirmed the order shown ("Keep this order")
ORDER_CONFIRMATIONS = (ORDER_MOVED, ORDER_KEPT)


def _order_confirmed_shown(arrangement, *, dimensions: list[str], own, from_draft: bool) -> dict:
    """How far the order the page starts from is already settled: {"order_confirmed": {dimension: "moved" | "kept"},
    "confirm_required": bool}. The shuffled starting order is settled in no dimension: Enter refuses it until a
    candidate is moved or the order is kept explicitly. A draft exists only because candidates were moved; a ranking
    recorded before confirmations were (or imported) needs none to be submitted again as it is."""
    recorded = arrangement.get("order_confirmed") if isinstance(arrangement, dict) else None
    if from_draft and arrangement and not isinstance(recorded, dict):
        recorded = {name: ORDER_MOVED for name in dimensions}
    confirmed = {name: recorded[name] for name in dimensions
                 if isinstance(recorded, dict) and recorded.get(name) in ORDER_CONFIRMATIONS}
    required = own is None or (isinstance(own.value, dict) and "order_confirmed" in own.value)
    return {"order_confirmed": confirmed, "order_confirmed_json": json.dumps(confirmed), "confirm_required": required}


def _groups_known(groups, *, by_pk: dict, ties: bool) -> list[list[int]]:
    """GROUPS (a stored or posted ranking of one dimension) reduced to known candidates, each once."""
    result: list[list[int]] = []
    seen: set[int] = set()
    for group in groups if isinstance(groups, list) else []:
        kept = []
        for pk in group if isinstance(group, list) else []:
            if isinstance(pk, int) and not isinstance(pk, bool) and pk in by_pk and pk not in seen:
                seen.add(pk)
                kept.append(pk)
        if ties:
            result += [kept] if kept else []
        else:
            result += [[pk] for pk in kept]
    return result


def letter_label(n: int) -> str:
    """0 -> "A", 25 -> "Z", 26 -> "AA": spreadsheet-style labels, so any number of candidates (or raters) gets one."""
    label = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        label = chr(ord("A") + rest) + label
    return label
