"""image_relevance: assessors grade pooled images 0/1/2 for a text (TREC AToMiC). One grade per item."""

from annotate.images import ImageMissingError, image_file
from annotate.models import Assignment, Item
from annotate.selectors.annotation import LONG_TEXT_CHARS, assignment_held, unit_display, units_open_to
from annotate.services.annotation import JudgmentValueError
from annotate.task_types import LAYOUT_GRADES, TaskTypeSpec, register

# The three grades (TREC AToMiC, Yang & Lin 2024); the label is the grade as a digit.
GRADES = {0: "Non-relevant", 1: "Related", 2: "Relevant"}
GRADE_RULES = ("quantile", "fitted")


def _grade_mapping(key: str, value) -> str | None:
    if not isinstance(value, dict) or not all(isinstance(rule, str) and rule in GRADE_RULES for rule in value.values()):
        return 'grade_mapping must map judge names to "quantile" or "fitted"'
    return None


def _bias_tag(key: str, value) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "bias_tag must be a run tag (a string)"
    return None


@register
class ImageRelevance(TaskTypeSpec):
    name = "image_relevance"
    options = {"grade_mapping": _grade_mapping, "bias_tag": _bias_tag}
    page = ("annotate/images.html", "annotate/_images.html")
    noun = "grade"
    import_formats = ("jsonl", "trec-qrels", "trec-run", "atomic-topics", "images", "judge-scores")
    format_help = {
        "jsonl": "One text section per line: id, page_title, page_context, section_title, section_context.",
        "trec-run": "Systems' runs, `qid Q0 docid rank score tag`: each run is kept whole and pooled to the depth "
                    "below (default 25); the tag below labels these runs.",
        "trec-qrels": "`qid 0 docid grade` lines, grades 0/1/2: an assessor's judgments (named after the file).",
    }
    importer = "tasktypes.importers.service.image_import"
    import_lines = "image_lines"
    # trec-run files are pooled to a depth (--depth, --tag) into images to grade.
    pools_runs = True
    report_builder = "agreement.report_images.image_report_build"
    report_layout = LAYOUT_GRADES

    def value_check(self, value, *, unit=None) -> str:
        """{"grade": 0 | 1 | 2}; the label is the grade as a digit."""
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
        if grade not in GRADES:
            raise JudgmentValueError(f"There is no grade {grade}: choose 0 non-relevant, 1 related or 2 relevant.")
        return str(grade)

    def value_from_post(self, post, *, assignment) -> dict:
        return grade_value(grade=post.get("grade"))

    def unit_context(self, *, assignment, arrangement=None) -> dict:
        """The common display without the item's text, the section texts, the image and the annotator's own grade."""
        display = unit_display(assignment=assignment)
        unit = assignment.unit
        display["candidate"] = ""  # an image item's text is not part of what the assessor judges
        display["section"] = _section(unit.topic.data or {})
        display["image"] = _image(unit.item) if unit.item_id else {"available": False}
        own = display["own_value"]
        grade = own.get("grade") if isinstance(own, dict) else None
        display["own_grade"] = grade if isinstance(grade, int) and not isinstance(grade, bool) else None
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


def grade_value(*, grade: str | None) -> dict:
    """The value for the form's GRADE, "0", "1" or "2".

    Only the digits are translated; anything else is passed on as it is, so value_check refuses a form post and a
    stored value with the same messages.
    """
    return {"grade": int(grade) if grade in ("0", "1", "2") else grade}


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
