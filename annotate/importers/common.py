"""What every import format shares: the error that names file, line and field, size limits and strict reading.

Readers never guess: a file that is too large, empty, not UTF-8, or has a malformed line stops the
import with an `ImportDataError`, and the caller's transaction rolls everything back.
"""

import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from django.conf import settings


MAX_ZIP_ENTRIES = 100_000


class ImportDataError(Exception):
    """Bad input. `str()` gives `file:line: field: what is wrong`; line 0 means the file as a whole."""

    def __init__(self, *, file, line: int, field: str, message: str):
        self.file = str(file)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(f"{self.file}:{line}: {field}: {message}")


def file_check(path: Path) -> None:
    """Refuse a missing file or one larger than settings.IMPORT_MAX_BYTES before reading a byte of it."""
    if not path.is_file():
        raise ImportDataError(file=path, line=0, field="file", message="no such file")
    size = path.stat().st_size
    limit = settings.IMPORT_MAX_BYTES
    if size > limit:
        raise ImportDataError(
            file=path, line=0, field="file", message=f"file is {size:,} bytes; the import limit is {limit:,} bytes"
        )


def lines_read(path: Path) -> list[str]:
    """The file's lines, decoded as strict UTF-8 (a BOM is allowed); an empty file is an error."""
    file_check(path)
    data = path.read_bytes()
    if not data.strip():
        raise ImportDataError(file=path, line=1, field="file", message="file is empty")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ImportDataError(
            file=path, line=line, field="encoding", message=f"not UTF-8 (byte 0x{data[exc.start]:02x})"
        ) from None
    return text.splitlines()


def jsonl_read(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; each line must be one JSON object.

    Streamed: one line in memory at a time, decoded as strict UTF-8 (a BOM on the first line is allowed).
    """
    file_check(path)
    seen_any = False
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise ImportDataError(
                    file=path, line=number, field="encoding", message=f"not UTF-8 (byte 0x{raw[exc.start]:02x})"
                ) from None
            if not line.strip():
                continue
            seen_any = True
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ImportDataError(file=path, line=number, field="json", message=f"malformed JSON: {exc.msg}") from None
            if not isinstance(obj, dict):
                raise ImportDataError(file=path, line=number, field="json", message="line is not a JSON object")
            yield number, obj
    if not seen_any:
        raise ImportDataError(file=path, line=1, field="file", message="file is empty")


def tsv_read(path: Path, *, required: list[str], optional: tuple[str, ...] = ()) -> Iterator[tuple[int, dict]]:
    """(line number, row dict) for a tab-separated file with a header naming at least REQUIRED columns."""
    lines = lines_read(path)
    header = lines[0].split("\t")
    missing = [name for name in required if name not in header]
    if missing:
        raise ImportDataError(
            file=path, line=1, field=missing[0], message=f"missing column (header has: {', '.join(header)})"
        )
    wanted = [*required, *[name for name in optional if name in header]]
    positions = {name: header.index(name) for name in wanted}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        row = {}
        for name, position in positions.items():
            if position >= len(cells):
                if name in required:
                    raise ImportDataError(file=path, line=number, field=name, message="missing value (row too short)")
                row[name] = ""
            else:
                row[name] = cells[position]
        yield number, row


def str_field(obj: dict, key: str, *, path: Path, line: int) -> str:
    if key not in obj:
        raise ImportDataError(file=path, line=line, field=key, message="missing key")
    value = obj[key]
    if not isinstance(value, str):
        raise ImportDataError(file=path, line=line, field=key, message=f"expected a string, got {type(value).__name__}")
    return value


def str_list_field(obj: dict, key: str, *, path: Path, line: int) -> list[str]:
    if key not in obj:
        raise ImportDataError(file=path, line=line, field=key, message="missing key")
    value = obj[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ImportDataError(
            file=path, line=line, field=key, message=f"expected a list of strings, got {type(value).__name__}"
        )
    return value


def zip_extract(archive: Path, target: Path) -> None:
    """Extract ARCHIVE into TARGET, refusing entries that escape it and archives that unpack too large."""
    try:
        bundle = zipfile.ZipFile(archive)
    except zipfile.BadZipFile:
        raise ImportDataError(file=archive.name, line=0, field="file", message="not a zip archive") from None
    with bundle:
        entries = bundle.infolist()
        if len(entries) > MAX_ZIP_ENTRIES:
            raise ImportDataError(file=archive.name, line=0, field="file", message=f"more than {MAX_ZIP_ENTRIES} entries")
        total = 0
        for entry in entries:
            parts = PurePosixPath(entry.filename.replace("\\", "/"))
            if parts.is_absolute() or ".." in parts.parts or entry.filename[1:3] == ":\\":
                raise ImportDataError(file=archive.name, line=0, field=entry.filename,
                                      message="zip entry path leaves the folder (absolute or '..')")
            total += entry.file_size
            if total > settings.IMPORT_MAX_BYTES:
                raise ImportDataError(file=archive.name, line=0, field="file",
                                      message=f"unpacks to more than the import limit of {settings.IMPORT_MAX_BYTES:,} bytes")
        for entry in entries:
            if entry.is_dir():
                continue
            destination = target.joinpath(*PurePosixPath(entry.filename).parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            with bundle.open(entry) as source, open(destination, "wb") as sink:
                shutil.copyfileobj(source, sink)
