"""Imports from uploaded files (the import page and the REST API, through import jobs): check the uploads, store
them in a folder, import that folder.

Uploads are checked before anything is written: a size limit per file, plain file names only, and
for a folder format (nq301) a .zip whose entries stay inside the folder (no absolute paths, no '..').
Nothing of the server's file system reaches the answer: the summary lists the files as they were uploaded,
and error messages name a file as the user called it (a zip's entry by its path in the zip), never the
folder the files wait in.
"""

import os
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.files.move import file_move_safe

from annotate.models import Campaign
from interchange.importers.common import ImportDataError
from interchange.importers.service import ImportRequestError, ImportSummary, import_format_get, import_run

# Where a folder format's uploaded_paths unpacks its archives, inside the import's folder.
UNPACKED = "unpacked"


def _upload_name(upload) -> str:
    name = (upload.name or "").replace("\\", "/").rsplit("/", 1)[-1]
    if not name or name in (".", ".."):
        raise ImportRequestError(f"bad upload file name {upload.name!r}")
    return name


def uploads_check(files: list) -> list[str]:
    """The names FILES (Django UploadedFile objects) are stored under: plain, distinct, each file within
    settings.IMPORT_MAX_BYTES. Raises ImportRequestError or ImportDataError (the file too large)."""
    if not files:
        raise ImportRequestError("no files to import")
    names = []
    for upload in files:
        name = _upload_name(upload)
        if upload.size > settings.IMPORT_MAX_BYTES:
            raise ImportDataError(file=name, line=0, field="file", message=(
                f"file is {upload.size:,} bytes; the import limit is {settings.IMPORT_MAX_BYTES:,} bytes"))
        if name in names:
            raise ImportRequestError(f"two uploaded files are called {name!r}")
        names.append(name)
    return names


def upload_store(upload, path: Path) -> None:
    """Put UPLOAD at PATH: a file the upload handler wrote to disk is moved (a rename on the same file system),
    one held in memory written a chunk at a time."""
    temporary = getattr(upload, "temporary_file_path", None)
    if temporary is not None:
        upload.file.flush()
        file_move_safe(temporary(), path)
        return
    with open(path, "wb") as sink:
        for chunk in upload.chunks():
            sink.write(chunk)


def _relative(text: str, root: Path) -> str:
    """TEXT with the folder ROOT taken out of every path in it."""
    for folder in (root / UNPACKED, root):
        text = text.replace(f"{folder}{os.sep}", "").replace(str(folder), ".")
    return text


def folder_import(*, campaign: Campaign, fmt: str, root: Path, names: list[str], **parameters) -> ImportSummary:
    """Import the files NAMES of folder ROOT (stored by upload_store) through `import_run`, with its PARAMETERS:
    same errors, same summary, with ROOT taken out of both. A folder format's uploads are made its folder first
    (its uploaded_paths: an nq301 import's .zip archives are unpacked in ROOT)."""
    try:
        import_format = import_format_get(campaign=campaign, fmt=fmt)
        paths = import_format.uploaded_paths(root=root, paths=[root / name for name in names])
        summary = import_run(campaign=campaign, fmt=fmt, paths=paths, **parameters)
    except ImportDataError as exc:
        raise ImportDataError(file=_relative(exc.file, root), line=exc.line, field=_relative(exc.field, root),
                              message=_relative(exc.message, root)) from None
    summary.files = list(names)
    return summary


def uploads_import(*, campaign: Campaign, fmt: str, files: list, **options) -> ImportSummary:
    """Import uploaded FILES at once, in this process, through a temporary folder (the import jobs of the page and
    the API store them in the job's folder instead and import them on a worker: interchange.jobs)."""
    names = uploads_check(files)
    with tempfile.TemporaryDirectory(prefix="concord-import-") as tmp:
        root = Path(tmp)
        for upload, name in zip(files, names):
            upload_store(upload, root / name)
        return folder_import(campaign=campaign, fmt=fmt, root=root, names=names, **options)
