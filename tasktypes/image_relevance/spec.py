"""image_relevance: assessors grade pooled images for a text (TREC AToMiC), 0/1/2 unless the campaign sets its own scale
(tasktypes.graded). One grade per item."""

from django.db.models import OuterRef, Subquery
from django.utils import timezone

from annotate.images import ImageMissingError, image_file, image_stored
from annotate.models import Assignment, AssignmentStatus, Item
from annotate.precompiled import Precompiled
from annotate.selectors.annotation import LONG_TEXT_CHARS, assignment_held, unit_display, units_open_to
from annotate.task_types.registry import register
from annotate.task_types.spec import JudgmentValueError
from interchange.importers.formats import ITEM_CATEGORIES, JUDGE_SCORES
from interchange.importers.images import image_items_attach
from tasktypes.graded.formats import AssessorQrels, JudgeQrels, PooledRuns, TrecLeaderboard
from tasktypes.graded.spec import GradedRelevance
from tasktypes.image_relevance.formats import AtomicTopics, Images, Sections

# The three grades of TREC AToMiC (Yang & Lin 2024), in our own words (the page's help shows the definitions); the
# label is the grade as a digit.
SCALE = [
    {"grade": 0, "name": "Non-relevant",
     "definition": "The image has nothing to do with the section, shows the wrong subject (another person or place "
                   "with a similar name), or you cannot make out what it shows."},
    {"grade": 1, "name": "Related",
     "definition": "The image is about the same subject but is not a fitting illustration for this section. For "
                   "instance it is too general (the whole city for a section on one of its bridges), shows a related "
                   "entity rather than the subject itself (the architect instead of the building, a sister ship, the "
                   "team instead of the match), or it suits the page but another section of it."},
    {"grade": 2, "name": "Relevant",
     "definition": "The image shows what the section is about, well enough that an editor could put it in this "
                   "section as it is: the person, place, object, event or idea the section discusses, and a reader "
                   "would see at once why it is there."},
]


@register
class ImageRelevance(GradedRelevance):
    name = "image_relevance"
    label = "Image relevance"
    DEFAULT_SCALE = SCALE
    DEFAULT_RELEVANT_FROM = 1
    grade_phrase = "An image grade"
    item_kind = "image"
    doc_key = "image_id"
    item_noun = "image"
    page = ("image_relevance/annotate.html", "image_relevance/_unit.html")
    formats = (
        Sections(),
        AssessorQrels(help="`qid 0 docid grade` lines, grades 0/1/2: an assessor's judgments (named after the file)."),
        PooledRuns(), AtomicTopics(), Images(),
        JudgeQrels(help="`qid 0 docid grade` lines on the campaign's scale from an external judge (a VLM, say), "
                        "named below; its grades are used as they are."),
        JUDGE_SCORES, TrecLeaderboard(), ITEM_CATEGORIES,
    )
    judge_families = ("clipscore", "vlm")

    def judge_prompt(self, family: str):
        """What the one family of judge_families that takes a prompt (vlm) asks: how relevant the image is to the
        topic's text section (vlm_prompt.SectionRelevance)."""
        from tasktypes.image_relevance.vlm_prompt import SectionRelevance

        return SectionRelevance()

    def sample(self):
        from tasktypes.image_relevance.sample import ImageSample

        return ImageSample()

    def items_created(self, *, campaign, items) -> None:
        """Images already in the campaign's store are attached to the new items at once."""
        image_items_attach(items=items, store=image_stored(campaign_id=campaign.pk))

    # The page prefetches the image the annotator will most likely grade next (_image_next): read with the unit.
    page_column_names = ("page_next_item", "page_next_data")

    def page_columns(self, *, unit_path: str, campaign, annotator, now) -> dict:
        if now is None:  # a verdict's read: no page
            return {}
        following = _following(campaign=campaign, annotator=annotator, now=now,
                               unit=OuterRef(f"{unit_path}id" if unit_path else "pk"))
        return {"page_next_item": Subquery(following.values("item_id")[:1]),
                "page_next_data": Subquery(following.values("item__data")[:1])}

    def page_columns_read(self, unit, values: dict) -> None:
        if "page_next_item" in values:
            unit._image_next = _image_of(values["page_next_item"], values["page_next_data"])

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """The common display without the item's text, the section texts, the image and the annotator's own grade."""
        display = unit_display(assignment=assignment)
        unit = assignment.unit
        display["candidate"] = ""  # an image item's text is not part of what the assessor judges
        display["section"] = _section(unit.topic.data or {})
        display["image"] = _image(unit.item) if unit.item_id else {"available": False}
        self.own_grade_add(display, unit.campaign)
        display["prefetch_item_id"] = _image_next(assignment=assignment)
        return display

    def unit_gradable(self, unit) -> None:
        """The item's image file must be there; an image named but not imported yet is shown as missing."""
        try:
            image_file(unit.item.data if unit.item_id else {}, key="image")
        except ImageMissingError:
            raise JudgmentValueError(
                "This image is missing (not imported yet), so it cannot be graded. Tell the campaign's researcher."
            ) from None


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

    After a first grade that is the next open unit by position; after an edit (undo) it is the unit they hold (a unit
    being leased is the one they hold, unless they hold two, in two tabs: then the guess is the next open unit). A
    peek, not a lease: another annotator may take that unit first, which costs one wasted fetch.
    """
    unit = assignment.unit
    if assignment.status != AssignmentStatus.ACTIVE:
        held = assignment_held(campaign=unit.campaign, annotator=assignment.annotator_id)
        if held is not None:
            item = held.unit.item
            return _image_of(item.pk, item.data) if item is not None else None
    if hasattr(unit, "_image_next"):  # read with the unit (page_columns)
        return unit._image_next
    nxt = _NEXT_IMAGE(campaign=unit.campaign_id, annotator=assignment.annotator_id, unit=unit.pk, now=timezone.now())
    return _image_of(*nxt[0]) if nxt else None


def _image_of(item_id: int | None, data) -> int | None:
    """ITEM_ID when its item (whose data is DATA) has an image, else None."""
    return item_id if isinstance(data, dict) and data.get("image") else None


def _following(*, campaign, annotator, now, unit):
    """The units open to ANNOTATOR other than UNIT that are items, in queue order."""
    return (units_open_to(campaign=campaign, annotator=annotator, now=now).exclude(pk=unit).filter(item__isnull=False)
            .order_by("position", "pk"))


# Asked on every page of the type: built once (annotate.precompiled).
_NEXT_IMAGE = Precompiled(lambda campaign, annotator, unit, now: (
    _following(campaign=campaign, annotator=annotator, now=now, unit=unit).values_list("item_id", "item__data")[:1]
))
