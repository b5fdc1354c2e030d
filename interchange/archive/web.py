"""The archive over HTTP: the download the campaign page and the API serve, and an uploaded archive imported."""

import tempfile
from pathlib import Path

from django.conf import settings
from django.http import FileResponse

from annotate.models import Campaign
from interchange.archive.reader import ArchiveImportSummary, campaign_import
from interchange.archive.writer import campaign_export
from interchange.importers.common import ImportDataError


def archive_response(campaign: Campaign) -> FileResponse:
    """CAMPAIGN's archive as a download, written to an anonymous temporary file first (a zip's directory comes
    last) and streamed from it; the file is gone once the response is closed."""
    handle = tempfile.TemporaryFile(prefix="concord-export-")
    try:
        campaign_export(campaign, handle)
    except BaseException:
        handle.close()
        raise
    handle.seek(0)
    return FileResponse(handle, as_attachment=True, filename=f"{campaign.slug}-archive.zip",
                        content_type="application/zip")


def archive_upload_import(upload, *, slug: str | None = None, owner=None) -> ArchiveImportSummary:
    """Import an uploaded archive (a Django UploadedFile) through campaign_import; the same checks and errors,
    the file named as the user called it."""
    name = Path((upload.name or "").replace("\\", "/")).name or "archive.zip"
    if upload.size > settings.IMPORT_MAX_BYTES:
        raise ImportDataError(file=name, line=0, field="file", message=(
            f"file is {upload.size:,} bytes; the import limit is {settings.IMPORT_MAX_BYTES:,} bytes"))
    with tempfile.TemporaryDirectory(prefix="concord-upload-") as tmp:
        path = Path(tmp) / name
        with open(path, "wb") as sink:
            for chunk in upload.chunks():
                sink.write(chunk)
        return campaign_import(path, slug=slug, owner=owner)
