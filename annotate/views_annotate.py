"""The annotation page: one unit at a time, keyboard first, the next unit swapped in by htmx.

GET  annotate/            the unit leased to the annotator (full page, or the unit fragment for htmx)
GET  annotate/?undo=ID    the annotator's judgment submitted before assignment ID (empty ID: their last one)
POST annotate/submit/     assignment=ID and verdict=yes|no (qa_correctness), interpretable=yes|no with
                          supported=yes|no only when interpretable=yes (ais), grade=0|1|2
                          (image_relevance), or ranking=JSON (answer_ranking); answers with the next
                          unit's fragment
POST annotate/draft/      assignment=ID, draft=JSON: keeps a ranking in progress for the next page load (204)

A ranking page names candidates by neutral labels ("A", "B", ...), never by item id; the posted
ranking {"rankings": {dimension: [[label, ...], ...]}} is translated to item ids here, before the
service validates it against docs/answer_ranking.md.
"""

import json

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotate.access import campaign_for_annotator
from annotate.models import TaskType
from annotate.selectors.annotation import (
    annotation_progress,
    assignment_of_annotator,
    assignment_previous,
    ranking_candidates,
    ranking_display,
    unit_display,
)
from annotate.services.annotation import (
    JudgmentError,
    JudgmentValueError,
    ais_value_from_answers,
    assignment_draft_save,
    image_grade_value,
    judgment_submit,
    ranking_dimensions,
    unit_lease_next,
)

VERDICTS = {"yes": {"correct": True}, "no": {"correct": False}}

# The full page and the fragment htmx swaps in, per task type; other types get the QA page.
PAGES = {
    TaskType.ANSWER_RANKING: ("annotate/ranking.html", "annotate/_ranking.html"),
    TaskType.AIS: ("annotate/ais.html", "annotate/_ais.html"),
    TaskType.IMAGE_RELEVANCE: ("annotate/images.html", "annotate/_images.html"),
}
QA_PAGE = ("annotate/annotate.html", "annotate/_unit.html")


@require_GET
def annotate(request, slug):
    campaign = campaign_for_annotator(request.user, slug)
    notice = None
    editing = False
    assignment = None
    if "undo" in request.GET:
        raw = request.GET["undo"]
        shown = assignment_of_annotator(campaign=campaign, annotator=request.user, assignment_id=raw) if raw else None
        assignment = assignment_previous(campaign=campaign, annotator=request.user, before=shown)
        editing = assignment is not None
        if assignment is None:
            notice = f"There is no earlier {_noun(campaign)} to change."
            assignment = shown
            editing = bool(shown and shown.status == "submitted")
    if assignment is None and not editing:
        assignment = unit_lease_next(campaign=campaign, annotator=request.user)
    return _render(request, campaign=campaign, assignment=assignment, editing=editing, notice=notice)


@require_POST
def annotate_submit(request, slug):
    campaign = campaign_for_annotator(request.user, slug)
    assignment = assignment_of_annotator(
        campaign=campaign, annotator=request.user, assignment_id=request.POST.get("assignment")
    )
    was_edit = assignment.status == "submitted"
    error = notice = value = None
    refused = False  # the value itself was wrong: nothing recorded, the same unit again
    try:
        value = _value_from_post(request.POST, campaign=campaign, assignment=assignment)
        judgment_submit(assignment=assignment, annotator=request.user, value=value)
        if was_edit:
            notice = f"Your earlier {_noun(campaign)} is changed."
    except JudgmentValueError as exc:
        error, refused = str(exc), True
    except JudgmentError as exc:
        error = str(exc)
    if not request.htmx:
        if error:
            messages.error(request, error)
        elif notice:
            messages.success(request, notice)
        return redirect("annotate", slug=campaign.slug)
    if refused:
        return _render(request, campaign=campaign, assignment=assignment, editing=was_edit, error=error,
                       arrangement=value)
    next_assignment = unit_lease_next(campaign=campaign, annotator=request.user)
    return _render(request, campaign=campaign, assignment=next_assignment, editing=False, notice=notice, error=error)


@require_POST
def annotate_draft(request, slug):
    """Keep the annotator's ranking in progress; 204, or 400 with the reason as text."""
    campaign = campaign_for_annotator(request.user, slug)
    assignment = assignment_of_annotator(
        campaign=campaign, annotator=request.user, assignment_id=request.POST.get("assignment")
    )
    try:
        if campaign.task_type != TaskType.ANSWER_RANKING:
            raise JudgmentValueError("Drafts are kept for rankings only.")
        draft = _ranking_from_labels(request.POST.get("draft", ""), assignment=assignment)
        assignment_draft_save(assignment=assignment, annotator=request.user, draft=draft)
    except JudgmentError as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    return HttpResponse(status=204)


def _value_from_post(post, *, campaign, assignment) -> dict:
    if campaign.task_type == TaskType.ANSWER_RANKING:
        return _ranking_from_labels(post.get("ranking", ""), assignment=assignment)
    if campaign.task_type == TaskType.AIS:
        return ais_value_from_answers(interpretable=post.get("interpretable"), supported=post.get("supported"))
    if campaign.task_type == TaskType.IMAGE_RELEVANCE:
        return image_grade_value(grade=post.get("grade"))
    verdict = post.get("verdict", "")
    if verdict not in VERDICTS:
        raise JudgmentValueError("Choose yes or no.")
    return VERDICTS[verdict]


def _ranking_from_labels(raw: str, *, assignment) -> dict:
    """The posted {"rankings": {dimension: [[label, ...], ...]}} with item ids for labels.

    Only the labels are translated; the shape is passed on as it is for the service to judge,
    so the annotator reads one set of messages whichever layer finds the fault.
    """
    try:
        posted = json.loads(raw)
    except (TypeError, ValueError):
        raise JudgmentValueError("The ranking could not be read; reload the page and try again.") from None
    if not isinstance(posted, dict) or not isinstance(posted.get("rankings"), dict):
        return posted
    by_label = {label: item.pk for label, item in ranking_candidates(assignment=assignment)}

    def pk_of(label):
        if not isinstance(label, str):
            return label
        if label not in by_label:
            raise JudgmentValueError(f"There is no Candidate {label[:8]} in this topic.")
        return by_label[label]

    rankings = {}
    for name, groups in posted["rankings"].items():
        if isinstance(groups, list):
            groups = [[pk_of(label) for label in group] if isinstance(group, list) else group for group in groups]
        rankings[name] = groups
    return {**posted, "rankings": rankings}


def _noun(campaign) -> str:
    return {TaskType.ANSWER_RANKING: "ranking", TaskType.IMAGE_RELEVANCE: "grade"}.get(campaign.task_type, "verdict")


def _render(request, *, campaign, assignment, editing, notice=None, error=None, arrangement=None):
    context = {
        "campaign": campaign,
        "editing": editing,
        "progress": annotation_progress(campaign=campaign, annotator=request.user),
        "notice": notice,
        "error": error,
    }
    if campaign.task_type == TaskType.ANSWER_RANKING:
        context["unit"] = ranking_display(
            assignment=assignment, dimensions=ranking_dimensions(campaign),
            ties=bool((campaign.options or {}).get("ties")), arrangement=arrangement,
        ) if assignment else None
    else:
        context["unit"] = unit_display(assignment=assignment) if assignment else None
    page, fragment = PAGES.get(campaign.task_type, QA_PAGE)
    return render(request, fragment if request.htmx else page, context)
