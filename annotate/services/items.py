"""Writes to a campaign's items after they were imported: their category (what the agreement report breaks down by)."""

from django.core.exceptions import PermissionDenied
from django.db import transaction

from annotate.models import CATEGORY_MAX_LENGTH, Item, Membership, Role
from annotate.services.data_version import campaign_data_changed


class ItemCategoryError(ValueError):
    """A category that cannot be stored; the message is for the user."""


def category_problem(category) -> str | None:
    """What is wrong with CATEGORY as an item's category (after stripping), or None: the one check imports, the page
    and the API share."""
    if not isinstance(category, str):
        return f"a category is text, not {type(category).__name__}"
    if "\x00" in category:
        return "a category cannot hold a NUL character"
    if any(mark in category for mark in "\r\n\t"):
        return "a category is one line (no tab or line break)"
    if len(category.strip()) > CATEGORY_MAX_LENGTH:
        return f"a category is at most {CATEGORY_MAX_LENGTH} characters; this one has {len(category.strip())}"
    return None


def may_categorise(*, user, campaign) -> bool:
    """Whether USER may set the categories of CAMPAIGN's items: its researchers and adjudicators (and superusers),
    never its annotators, who must not be steered by what the researcher thinks an item is."""
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return Membership.objects.filter(campaign=campaign, user=user,
                                     role__in=[Role.RESEARCHER, Role.ADJUDICATOR]).exists()


def item_category_set(*, item: Item, user, category: str) -> Item:
    """Give ITEM the category CATEGORY (stripped; "" takes its category away) on behalf of USER.

    PermissionDenied unless USER may categorise the item's campaign (may_categorise); ItemCategoryError, in words, for
    a category that cannot be stored. The same category again writes nothing. A change makes a new data version (the
    report's per-category block reads it)."""
    if not may_categorise(user=user, campaign=item.campaign):
        raise PermissionDenied("Only the campaign's researchers and adjudicators may set an item's category.")
    problem = category_problem(category)
    if problem:
        raise ItemCategoryError(problem)
    category = category.strip()
    with transaction.atomic():
        changed = Item.objects.filter(pk=item.pk).exclude(category=category).update(category=category)
        if changed:
            campaign_data_changed(campaign_id=item.campaign_id)
    item.category = category
    return item
