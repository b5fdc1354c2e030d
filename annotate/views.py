"""Campaign pages: the list a user lands on and a campaign's overview."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotate.access import campaign_for_member, is_researcher
from annotate.selectors.campaigns import annotator_progress, campaign_list_for_user, campaign_overview, image_pools


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
        context["pools"] = image_pools(campaign=campaign)
    return render(request, "annotate/campaign_detail.html", context)
