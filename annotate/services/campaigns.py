"""Creating campaigns, their members and their units of human work."""

from django.contrib.auth import get_user_model
from django.db import transaction

from annotate.bulk import rows_insert
from annotate.models import Campaign, Item, Membership, Role, TaskType, Topic, Unit

# Task types whose human unit is a whole topic (one ranking of all its candidates);
# every other task type judges one item at a time.
TOPIC_UNIT_TASK_TYPES = {TaskType.ANSWER_RANKING}

# Human judgments per unit (k) of a new campaign when none is asked for: AIS items are rated by a panel
# whose majority is the item's label (three raters, as DESIGN.md §1.3 says); other task types start at one.
DEFAULT_OVERLAP = {TaskType.AIS: 3}


class CampaignError(Exception):
    """A request about a campaign that cannot be honoured; the message is for the user."""


def campaign_get_or_create(*, slug: str, task_type: str, name: str = "", overlap: int | None = None,
                           owner=None) -> Campaign:
    """Return the campaign SLUG, creating it when missing. An existing campaign must have TASK_TYPE.

    OVERLAP (k) applies to a new campaign; None takes the task type's default (DEFAULT_OVERLAP, else 1).
    """
    if task_type not in TaskType.values:
        raise CampaignError(f"unknown task type {task_type!r}; choose one of {', '.join(TaskType.values)}")
    if overlap is None:
        overlap = DEFAULT_OVERLAP.get(task_type, 1)
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
    if campaign.task_type in TOPIC_UNIT_TASK_TYPES:
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


# Options a researcher may set, with the task types they apply to and a check of the value.
_GRADE_RULES = ("quantile", "fitted")


def _check_option(key: str, value, task_type: str) -> str | None:
    """What is wrong with VALUE for option KEY of a TASK_TYPE campaign; None when it is fine."""
    if key == "dimensions":
        if task_type != TaskType.ANSWER_RANKING:
            return "dimensions apply to answer_ranking campaigns"
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value) \
                or len(set(value)) != len(value):
            return "dimensions must be a non-empty list of distinct names"
    elif key == "ties":
        if task_type != TaskType.ANSWER_RANKING:
            return "ties apply to answer_ranking campaigns"
        if not isinstance(value, bool):
            return "ties must be true or false"
    elif key == "grade_mapping":
        if task_type != TaskType.IMAGE_RELEVANCE:
            return "grade_mapping applies to image_relevance campaigns"
        if not isinstance(value, dict) or not all(isinstance(rule, str) and rule in _GRADE_RULES
                                                  for rule in value.values()):
            return 'grade_mapping must map judge names to "quantile" or "fitted"'
    elif key == "bias_tag":
        if task_type != TaskType.IMAGE_RELEVANCE:
            return "bias_tag applies to image_relevance campaigns"
        if not isinstance(value, str) or not value.strip():
            return "bias_tag must be a run tag (a string)"
    elif key in ("min_system_outputs", "small_sample"):
        # The report's coverage rules (agreement.system_level, agreement.report): every task type.
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            return f"{key} must be a whole number, at least 1"
    elif key == "min_system_coverage":
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
            return "min_system_coverage must be a share from 0 to 1"
    else:
        return ("unknown option (known: dimensions, ties, grade_mapping, bias_tag, min_system_outputs, "
                "min_system_coverage, small_sample)")
    return None


def campaign_options_set(*, campaign: Campaign, values: dict, unset: list[str] = ()) -> Campaign:
    """Set VALUES and remove UNSET keys in the campaign's options; CampaignError names the first bad one."""
    for key, value in values.items():
        problem = _check_option(key, value, campaign.task_type)
        if problem:
            raise CampaignError(f"option {key}: {problem}")
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        options = dict(campaign.options or {})
        options.update(values)
        for key in unset:
            options.pop(key, None)
        campaign.options = options
        campaign.save(update_fields=["options"])
    return campaign
