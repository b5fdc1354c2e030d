"""Creating campaigns, their settings, guidelines and members, and their units of human work."""

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import Permission
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, models, transaction
from django.urls import reverse

from accounts.models import InvitationEvent
from accounts.selectors import invitation_problem, invited_elsewhere
from accounts.services import (
    InvitationError,
    invitation_create,
    invitation_event_record,
    invited_account_close,
    invited_account_create,
)
from annotate.access import CREATE_PERMISSION
from annotate.adjudication_kinds import adjudication_options_problem
from annotate.bulk import rows_insert
from annotate.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignGuidelines,
    Item,
    Membership,
    Role,
    Topic,
    Unit,
)
from annotate.selectors.campaigns import campaign_invitation_scope
from annotate.services.data_version import campaign_data_changed
from annotate.services.queue_order import unit_positions_renumber
from annotate.task_types.registry import UnknownTaskType, task_type_get
from annotate.task_types.spec import UNIT_TOPIC


class CampaignError(Exception):
    """A request about a campaign that cannot be honoured; the message is for the user."""


def campaign_get_or_create(*, slug: str, task_type: str, name: str = "", overlap: int | None = None,
                           owner=None) -> Campaign:
    """Return the campaign SLUG, creating it when missing. An existing campaign must have TASK_TYPE.

    OVERLAP (k) applies to a new campaign; None takes the task type's default overlap.
    """
    try:
        spec = task_type_get(task_type)
    except UnknownTaskType as exc:
        raise CampaignError(str(exc)) from None
    if overlap is None:
        overlap = spec.default_overlap
    if slug in RESERVED_SLUGS:
        raise CampaignError(slug_problem(slug))
    with transaction.atomic():
        campaign, created = Campaign.objects.get_or_create(
            slug=slug,
            defaults={"task_type": task_type, "name": name or slug, "overlap": overlap, "created_by": owner},
        )
        if not created and campaign.task_type != task_type:
            raise CampaignError(f"campaign {slug!r} exists with task type {campaign.task_type}, not {task_type}")
        if owner is not None:
            membership_add(campaign=campaign, user=owner, role=Role.RESEARCHER)
    return campaign


def membership_add(*, campaign: Campaign, user, role: str, added_by=None) -> Membership:
    """Give USER ROLE in CAMPAIGN (kept when they hold it). An account that another campaign's invitation made and
    nobody has claimed is closed to links from then on (accounts.services.invited_account_close): it now belongs to
    more than the campaign that may send its links, and a link would hand this campaign's place to whoever holds it.
    Call inside a transaction."""
    membership, _ = Membership.objects.get_or_create(campaign=campaign, user=user, role=role)
    if not user.has_usable_password():  # a claimed account has one: only the unclaimed may need closing
        invited_account_close(user=user, actor=added_by, scope=campaign_invitation_scope(campaign),
                              scope_name=campaign.slug, reason=f"added to campaign {campaign.slug} as {role}")
    return membership


def campaign_members_invitations_close(*, campaign: Campaign, actor=None) -> int:
    """membership_add's closing for memberships written in bulk (an archive's): every unclaimed account of CAMPAIGN's
    members that another campaign's invitation made is closed to links. Returns how many."""
    users = get_user_model().objects.filter(
        memberships__campaign=campaign, password__startswith=UNUSABLE_PASSWORD_PREFIX).distinct()
    return sum(invited_account_close(user=user, actor=actor, scope=campaign_invitation_scope(campaign),
                                     scope_name=campaign.slug, reason=f"a member of campaign {campaign.slug} as "
                                                                      "its archive was restored")
               for user in users)


