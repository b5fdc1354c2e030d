"""Campaign pages: the list a user lands on, a campaign's overview and its options."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from annotate.access import campaign_for_member, campaign_for_researcher, is_researcher, may_create_campaigns
from annotate.selectors.adjudication import adjudication_queue
from annotate.selectors.campaigns import annotator_progress, campaign_list_for_user, campaign_overview, pools_get
from annotate.services.campaigns import CampaignError, campaign_options_replace
from annotate.task_types.registry import task_type_get


@require_GET
def home(request):
    return render(request, "annotate/home.html", {"rows": campaign_list_for_user(user=request.user),
                                                  "may_create": may_create_campaigns(request.user)})


@require_GET
def campaign_detail(request, slug):
    campaign = campaign_for_member(request.user, slug)
    researcher = is_researcher(request.user, campaign)
    context = {"campaign": campaign, "is_researcher": researcher}
    if researcher:
        context["overview"] = campaign_overview(campaign=campaign)
        context["annotators"] = annotator_progress(campaign=campaign)
        context["pools"] = pools_get(campaign=campaign)
    if campaign.is_adjudicator:  # the units waiting for them in the adjudication queue
        context["adjudication_waiting"] = len(adjudication_queue(campaign=campaign, adjudicator=request.user).waiting)
    return render(request, "annotate/campaign_detail.html", context)


def campaign_options(request, slug):
    """The campaign's options as its task type's form (researchers only): checked as a whole, saved only when every
    field passes, each problem shown on its field."""
    campaign = campaign_for_researcher(request.user, slug)
    form_class = task_type_get(campaign.task_type).options_form
    if request.method == "POST":
        form = form_class(request.POST, campaign=campaign)
        if form.is_valid():
            try:
                campaign_options_replace(campaign=campaign, options=form.options())
            except CampaignError as exc:  # a grade given since the form was checked, say
                form.add_error(None, str(exc))
            else:
                messages.success(request, f"Options saved: {form.change_words()}.")
                return redirect("campaign-options", slug=campaign.slug)
    else:
        form = form_class(campaign=campaign)
    return render(request, "annotate/campaign_options.html", {"campaign": campaign, "form": form},
                  status=400 if form.errors else 200)
