"""The files a task type serves beside its stored report (TaskTypeSpec.extra_downloads): their URLs, under the
report page and under its API, as each type declares them, and the two views that serve them. A view opens the
stored report, answers as agreement.responses.not_built says while none is stored, and lets the type write the file
from what it stored with the report. Researchers of the campaign only; 404 for a campaign whose type serves no such
file."""

from django.http import Http404
from django.urls import URLPattern, path
from django.views.decorators.http import require_GET
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement.responses import api_status_url, attachment, page_status_url, stored_report_view
from annotate.task_types.registry import task_type_get, task_types
from annotate.task_types.spec import DownloadFile, ExtraDownload


def _not_served(campaign, download: ExtraDownload, **arguments) -> None:
    if download not in task_type_get(campaign.task_type).extra_downloads:
        raise Http404(f"this campaign's report has no {download.label}")


def _written(request, campaign, opened, download: ExtraDownload, **arguments):
    """DOWNLOAD of CAMPAIGN, as its task type writes it from the stored report: a DownloadFile or a dict."""
    return download.write(request, campaign=campaign, report=opened.document, extras=opened.extras(), **arguments)


_page_written = stored_report_view(page_status_url, refused=_not_served)(_written)
_api_written = stored_report_view(api_status_url, refused=_not_served)(_written)


def _as_attachment(written):
    if isinstance(written, DownloadFile):
        return attachment(written.text, content_type=written.content_type, filename=written.filename)
    return written


@require_GET
def extra_download_page(request, slug, download: ExtraDownload, **arguments):
    return _as_attachment(_page_written(request, slug, download=download, **arguments))


class ExtraDownloadAPI(APIView):
    """GET: a file the campaign's task type serves beside its report (the class made for each says which)."""

    permission_classes = [IsAuthenticated]
    download: ExtraDownload | None = None

    def get(self, request, slug, **arguments):
        written = _api_written(request, slug, download=self.download, **arguments)
        return Response(written) if isinstance(written, dict) else _as_attachment(written)


def _api_view(download: ExtraDownload):
    """ExtraDownloadAPI's view for DOWNLOAD, documented under its own summary."""
    body = {200: OpenApiTypes.OBJECT} if download.url_name is None else {(200, "text/plain"): OpenApiTypes.STR}
    schema = extend_schema(responses={**body, 202: OpenApiTypes.OBJECT}, summary=download.summary)
    return schema(type("ExtraDownloadAPI", (ExtraDownloadAPI,), {"__doc__": download.write.__doc__})).as_view(
        download=download)


def _declared() -> list[ExtraDownload]:
    """Every registered task type's extra downloads, each once (task types that share a base share them)."""
    return list(dict.fromkeys(download for spec in task_types() for download in spec.extra_downloads))


def extra_download_paths() -> list[URLPattern]:
    """The report pages' URLs of the extra downloads (campaigns/<slug>/report/ROUTE)."""
    return [path(f"campaigns/<slug:slug>/report/{download.route}", extra_download_page, {"download": download},
                 name=download.url_name) for download in _declared() if download.url_name]


def extra_download_api_paths() -> list[URLPattern]:
    """The API's URLs of the extra downloads (campaigns/<slug>/agreement/ROUTE)."""
    return [path(f"campaigns/<slug:slug>/agreement/{download.route}", _api_view(download),
                 name=download.api_url_name) for download in _declared()]
