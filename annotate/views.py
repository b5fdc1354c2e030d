"""Campaign pages: the list a user lands on, a campaign's overview and its options."""

import json

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from annotate.access import campaign_for_member, campaign_for_researcher, is_researcher
from annotate.selectors.campaigns import annotator_progress, campaign_list_for_user, campaign_overview, pools_get
from annotate.services.campaigns import CampaignError, campaign_options_editable, campaign_options_replace


@require_GET
def home(request):
    return render(request, "annotate/home.html", {"rows": campaign_list_for_user(user=request.user)})


@require_GET
def campaign_detail(request, slug):
    campaign = campaign_for_member(request.user, slug)
    researcher = is_researcher(request.user, campaign)
    context = {"campaign": campaign, "is_researcher": researcher}
    if researcher:
        context["overview"] = campaign_overview(campaign=campaign)
        context["annotators"] = annotator_progress(campaign=campaign)
        context["pools"] = pools_get(campaign=campaign)
    return render(request, "annotate/campaign_detail.html", context)


def campaign_options(request, slug):
    """The campaign's options as JSON in a text box (researchers only): shown, checked and saved as a whole."""
    campaign = campaign_for_researcher(request.user, slug)
    error = None
    if request.method == "POST":
        text = request.POST.get("options", "")
        try:
            options = json.loads(text or "{}")
        except json.JSONDecodeError as exc:
            error = f"Not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}). Nothing was saved."
        else:
            try:
                campaign_options_replace(campaign=campaign, options=options)
            except CampaignError as exc:
                error = f"{exc}. Nothing was saved."
            else:
                messages.success(request, "Options saved.")
                return redirect("campaign-options", slug=campaign.slug)
    else:
        text = json.dumps(campaign_options_editable(campaign), indent=2, ensure_ascii=False, sort_keys=True)
    return render(request, "annotate/campaign_options.html",
                  {"campaign": campaign, "text": text, "error": error}, status=400 if error else 200)