def user_get_or_create_imported(*, username: str):
    """An account that stands for an annotator whose judgments were imported: a new one is inactive, with no usable
    password and no invitation, so it cannot sign in and no researcher can make a link for it; staff activate it and
    set its password. An existing account is used as it is."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username, defaults={"is_active": False})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def units_ensure(*, campaign: Campaign) -> int:
    """Create the missing units of human work for the campaign's items (or topics). Returns how many.

    Call inside the import's transaction so a failed import leaves no units behind.
    """
    existing = Unit.objects.filter(campaign=campaign)
    start = existing.count()
    targets: list[tuple[int, int | None]]
    if task_type_get(campaign.task_type).unit == UNIT_TOPIC:
        have = set(existing.values_list("topic_id", flat=True))
        targets = [
            (topic_id, None)
            for topic_id in Topic.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True)
            if topic_id not in have
        ]
    else:
        have = set(existing.values_list("item_id", flat=True))
        targets = [
            (topic_id, item_id)
            for item_id, topic_id in Item.objects.filter(campaign=campaign).order_by("id").values_list("id", "topic_id")
            if item_id not in have
        ]
    return rows_insert(
        Unit,
        ["campaign", "topic", "item", "judgments_needed", "judgments_done", "position"],
        (
            (campaign.pk, topic_id, item_id, campaign.overlap, 0, start + i)
            for i, (topic_id, item_id) in enumerate(targets)
        ),
    )


# Options that imports keep for themselves (the pooled runs of a graded campaign): shown and edited by no one.
INTERNAL_OPTIONS = ("runs",)
INTERNAL_PROBLEM = "kept by the imports; it cannot be set"


def campaign_options_editable(campaign: Campaign) -> dict:
    """The campaign's options a researcher sets (everything but INTERNAL_OPTIONS)."""
    return {key: value for key, value in (campaign.options or {}).items() if key not in INTERNAL_OPTIONS}


def campaign_options_problems(*, campaign: Campaign, options: dict) -> dict[str, str]:
    """What is wrong with OPTIONS as the whole of CAMPAIGN's editable options, by option name: the problem of each
    value (an internal option, one the task type does not take, a bad value) or, once every value passes, the task
    type's problem with them together (its options_problem). {} when they can be saved.

    The options forms (annotate.forms) show these on their fields; it only reads, and campaign_options_set checks
    again under the campaign's lock before saving.
    """
    spec = task_type_get(campaign.task_type)
    problems = {}
    for key, value in options.items():
        problem = INTERNAL_PROBLEM if key in INTERNAL_OPTIONS else spec.option_problem(key, value)
        if problem:
            problems[key] = problem
    if problems:
        return problems
    internal = {key: value for key, value in (campaign.options or {}).items() if key in INTERNAL_OPTIONS}
    whole = adjudication_options_problem(options) or spec.options_problem(campaign, {**internal, **options})
    return dict([whole]) if whole else {}


def campaign_options_replace(*, campaign: Campaign, options: dict) -> Campaign:
    """Make the campaign's editable options OPTIONS: keys left out are removed (campaign_options_set checks)."""
    if not isinstance(options, dict):
        raise CampaignError("options must be a JSON object of option names and values")
    internal = sorted(set(options) & set(INTERNAL_OPTIONS))
    if internal:
        raise CampaignError(f"option {internal[0]}: {INTERNAL_PROBLEM}")
    current = campaign_options_editable(campaign)
    changed = {key: value for key, value in options.items() if current.get(key, object()) != value}
    return campaign_options_set(campaign=campaign, values=changed, unset=[key for key in current if key not in options])


def campaign_options_set(*, campaign: Campaign, values: dict, unset: Sequence[str] = ()) -> Campaign:
    """Set VALUES and remove UNSET keys in the campaign's options; CampaignError names the first bad one, or what is
    wrong with the options together (the task type's options_problem: a scale that drops grades already given)."""
    spec = task_type_get(campaign.task_type)
    for key, value in values.items():
        problem = spec.option_problem(key, value)
        if problem:
            raise CampaignError(f"option {key}: {problem}")
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        options = dict(campaign.options or {})
        options.update(values)
        for key in unset:
            options.pop(key, None)
        whole = spec.options_problem(campaign, options)
        if whole:
            key, problem = whole
            raise CampaignError(f"option {key}: {problem}")
        before = campaign.options or {}
        # A new queue order applies at once, and so does a new plan for a queue that follows one (a new draw).
        reorder = before.get("queue_order") != options.get("queue_order") or (
            options.get("queue_order") == "sample" and before.get("ppi_plan") != options.get("ppi_plan"))
        changed = options != (campaign.options or {})
        campaign.options = options
        campaign.save(update_fields=["options"])
        if changed:  # the report reads the options (its coverage rules, counting rule, arms, budget width...)
            campaign_data_changed(campaign_id=campaign.pk)
    if reorder:
        # A new queue order applies at once: the open units are put in it (manage.py order_queue does it again after
        # imports and judge runs change what the judges say).
        unit_positions_renumber(campaign=campaign)
    return campaign


