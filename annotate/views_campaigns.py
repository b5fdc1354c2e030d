"""Running a campaign from the browser: making one, its settings and guidelines, and its people.

GET/POST campaigns/new/              a new campaign (the "Can add campaign" permission); htmx swaps the task type's
                                     overlap and option fields in when the task type changes (?task_type=NAME)
GET/POST campaigns/SLUG/settings/    name, overlap k and guidelines (researchers); earlier guidelines listed
GET/POST campaigns/SLUG/people/      researchers and annotators: add (an existing account, or a new person with a
                                     one-time link to choose a password), remove, a new link (researchers)
"""

from django.conf import settings
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from annotate.access import campaign_for_researcher, check_campaign_creator
from annotate.forms import CampaignCreateForm, CampaignSettingsForm, MemberAddForm
from annotate.models import Campaign, Membership
from annotate.selectors.arms import member_arms_add
from annotate.selectors.campaigns import campaign_members, guidelines_current, guidelines_versions
from annotate.services.arms import ArmError, arm_settings, arm_words, campaign_arms, member_arm_set
from annotate.services.campaigns import (
    CampaignError,
    campaign_create,
    campaign_update,
    member_add,
    member_invitation_create,
    member_remove,
    role_words,
)
from annotate.task_types.registry import task_type_get


def campaign_new(request):
    """A new campaign: its own fields, then its task type's options as the Options page shows them."""
    check_campaign_creator(request.user)
    if request.method == "POST":
        form = CampaignCreateForm(request.POST)
    else:
        form = CampaignCreateForm(initial={"task_type": request.GET.get("task_type", "")})
    task_type = form.chosen_task_type()
    options_form = None
    if task_type:
        # The options form of a campaign not made yet: it checks values as it does on the Options page.
        draft = Campaign(task_type=task_type, options={})
        options_form = task_type_get(task_type).options_form(
            request.POST if request.method == "POST" else None, campaign=draft, prefix="option")
    if request.method == "POST" and form.is_valid() and options_form is not None and options_form.is_valid():
        data = form.cleaned_data
        try:
            campaign = campaign_create(creator=request.user, name=data["name"], slug=data["slug"],
                                       task_type=task_type, overlap=data["overlap"], options=options_form.options(),
                                       guidelines=data["guidelines"])
        except CampaignError as exc:
            form.add_error(None, _sentence(exc))
        else:
            messages.success(request, f"Campaign “{campaign.name}” made; you are its researcher. Next: import its "
                                      "data and add the people who judge it.")
            return redirect("campaign-detail", slug=campaign.slug)
    context = {"form": form, "options_form": options_form, "task_type": task_type,
               "default_overlap": task_type_get(task_type).default_overlap if task_type else None}
    template = "annotate/_campaign_new_type.html" if request.htmx else "annotate/campaign_new.html"
    invalid = request.method == "POST" and (form.errors or (options_form is not None and options_form.errors))
    return render(request, template, context, status=400 if invalid else 200)


