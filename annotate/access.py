"""Who may see what: campaign lookups scoped to the requesting user.

A campaign one is not a member of is a 404 (its existence is not revealed). A member who lacks the role a page is for
gets a 403 (PermissionDenied) whose message says what the page is for and which role they hold: the browser shows it
on templates/403.html, the API as its `detail` (config.api_exceptions).
"""

from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef
from django.http import Http404

from annotate.models import Assignment, Campaign, Membership, Role
from annotate.precompiled import Precompiled
from annotate.selectors.annotation import assignment_of_annotator, page_columns_kept, page_columns_of

CREATE_PERMISSION = "annotate.add_campaign"


def _campaign_with_roles(user, slug: str) -> Campaign:
    """The campaign SLUG if USER is a member in any role (or a superuser), with `is_researcher` and `is_annotator` set
    for USER; one query. Http404 otherwise."""
    if not user.is_authenticated:
        raise Http404("No such campaign.")
    found = (_CAMPAIGN_ANY if user.is_superuser else _CAMPAIGN_OF_MEMBER)(user=user.pk, slug=slug)
    if not found:
        raise Http404("No such campaign.")
    return _roles_set(found[0], user, found[0])


def _roles_set(campaign: Campaign, user, read) -> Campaign:
    """CAMPAIGN with USER's roles in it, as READ (a row read with _roles' columns) says them."""
    campaign.is_researcher = read._researcher or user.is_superuser
    campaign.is_annotator = read._annotator
    # Researchers (and superusers) may settle disagreements too; annotators may not, unless also adjudicators.
    campaign.is_adjudicator = read._adjudicator or campaign.is_researcher
    campaign.roles_of = user.pk
    return campaign


def _roles(campaign, *, user: int) -> dict:
    """Columns saying whether user USER is a researcher, an annotator and an adjudicator of CAMPAIGN (an OuterRef)."""
    mine = Membership.objects.filter(campaign=campaign, user=user)
    return {"_researcher": Exists(mine.filter(role=Role.RESEARCHER)),
            "_annotator": Exists(mine.filter(role=Role.ANNOTATOR)),
            "_adjudicator": Exists(mine.filter(role=Role.ADJUDICATOR))}


def _with_roles(campaigns, *, user: int, slug: str):
    """CAMPAIGNS' campaign SLUG, with whether user USER is a researcher, an annotator and an adjudicator of it."""
    return campaigns.filter(slug=slug).annotate(**_roles(OuterRef("pk"), user=user))


# Every request to a campaign's pages asks: built once (annotate.precompiled). A superuser opens every campaign.
_CAMPAIGN_OF_MEMBER = Precompiled(lambda user, slug: _with_roles(Campaign.objects.of_member(user), user=user,
                                                                  slug=slug))
_CAMPAIGN_ANY = Precompiled(lambda user, slug: _with_roles(Campaign.objects.all(), user=user, slug=slug))


def _role_words(campaign: Campaign) -> str:
    if campaign.is_researcher:
        return "you are a researcher here"
    if campaign.is_annotator:
        return "you are an annotator here"
    if campaign.is_adjudicator:
        return "you are an adjudicator here"
    return "you hold no role here"


def campaign_for_member(user, slug: str) -> Campaign:
    """The campaign SLUG if USER is a member in any role (or a superuser), else Http404."""
    return _campaign_with_roles(user, slug)


def campaign_for_researcher(user, slug: str) -> Campaign:
    """The campaign SLUG if USER manages it (researcher member or superuser); PermissionDenied for its other members,
    Http404 for everyone else."""
    campaign = _campaign_with_roles(user, slug)
    if not campaign.is_researcher:
        raise PermissionDenied(f"This page is for the researchers of campaign “{campaign.name}”; "
                               f"{_role_words(campaign)}.")
    return campaign


