"""An import's progress as its readers see it: rows read and bytes read, for the import job page.

The readers of interchange.importers.common report each record to the progress of the import running in this context
(a ContextVar; none for `import_data`, which prints its summary when done). A progress hands its figures to its sink
at most every INTERVAL seconds: the import job (interchange.jobs) writes them to a file in the job's folder, since the
import's own transaction holds the database until it ends (on SQLite, every other write waits for it).
"""

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

INTERVAL = 0.5  # seconds between two reports


class ImportProgress:
    """Rows and bytes read so far, per file: a file read twice (two passes) counts once, at its furthest point."""

    def __init__(self, *, sink: Callable[[dict], None], interval: float | None = None):
        self.sink = sink
        self.interval = INTERVAL if interval is None else interval
        self.rows: dict[str, int] = {}
        self.bytes: dict[str, int] = {}
        self._next = 0.0

    def row(self, path: Path, number: int, position: Callable[[], int]) -> None:
        """Record NUMBER (a line or record number of PATH, counted from 1) read; POSITION gives the bytes of PATH
        read so far, asked for only when a report is due (it may cost a system call)."""
        key = str(path)
        if number > self.rows.get(key, 0):
            self.rows[key] = number
        now = time.monotonic()
        if now >= self._next:
            self._next = now + self.interval
            self.bytes[key] = max(self.bytes.get(key, 0), position())
            self.sink(self.figures())

    def file_done(self, path: Path) -> None:
        """PATH was read to its end."""
        key = str(path)
        try:
            size = os.stat(path).st_size
        except OSError:
            return
        self.bytes[key] = max(self.bytes.get(key, 0), size)

    def figures(self) -> dict:
        return {"rows_read": sum(self.rows.values()), "bytes_read": sum(self.bytes.values())}


_current: ContextVar[ImportProgress | None] = ContextVar("import_progress", default=None)


def progress_current() -> ImportProgress | None:
    """The progress of the import running here, if someone watches it."""
    return _current.get()


@contextmanager
def progress_reporting(progress: ImportProgress) -> Iterator[ImportProgress]:
    """Readers running inside report to PROGRESS."""
    token = _current.set(progress)
    try:
        yield progress
    finally:
        _current.reset(token)
