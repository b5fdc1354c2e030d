"""`manage.py agreement_report --campaign SLUG [--json] [--stored] [--methods]`: the agreement report on stdout
(docs/design.md §5).

Built fresh from the data by default: a script gets the report of the data as it is now, with no worker needed, and
the stored copy is left alone. With --stored, the report the page shows (agreement.stored): read from the store when
current, else the stored one while a rebuild is queued (said on stderr), or built here and stored when none is (a
script needs no worker). With --methods, the methods section of that stored report (the page's methods.txt)."""

import json

from django.core.management.base import BaseCommand, CommandError

from agreement.report import agreement_report_build, report_methods_text
from agreement.stored import report_for_open, stored_report_rebuild, stored_report_status
from annotate.models import Campaign
from annotate.task_types.registry import task_type_get
from reports.replacement import replacement_text


class Command(BaseCommand):
    help = "Print a campaign's agreement report: a readable summary, or with --json the report document."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument(
            "--json",
            action="store_true",
            dest="as_json",
            help="print the JSON document of docs/design.md §5, nothing else",
        )
        parser.add_argument("--methods", action="store_true",
                            help="print the methods section of the stored report (the page's methods.txt)")
        parser.add_argument("--stored", action="store_true",
                            help="print the stored report the page shows instead of building one from the data now")

    def handle(self, *args, campaign, as_json: bool, stored: bool = False, methods: bool = False, **options):
        try:
            found = Campaign.objects.get(slug=campaign)
        except Campaign.DoesNotExist:
            raise CommandError(f"no campaign {campaign!r}") from None
        if stored or methods:
            if stored_report_status(campaign=found)["report_version"] is None:
                stored_report_rebuild(campaign_id=found.pk)  # the first build, here: no worker needed
            opened = report_for_open(campaign=found)
            if not opened.ready:
                raise CommandError(
                    f"the first report of {campaign!r} is being built elsewhere (a worker holds its "
                    "build lock); run again shortly, or without --stored for one built from the data now"
                )
            report = opened.document
            if opened.updating:
                self.stderr.write(
                    f"stored report of data version {opened.version}, the data is at {opened.data_version}"
                    f": {opened.build_error or opened.queue_error or 'a rebuild is queued'}"
                )
        else:
            report = agreement_report_build(campaign=found)
        if methods:
            self.stdout.write(report_methods_text(campaign=found, opened=opened))
            return
        if as_json:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
        else:
            self.stdout.write(task_type_get(found.task_type).report_presentation().text(report))
            if report.get("replacement"):
                self.stdout.write(replacement_text(report["replacement"]))