def campaign_for_annotator(user, slug: str) -> Campaign:
    """The campaign SLUG if USER is one of its annotators; PermissionDenied for its other members (researchers,
    superusers), Http404 for everyone else."""
    campaign = _campaign_with_roles(user, slug)
    if not campaign.is_annotator:
        hint = (" You can add yourself as an annotator on the campaign's People page."
                if campaign.is_researcher else "")
        raise PermissionDenied(f"This page is for the annotators of campaign “{campaign.name}”; "
                               f"{_role_words(campaign)}.{hint}")
    return campaign


def assignment_for_annotator(user, slug: str, assignment_id) -> Assignment:
    """USER's own assignment ASSIGNMENT_ID in campaign SLUG, with its unit, topic, item and campaign, the campaign as
    campaign_for_annotator gives it: one query where USER is one of its annotators (a submit's). Otherwise what
    campaign_for_annotator and assignment_of_annotator say (Http404, PermissionDenied)."""
    found = None
    guess = _TASK_TYPE_OF.get(slug, _NO_TASK_TYPE)
    if user.is_authenticated:
        try:
            found = _ASSIGNMENT_OF_ANNOTATOR(variant=guess, assignment=int(assignment_id), user=user.pk, slug=slug)
        except (TypeError, ValueError):
            pass
    if not found or not found[0]._annotator:
        campaign = campaign_for_annotator(user, slug)
        return assignment_of_annotator(campaign=campaign, annotator=user, assignment_id=assignment_id)
    assignment = found[0]
    campaign = _roles_set(assignment.unit.campaign, user, assignment)
    _TASK_TYPE_OF[slug] = campaign.task_type
    if guess == campaign.task_type:
        page_columns_kept(campaign.task_type, assignment.unit, assignment)
    return assignment


# Which task type's page columns the query of a campaign's submits carries, by slug, as the last submit found it: the
# columns are the type's, and the type is only known once the row is read. A guess that misses (a first submit, a
# slug given to another campaign since) reads no columns, and the reads that want them ask the database.
_TASK_TYPE_OF: dict[str, str] = {}
_NO_TASK_TYPE = "-"

_ASSIGNMENT_OF_ANNOTATOR = Precompiled(lambda task_type, assignment, user, slug: (
    Assignment.objects.select_related("unit__campaign", "unit__topic", "unit__item")
    .filter(pk=assignment, annotator=user, unit__campaign__slug=slug)
    .annotate(**_roles(OuterRef("unit__campaign_id"), user=user),
              **page_columns_of(task_type, unit_path="unit__", campaign=OuterRef("unit__campaign_id"), annotator=user,
                                now=None))
), variants=True)


def campaign_for_adjudicator(user, slug: str) -> Campaign:
    """The campaign SLUG if USER may adjudicate it (an adjudicator member, a researcher or a superuser);
    PermissionDenied for its other members (annotators), Http404 for everyone else."""
    campaign = _campaign_with_roles(user, slug)
    if not campaign.is_adjudicator:
        raise PermissionDenied(f"This page is for the adjudicators of campaign “{campaign.name}”, who settle the units "
                               f"whose verdicts disagree; {_role_words(campaign)}. A researcher can make you one on "
                               "the campaign's People page.")
    return campaign


def is_researcher(user, campaign: Campaign) -> bool:
    if getattr(campaign, "roles_of", None) == user.pk:  # looked up with the campaign (_campaign_with_roles)
        return campaign.is_researcher
    if user.is_superuser:
        return True
    return Membership.objects.filter(campaign=campaign, user=user, role=Role.RESEARCHER).exists()


def may_create_campaigns(user) -> bool:
    """Whether USER may make campaigns: the `annotate.add_campaign` permission ("Can add campaign"), which staff
    grant on the user's (or a group's) page in the admin; superusers have it."""
    return user.is_authenticated and user.has_perm(CREATE_PERMISSION)


def check_campaign_creator(user) -> None:
    """PermissionDenied, in words, unless USER may make campaigns."""
    if not may_create_campaigns(user):
        raise PermissionDenied("This page makes new campaigns, which takes the permission “Can add campaign”; staff "
                               "grant it in the admin (/admin/: your account's “User permissions”, or a group's). "
                               "The first staff account is made on the server with "
                               "“manage.py createsuperuser”.")
