"""Who may see what: campaign lookups scoped to the requesting user. Anything else is a 404."""

from django.http import Http404

from annotate.models import Campaign, Membership, Role


def campaign_for_member(user, slug: str) -> Campaign:
    """The campaign SLUG if USER is a member in any role (or a superuser), else Http404."""
    try:
        return Campaign.objects.for_user(user).get(slug=slug)
    except Campaign.DoesNotExist:
        raise Http404("No such campaign.") from None


def campaign_for_researcher(user, slug: str) -> Campaign:
    """The campaign SLUG if USER manages it (researcher member or superuser), else Http404."""
    try:
        return Campaign.objects.researched_by(user).get(slug=slug)
    except Campaign.DoesNotExist:
        raise Http404("No such campaign.") from None


def campaign_for_annotator(user, slug: str) -> Campaign:
    """The campaign SLUG if USER is one of its annotators, else Http404."""
    try:
        return Campaign.objects.filter(memberships__user=user, memberships__role=Role.ANNOTATOR).get(slug=slug)
    except Campaign.DoesNotExist:
        raise Http404("No such campaign.") from None


def is_researcher(user, campaign: Campaign) -> bool:
    if user.is_superuser:
        return True
    return Membership.objects.filter(campaign=campaign, user=user, role=Role.RESEARCHER).exists()
