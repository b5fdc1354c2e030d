"""What every import format shares: the error that names file, line and field, size limits and strict reading.

Every reader streams: a file is read a line (or, for JSON documents, a chunk) at a time and each record is
checked as it comes, so a bad line 2 is reported without reading line 3, and an import's memory does not
grow with the file. Readers never guess: a file that is too large, empty, not UTF-8, or has a malformed line
stops the import with an `ImportDataError`, and the caller's transaction rolls everything back. So does a
line longer than MAX_LINE_BYTES (one line must not cost the memory of a whole file) and a NUL character
anywhere (PostgreSQL text and jsonb cannot store one: the database would fail with no file, line or field).

Values are bounded too: a text value (a JSON string or key, a TSV or CSV cell, a passage) longer than
settings.IMPORT_MAX_VALUE_CHARS characters is refused as `file:line: field: ...` by the readers that hand values
out (jsonl_read, the JSON readers, tsv_read; value_check for readers of their own). A line may hold 16 MB; one
value of that size would be a page no annotator can read and a prompt no judge can take.

Readers report each record to the import's progress (interchange.importers.progress) when an import job watches it.
"""

import codecs
import io
import json
import shutil
import zipfile
import zlib
from collections.abc import Iterator
from functools import cache
from itertools import accumulate
from operator import itemgetter
from pathlib import Path, PurePosixPath

import ijson
from django.conf import settings

from interchange.importers.progress import progress_current

MAX_ZIP_ENTRIES = 100_000
MAX_LINE_BYTES = 16 * 1024 * 1024
# Deeper than any export nests; Python's own json parser gives up near 1,000 levels.
MAX_JSON_DEPTH = 500
# Values (lists, objects, strings, numbers, keys) one record, a JSONL line or an element of a JSON document, may hold.
# A record of the formats read here holds tens to a few thousand (a ranking of 1,000 candidates: about 5,000); a
# 15 MB line of tiny values within the depth limit built 7 million Python objects and cost a worker 600-800 MB.
MAX_JSON_VALUES = 200_000
CHUNK_BYTES = 64 * 1024
_BOM = codecs.BOM_UTF8
_WHITESPACE = b" \t\n\r\x0b\x0c"


class ImportDataError(Exception):
    """Bad input. `str()` gives `file:line: field: what is wrong`; line 0 means the file as a whole."""

    def __init__(self, *, file, line: int, field: str, message: str):
        self.file = str(file)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(f"{self.file}:{line}: {field}: {message}")


class UnusedLines:
    """What an import did with its lines: how many it used (imported, or found in the campaign as they are) and,
    counted by reason, those it read and did not use, each reason with its first line as an example. No line is
    passed over unsaid: the summary lists the reasons (`rows`), and an import that would use none of its lines is
    refused (`check_some_used`), since it can only be a mismatch (ids the campaign does not hold, the wrong campaign,
    the wrong order of imports).

    A format that counts lines here calls `use` or `skip` for each line it reads (blank lines and comments aside)."""

    def __init__(self):
        self.used = 0
        self._reasons: dict[str, dict] = {}

    def use(self, lines: int = 1) -> None:
        self.used += lines

    def skip(self, reason: str, *, path: Path, line: int, field: str, value: str) -> None:
        """Count one line not used for REASON, worded to follow "3 lines" ("naming no passage of the campaign");
        FIELD and VALUE name what in it made it so (the docid and its text)."""
        entry = self._reasons.get(reason)
        if entry is None:
            self._reasons[reason] = {"reason": reason, "lines": 1, "file": Path(path).name, "line": line,
                                     "field": field, "value": value, "path": str(path), "order": len(self._reasons)}
        else:
            entry["lines"] += 1

    @property
    def skipped(self) -> int:
        return sum(entry["lines"] for entry in self._reasons.values())

    def rows(self) -> list[dict]:
        """[{"reason", "lines", "example"}] by reason, the most frequent first; the example is the first such line,
        `file:line: field 'value'`."""
        return [{"reason": entry["reason"], "lines": entry["lines"],
                 "example": f"{entry['file']}:{entry['line']}: {entry['field']} {entry['value']!r}"}
                for entry in sorted(self._reasons.values(), key=lambda entry: -entry["lines"])]

    def check_some_used(self) -> None:
        """Refuse the import when it read lines and used none: the error names each reason with its count and first
        line, at the first of them."""
        if self.used or not self._reasons:
            return
        entries = sorted(self._reasons.values(), key=lambda entry: -entry["lines"])
        first = min(entries, key=lambda entry: entry["order"])  # the first line not used
        reasons = "; ".join(
            f"{entry['lines']:,} line{'s' if entry['lines'] != 1 else ''} {entry['reason']} (first: "
            f"{entry['file']}:{entry['line']}, {entry['field']} {entry['value']!r})" for entry in entries)
        raise ImportDataError(file=first["path"], line=first["line"], field=first["field"],
                              message=f"none of the {self.skipped:,} lines read is used, nothing was imported: "
                                      f"{reasons}")


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