# campaigns/new/ is the page that makes campaigns: no campaign may be called that.
RESERVED_SLUGS = ("new",)
OVERLAP_MAX = 100
def _max_length(model, name: str) -> int:
    """The max_length of MODEL's text field NAME."""
    field = model._meta.get_field(name)
    assert isinstance(field, models.CharField) and field.max_length is not None, name
    return field.max_length


NAME_MAX = _max_length(Campaign, "name")
SLUG_MAX = _max_length(Campaign, "slug")


def slug_problem(slug: str) -> str | None:
    """What is wrong with SLUG as a new campaign's slug (its form, a reserved word, taken); None when free."""
    if not slug:
        return "a campaign needs a slug: letters, digits, hyphens and underscores"
    if len(slug) > SLUG_MAX:
        return f"a slug has at most {SLUG_MAX} characters"
    try:
        validate_slug(slug)
    except ValidationError:
        return f"{slug!r} is not a slug: use letters, digits, hyphens and underscores only"
    if slug in RESERVED_SLUGS:
        return f"{slug!r} is the name of a page; choose another slug"
    if Campaign.objects.filter(slug=slug).exists():
        return f"a campaign called {slug!r} exists already; choose another slug"
    return None


def overlap_problem(overlap) -> str | None:
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 1 <= overlap <= OVERLAP_MAX:
        return f"overlap k must be a whole number from 1 to {OVERLAP_MAX}"
    return None


def name_problem(name) -> str | None:
    if not isinstance(name, str) or not name.strip():
        return "a campaign needs a name"
    if len(name.strip()) > NAME_MAX:
        return f"a name has at most {NAME_MAX} characters"
    return None


def campaign_creator_grant(*, user) -> None:
    """Let USER make campaigns: the permission "Can add campaign" (annotate.access.CREATE_PERMISSION) on the account
    itself, as staff grant it in the admin. Granting it again changes nothing."""
    app_label, codename = CREATE_PERMISSION.split(".")
    user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))


def campaign_create(*, creator, name: str, slug: str, task_type: str, overlap: int | None = None,
                    options: dict | None = None, guidelines: str = "", description: str = "") -> Campaign:
    """A new campaign made by CREATOR, who becomes its researcher; CampaignError saying what is wrong, and nothing
    is made, when a value is refused. OVERLAP None takes the task type's default. OPTIONS are the task type's
    options as its options form gives them (annotate.forms), checked again here as a whole against the new campaign;
    GUIDELINES (Markdown), when not blank, are its version 1. The caller checks that CREATOR may make campaigns
    (annotate.access.check_campaign_creator)."""
    try:
        spec = task_type_get(task_type)
    except UnknownTaskType as exc:
        raise CampaignError(str(exc)) from None
    overlap = spec.default_overlap if overlap is None else overlap
    options = options or {}
    problem = name_problem(name) or slug_problem(slug) or overlap_problem(overlap)
    if problem:
        raise CampaignError(problem)
    if not isinstance(options, dict):
        raise CampaignError("options must be a JSON object of option names and values")
    try:
        with transaction.atomic():
            campaign = Campaign.objects.create(slug=slug, name=name.strip(), task_type=task_type, overlap=overlap,
                                               description=description, created_by=creator)
            problems = campaign_options_problems(campaign=campaign, options=options)
            if problems:
                key, words = next(iter(problems.items()))
                raise CampaignError(f"option {key}: {words}")
            campaign.options = options
            campaign.save(update_fields=["options"])
            membership_add(campaign=campaign, user=creator, role=Role.RESEARCHER)
            if guidelines and guidelines.strip():
                CampaignGuidelines.objects.create(campaign=campaign, version=1, text=guidelines, created_by=creator)
    except IntegrityError:  # the slug was taken between the check and the insert
        raise CampaignError(f"a campaign called {slug!r} exists already; choose another slug") from None
    return campaign


