"""The Nuggets page of a nugget_evaluation campaign (researchers only): each topic's frozen list, the lists it may be
frozen from (lists.py), and the forms that freeze them, one topic or every topic at once. Routed by urls.py."""

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotate.access import campaign_for_adjudicator
from annotate.services.data_version import campaign_data_changed
from tasktypes.nugget_evaluation.downloads import EXPORTS, TYPE, export_response, nugget_campaign
from tasktypes.nugget_evaluation.lists import RULE_HUMAN, FreezeError, campaign_lists, lists_freeze
from tasktypes.nugget_evaluation.matching import MatchError, match_save, matchable
from tasktypes.nugget_evaluation.steps import creation_overlap, steps_out_of_step, steps_sync


def freeze_words(result: dict) -> str:
    """A freeze's RESULT in a sentence."""
    words = f"{result['frozen']} topic{'s' * (result['frozen'] != 1)} frozen"
    if result["new_rounds"]:
        words += f", {result['new_rounds']} of them in a new round (their answers are marked again)"
    if result["left"]:
        shown = "; ".join(f"{topic}: {why}" for topic, why in list(result["left"].items())[:5])
        more = len(result["left"]) - 5
        words += f"; {len(result['left'])} left ({shown}{f'; {more} more' if more > 0 else ''})"
    return words + "."


@require_http_methods(["GET", "POST"])
def nuggets_page(request, slug):
    campaign = nugget_campaign(request.user, slug)
    if request.method == "POST" and request.POST.get("action") == "steps":
        with transaction.atomic():
            changed = steps_sync(campaign)
            if changed:
                campaign_data_changed(campaign_id=campaign.pk)
        messages.success(request, f"{changed} unit{'s' * (changed != 1)} now ask for their step's number of judgments.")
        return redirect("nugget-lists", slug=campaign.slug)
    if request.method == "POST":
        topic = request.POST.get("topic")
        try:
            result = lists_freeze(campaign=campaign, source=request.POST.get("source", ""),
                                  topics=[int(topic)] if topic and topic.isdigit() else None)
        except FreezeError as exc:
            messages.error(request, str(exc))
        else:
            (messages.success if result["frozen"] else messages.warning)(request, freeze_words(result))
        return redirect("nugget-lists", slug=campaign.slug)
    rows = campaign_lists(campaign=campaign)
    sources = sorted({source for row in rows for source in row.candidates})
    return render(request, "nugget_evaluation/nuggets_page.html", {
        "campaign": campaign, "rows": rows, "sources": sources, "rule_human": RULE_HUMAN,
        "frozen": sum(1 for row in rows if row.frozen), "out_of_step": steps_out_of_step(campaign),
        "creation_k": creation_overlap(campaign),
        "exports": list(EXPORTS), "judges": campaign.judges.order_by("name").values_list("name", flat=True)})


@require_http_methods(["GET"])
def nuggets_export(request, slug):
    """A download of the campaign's answers, lists or marks (api.EXPORTS: ?shape=, and ?judge= for a judge's marks)."""
    campaign = nugget_campaign(request.user, slug)
    response = export_response(campaign, request.GET.get("shape", "nuggetizer-assignments"), request.GET.get("judge"))
    if response is None:
        raise Http404("No such download.")
    return response


@require_http_methods(["GET", "POST"])
def nuggets_match(request, slug):
    """Match a topic's frozen list with another list of it (matching.py), for its adjudicators and researchers:
    without ?topic= and ?source=, every pair that may be matched and how far it is; with them, the form."""
    campaign = campaign_for_adjudicator(request.user, slug)
    if campaign.task_type != TYPE:
        raise Http404("This campaign does not evaluate answers by nuggets.")
    topic_id, source = request.GET.get("topic", ""), request.GET.get("source", "")
    rows = matchable(campaign=campaign)
    if not topic_id:
        return render(request, "nugget_evaluation/nuggets_match.html", {"campaign": campaign, "rows": rows})
    found = next((row for row in rows if row["topic"].external_id == topic_id and row["source"] == source), None)
    if found is None:
        raise Http404("No such list to match: the topic has no frozen list, or no list from that source.")
    error = ""
    if request.method == "POST":
        pairs = {nugget["id"]: request.POST.get(f"match:{nugget['id']}", "") for nugget in found["frozen"]["nuggets"]
                 if f"match:{nugget['id']}" in request.POST}
        try:
            match_save(campaign=campaign, topic_id=topic_id, source=source, pairs=pairs, by=request.user)
        except MatchError as exc:
            error = str(exc)
        else:
            matched = sum(1 for value in pairs.values() if value)
            messages.success(request, f"Topic {topic_id}: {matched} of {len(pairs)} frozen nuggets matched in "
                                      f"{source}'s list.")
            return redirect(f"{reverse('nugget-match', args=[campaign.slug])}")
    chosen = (found["match"] or {}).get("pairs") or {}
    if request.method == "POST":
        chosen = {key[len("match:"):]: value for key, value in request.POST.items() if key.startswith("match:")}
    return render(request, "nugget_evaluation/nuggets_match.html", {
        "campaign": campaign, "row": found, "error": error,
        "pairs": [(nugget, chosen.get(nugget["id"]) or "") for nugget in found["frozen"]["nuggets"]]},
        status=400 if error else 200)
