"""Reads about campaigns for the campaign pages."""

from django.db.models import Count, Q

from annotate.models import Campaign, HumanJudgment, Item, Role, SystemOutput, Topic, Unit


def campaign_list_for_user(*, user) -> list[dict]:
    """The campaigns USER belongs to, each with the roles USER holds there."""
    campaigns = Campaign.objects.for_user(user).order_by("-created_at").prefetch_related("memberships")
    rows = []
    for campaign in campaigns:
        roles = {m.role for m in campaign.memberships.all() if m.user_id == user.id}
        if user.is_superuser:
            roles.add(Role.RESEARCHER)
        rows.append({"campaign": campaign, "is_researcher": Role.RESEARCHER in roles, "is_annotator": Role.ANNOTATOR in roles})
    return rows


def campaign_overview(*, campaign: Campaign) -> dict:
    """Counts a researcher reads first: topics, items, systems, units done and waiting."""
    units = Unit.objects.filter(campaign=campaign).aggregate(
        total=Count("id"),
        complete=Count("id", filter=Q(judgments_done__gte=1) & Q(judgments_done__gte=campaign.overlap)),
    )
    return {
        "topics": Topic.objects.filter(campaign=campaign).count(),
        "items": Item.objects.filter(campaign=campaign).count(),
        "systems": SystemOutput.objects.filter(campaign=campaign).values("system").distinct().count(),
        "units": units["total"],
        "units_complete": units["complete"],
        "units_waiting": units["total"] - units["complete"],
        "human_judgments": HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True).count(),
        "annotators": campaign.memberships.filter(role=Role.ANNOTATOR).count(),
    }
