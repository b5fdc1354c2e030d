"""Campaign pages: the list a user lands on, and a campaign's overview."""

from django.shortcuts import render

from annotate.access import campaign_for_member, is_researcher
from annotate.selectors.campaigns import campaign_list_for_user, campaign_overview


def home(request):
    return render(request, "annotate/home.html", {"rows": campaign_list_for_user(user=request.user)})


def campaign_detail(request, slug):
    campaign = campaign_for_member(request.user, slug)
    researcher = is_researcher(request.user, campaign)
    context = {"campaign": campaign, "is_researcher": researcher}
    if researcher:
        context["overview"] = campaign_overview(campaign=campaign)
    return render(request, "annotate/campaign_detail.html", context)