def campaign_settings(request, slug):
    """Name, overlap k and guidelines (researchers); the guidelines' earlier versions below."""
    campaign = campaign_for_researcher(request.user, slug)
    current = guidelines_current(campaign=campaign)
    initial = {"name": campaign.name, "overlap": campaign.overlap, "guidelines": current.text if current else ""}
    form = CampaignSettingsForm(request.POST if request.method == "POST" else None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            campaign_update(campaign=campaign, editor=request.user, name=data["name"], overlap=data["overlap"],
                            guidelines=data["guidelines"])
        except CampaignError as exc:
            form.add_error(None, _sentence(exc))
        else:
            changed = [words for field, words in (("name", "name"), ("overlap", "overlap k"),
                                                  ("guidelines", "guidelines (a new version)"))
                       if field in form.changed_data]
            messages.success(request, f"Saved: {', '.join(changed)}." if changed else "Nothing changed.")
            return redirect("campaign-settings", slug=campaign.slug)
    context = {"campaign": campaign, "form": form, "versions": guidelines_versions(campaign=campaign)}
    return render(request, "annotate/campaign_settings.html", context, status=400 if form.errors else 200)


def campaign_people(request, slug):
    """The campaign's researchers and annotators with each annotator's progress; add, remove, new link."""
    campaign = campaign_for_researcher(request.user, slug)
    form = MemberAddForm(request.POST if request.POST.get("action") == "add" else None)
    invite = None  # (username, link): shown once, in this answer only
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "add" and form.is_valid():
            data = form.cleaned_data
            try:
                added = member_add(campaign=campaign, username=data["username"], role=data["role"],
                                   added_by=request.user, create=data["create"])
            except CampaignError as exc:
                form.add_error("username", _sentence(exc))
            else:
                who = added.membership.user.get_username()
                if added.invite_key is None:
                    messages.success(request, f"{who} is now {role_words(data['role'])} of this campaign.")
                    if added.no_link:
                        messages.warning(request, _sentence(added.no_link))
                    return redirect("campaign-people", slug=campaign.slug)
                invite = (who, _welcome_url(request, added.invite_key), added.created)
                form = MemberAddForm()
        elif action in ("remove", "invite"):
            membership = get_object_or_404(Membership.objects.select_related("user"), campaign=campaign,
                                           pk=request.POST.get("membership") or 0)
            who = membership.user.get_username()
            try:
                if action == "remove":
                    released = member_remove(campaign=campaign, user=membership.user, role=membership.role)
                else:
                    key = member_invitation_create(campaign=campaign, user=membership.user, created_by=request.user)
            except CampaignError as exc:
                messages.error(request, _sentence(exc))
                return redirect("campaign-people", slug=campaign.slug)
            if action == "invite":
                invite = (who, _welcome_url(request, key), False)
            else:
                held = f" The {released} unit{'s' if released != 1 else ''} they held went back to the queue." \
                    if released else ""
                messages.success(request, f"{who} is no longer {role_words(membership.role)} of this campaign; their "
                                          f"judgments stay.{held}")
                if membership.user == request.user and membership.role == "researcher":
                    return redirect("home")
                return redirect("campaign-people", slug=campaign.slug)
        elif action == "arm":
            membership = get_object_or_404(Membership.objects.select_related("user"), campaign=campaign,
                                           pk=request.POST.get("membership") or 0)
            who = membership.user.get_username()
            arm = request.POST.get("arm", "")
            try:
                member_arm_set(campaign=campaign, user=membership.user, arm=arm)
            except ArmError as exc:
                messages.error(request, _sentence(exc))
            else:
                messages.success(request, f"{who} is now in the arm {arm_words(arm)}." if arm else
                                 f"{who} is in no arm now.")
            return redirect("campaign-people", slug=campaign.slug)
        elif action != "add":
            messages.error(request, "Unknown action.")
            return redirect("campaign-people", slug=campaign.slug)
    members = campaign_members(campaign=campaign)
    context = {"campaign": campaign, "form": form, "members": members, "invite": invite,
               "invite_days": settings.PASSWORD_RESET_TIMEOUT // 86400, "experiment": _experiment(campaign, members)}
    response = render(request, "annotate/campaign_people.html", context, status=400 if form.errors else 200)
    if invite:
        response["Cache-Control"] = "no-store"  # the link is in this answer only: the browser must not keep it
    return response


def _experiment(campaign, members: list[dict]) -> dict | None:
    """The People page's view of the assistance experiment: the arms to choose from and each annotator's arm (in
    MEMBERS' rows, as "arm"); None when the campaign runs none. One query, only then."""
    arms = campaign_arms(campaign)
    if not arms:
        return None
    assignment, per = arm_settings(campaign)
    member_arms_add(campaign=campaign, members=members)
    return {"arms": [(arm, arm_words(arm)) for arm in arms], "assignment": assignment, "per": per}


def _welcome_url(request, key: str) -> str:
    return request.build_absolute_uri(reverse("account-welcome", kwargs={"key": key}))



def _sentence(exc: Exception) -> str:
    """A service's message ("a campaign called 'x' exists already") as a sentence on the page."""
    words = str(exc)
    return words[:1].upper() + words[1:] + ("" if words.endswith(".") else ".")
