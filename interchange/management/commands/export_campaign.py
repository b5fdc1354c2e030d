"""`manage.py export_campaign --campaign SLUG --out PATH`: the campaign, all its judgments and files, in one zip
archive that `import_campaign` reads on any Concord installation (interchange.archive)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from interchange.archive import campaign_export


class Command(BaseCommand):
    help = "Export a campaign with every judgment and stored file to a zip archive (read back by import_campaign)."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument("--out", required=True, help="the archive to write, e.g. SLUG.zip")

    def handle(self, *args, campaign, out, **options):
        found = Campaign.objects.filter(slug=campaign).first()
        if found is None:
            raise CommandError(f"--campaign: no campaign {campaign!r}")
        target = Path(out)
        if not target.parent.is_dir():
            raise CommandError(f"--out: no folder {str(target.parent)!r}")
        # Written beside the target and renamed when complete: a failed export never leaves half an archive.
        partial = target.with_name(f".{target.name}.part")
        try:
            summary = campaign_export(found, partial)
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        for line in summary.lines():
            self.stdout.write(line)
        self.stdout.write(f"written to {target}")
