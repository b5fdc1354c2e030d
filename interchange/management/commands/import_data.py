"""`manage.py import_data`: create the campaign if needed and import files into it, all or nothing (DESIGN.md §5)."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from annotate.services.campaigns import CampaignError
from annotate.task_types.registry import task_type_names
from interchange.importers.common import ImportDataError
from interchange.importers.service import ImportRequestError, formats, import_data_run, import_judges_start


class Command(BaseCommand):
    help = "Import data into a campaign (created when missing). Bad input: file:line: field: what is wrong."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument("--task-type", required=True, help=f"one of {', '.join(task_type_names())}")
        parser.add_argument("--format", required=True, dest="fmt", help=f"one of {', '.join(formats())}")
        parser.add_argument("--system", help="system name for a qa-eval-jsonl file (default: from the file name)")
        parser.add_argument("--judge", help="external judge name (judge-scores, judge-qrels, trec-leaderboard; trec-run, default: the run tag; "
                            "attributed-qa / ais jsonl, default: auto-ais)")
        parser.add_argument("--score-judge", help="import a label-studio export's item scores as this external judge")
        parser.add_argument("--overlap", type=int, default=None,
                            help="human judgments per unit (k), when creating (default: 3 for ais, else 1)")
        parser.add_argument("--depth", type=int,
                            help="trec-run into a graded relevance campaign: pool depth per run (default 25)")
        parser.add_argument("--tag", help="trec-run into a graded relevance campaign: a tag for the runs of this file, "
                                           "e.g. clip-based")
        parser.add_argument("--clip", action="store_true",
                            help="judge-qrels: set grades off the campaign's scale to its nearest end (counted in the "
                                 "summary) instead of refusing the file")
        parser.add_argument("--repeat-assessors", action="store_true",
                            help="trec-preferences, pairwise-jsonl: a pair judged again by an assessor the file does "
                                 "not name is another assessor's verdict (assessor 1, 2, ... in the file's order)")
        parser.add_argument("--owner", help="username made a researcher of the campaign")
        parser.add_argument("paths", nargs="+", metavar="PATH")

    def handle(self, *args, campaign, task_type, fmt, system, judge, score_judge, overlap, owner, paths, depth, tag,
               clip=False, repeat_assessors=False, **options):
        owner_user = None
        if owner:
            owner_user = get_user_model().objects.filter(username=owner).first()
            if owner_user is None:
                raise CommandError(f"--owner: no user {owner!r}")
        if overlap is not None and overlap < 1:
            raise CommandError("--overlap: must be at least 1")
        try:
            summary = import_data_run(slug=campaign, task_type=task_type, fmt=fmt, paths=[Path(p) for p in paths],
                                      system=system, judge=judge, score_judge=score_judge, overlap=overlap,
                                      depth=depth, tag=tag, owner=owner_user, clip=clip,
                                      repeat_assessors=repeat_assessors)
        except (ImportDataError, ImportRequestError, CampaignError) as exc:
            raise CommandError(str(exc)) from None
        import_judges_start(campaign=Campaign.objects.get(slug=campaign), summary=summary, user=owner_user)
        for line in summary.lines():
            self.stdout.write(line)
