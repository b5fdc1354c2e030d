"""`manage.py export_rankings`: an answer_ranking campaign's human rankings on stdout, as jsonl or Label Studio JSON;
or, with `--format trec-run --judge NAME`, a ranker's scores as a TREC run.

Every shape is what `import_data --format jsonl|label-studio|trec-run` reads, so an export imports into another
campaign.
"""

import json

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from tasktypes.answer_ranking.exports import ExportError, judge_trec_run, rankings_jsonl, rankings_label_studio


class Command(BaseCommand):
    help = "Print an answer_ranking campaign's human rankings (jsonl, label-studio) or a judge's run (trec-run)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument("--format", dest="fmt", choices=["jsonl", "label-studio", "trec-run"], default="jsonl")
        parser.add_argument("--judge", help="trec-run: the judge whose scores to write")

    def handle(self, *args, campaign, fmt, judge, **options):
        found = Campaign.objects.filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"--campaign: no campaign {campaign!r}")
        try:
            if fmt == "trec-run":
                if not judge:
                    raise CommandError("--format trec-run needs --judge NAME")
                self.stdout.write(judge_trec_run(campaign=found, judge=judge), ending="")
            elif fmt == "jsonl":
                self.stdout.write(rankings_jsonl(campaign=found), ending="")
            else:
                self.stdout.write(json.dumps(rankings_label_studio(campaign=found), ensure_ascii=False, indent=1))
        except ExportError as exc:
            raise CommandError(str(exc)) from None
