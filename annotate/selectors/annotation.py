"""Reads for the annotation page: the units open to an annotator, their progress, and what the page shows.

Blindness lives here: `unit_display` is the only thing the page renders about a unit, and it
holds the question, the gold answers (qa_correctness) or the evidence passage and its source (ais),
the candidate and the annotator's own verdict, never a system name, a model judgment or anyone
else's judgment; image_relevance adds the topic's section texts and the image's size and format
(the page fetches the file through the campaign's image URL by item id, never by file name).
`ranking_display` does the same for a topic of answer_ranking: candidates under neutral labels
("Candidate A") in an order shuffled per (unit, annotator), never a system, a prompt, a docno, an
item id or whether a candidate is a document.
"""

import hashlib
from urllib.parse import urlsplit

from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils import timezone

from annotate.images import ImageMissingError, image_file
from annotate.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    HumanJudgment,
    Item,
    JudgmentKind,
    TaskType,
    Unit,
)

# Candidate texts longer than this many characters start collapsed, the full text one click or key away.
LONG_TEXT_CHARS = 600


def assignment_held(*, campaign: Campaign, annotator, now=None) -> Assignment | None:
    """ANNOTATOR's unexpired active lease in CAMPAIGN (the oldest, should there be two), or None."""
    now = now or timezone.now()
    return (
        Assignment.objects.filter(
            unit__campaign=campaign, annotator=annotator, status=AssignmentStatus.ACTIVE, expires_at__gt=now
        )
        .select_related("unit__campaign", "unit__topic", "unit__item")
        .order_by("leased_at", "pk")
        .first()
    )


def units_open_to(*, campaign: Campaign, annotator, now=None) -> QuerySet[Unit]:
    """Units of CAMPAIGN that ANNOTATOR may still judge: not judged or submitted by them, and with a
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
    judged_by_me = HumanJudgment.objects.filter(unit=OuterRef("pk"), annotator=annotator, kind=JudgmentKind.ANNOTATION)
    submitted_by_me = Assignment.objects.filter(
        unit=OuterRef("pk"), annotator=annotator, status=AssignmentStatus.SUBMITTED
    )
    return (
        Unit.objects.filter(campaign=campaign, judgments_done__lt=F("judgments_needed"))
        .annotate(others_active=Coalesce(Subquery(others_active, output_field=IntegerField()), Value(0)))
        .filter(judgments_done__lt=F("judgments_needed") - F("others_active"))
        .filter(~Exists(judged_by_me), ~Exists(submitted_by_me))
    )


# How many open units the progress line counts at most: counting every open unit of a million-unit campaign
# on each page would cost more than the rest of the page; past this the line says "more than".
REMAINING_COUNTED = 200


def annotation_progress(*, campaign: Campaign, annotator) -> dict:
    """How far ANNOTATOR is in CAMPAIGN: {"done", "remaining", "more", "total", "percent"}.

    done = units they have judged here; remaining = units still open to them (see units_open_to,
    the unit they hold included); total = done + remaining. So "12 of 40 done" means: 12 judged,
    28 more they could take now. Remaining shrinks when other annotators fill units first.
    Remaining is counted up to REMAINING_COUNTED: beyond it "more" is True and total and percent are None.
    """
    done = (
        HumanJudgment.objects.filter(
            unit__campaign=campaign, annotator=annotator, kind=JudgmentKind.ANNOTATION, is_current=True
        )
        .values("unit")
        .distinct()
        .count()
    )
    open_units = units_open_to(campaign=campaign, annotator=annotator).order_by("position", "pk").values("pk")
    remaining = open_units[:REMAINING_COUNTED + 1].count()
    if remaining > REMAINING_COUNTED:
        return {"done": done, "remaining": REMAINING_COUNTED, "more": True, "total": None, "percent": None}
    total = done + remaining
    return {"done": done, "remaining": remaining, "more": False, "total": total,
            "percent": round(100 * done / total) if total else 100}


def assignment_of_annotator(*, campaign: Campaign, annotator, assignment_id) -> Assignment:
    """ANNOTATOR's own assignment ASSIGNMENT_ID in CAMPAIGN; Http404 for anyone else's or a malformed id."""
    try:
        return Assignment.objects.select_related("unit__campaign", "unit__topic", "unit__item").get(
            pk=int(assignment_id), unit__campaign=campaign, annotator=annotator
        )
    except (Assignment.DoesNotExist, TypeError, ValueError):
        raise Http404("No such assignment.") from None


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

    qa_correctness adds the gold answers; ais adds the evidence (see _evidence) and, when the
    annotator judged the unit before, their answers to its two questions as "yes"/"no";
    image_relevance adds the section texts, the image (see _image) and the annotator's own grade.
    """
    unit = assignment.unit
    own = (
        HumanJudgment.objects.filter(
            unit=unit, annotator_id=assignment.annotator_id, kind=JudgmentKind.ANNOTATION, is_current=True
        )
        .only("label", "value", "version")
        .first()
    )
    display = {
        "assignment_id": assignment.pk,
        "question": unit.topic.text,
        "candidate": unit.item.text if unit.item_id else "",
        "own_label": own.label if own else None,
        "expires_at": assignment.expires_at,
    }
    if unit.campaign.task_type == TaskType.AIS:
        display["evidence"] = _evidence(unit.item.data if unit.item_id else {})
        display["own_answers"] = _ais_answers(own.value) if own else None
    elif unit.campaign.task_type == TaskType.IMAGE_RELEVANCE:
        display["candidate"] = ""  # an image item's text is not part of what the assessor judges
        display["section"] = _section(unit.topic.data or {})
        display["image"] = _image(unit.item) if unit.item_id else {"available": False}
        grade = own.value.get("grade") if own and isinstance(own.value, dict) else None
        display["own_grade"] = grade if isinstance(grade, int) and not isinstance(grade, bool) else None
        display["prefetch_item_id"] = _image_next(assignment=assignment)
    else:
        display["gold_answers"] = [str(answer) for answer in unit.topic.data.get("gold_answers") or []]
    return display


