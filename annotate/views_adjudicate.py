"""The adjudicator's pages (docs/adjudication.md): the queue of units whose verdicts disagree, and one unit.

GET      campaigns/SLUG/adjudicate/            the queue, most disagreement first, and the units adjudicated already
GET/POST campaigns/SLUG/adjudicate/UNIT_ID/    one unit with every verdict on it (raters anonymised); POST the
                                               adjudicator's verdict and note, then the next unit of the queue

Adjudicator members and researchers (annotate.access.campaign_for_adjudicator); keyboard first
(static/js/adjudicate.js).
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse

from annotate.access import campaign_for_adjudicator
from annotate.adjudication_kinds import ADJUDICATION_KINDS
from annotate.models import CATEGORY_MAX_LENGTH
from annotate.selectors.adjudication import (
    adjudication_queue,
    adjudication_unit_get,
    adjudication_unit_view,
    units_held_back,
)
from annotate.services.adjudication import adjudication_submit
from annotate.task_types.registry import task_type_get
from annotate.task_types.spec import JudgmentError

# The queue page lists this many waiting units (most disagreement first) and as many adjudicated ones (most recent
# first); the API pages through all of them.
QUEUE_ROWS_SHOWN = 100

HELD_BACK = ("This unit is still open to you as an annotator: judge it on the annotation page first (you would see the "
             "others' verdicts here), or leave it to another adjudicator.")


def adjudication_queue_page(request, slug):
    campaign = campaign_for_adjudicator(request.user, slug)
    queue = adjudication_queue(campaign=campaign, adjudicator=request.user)
    rule_words = ", or when ".join(ADJUDICATION_KINDS[kind] for kind in queue.kinds)
    return render(request, "adjudicate/queue.html", {
        "campaign": campaign, "queue": queue, "rule_words": rule_words,
        "waiting_shown": queue.waiting[:QUEUE_ROWS_SHOWN], "adjudicated_shown": queue.adjudicated[:QUEUE_ROWS_SHOWN]})


def adjudication_unit_page(request, slug, unit_id):
    campaign = campaign_for_adjudicator(request.user, slug)
    unit = adjudication_unit_get(campaign=campaign, unit_id=unit_id)
    if unit.pk in units_held_back(campaign=campaign, adjudicator=request.user):
        raise PermissionDenied(HELD_BACK)
    spec = task_type_get(campaign.task_type)
    error, posted = "", {}
    if request.method == "POST":
        posted = request.POST
        try:
            value = spec.adjudication_value_from_post(request.POST, unit=unit, adjudicator=request.user)
            adjudication_submit(unit=unit, adjudicator=request.user, value=value, note=request.POST.get("note", ""))
        except JudgmentError as exc:
            error = str(exc)
        else:
            queue = adjudication_queue(campaign=campaign, adjudicator=request.user)
            following = next((entry for entry in queue.waiting if entry.unit_id != unit.pk), None)
            messages.success(request, f"Adjudicated {_unit_name(unit)}." + (
                "" if following else " The queue is empty."))
            if following is None:
                return redirect("adjudicate", slug=campaign.slug)
            return redirect("adjudicate-unit", slug=campaign.slug, unit_id=following.unit_id)
    queue = adjudication_queue(campaign=campaign, adjudicator=request.user)
    entry = next((e for e in queue.waiting + queue.adjudicated if e.unit_id == unit.pk), None)
    following = next((e for e in queue.waiting if e.unit_id != unit.pk), None)
    view = adjudication_unit_view(unit=unit, adjudicator=request.user)
    context = {"campaign": campaign, "unit": unit, "name": _unit_name(unit), "view": view, "entry": entry,
               "topic_noun": spec.topic_noun, "category_max_length": CATEGORY_MAX_LENGTH,
               "next_url": reverse("adjudicate-unit", kwargs={"slug": campaign.slug, "unit_id": following.unit_id})
               if following else "", "waiting": len(queue.waiting), "error": error,
               "posted_note": posted.get("note", "") if posted else "",
               "typed_orders": any(question.get("text") for question in view["questions"]),
               # Each key once, as the first question offering it words it (AIS asks y/n twice).
               "choice_keys": list({choice["key"]: choice["words"] for question in reversed(view["questions"])
                                    for choice in question["choices"]}.items()),
               "posted": {question["name"]: posted.get(question["name"], "") for question in view["questions"]}
               if posted else {}}
    return render(request, "adjudicate/unit.html", context, status=400 if error else 200)


def _unit_name(unit) -> str:
    return unit.item.external_id if unit.item_id else f"topic {unit.topic.external_id}"
