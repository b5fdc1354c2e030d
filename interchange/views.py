"""The campaign archive's download page (the import page is interchange.views_import)."""

from django.views.decorators.http import require_GET

from annotate.access import campaign_for_researcher
from interchange.archive.web import archive_response


@require_GET
def campaign_export_download(request, slug):
    """The campaign's archive (interchange.archive): researchers of the campaign only, a 404 for everyone else."""
    return archive_response(campaign_for_researcher(request.user, slug))