def empty_check(path: Path) -> None:
    """Refuse a file with nothing but whitespace (a BOM allowed) as `file is empty`; reads up to its first
    other byte, so a file with content costs one chunk."""
    with path.open("rb") as handle:
        chunk = handle.read(CHUNK_BYTES)
        if chunk.startswith(_BOM):
            chunk = chunk[len(_BOM):]
        while chunk:
            if chunk.strip(_WHITESPACE):
                return
            chunk = handle.read(CHUNK_BYTES)
    raise ImportDataError(file=path, line=1, field="file", message="file is empty")


def value_check(value: str, *, path: Path, line: int, field: str) -> str:
    """VALUE, refused when longer than settings.IMPORT_MAX_VALUE_CHARS characters."""
    limit = settings.IMPORT_MAX_VALUE_CHARS
    if len(value) > limit:
        raise ImportDataError(file=path, line=line, field=field, message=(
            f"value of {len(value):,} characters; an import takes at most {limit:,} characters a value "
            f"(IMPORT_MAX_VALUE_CHARS)"))
    return value


def _long_value_check(value, *, path: Path, line: int, where: str = "") -> None:
    """Refuse the first string (or key) of a parsed JSON VALUE longer than the value limit, naming its path
    (`items[2].text`). Walked with a list: the value may be nested as deep as the parser allows."""
    pending = [(where, value)]
    while pending:
        place, value = pending.pop()
        if isinstance(value, str):
            value_check(value, path=path, line=line, field=place or "json")
        elif isinstance(value, dict):
            for key, inner in value.items():
                value_check(key, path=path, line=line, field=f"{place} (a key)" if place else "key")
                pending.append((f"{place}.{key}" if place else key, inner))
        elif isinstance(value, list):
            pending.extend((f"{place}[{n}]", inner) for n, inner in enumerate(value))


def _not_utf8(path: Path, line: int, byte: int) -> ImportDataError:
    return ImportDataError(file=path, line=line, field="encoding", message=f"not UTF-8 (byte 0x{byte:02x})")


def _line_too_long(path: Path, number: int, limit: int) -> ImportDataError:
    return ImportDataError(file=path, line=number, field="line",
                           message=f"longer than the line limit of {limit:,} bytes")


