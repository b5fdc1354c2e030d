"""`manage.py import_campaign PATH [--slug NEW] [--owner USERNAME]`: a new campaign from an archive written by
`export_campaign`, all or nothing (interchange.archive)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotate.services.campaigns import CampaignError
from interchange.archive import campaign_import
from interchange.importers.common import ImportDataError


class Command(BaseCommand):
    help = "Create a campaign from an export_campaign archive. Bad input: archive:entry:line: field: what is wrong."

    def add_arguments(self, parser):
        parser.add_argument("path", metavar="PATH", help="the archive (.zip)")
        parser.add_argument("--slug", help="import under this slug instead of the archived one")
        parser.add_argument("--owner", help="username made a researcher of the new campaign")

    def handle(self, *args, path, slug, owner, **options):
        owner_user = None
        if owner:
            owner_user = get_user_model().objects.filter(username=owner).first()
            if owner_user is None:
                raise CommandError(f"--owner: no user {owner!r}")
        try:
            summary = campaign_import(path, slug=slug, owner=owner_user)
        except (ImportDataError, CampaignError) as exc:
            raise CommandError(str(exc)) from None
        for line in summary.lines():
            self.stdout.write(line)
