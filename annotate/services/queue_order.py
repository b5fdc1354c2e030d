"""Re-number the open units' queue positions in the campaign's queue order (option queue_order; docs/budget.md). The
lease (annotate.services.annotation.unit_lease_next) offers the first open unit by position, so the
order annotators meet the units in follows; its logic is untouched.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F

from annotate.models import Campaign, Unit
from annotate.selectors.queue_order import ORDER_SAMPLE, queue_order_of, units_in_order
from annotate.services.label_plan import label_plan_ensure


def unit_positions_renumber(*, campaign: Campaign, order: str | None = None) -> dict:
    """Give CAMPAIGN's open units (fewer judgments than needed) their positions in ORDER ("position",
    "informative" or "sample"; the campaign's option queue_order when None; "sample" draws the campaign's label
    plan first, or adds the topics imported since to it: annotate.services.label_plan): the open units' current
    positions, sorted, handed out again in that order, so units already done keep theirs. Returns {"order", "open",
    "moved"}.

    Positions are an order only, never a lock: a lease that read the old order while this runs leases a unit that
    was first in it, harmlessly. Run it after setting the option, and after imports or judge runs that change what
    the judges say (manage.py order_queue). Opens its own transaction; a fixed number of queries and one bulk update.
    """
    order = order or queue_order_of(campaign)
    if order == ORDER_SAMPLE:
        label_plan_ensure(campaign=campaign)
    with transaction.atomic():
        open_units = Unit.objects.filter(campaign=campaign, judgments_done__lt=F("judgments_needed"))
        positions = dict(open_units.values_list("id", "position"))
        slots = sorted(positions.values())
        ordered = units_in_order(campaign=campaign, order=order, units=open_units)
        moved = [Unit(pk=pk, position=slot) for pk, slot in zip(ordered, slots, strict=True) if positions[pk] != slot]
        Unit.objects.bulk_update(moved, ["position"], batch_size=2000)
    return {"order": order, "open": len(positions), "moved": len(moved)}
