"""The annotation page: one unit at a time, keyboard first, the next unit swapped in by htmx.

GET  annotate/            the unit leased to the annotator (full page, or the unit fragment for htmx)
GET  annotate/?undo=ID    the annotator's judgment submitted before assignment ID (empty ID: their last one)
POST annotate/submit/     assignment=ID and verdict=yes|no (qa_correctness), interpretable=yes|no with
                          supported=yes|no only when interpretable=yes (ais), grade=0|1|2
                          (image_relevance), or ranking=JSON (answer_ranking); answers with the next
                          unit's fragment
                          Every submit form also carries shown_version (the version of the annotator's judgment
                          of the unit the form was shown with, empty for none) and the page adds submission (its
                          own id for the verdict, the same on every resend): a resend records nothing twice, and a
                          verdict from a view another tab has overtaken answers 409 with the choice between the two
POST annotate/draft/      assignment=ID, draft=JSON: keeps a ranking in progress for the next page load (204);
                          409 once the unit is submitted (a draft that raced its own submit), 400 for a
                          malformed draft, each with the reason as text

A ranking page names candidates by neutral labels ("A", "B", ...), never by item id; the posted
ranking {"rankings": {dimension: [[label, ...], ...]}} is translated to item ids by the task type
(tasktypes.answer_ranking), before the service validates it against docs/answer_ranking.md.
"""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.timesince import timesince
from django.views.decorators.http import require_GET, require_POST

from annotate.access import assignment_for_annotator, campaign_for_annotator
from annotate.selectors.annotation import (
    annotation_progress,
    assignment_of_annotator,
    assignment_previous,
    assist_display,
)
from annotate.services.annotation import (
    UNCHECKED,
    DraftSuperseded,
    JudgmentError,
    JudgmentStale,
    JudgmentValueError,
    assignment_draft_save,
    judgment_submit,
    unit_lease_next,
)
from annotate.services.arms import ArmNotGiven
from annotate.task_types.registry import task_type_get


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
    waiting = None
    if assignment is None and not editing:
        assignment, waiting = _lease_next(campaign=campaign, annotator=request.user)
    return _render(request, campaign=campaign, assignment=assignment, editing=editing, notice=notice,
                   waiting=waiting)


@require_POST
def annotate_submit(request, slug):
    assignment = assignment_for_annotator(request.user, slug, request.POST.get("assignment"))
    campaign = assignment.unit.campaign
    error = notice = value = None
    refused = False  # the value itself was wrong: nothing recorded, the same unit again
    was_edit = assignment.status == "submitted"
    try:
        shown_version = _shown_version(request.POST)
        if shown_version is not UNCHECKED:
            was_edit = shown_version is not None  # a resend of a first verdict finds the assignment submitted
        value = _value_from_post(request.POST, campaign=campaign, assignment=assignment)
        judgment_submit(assignment=assignment, annotator=request.user, value=value, shown_version=shown_version,
                        submission=request.POST.get("submission", ""))
        if was_edit:
            notice = f"Your earlier {_noun(campaign)} is changed."
    except JudgmentStale as exc:
        stale = _stale_choice(request.POST, campaign=campaign, assignment=assignment, current=exc.current, value=value)
        return _render(request, campaign=campaign, assignment=assignment, editing=True, stale=stale, status=409)
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
    next_assignment, waiting = _lease_next(campaign=campaign, annotator=request.user, look_first=False)
    return _render(request, campaign=campaign, assignment=next_assignment, editing=False, notice=notice, error=error,
                   waiting=waiting)


def _lease_next(*, campaign, annotator, look_first=True):
    """(the next assignment or None, why there is none when it is not that all is done: the annotator waits for the
    researcher to put them in an arm of the campaign's experiment). LOOK_FIRST: see unit_lease_next."""
    try:
        return unit_lease_next(campaign=campaign, annotator=annotator, look_first=look_first), None
    except ArmNotGiven as exc:
        return None, str(exc)


@require_POST
def annotate_draft(request, slug):
    """Keep the annotator's ranking in progress; 204, or 409 (already submitted) or 400 with the reason as text."""
    assignment = assignment_for_annotator(request.user, slug, request.POST.get("assignment"))
    campaign = assignment.unit.campaign
    try:
        draft = task_type_get(campaign.task_type).draft_from_post(request.POST, assignment=assignment)
        assignment_draft_save(assignment=assignment, annotator=request.user, draft=draft)
    except DraftSuperseded as exc:
        return HttpResponse(str(exc), status=409, content_type="text/plain; charset=utf-8")
    except JudgmentError as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    return HttpResponse(status=204)


def _value_from_post(post, *, campaign, assignment) -> dict:
    return task_type_get(campaign.task_type).value_from_post(post, assignment=assignment)


def _noun(campaign) -> str:
    return task_type_get(campaign.task_type).noun


def _shown_version(post):
    """The form's shown_version: UNCHECKED when it has none (a client that does not say), None for "shown
    unjudged", else the version number."""
    raw = post.get("shown_version")
    if raw is None:
        return UNCHECKED
    if raw == "":
        return None
    if not raw.isdigit():
        raise JudgmentValueError("This form is damaged (shown_version); reload the page and judge again.")
    return int(raw)


# Form fields the stale choice's "replace" form does not send on: the page adds its own token and submission id,
# and the version it replaces is the newer one.
_NOT_RESENT = ("csrfmiddlewaretoken", "submission", "shown_version")


def _stale_choice(post, *, campaign, assignment, current, value) -> dict:
    """What the page needs to offer the choice between the newer judgment CURRENT and the refused VALUE."""
    spec = task_type_get(campaign.task_type)
    return {
        "newer": spec.value_words(current.value, assignment=assignment),
        "newer_version": current.version,
        "newer_ago": _ago(current.created_at),
        "mine": spec.value_words(value, assignment=assignment),
        "fields": [(name, post.get(name)) for name in post if name not in _NOT_RESENT],
    }


def _ago(moment) -> str:
    """"moments ago", "3 minutes ago": when the newer verdict was given, as the stale choice says it."""
    if moment is None or (timezone.now() - moment).total_seconds() < 60:
        return "moments ago"
    return f"{timesince(moment)} ago"


def _render(request, *, campaign, assignment, editing, notice=None, error=None, arrangement=None, stale=None,
            status=200, waiting=None):
    spec = task_type_get(campaign.task_type)
    context = {
        "campaign": campaign,
        "editing": editing,
        "progress": annotation_progress(campaign=campaign, annotator=request.user, read_with=assignment),
        "notice": notice,
        "error": error,
        "stale": stale,
        "noun": spec.noun,
        "waiting": waiting,
    }
    context.update(spec.page_context(campaign))
    context["unit"] = spec.unit_context(assignment=assignment, arrangement=arrangement) if assignment else None
    if context["unit"] is not None:
        context["unit"]["assist"] = assist_display(assignment=assignment, shown=context["unit"])
    page, fragment = spec.page
    return render(request, fragment if request.htmx else page, context, status=status)