def lines_read(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line) for every line of the file, read one at a time: strict UTF-8 (a BOM is allowed),
    at most MAX_LINE_BYTES a line, no NUL; a file of nothing but whitespace is an error.

    Lines end where `str.splitlines` ends them (so a file saved with CR line ends reads as lines), counted
    in that way; blank lines are yielded (with their numbers) for the caller to skip.
    """
    file_check(path)
    empty_check(path)
    number = 0
    progress = progress_current()
    with path.open("rb") as handle:
        while raw := handle.readline(MAX_LINE_BYTES + 2):
            if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
                raise _line_too_long(path, number + 1, MAX_LINE_BYTES)
            try:
                text = raw.decode("utf-8-sig" if number == 0 else "utf-8")
            except UnicodeDecodeError as exc:
                raise _not_utf8(path, number + 1, raw[exc.start]) from None
            pieces = text.splitlines()
            if "\x00" in text:
                where = next(n for n, piece in enumerate(pieces, start=number + 1) if "\x00" in piece)
                raise ImportDataError(file=path, line=where, field="encoding", message="contains a NUL byte")
            for piece in pieces:
                number += 1
                yield number, piece
            if progress is not None:
                progress.row(path, number, handle.tell)
    if progress is not None:
        progress.file_done(path)


def jsonl_read(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line; each line must be one JSON object.

    Streamed: one line in memory at a time, at most MAX_LINE_BYTES of it, decoded as strict UTF-8 (a BOM on
    the first line is allowed).
    """
    file_check(path)
    seen_any = False
    progress = progress_current()
    limit = settings.IMPORT_MAX_VALUE_CHARS
    with path.open("rb") as handle:
        number = 0
        while raw := handle.readline(MAX_LINE_BYTES + 2):
            number += 1
            if progress is not None:
                progress.row(path, number, handle.tell)
            if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
                raise _line_too_long(path, number, MAX_LINE_BYTES)
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise _not_utf8(path, number, raw[exc.start]) from None
            if not line.strip():
                continue
            seen_any = True
            obj = json_parse(line, path=path, line=number)
            if not isinstance(obj, dict):
                raise ImportDataError(file=path, line=number, field="json", message="line is not a JSON object")
            if "\\u0000" in line:
                nul_check(obj, path=path, line=number)
            if len(raw) > limit:  # no value of a shorter line can be longer (a character is a byte or more)
                _long_value_check(obj, path=path, line=number)
            yield number, obj
    if progress is not None:
        progress.file_done(path)
    if not seen_any:
        raise ImportDataError(file=path, line=1, field="file", message="file is empty")


def json_parse(text: str, *, path: Path, line: int | None = None):
    """TEXT as JSON; errors name LINE, else the line the parser reports (0 where it reports none).

    Besides malformed JSON, Python refuses integers of more than 4,300 digits (ValueError) and nesting
    deeper than its recursion limit (RecursionError); neither may escape as a crash. Nesting deeper than
    MAX_JSON_DEPTH is refused from the parser's events before anything is built (json_depth_check).
    """
    json_breadth_check(text, path=path, line=line)  # first: it stops at the first value past the limit
    json_depth_check(text, path=path, line=line)
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