def campaign_update(*, campaign: Campaign, editor, name: str | None = None, overlap: int | None = None,
                    guidelines: str | None = None) -> Campaign:
    """Change what is given (None leaves it): NAME; OVERLAP k; GUIDELINES, which become a new version when they
    differ from the current text (the earlier versions stay, and the judgments made under them keep pointing at
    them). CampaignError, and nothing changed, when a value is refused.

    A new k applies to every unit of the campaign, those made already included: raising it reopens complete units
    for the judgments now missing; lowering it keeps every judgment made (a unit that has more than the new k keeps
    them all), and a lease beyond the new k may be refused when its verdict comes in. The campaign row is locked,
    so two edits do not interleave; units are updated in one statement."""
    problem = (name is not None and name_problem(name)) or (overlap is not None and overlap_problem(overlap))
    if problem:
        raise CampaignError(problem)
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        fields = []
        if name is not None and name.strip() != campaign.name:
            campaign.name = name.strip()
            fields.append("name")
        if overlap is not None and overlap != campaign.overlap:
            campaign.overlap = overlap
            fields.append("overlap")
            Unit.objects.filter(campaign=campaign).update(judgments_needed=overlap)
        if fields:
            campaign.save(update_fields=fields)
        if guidelines is not None:
            guidelines_add(campaign=campaign, author=editor, text=guidelines)
        if "overlap" in fields:  # the report reads k (each unit's judgments_needed); not the name or guidelines
            campaign_data_changed(campaign_id=campaign.pk)
    return campaign


def guidelines_add(*, campaign: Campaign, author, text: str) -> CampaignGuidelines | None:
    """Make TEXT the campaign's guidelines: a new version after the current one, or None when TEXT is the current
    text already (blank when there are none yet). Call inside transaction.atomic with the campaign row locked, so
    two edits cannot both take the same version number."""
    current = CampaignGuidelines.objects.filter(campaign=campaign).order_by("-version").first()
    if (current.text if current else "").strip() == text.strip():
        return None
    return CampaignGuidelines.objects.create(campaign=campaign, version=(current.version if current else 0) + 1,
                                             text=text, created_by=author)


# --- People ---


def role_words(role: str) -> str:
    """"an annotator", "a researcher": a role in a sentence."""
    return f"{'an' if role[:1] in 'aeiou' else 'a'} {role}"


@dataclass(frozen=True)
class MemberAdded:
    membership: Membership
    created: bool  # a new account was made for the person
    invite_key: str | None  # the one-time link's key: the person has no password to sign in with yet
    no_link: str | None = None  # why a person with no password yet gets no link from here, to tell the researcher


# One answer for every existing account a researcher may not add, whatever the reason (none, a staff account, one
# invited to another campaign and not claimed yet, one whose name differs only in case): the answer must not tell a
# researcher what exists elsewhere. The reason is recorded for staff (InvitationEvent, kind refused).
NOT_ADDABLE = ("{username!r} cannot be added as an existing account here: check the username the person signs in "
               "with; if they have no account yet, add them as a new person; otherwise ask staff")
USERNAME_TAKEN = ("the username {username!r} is taken, or differs only in case from one that is: choose another for "
                  "the new person, or add the person's own account as an existing account")

NO_LINK_ADVICE = ("staff can set their password and make the account active in the admin (Users, the account, then "
                  "'Set password')")


