"""`manage.py export_rankings`: an answer_ranking campaign's human rankings on stdout, as jsonl or Label Studio JSON.

Both shapes are what `import_data --format jsonl|label-studio` reads, so an export imports into another campaign.
"""

import json

from django.core.management.base import BaseCommand, CommandError

from annotate.exports import ExportError, rankings_jsonl, rankings_label_studio
from annotate.models import Campaign


class Command(BaseCommand):
    help = "Print an answer_ranking campaign's candidates and human rankings (jsonl or label-studio)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument("--format", dest="fmt", choices=["jsonl", "label-studio"], default="jsonl")

    def handle(self, *args, campaign, fmt, **options):
        found = Campaign.objects.filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"--campaign: no campaign {campaign!r}")
        try:
            if fmt == "jsonl":
                self.stdout.write(rankings_jsonl(campaign=found), ending="")
            else:
                self.stdout.write(json.dumps(rankings_label_studio(campaign=found), ensure_ascii=False, indent=1))
        except ExportError as exc:
            raise CommandError(str(exc)) from None
