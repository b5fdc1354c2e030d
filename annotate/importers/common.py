"""What every import format shares: the error that names file, line and field, size limits and strict reading.

Readers never guess: a file that is too large, empty, not UTF-8, or has a malformed line stops the
import with an `ImportDataError`, and the caller's transaction rolls everything back. So does a line longer
than MAX_LINE_BYTES (one line must not cost the memory of a whole file) and a NUL character anywhere
(PostgreSQL text and jsonb cannot store one: the database would fail with no file, line or field).
"""

import json
import shutil
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from django.conf import settings


MAX_ZIP_ENTRIES = 100_000
MAX_LINE_BYTES = 16 * 1024 * 1024


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


def lines_read(path: Path, *, max_line: int | None = MAX_LINE_BYTES) -> list[str]:
    """The file's lines, decoded as strict UTF-8 (a BOM is allowed); an empty file is an error.

    MAX_LINE (bytes) bounds every line; None for a format that is one JSON document, often on one line.
    """
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
    lines = text.splitlines()
    if "\x00" in text:
        where = next(number for number, line in enumerate(lines, start=1) if "\x00" in line)
        raise ImportDataError(file=path, line=where, field="encoding", message="contains a NUL byte")
    if max_line is not None:
        # A character takes at most 4 bytes in UTF-8: only longer lines need encoding to be measured.
        for number, line in enumerate(lines, start=1):
            if len(line) > max_line // 4 and len(line.encode("utf-8")) > max_line:
                raise _line_too_long(path, number, max_line)
    return lines


def _line_too_long(path: Path, number: int, limit: int) -> ImportDataError:
    return ImportDataError(file=path, line=number, field="line",
                           message=f"longer than the line limit of {limit:,} bytes")


def jsonl_read(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; each line must be one JSON object.

    Streamed: one line in memory at a time, at most MAX_LINE_BYTES of it, decoded as strict UTF-8 (a BOM on
    the first line is allowed).
    """
    file_check(path)
    seen_any = False
    with path.open("rb") as handle:
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 2):
            number += 1
            if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
                raise _line_too_long(path, number, MAX_LINE_BYTES)
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise ImportDataError(
                    file=path, line=number, field="encoding", message=f"not UTF-8 (byte 0x{raw[exc.start]:02x})"
                ) from None
            if not line.strip():
                continue
            seen_any = True
            obj = json_parse(line, path=path, line=number)
            if not isinstance(obj, dict):
                raise ImportDataError(file=path, line=number, field="json", message="line is not a JSON object")
            if "\\u0000" in line:
                nul_check(obj, path=path, line=number)
            yield number, obj
    if not seen_any:
        raise ImportDataError(file=path, line=1, field="file", message="file is empty")


def json_parse(text: str, *, path: Path, line: int | None = None):
    """TEXT as JSON; errors name LINE, else the line the parser reports (0 where it reports none).

    Besides malformed JSON, Python refuses integers of more than 4,300 digits (ValueError) and nesting
    deeper than its recursion limit (RecursionError); neither may escape as a crash.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportDataError(file=path, line=line or exc.lineno, field="json",
                              message=f"malformed JSON: {exc.msg}") from None
    except ValueError:
        raise ImportDataError(file=path, line=line or 0, field="json",
                              message="unreadable JSON: a number too long to convert") from None
    except RecursionError:
        raise ImportDataError(file=path, line=line or 0, field="json", message="JSON nested too deeply") from None


def nul_check(value, *, path: Path, line: int, where: str = "") -> None:
    """Refuse a NUL character in any string of a parsed JSON VALUE; the field is its path (`items[2].text`).

    Walked with a list, not recursion: the value may be nested as deep as the parser allows.
    """
    pending = [(where, value)]
    while pending:
        place, value = pending.pop()
        if isinstance(value, str) and "\x00" in value:
            raise ImportDataError(file=path, line=line, field=place or "json", message="contains a NUL character")
        if isinstance(value, dict):
            for key, inner in value.items():
                if "\x00" in key:
                    raise ImportDataError(file=path, line=line, field=place or "json",
                                          message="a key contains a NUL character")
                pending.append((f"{place}.{key}" if place else key, inner))
        elif isinstance(value, list):
            pending.extend((f"{place}[{n}]", inner) for n, inner in enumerate(value))


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
            if not entry.is_dir():
                _entry_extract(bundle, entry, archive=archive, target=target)


def _entry_extract(bundle: zipfile.ZipFile, entry: zipfile.ZipInfo, *, archive: Path, target: Path) -> None:
    """Unpack one checked entry; a damaged one (bad CRC, sizes that lie, a corrupt stream, encryption, an
    unknown method) or one that clashes with another entry's path is refused, never a crash."""
    destination = target.joinpath(*PurePosixPath(entry.filename).parts)
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        with bundle.open(entry) as source, open(destination, "wb") as sink:
            shutil.copyfileobj(source, sink)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        raise ImportDataError(file=archive.name, line=0, field=entry.filename,
                              message=f"damaged or unreadable zip entry ({exc})") from None
    except OSError as exc:
        raise ImportDataError(file=archive.name, line=0, field=entry.filename,
                              message=f"zip entry cannot be unpacked ({exc.strerror or exc})") from None


def fits(value: str, *, model, column: str, path: Path, line: int, field: str) -> str:
    """VALUE, refused when longer than MODEL.COLUMN holds: PostgreSQL would fail the whole import with no file,
    line or field (SQLite stores it)."""
    limit = model._meta.get_field(column).max_length
    if len(value) > limit:
        raise ImportDataError(file=path, line=line, field=field,
                              message=f"{len(value):,} characters; {model.__name__}.{column} holds at most {limit}")
    return value
