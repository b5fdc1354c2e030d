"""Creating campaigns, their members and their units of human work."""

from django.contrib.auth import get_user_model
from django.db import transaction

from annotate.bulk import rows_insert
from annotate.models import Campaign, Item, Membership, Role, Topic, Unit
from annotate.task_types import UNIT_TOPIC, UnknownTaskType, task_type_get


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


def membership_add(*, campaign: Campaign, user, role: str) -> Membership:
    membership, _ = Membership.objects.get_or_create(campaign=campaign, user=user, role=role)
    return membership


def user_get_or_create_imported(*, username: str):
    """An account that stands for an annotator whose judgments were imported; it cannot log in."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username)
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
    if task_type_get(campaign.task_type).unit == UNIT_TOPIC:
        have = set(existing.values_list("topic_id", flat=True))
        targets = [(topic_id, None) for topic_id in Topic.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True) if topic_id not in have]
    else:
        have = set(existing.values_list("item_id", flat=True))
        targets = [
            (topic_id, item_id)
            for item_id, topic_id in Item.objects.filter(campaign=campaign).order_by("id").values_list("id", "topic_id")
            if item_id not in have
        ]
    return rows_insert(
        Unit, ["campaign", "topic", "item", "judgments_needed", "judgments_done", "position"],
        ((campaign.pk, topic_id, item_id, campaign.overlap, 0, start + i) for i, (topic_id, item_id) in enumerate(targets)),
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
    whole = spec.options_problem(campaign, {**internal, **options})
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


def campaign_options_set(*, campaign: Campaign, values: dict, unset: list[str] = ()) -> Campaign:
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
        campaign.options = options
        campaign.save(update_fields=["options"])
    return campaign
