"""Put a campaign's open units in its queue order (option queue_order: position or informative; docs/budget.md), or in
the order given:

    manage.py order_queue --campaign SLUG [--order informative]
"""

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from annotate.services.queue_order import unit_positions_renumber
from annotate.task_types.options import QUEUE_ORDERS


class Command(BaseCommand):
    help = "Re-number a campaign's open units in its queue order (option queue_order), or in --order."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--order", choices=list(QUEUE_ORDERS),
                            help="the order to use this time (default: the campaign's option queue_order)")

    def handle(self, *args, campaign, order, **options):
        found = Campaign.objects.filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"no campaign {campaign!r}")
        done = unit_positions_renumber(campaign=found, order=order)
        self.stdout.write(f"{done['moved']} of {done['open']} open units moved: the queue is in {done['order']} "
                          f"order ({QUEUE_ORDERS[done['order']]}).")
