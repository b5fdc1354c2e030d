"""Reads about campaigns for the campaign pages."""

from django.db.models import Count, F, Max, Q, QuerySet, Sum
from django.utils import timezone

from accounts.models import InvitedAccount
from annotate.guidelines import guidelines_html
from annotate.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignDataVersion,
    CampaignGuidelines,
    HumanJudgment,
    Item,
    JudgmentKind,
    Membership,
    Role,
    SystemOutput,
    Topic,
    Unit,
)
from annotate.precompiled import Precompiled
from annotate.task_types.registry import task_type_get


def campaign_list_for_user(*, user) -> list[dict]:
    """The campaigns USER belongs to, each with the roles USER holds there: `roles`, their names in Role's order, and
    `is_researcher`, `is_annotator`, `is_adjudicator` (held as a role of its own: a researcher may adjudicate too,
    from the campaign's page)."""
    campaigns = Campaign.objects.for_user(user).order_by("-created_at").prefetch_related("memberships")
    rows = []
    for campaign in campaigns:
        roles = {m.role for m in campaign.memberships.all() if m.user_id == user.id}
        if user.is_superuser:
            roles.add(Role.RESEARCHER)
        rows.append({"campaign": campaign, "roles": [role.label.lower() for role in Role if role in roles],
                     "is_researcher": Role.RESEARCHER in roles, "is_annotator": Role.ANNOTATOR in roles,
                     "is_adjudicator": Role.ADJUDICATOR in roles})
    return rows


def campaign_overview(*, campaign: Campaign) -> dict:
    """Counts a researcher reads first: topics, items, systems, units done and waiting, and the work left: the human
    judgments still wanted (each unit's k less those it has, over the units that have fewer)."""
    units = Unit.objects.filter(campaign=campaign).aggregate(
        total=Count("id"),
        complete=Count("id", filter=Q(judgments_done__gte=1) & Q(judgments_done__gte=campaign.overlap)),
        left=Sum(F("judgments_needed") - F("judgments_done"), filter=Q(judgments_done__lt=F("judgments_needed"))),
    )
    return {
        "topics": Topic.objects.filter(campaign=campaign).count(),
        "items": Item.objects.filter(campaign=campaign).count(),
        "systems": SystemOutput.objects.filter(campaign=campaign).values("system").distinct().count(),
        "units": units["total"],
        "units_complete": units["complete"],
        "units_waiting": units["total"] - units["complete"],
        "judgments_left": units["left"] or 0,
        "human_judgments": HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True).count(),
        "annotators": campaign.memberships.filter(role=Role.ANNOTATOR).count(),
    }


def annotator_progress(*, campaign: Campaign) -> list[dict]:
    """Per person who judged or may judge CAMPAIGN: current judgments (made here / imported), the last one, units held
    now (in progress), when they were last active (their last judgment or lease), and whether they are an annotator
    of it now (a removed annotator's judgments stay, and so does their row).

    Three queries whatever the campaign size; adjudicated verdicts are not counted as annotations.
    """
    judged = (
        HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True, kind=JudgmentKind.ANNOTATION)
        .values("annotator__username")
        .annotate(web=Count("id", filter=Q(source="web")), imported=Count("id", filter=Q(source="import")),
                  last=Max("created_at"))
    )
    leases = (
        Assignment.objects.filter(unit__campaign=campaign).values("annotator__username")
        .annotate(n=Count("id", filter=Q(status=AssignmentStatus.ACTIVE, expires_at__gt=timezone.now())),
                  leased=Max("leased_at"))
    )
    rows: dict[str, dict] = {}

    def row(username: str) -> dict:
        return rows.setdefault(username, {"username": username, "web": 0, "imported": 0, "last": None, "held": 0,
                                          "last_active": None, "member": False})

    for r in judged:
        row(r["annotator__username"]).update(web=r["web"], imported=r["imported"], last=r["last"])
    for member in campaign.memberships.filter(role=Role.ANNOTATOR).values_list("user__username", flat=True):
        row(member)["member"] = True
    for r in leases:
        entry = row(r["annotator__username"])
        entry["held"] = r["n"]
        entry["last_active"] = r["leased"]
    for entry in rows.values():
        entry["done"] = entry["web"] + entry["imported"]
        moments = [moment for moment in (entry["last"], entry["last_active"]) if moment is not None]
        entry["last_active"] = max(moments) if moments else None
    return sorted(rows.values(), key=lambda entry: entry["username"])