def _evidence(data: dict) -> dict:
    """The evidence passage of an ais item and its source, read field by field from Item.data.

    The system name beside them is left behind (blind). The URL is kept only when it is an
    http(s) address, so imported data can never put a javascript: link in front of a rater.
    """
    url = str(data.get("url") or "").strip()
    parts = urlsplit(url)
    return {
        "passage": str(data.get("passage") or ""),
        "title": str(data.get("title") or "").strip(),
        "section": str(data.get("section") or "").strip(),
        "url": url if parts.scheme.lower() in ("http", "https") and parts.netloc else "",
    }


def _section(data: dict) -> dict:
    """The text an image is judged against: page and section titles and contexts, each a string ("" when absent).

    `long` marks a page context that starts collapsed (the section is what the image is judged against).
    """
    fields = {key: str(data.get(key) or "").strip()
              for key in ("page_title", "page_context", "section_title", "section_context")}
    return {**fields, "page_context_long": len(fields["page_context"]) > LONG_TEXT_CHARS}


def _image(item: Item) -> dict:
    """What the page needs to show ITEM's image: whether its file is there, its size and format, its item id.

    The file path and anything else in Item.data stays here; the page fetches the image by item id.
    """
    data = item.data or {}
    try:
        image_file(data, key="image")
    except ImageMissingError:
        available = False
    else:
        available = True
    try:
        image_file(data, key="thumbnail")
    except ImageMissingError:
        has_thumbnail = False
    else:
        has_thumbnail = True
    width, height = data.get("width"), data.get("height")
    sized = all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in (width, height))
    return {
        "item_id": item.pk,
        "available": available,
        "has_thumbnail": available and has_thumbnail,
        "width": width if sized else None,
        "height": height if sized else None,
        "format": str(data.get("format") or "").upper(),
        "image_id": str(data.get("image_id") or "").strip(),
    }


def _image_next(*, assignment: Assignment) -> int | None:
    """The item id of the image ASSIGNMENT's annotator will most likely grade next, for the page to prefetch.

    After a first grade that is the next open unit by position; after an edit (undo) it is the unit
    they hold. A peek, not a lease: another annotator may take that unit first, which costs one wasted fetch.
    """
    unit = assignment.unit
    held = assignment_held(campaign=unit.campaign, annotator=assignment.annotator_id)
    if held is not None and held.pk != assignment.pk:
        item = held.unit.item
        return item.pk if item is not None and (item.data or {}).get("image") else None
    nxt = (
        units_open_to(campaign=unit.campaign, annotator=assignment.annotator_id)
        .exclude(pk=unit.pk)
        .filter(item__isnull=False)
        .order_by("position", "pk")
        .values_list("item_id", "item__data")
        .first()
    )
    return nxt[0] if nxt and isinstance(nxt[1], dict) and nxt[1].get("image") else None


def _ais_answers(value) -> dict | None:
    """An AIS value as the form words its answers: {"interpretable": "yes"|"no", "supported": "yes"|"no"|None}."""
    if not isinstance(value, dict) or not isinstance(value.get("interpretable"), bool):
        return None
    supported = value.get("supported")
    return {
        "interpretable": "yes" if value["interpretable"] else "no",
        "supported": ("yes" if supported else "no") if isinstance(supported, bool) else None,
    }


def ranking_candidates(*, assignment: Assignment) -> list[tuple[str, Item]]:
    """(label, item) for every candidate of ASSIGNMENT's topic, in the annotator's own shuffled order.

    The order and so the labels ("A", "B", ...) are a hash of (unit, annotator, item): stable across
    reloads and edits for one person, different between people, and unrelated to item ids, which
    follow import order and would otherwise group answers apart from documents or by system.
    """
    unit = assignment.unit
    items = Item.objects.filter(topic_id=unit.topic_id, campaign_id=unit.campaign_id).only("pk", "text")

    def key(item):
        return hashlib.sha256(f"{unit.pk}:{assignment.annotator_id}:{item.pk}".encode()).hexdigest()

    return [(_label(n), item) for n, item in enumerate(sorted(items, key=key))]


def ranking_display(
    *, assignment: Assignment, dimensions: list[str], ties: bool, arrangement: dict | None = None
) -> dict:
    """What the ranking page shows for ASSIGNMENT's topic, and nothing more (blind).

    Each dimension's list starts from, in order of preference: ARRANGEMENT (a ranking just posted
    and refused, so nothing the annotator did is lost), their own current judgment (editing), their
    draft, or the shuffled order. Ids the arrangement names that are not candidates are dropped,
    candidates it lacks are appended, and tie groups are split when the campaign allows no ties.
    """
    unit = assignment.unit
    own = (
        HumanJudgment.objects.filter(
            unit=unit, annotator_id=assignment.annotator_id, kind=JudgmentKind.ANNOTATION, is_current=True
        )
        .only("value", "version")
        .first()
    )
    if arrangement is None:
        arrangement = own.value if own else assignment.draft
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
        "expires_at": assignment.expires_at,
    }


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


def _label(n: int) -> str:
    """0 -> "A", 25 -> "Z", 26 -> "AA": spreadsheet-style labels, so any number of candidates gets one."""
    label = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        label = chr(ord("A") + rest) + label
    return label