def json_depth_check(text: str, *, path: Path, line: int | None) -> None:
    """Refuse TEXT when its lists and objects nest deeper than MAX_JSON_DEPTH, from the parser's plain events
    (nothing built); TEXT with fewer brackets than that cannot, and costs two counts. Malformed TEXT is left to the
    caller's parser, which names the fault."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    try:
        deep, _, _ = _first_too_deep(ijson.basic_parse(io.BytesIO(text.encode("utf-8", "surrogatepass")),
                                                       use_float=True))
    except ijson.JSONError:
        return
    if deep is not None:
        raise _too_deep(path, 1 if line is None else line)


def json_breadth_check(text: str, *, path: Path, line: int | None) -> None:
    """Refuse TEXT when it holds more than MAX_JSON_VALUES values, counted from the parser's plain events (nothing
    built); TEXT with fewer separators and brackets than that cannot, and costs three counts."""
    if text.count(",") + text.count("[") + text.count("{") < MAX_JSON_VALUES:
        return
    values = 0
    try:
        for event, _ in ijson.basic_parse(io.BytesIO(text.encode("utf-8", "surrogatepass")), use_float=True):
            values += event not in _CLOSING
            if values > MAX_JSON_VALUES:
                raise _too_broad(path, 1 if line is None else line)
    except ijson.JSONError:
        return


def _too_broad(path: Path, line: int) -> ImportDataError:
    return ImportDataError(file=path, line=line, field="json", message=(
        f"one record holds more than {MAX_JSON_VALUES:,} values (lists, objects, strings, numbers); no format needs "
        f"that many"))


class _JsonSource:
    """A JSON file as the incremental parser reads it: checked as strict UTF-8 without NUL bytes, a leading BOM
    skipped, lines counted, nesting refused past MAX_JSON_DEPTH. After byte BY_LINE_FROM it hands out one line per
    read, so that when the parser fails, `line` is the line it failed on. With ELEMENT_DEPTH, the depth at which
    the values the reader builds open (2 for the elements of a top-level list), a value larger than
    MAX_LINE_BYTES is refused while it is being read, before it is built (a record may hold what a JSONL line may).

    Why the depth is checked here, on each chunk before the parser gets it: ijson's `parse`, `items` and `kvitems`
    parse a whole chunk before their caller sees an event, building each event's prefix (as long as the depth) and
    each element whole: 10 million nested `[` (20 MB) cost a worker 16 GB, and a check on what they hand out comes
    too late. Each chunk is first parsed into plain events (no prefixes; at most a chunk's worth) whose depth
    is counted: the chunk that goes too deep never reaches the reader's parser."""

    def __init__(self, handle, *, path: Path, by_line_from: int | None = None, depth_checked: bool = True,
                 element_depth: int | None = None):
        self.handle = handle
        self.path = path
        self.by_line_from = by_line_from
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.offset = 0  # bytes handed out
        self.newlines = 0  # newlines handed out
        self.line = 1  # the line of the last byte handed out
        self.chunk_starts = (0, 0)  # where the last two chunks began
        self.escaped_nul = False  # a "\u0000" was handed out: values need a NUL check
        self._tail = b""
        self._pending = b""
        self._depth = 0
        self._element_depth = element_depth
        self._element_bytes = 0  # bytes since the last chunk in which no value the reader builds was open
        self._element_values = 0  # the parser's events over those chunks
        self._events = ijson.sendable_list() if depth_checked else None
        self._depth_parser = ijson.basic_parse_coro(self._events, use_float=True) if depth_checked else None

    def peek(self) -> bytes:
        """The first byte that is not whitespace (b"" for none), without consuming it."""
        while True:
            chunk = self.handle.read(CHUNK_BYTES)
            if self.offset == 0 and not self._pending and chunk.startswith(_BOM):
                self.offset = len(_BOM)
                chunk = chunk[len(_BOM):]
            self._pending += chunk
            stripped = self._pending.lstrip(_WHITESPACE)
            if stripped or not chunk:
                return stripped[:1]

    def position(self) -> int:
        """Bytes of the file read so far (a BOM included)."""
        return self.handle.tell()

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson asks for nothing first, to learn that the source gives bytes
            return b""
        if self._pending:
            cut = len(self._pending) if size < 0 else size
            chunk, self._pending = self._pending[:cut], self._pending[cut:]
        elif self.by_line_from is not None and self.offset >= self.by_line_from:
            chunk = self.handle.readline(size)
        else:
            chunk = self.handle.read(size)
            if self.offset == 0 and chunk.startswith(_BOM):
                self.offset = len(_BOM)
                chunk = chunk[len(_BOM):]
        self._check(chunk)
        if self._depth_parser is not None and chunk:
            self._depth_feed(chunk)
        self.chunk_starts = (self.chunk_starts[1], self.offset)
        self.offset += len(chunk)
        if chunk:
            self.line = self.newlines + chunk.count(b"\n", 0, len(chunk) - 1) + 1
            self.newlines += chunk.count(b"\n")
        return chunk

    def _depth_feed(self, chunk: bytes) -> None:
        """Count the depth CHUNK reaches; refuse it, on the line where it goes too deep, past MAX_JSON_DEPTH.
        Malformed JSON is left to the reader's parser, which names its line."""
        try:
            self._depth_parser.send(chunk)
        except ijson.JSONError:
            self._depth_parser = None
            return
        deep, shallowest, self._depth = _first_too_deep(self._events, start=self._depth)
        values = sum(event not in _CLOSING for event, _ in self._events)
        del self._events[:]
        if self._element_depth is not None and deep is None:
            open_still = shallowest >= self._element_depth
            self._element_bytes = self._element_bytes + len(chunk) if open_still else 0
            self._element_values = self._element_values + values if open_still else 0
            if self._element_values > MAX_JSON_VALUES:
                raise _too_broad(self.path, self.newlines + chunk.count(b"\n") + 1)
            if self._element_bytes > MAX_LINE_BYTES:
                raise ImportDataError(file=self.path, line=self.newlines + chunk.count(b"\n") + 1, field="json",
                                      message=f"one record is larger than {MAX_LINE_BYTES:,} bytes, the most a "
                                              f"record (or a line) may hold")
        if deep is not None:
            with self.path.open("rb") as handle:  # the line: again, a line at a time from this chunk on
                again = _JsonSource(handle, path=self.path, by_line_from=self.offset, depth_checked=False)
                for _ in _until_too_deep(ijson.basic_parse(again, use_float=True)):
                    pass
            raise _too_deep(self.path, again.line)

    def _check(self, chunk: bytes) -> None:
        try:
            self.decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            line = self.newlines + exc.object.count(b"\n", 0, exc.start) + 1
            raise _not_utf8(self.path, line, exc.object[exc.start]) from None
        at = chunk.find(b"\x00")
        if at >= 0:
            raise ImportDataError(file=self.path, line=self.newlines + chunk.count(b"\n", 0, at) + 1,
                                  field="encoding", message="contains a NUL byte")
        if b"\\u0000" in self._tail + chunk[:6] or b"\\u0000" in chunk:
            self.escaped_nul = True
        self._tail = chunk[-5:]


def _until_too_deep(basic_events):
    """BASIC_EVENTS up to the one that goes deeper than MAX_JSON_DEPTH (the parser reads no further)."""
    depth = 0
    for event in basic_events:
        depth += _DEPTH_STEP[event[0]]
        yield event
        if depth > MAX_JSON_DEPTH:
            return


def _json_failure(path: Path, exc: Exception, source: _JsonSource) -> ImportDataError:
    """The error for a parser failure: its line, found by parsing again line by line from the chunk before
    the one the parser failed in (the parser names no position; a second pass costs time only on bad input)."""
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else "malformed"
    if "overflow" in reason:  # a number beyond 64 bits: the parser cannot convert it
        return ImportDataError(file=path, line=0, field="json", message="unreadable JSON: a number too long to convert")
    line = source.line
    with path.open("rb") as handle:
        again = _JsonSource(handle, path=path, by_line_from=source.chunk_starts[0], depth_checked=False)
        try:
            for _ in ijson.basic_parse(again):
                pass
        except ijson.JSONError:
            line = again.line
    return ImportDataError(file=path, line=line, field="json", message=f"malformed JSON: {reason}")


def json_check(value, *, path: Path, line: int, nul: bool) -> None:
    """Refuse a string or key of VALUE longer than the value limit and, when NUL, a NUL character in any of its
    strings or keys (the field is the string's path, `items[2].text`). Walked with a list, not recursion. (Depth
    is refused earlier, from the parser's events, before VALUE is built: _depth_checked.)"""
    if nul:
        nul_check(value, path=path, line=line)
    limit = settings.IMPORT_MAX_VALUE_CHARS
    if isinstance(value, str) and len(value) > limit:
        value_check(value, path=path, line=line, field="json")
    root = value
    pending = [value] if isinstance(value, (dict, list)) else []
    too_long = False
    while pending and not too_long:
        value = pending.pop()
        if isinstance(value, dict):
            too_long = any(len(key) > limit for key in value)
            inner = value.values()
        else:
            inner = value
        for item in inner:
            if isinstance(item, (dict, list)):
                pending.append(item)
            elif isinstance(item, str) and len(item) > limit:
                too_long = True
    if too_long:  # walked again, with paths, to name the value
        _long_value_check(root, path=path, line=line)


# Each parser event's change to the nesting depth.
_DEPTH_STEP = {"start_map": 1, "start_array": 1, "end_map": -1, "end_array": -1,
               "map_key": 0, "string": 0, "number": 0, "boolean": 0, "null": 0}
# The events that close a value rather than open one (not counted against MAX_JSON_VALUES).
_CLOSING = ("end_map", "end_array")


def _too_deep(path: Path, line: int) -> ImportDataError:
    return ImportDataError(file=path, line=line, field="json", message=(
        f"JSON nested too deeply: more than {MAX_JSON_DEPTH} levels of lists and objects"))


def _first_too_deep(basic_events, *, start: int = 0) -> tuple[int | None, int, int]:
    """(the depth of the first of BASIC_EVENTS, ijson.basic_parse's, that opens a list or object deeper than
    MAX_JSON_DEPTH, or None; the least depth on the way; the depth after the events), START being the depth before
    them. A chain of C iterators: it costs about what parsing costs."""
    depths = list(accumulate(map(_DEPTH_STEP.__getitem__, map(itemgetter(0), basic_events)), initial=start))
    deepest = max(depths)
    return (deepest if deepest > MAX_JSON_DEPTH else None), min(depths), depths[-1]


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


def json_array_read(path: Path, *, what: str) -> Iterator[tuple[int, object]]:
    """(position, value) for each element of the file's top-level JSON array, parsed incrementally (ijson):
    one element in memory at a time. POSITION counts from 1; WHAT names the elements in the error for a
    document that is not an array ("tasks"). Strict UTF-8 (a BOM allowed), no NUL, elements nested at most
    MAX_JSON_DEPTH deep, a file of only whitespace is `file is empty`; malformed JSON names the file line it
    is on."""
    file_check(path)
    empty_check(path)
    with path.open("rb") as handle:
        source = _JsonSource(handle, path=path, element_depth=2)
        try:
            if source.peek() != b"[":
                raise ImportDataError(file=path, line=0, field="json",
                                      message=f"expected a JSON list of {what}, got {_top_type(source)}")
            progress = progress_current()
            for position, value in enumerate(ijson.items(source, "item", use_float=True), start=1):
                json_check(value, path=path, line=position, nul=source.escaped_nul)
                if progress is not None:
                    progress.row(path, position, source.position)
                yield position, value
            if progress is not None:
                progress.file_done(path)
        except ijson.JSONError as exc:
            raise _json_failure(path, exc, source) from None


def json_values_read(path: Path, prefix: str, *, pairs: bool = False) -> Iterator[tuple[int, object]]:
    """Like json_array_read, for the values at PREFIX (ijson's: "topics.item" is each element of the top-level
    key "topics"); with PAIRS, (key, value) for each entry of the object at PREFIX ("" for the top level)."""
    with path.open("rb") as handle:
        source = _JsonSource(handle, path=path, element_depth=_element_depth(prefix, pairs=pairs))
        try:
            values = (ijson.kvitems(source, prefix, use_float=True) if pairs
                      else ijson.items(source, prefix, use_float=True))
            progress = progress_current()
            for position, value in enumerate(values, start=1):
                json_check(value, path=path, line=position, nul=source.escaped_nul)
                if progress is not None:
                    progress.row(path, position, source.position)
                yield position, value
            if progress is not None:
                progress.file_done(path)
        except ijson.JSONError as exc:
            raise _json_failure(path, exc, source) from None


def _element_depth(prefix: str, *, pairs: bool) -> int:
    """The depth at which a value that ijson's items (or, with PAIRS, kvitems) builds at PREFIX opens."""
    depth = len(prefix.split(".")) + 1 if prefix else 1
    return depth + 1 if pairs else depth


def json_top_entries(path: Path) -> Iterator[tuple[str, str]]:
    """(key, event) for each entry of the file's top-level JSON object, EVENT being the parser's first event of
    its value ("start_map", "start_array", "string", ...), read without building the values."""
    with path.open("rb") as handle:
        source = _JsonSource(handle, path=path)
        try:
            events = ijson.parse(source, use_float=True)
            for prefix, event, value in events:
                if prefix == "" and event == "map_key":
                    yield value, next(events)[1]
        except ijson.JSONError as exc:
            raise _json_failure(path, exc, source) from None


def json_start(path: Path) -> bytes:
    """The first byte of the file's JSON document, after a BOM and whitespace (b"" for none): `[` or `{` tells
    which reader to use before any parsing."""
    with path.open("rb") as handle:
        return _JsonSource(handle, path=path).peek()


def _top_type(source: _JsonSource) -> str:
    """The Python type name of the document SOURCE holds (not a list): read from its first event only."""
    event, value = next(ijson.basic_parse(source, use_float=True))  # not `parse`: see _JsonSource
    return {"start_map": "dict", "start_array": "list"}.get(event, type(value).__name__)


def tsv_read(path: Path, *, required: list[str], optional: tuple[str, ...] = ()) -> Iterator[tuple[int, dict]]:
    """(line number, row dict) for a tab-separated file with a header naming at least REQUIRED columns; rows are
    read one at a time and hold only the REQUIRED and OPTIONAL columns."""
    lines = lines_read(path)
    _, first = next(lines)
    header = first.split("\t")
    missing = [name for name in required if name not in header]
    if missing:
        raise ImportDataError(
            file=path, line=1, field=missing[0], message=f"missing column (header has: {', '.join(header)})"
        )
    wanted = [*required, *[name for name in optional if name in header]]
    positions = {name: header.index(name) for name in wanted}
    for number, line in lines:
        if not line.strip():
            continue
        cells = line.split("\t")
        long_line = len(line) > settings.IMPORT_MAX_VALUE_CHARS
        row = {}
        for name, position in positions.items():
            if position >= len(cells):
                if name in required:
                    raise ImportDataError(file=path, line=number, field=name, message="missing value (row too short)")
                row[name] = ""
            else:
                row[name] = value_check(cells[position], path=path, line=number, field=name) if long_line \
                    else cells[position]
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
    """Extract ARCHIVE into TARGET, refusing entries that escape it and archives that unpack too large.

    Entries are copied to disk a chunk at a time, never whole into memory, and never past the size they
    declare (zipfile stops there and checks the CRC), so the declared total checked first bounds the disk used.
    """
    try:
        bundle = zipfile.ZipFile(archive)
    except zipfile.BadZipFile:
        raise ImportDataError(file=archive.name, line=0, field="file", message="not a zip archive") from None
    with bundle:
        entries = bundle.infolist()
        if len(entries) > MAX_ZIP_ENTRIES:
            raise ImportDataError(
                file=archive.name, line=0, field="file", message=f"more than {MAX_ZIP_ENTRIES} entries"
            )
        total = 0
        for entry in entries:
            parts = PurePosixPath(entry.filename.replace("\\", "/"))
            if parts.is_absolute() or ".." in parts.parts or entry.filename[1:3] == ":\\":
                raise ImportDataError(file=archive.name, line=0, field=entry.filename,
                                      message="zip entry path leaves the folder (absolute or '..')")
            total += entry.file_size
            if total > settings.IMPORT_MAX_BYTES:
                raise ImportDataError(
                    file=archive.name,
                    line=0,
                    field="file",
                    message=f"unpacks to more than the import limit of {settings.IMPORT_MAX_BYTES:,} bytes",
                )
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


@cache
def _max_length(model, column: str) -> int:
    return model._meta.get_field(column).max_length


def fits(value: str, *, model, column: str, path: Path, line: int, field: str) -> str:
    """VALUE, refused when longer than MODEL.COLUMN holds: PostgreSQL would fail the whole import with no file,
    line or field (SQLite stores it)."""
    limit = _max_length(model, column)
    if len(value) > limit:
        raise ImportDataError(file=path, line=line, field=field,
                              message=f"{len(value):,} characters; {model.__name__}.{column} holds at most {limit}")
    return value
