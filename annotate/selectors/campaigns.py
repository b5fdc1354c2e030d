"""Reads about campaigns for the campaign pages."""

from django.db.models import Count, Max, Q
from django.utils import timezone

from annotate.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    HumanJudgment,
    Item,
    JudgmentKind,
    Role,
    SystemOutput,
    Topic,
    Unit,
)
from annotate.task_types import task_type_get


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


def annotator_progress(*, campaign: Campaign) -> list[dict]:
    """Per person who judged or may judge CAMPAIGN: current judgments (made here / imported), last one, units held now.

    Two aggregate queries whatever the campaign size; adjudicated verdicts are not counted as annotations.
    """
    judged = (
        HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True, kind=JudgmentKind.ANNOTATION)
        .values("annotator__username")
        .annotate(web=Count("id", filter=Q(source="web")), imported=Count("id", filter=Q(source="import")),
                  last=Max("created_at"))
    )
    held = (
        Assignment.objects.filter(unit__campaign=campaign, status=AssignmentStatus.ACTIVE, expires_at__gt=timezone.now())
        .values("annotator__username").annotate(n=Count("id"))
    )
    rows = {r["annotator__username"]: {"username": r["annotator__username"], "web": r["web"],
                                       "imported": r["imported"], "last": r["last"], "held": 0} for r in judged}
    for member in campaign.memberships.filter(role=Role.ANNOTATOR).values_list("user__username", flat=True):
        rows.setdefault(member, {"username": member, "web": 0, "imported": 0, "last": None, "held": 0})
    for r in held:
        rows.setdefault(r["annotator__username"], {"username": r["annotator__username"], "web": 0, "imported": 0,
                                                   "last": None, "held": 0})["held"] = r["n"]
    return sorted(rows.values(), key=lambda row: row["username"])


def pools_get(*, campaign: Campaign) -> dict | None:
    """A task type that pools runs (graded relevance): per topic, the items in its pool and how many have a human
    grade; the runs and their depth and tags; what the items are called. None for other task types. Two queries."""
    spec = task_type_get(campaign.task_type)
    if not spec.pools_runs:
        return None
    topics = (Topic.objects.filter(campaign=campaign).order_by("external_id")
              .annotate(images=Count("items", filter=Q(items__kind=spec.item_kind), distinct=True),
                        graded=Count("items", filter=Q(items__units__judgments__is_current=True), distinct=True))
              .values_list("external_id", "text", "images", "graded"))
    runs = (campaign.options or {}).get("runs") or {}
    return {
        "noun": spec.item_noun,
        "topics": [{"topic": qid, "text": text, "images": images, "graded": graded} for qid, text, images, graded in topics],
        "runs": [{"run": name, "depth": meta.get("depth"), "tags": meta.get("tags") or [], "lines": meta.get("lines")}
                 for name, meta in sorted(runs.items())],
    }