def campaign_invitation_scope(campaign: Campaign) -> str:
    """The scope (accounts.models.InvitedAccount.scope) of the accounts CAMPAIGN's invitations make: only CAMPAIGN
    makes their links. Campaign ids are never reused (AUTOINCREMENT on SQLite, sequences on PostgreSQL)."""
    return f"campaign:{campaign.pk}"


def campaign_members(*, campaign: Campaign) -> list[dict]:
    """CAMPAIGN's memberships, researchers first, each with the account's state (whether the person can sign in yet:
    an account made for them has no password until they use their link; whether it is active; `invited`: whether
    this campaign's invitation made it and it is still open to the campaign's links, so the page offers a new one;
    annotate.services.campaigns.member_invitation_create decides) and, for an annotator, their progress
    (annotator_progress's row). Five queries."""
    memberships = Membership.objects.filter(campaign=campaign).select_related("user")
    progress = {row["username"]: row for row in annotator_progress(campaign=campaign)}
    invited = set(InvitedAccount.objects.filter(
        scope=campaign_invitation_scope(campaign), claimed_at__isnull=True, closed_at__isnull=True,
        user__memberships__campaign=campaign).values_list("user_id", flat=True))
    role_order = {Role.RESEARCHER: 0, Role.ANNOTATOR: 1}
    rows = [{"id": m.pk, "user": m.user, "username": m.user.get_username(), "role": m.role,
             "has_password": m.user.has_usable_password(), "is_active": m.user.is_active,
             "invited": m.user_id in invited and not m.user.has_usable_password(),
             "progress": progress.get(m.user.get_username()) if m.role == Role.ANNOTATOR else None}
            for m in memberships]
    return sorted(rows, key=lambda entry: (role_order.get(entry["role"], 2), entry["username"]))


def guidelines_current(*, campaign: Campaign) -> CampaignGuidelines | None:
    """The campaign's current guidelines (the highest version), or None when it has none."""
    return CampaignGuidelines.objects.filter(campaign=campaign).order_by("-version").first()


def guidelines_current_id(*, unit_id: int) -> int | None:
    """The id of the current guidelines of the campaign of unit UNIT_ID, or None: what a judgment made now records.
    One query."""
    found = _GUIDELINES_CURRENT(unit=unit_id)
    return found[0] if found else None


def guidelines_current_of(unit) -> QuerySet:
    """The ids of the guidelines of the campaign of UNIT (an id, or an OuterRef), the current one first: its first
    row, in a subquery, is what a judgment made now records."""
    return CampaignGuidelines.objects.filter(campaign__units__pk=unit).order_by("-version").values_list("pk", flat=True)


_GUIDELINES_CURRENT = Precompiled(lambda unit: guidelines_current_of(unit)[:1])


def guidelines_versions(*, campaign: Campaign) -> list[CampaignGuidelines]:
    """Every version of the campaign's guidelines, newest first, each with `html` (rendered safely) and `judgments`
    (how many human judgments were made under it). Two queries."""
    versions = list(CampaignGuidelines.objects.filter(campaign=campaign).select_related("created_by")
                    .order_by("-version"))
    counts = dict(HumanJudgment.objects.filter(guidelines__campaign=campaign).values("guidelines")
                  .annotate(n=Count("id")).values_list("guidelines", "n"))
    for version in versions:
        version.html = guidelines_html(version.text)
        version.judgments = counts.get(version.pk, 0)
    return versions


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
        "topics": [
            {"topic": qid, "text": text, "images": images, "graded": graded} for qid, text, images, graded in topics
        ],
        "runs": [
            {"run": name, "depth": meta.get("depth"), "tags": meta.get("tags") or [], "lines": meta.get("lines")}
            for name, meta in sorted(runs.items())
        ],
    }


def campaign_data_version(*, campaign_id: int) -> int:
    """The campaign's data version (annotate.services.data_version); 0 before its first change."""
    return CampaignDataVersion.objects.filter(campaign_id=campaign_id).values_list("version", flat=True).first() or 0
