"""Reads of a campaign's items for the pages that list them (the Items page) and their categories."""

from django.db.models import Count, QuerySet

from annotate.models import Campaign, Item

# The Items page's filter value for the items without a category.
NO_CATEGORY = "-"


def campaign_categories(*, campaign: Campaign) -> list[tuple[str, int]]:
    """(category, items) of CAMPAIGN, the most common first; "" counts the items without one."""
    rows = (Item.objects.filter(campaign=campaign).values("category").annotate(n=Count("id"))
            .order_by("-n", "category"))
    return [(row["category"], row["n"]) for row in rows]


def campaign_items_listed(*, campaign: Campaign, category: str | None = None, topic: str = "") -> QuerySet:
    """CAMPAIGN's items in import order with their topics, only those of CATEGORY (NO_CATEGORY: those without one)
    and of the topic with external id TOPIC when given."""
    items = Item.objects.filter(campaign=campaign).select_related("topic").order_by("id")
    if category == NO_CATEGORY:
        items = items.filter(category="")
    elif category:
        items = items.filter(category=category)
    if topic:
        items = items.filter(topic__external_id=topic)
    return items