def username_normalize(username: str) -> str:
    """USERNAME as Django stores and signs in with it (AbstractBaseUser.normalize_username: NFKC, so 'ﬁ' is 'fi')."""
    return unicodedata.normalize("NFKC", (username or "").strip())


def username_twin(username: str):
    """Another account whose username differs from USERNAME only by case (after NFKC normalisation), or None: two
    such accounts would look alike to the people who add and judge with them."""
    User = get_user_model()
    field = User.USERNAME_FIELD
    folded = username.casefold()
    candidates = User.objects.filter(**{f"{field}__iexact": username}).exclude(**{field: username})
    return next((user for user in candidates if user.get_username().casefold() == folded), None)


def member_add(*, campaign: Campaign, username: str, role: str, added_by, create: bool = False) -> MemberAdded:
    """Give the person USERNAME ROLE in CAMPAIGN. With CREATE, USERNAME must be new: an account is made for them
    (accounts.services.invited_account_create) and a one-time link for it (member_invitation_create), landing on the
    campaign: its key is returned, to show once. An existing account gets a link only when this campaign's invitation
    made it and nobody has claimed it yet (re-added after a removal); any other account with no password yet (made by
    an import or `createsuperuser --noinput`) is added without one, and `no_link` says why. An account another
    campaign invited that has not been claimed yet is refused: that campaign holds a live link to it; so is a staff
    account unless ADDED_BY is staff. Every refusal of an existing account answers NOT_ADDABLE, the same words
    whether the account is missing, staff, invited elsewhere or a lookalike of another: a researcher learns nothing
    of accounts outside their campaigns (the reason is recorded for staff).
    USERNAME is normalised as Django does (NFKC) and must not differ from another account's only by case.
    CampaignError when the name is not a username, the account is missing (without CREATE) or exists (with it), or
    the person holds ROLE here already."""
    if role not in Role.values:
        raise CampaignError(f"role must be one of {', '.join(Role.values)}")
    username = username_normalize(username)
    User = get_user_model()
    limit = _max_length(User, User.USERNAME_FIELD)
    try:
        if not username or len(username) > limit:
            raise ValidationError("")
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise CampaignError(f"{username!r} is not a username: up to {limit} letters, digits and @ . + - _") from None
    with transaction.atomic():
        user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
        twin = username_twin(username) if user is None else None
        if create and (user is not None or twin is not None):
            raise CampaignError(USERNAME_TAKEN.format(username=username))
        if not create and user is None:
            raise CampaignError(NOT_ADDABLE.format(username=username))
        created = user is None
        scope = campaign_invitation_scope(campaign)
        refused = None
        if user is None:
            user = invited_account_create(username=username, scope=scope, scope_name=campaign.slug,
                                          created_by=added_by)
        elif Membership.objects.filter(campaign=campaign, user=user, role=role).exists():
            raise CampaignError(f"{username} is already {role_words(role)} of this campaign")
        elif (user.is_staff or user.is_superuser) and not getattr(added_by, "is_staff", False):
            # A staff account joins a campaign only by a staff action: a researcher cannot make an administrator
            # one of their annotators (nor learn from the answer that the account is one).
            refused = "a staff account: only staff may add it to a campaign"
        elif (not user.has_usable_password() and user.last_login is None
              and invited_elsewhere(user=user, scope=scope)):
            # Added here, the account would belong to two campaigns while the other one holds a link to it: whoever
            # holds that link would sign in here as this person (a username taken in advance).
            refused = "invited to another campaign and not claimed yet"
        if refused is None:
            membership = membership_add(campaign=campaign, user=user, role=role, added_by=added_by)
            no_password = not user.has_usable_password() and user.last_login is None
            problem = invitation_problem(user=user, scope=scope) if no_password else None
            key = no_link = None
            if no_password and problem is None:
                key = member_invitation_create(campaign=campaign, user=user, created_by=added_by)
    if refused is not None:
        invitation_event_record(kind=InvitationEvent.Kind.REFUSED, account=user, actor=added_by, scope=scope,
                                scope_name=campaign.slug, detail=f"not added: {refused}")
        raise CampaignError(NOT_ADDABLE.format(username=username))
    if no_password and problem is not None:
        invitation_event_record(kind=InvitationEvent.Kind.REFUSED, account=user, actor=added_by, scope=scope,
                                scope_name=campaign.slug, detail=f"added without a link: {problem}")
        no_link = (f"{user.get_username()} has no password yet and gets no link from here ({problem}): "
                   f"{NO_LINK_ADVICE}")
    return MemberAdded(membership=membership, created=created, invite_key=key, no_link=no_link)


