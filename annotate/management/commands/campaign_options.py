"""Show or change a campaign's task-type options (Campaign.options), checked before anything is saved.

    manage.py campaign_options --campaign SLUG                         # print them
    manage.py campaign_options --campaign SLUG --set grade_mapping='{"clip": "fitted"}' --set bias_tag='"clip-based"'
    manage.py campaign_options --campaign SLUG --unset bias_tag
"""

import json

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from annotate.services.campaigns import CampaignError, campaign_options_set


class Command(BaseCommand):
    help = "Show or change a campaign's options (dimensions, ties, grade_mapping, bias_tag); values are JSON."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON", dest="changes")
        parser.add_argument("--unset", action="append", default=[], metavar="KEY")

    def handle(self, *args, campaign, changes, unset, **options):
        found = Campaign.objects.filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"no campaign {campaign!r}")
        values = {}
        for change in changes:
            key, sep, text = change.partition("=")
            if not sep:
                raise CommandError(f"--set {change!r}: write KEY=JSON")
            try:
                values[key.strip()] = json.loads(text)
            except json.JSONDecodeError as exc:
                raise CommandError(
                    f"--set {key}: not JSON ({exc.msg}); strings need quotes: '\"clip-based\"'"
                ) from None
        if values or unset:
            try:
                found = campaign_options_set(campaign=found, values=values, unset=unset)
            except CampaignError as exc:
                raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps({key: value for key, value in found.options.items() if key != "runs"},
                                     indent=2, sort_keys=True))
