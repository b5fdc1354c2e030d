"""`manage.py import_data`: create the campaign if needed and import files into it, all or nothing (docs/design.md
§5)."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from annotate.services.campaigns import CampaignError
from annotate.task_types.formats import Parameter, parameter_help
from annotate.task_types.registry import import_formats_all, import_parameters, task_type_names
from interchange.importers.common import ImportDataError
from interchange.importers.service import ImportRequestError, formats, import_data_run, import_judges_start


class Command(BaseCommand):
    help = "Import data into a campaign (created when missing). Bad input: file:line: field: what is wrong."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="campaign slug")
        parser.add_argument("--task-type", required=True, help=f"one of {', '.join(task_type_names())}")
        parser.add_argument("--format", required=True, dest="fmt", help=f"one of {', '.join(formats())}")
        parser.add_argument("--overlap", type=int, default=None,
                            help="human judgments per unit (k), when creating (default: 3 for ais, else 1)")
        for parameter in import_parameters().values():  # each format's own, declared with the format
            parameter_option_add(parser, parameter)
        parser.add_argument("--owner", help="username made a researcher of the campaign")
        parser.add_argument("paths", nargs="+", metavar="PATH")

    def handle(self, *args, campaign, task_type, fmt, overlap, owner, paths, **options):
        owner_user = None
        if owner:
            owner_user = get_user_model().objects.filter(username=owner).first()
            if owner_user is None:
                raise CommandError(f"--owner: no user {owner!r}")
        if overlap is not None and overlap < 1:
            raise CommandError("--overlap: must be at least 1")
        try:
            summary = import_data_run(slug=campaign, task_type=task_type, fmt=fmt, paths=[Path(p) for p in paths],
                                      overlap=overlap, owner=owner_user,
                                      **{name: options[name] for name in import_parameters()})
        except (ImportDataError, ImportRequestError, CampaignError) as exc:
            raise CommandError(str(exc)) from None
        import_judges_start(campaign=Campaign.objects.get(slug=campaign), summary=summary, user=owner_user)
        for line in summary.lines():
            self.stdout.write(line)


def parameter_option_add(parser, parameter: Parameter) -> None:
    """PARAMETER as an option of the command: `--name VALUE`, or a flag for a bool."""
    help_text = parameter_help(parameter, import_formats_all())
    if parameter.kind is bool:
        parser.add_argument(parameter.option, dest=parameter.name, action="store_true", help=help_text)
    else:
        parser.add_argument(parameter.option, dest=parameter.name, type=parameter.kind, default=parameter.default,
                            help=help_text)