def member_invitation_create(*, campaign: Campaign, user, created_by) -> str:
    """A new one-time link for USER, a member of CAMPAIGN, to choose a password and land on the campaign; its key.
    CampaignError, recorded as refused, unless CAMPAIGN's invitation made USER's account, nobody has claimed it
    (accounts.selectors.invitation_problem) and USER belongs to no other campaign: a link for any other account
    would let whoever holds it take the account."""
    name = user.get_username()
    elsewhere = Membership.objects.filter(user=user).exclude(campaign=campaign).exists()
    if not Membership.objects.filter(campaign=campaign, user=user).exists() or elsewhere:
        problem = (f"{name} is a member of another campaign too" if elsewhere else
                   f"{name} is not a member of this campaign")
        invitation_event_record(kind=InvitationEvent.Kind.REFUSED, account=user, actor=created_by,
                                scope=campaign_invitation_scope(campaign), scope_name=campaign.slug,
                                detail=f"a link was asked for: {problem}")
        raise CampaignError(f"{problem}; no link is made for them here")
    try:
        _, key = invitation_create(user=user, created_by=created_by, scope=campaign_invitation_scope(campaign),
                                   scope_name=campaign.slug,
                                   next_path=reverse("campaign-detail", kwargs={"slug": campaign.slug}))
    except InvitationError as exc:
        raise CampaignError(f"{exc}; no link is made for them here") from None
    return key


def member_remove(*, campaign: Campaign, user, role: str | None = None) -> int:
    """Take ROLE in CAMPAIGN from USER (None: every role they hold there). Their judgments stay (and count); an
    annotator's active leases are released, so their units go back to the queue: returns how many. CampaignError,
    and nothing removed, when USER holds no such role here, or would leave the campaign without a researcher (it
    always keeps one). The campaign row is locked, so two researchers removing each other at once cannot leave it
    with none."""
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        memberships = Membership.objects.filter(campaign=campaign, user=user)
        if role is not None:
            memberships = memberships.filter(role=role)
        roles = set(memberships.values_list("role", flat=True))
        if not roles:
            raise CampaignError(f"{user.get_username()} is not {role_words(role) if role else 'a member'} of this "
                                "campaign")
        if Role.RESEARCHER in roles and not Membership.objects.filter(
                campaign=campaign, role=Role.RESEARCHER).exclude(user=user).exists():
            raise CampaignError(f"{user.get_username()} is the last researcher of this campaign; add another "
                                "researcher before removing them")
        # The report lists the annotators' arms (reports.arms): taking away one who has an arm changes it.
        arm_removed = memberships.filter(role=Role.ANNOTATOR).exclude(arm="").exists()
        memberships.delete()
        released = leases_release(campaign=campaign, annotator=user) if Role.ANNOTATOR in roles else 0
        if arm_removed:
            campaign_data_changed(campaign_id=campaign.pk)
        return released


def leases_release(*, campaign: Campaign, annotator) -> int:
    """End ANNOTATOR's active leases in CAMPAIGN, expired or not, so their units are open to others; returns how many.

    One conditional UPDATE: a verdict being submitted on one of them holds the assignment row (judgment_submit),
    and once it commits the row is no longer active, so it is left as submitted."""
    return Assignment.objects.filter(unit__campaign=campaign, annotator=annotator,
                                     status=AssignmentStatus.ACTIVE).update(status=AssignmentStatus.EXPIRED)
