"""The annotation page: one unit at a time, keyboard first, the next unit swapped in by htmx.

GET  annotate/            the unit leased to the annotator (full page, or the unit fragment for htmx)
GET  annotate/?undo=ID    the annotator's verdict submitted before assignment ID (empty ID: their last one)
POST annotate/submit/     assignment=ID, verdict=yes|no; answers with the next unit's fragment
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotate.access import campaign_for_annotator
from annotate.selectors.annotation import (
    annotation_progress,
    assignment_of_annotator,
    assignment_previous,
    unit_display,
)
from annotate.services.annotation import JudgmentError, judgment_submit, unit_lease_next

VERDICTS = {"yes": {"correct": True}, "no": {"correct": False}}


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
            notice = "There is no earlier verdict to change."
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
    verdict = request.POST.get("verdict", "")
    error = notice = None
    if verdict not in VERDICTS:
        error = "Choose yes or no."
    else:
        try:
            judgment_submit(assignment=assignment, annotator=request.user, value=VERDICTS[verdict])
            if was_edit:
                notice = "Your earlier verdict is changed."
        except JudgmentError as exc:
            error = str(exc)
    if not request.htmx:
        if error:
            messages.error(request, error)
        elif notice:
            messages.success(request, notice)
        return redirect("annotate", slug=campaign.slug)
    if error and verdict not in VERDICTS:
        # Nothing was recorded: show the same unit again.
        return _render(request, campaign=campaign, assignment=assignment, editing=was_edit, error=error)
    next_assignment = unit_lease_next(campaign=campaign, annotator=request.user)
    return _render(request, campaign=campaign, assignment=next_assignment, editing=False, notice=notice, error=error)


def _render(request, *, campaign, assignment, editing, notice=None, error=None):
    context = {
        "campaign": campaign,
        "unit": unit_display(assignment=assignment) if assignment else None,
        "editing": editing,
        "progress": annotation_progress(campaign=campaign, annotator=request.user),
        "notice": notice,
        "error": error,
    }
    template = "annotate/_unit.html" if request.htmx else "annotate/annotate.html"
    return render(request, template, context)
