"""Writing a campaign archive: `campaign_export(campaign, out)`."""

import json
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from annotate.models import Campaign
from interchange.archive.media import MEDIA, MediaRefs, media_files
from interchange.archive.tables import (
    ARCHIVE_FORMAT,
    ARCHIVE_VERSION,
    MANIFEST,
    SCHEMA_APPS,
    TABLES,
    Table,
    json_default,
    user_keys,
    value_lookups,
)
from judges.secrets import config_identity

CHUNK_ROWS = 2000
# Already compressed: stored as they are rather than deflated again for nothing.
STORED_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".gif"}


@dataclass
class ArchiveExportSummary:
    campaign: str
    counts: dict[str, int] = field(default_factory=dict)
    media_files: int = 0
    bytes: int = 0
    seconds: float = 0.0

    def lines(self) -> list[str]:
        rows = ", ".join(f"{name} {count:,}" for name, count in self.counts.items())
        return [f"campaign {self.campaign}: {rows}; media files {self.media_files:,}",
                f"archive: {self.bytes:,} bytes in {self.seconds:.1f} s"]


def _judge_row(row: dict, refs: MediaRefs) -> None:
    # An API key is a credential of the exporting site, not part of the judge (judges.secrets): never archived.
    row["config"] = config_identity(row["config"])


def _item_row(row: dict, refs: MediaRefs) -> None:
    refs.add_item(row["data"])


# Per table, what the writer does to a row before it is written.
ROW_FIXES: dict[str, Callable[[dict, MediaRefs], None]] = {"items": _item_row, "judges": _judge_row}


def campaign_export(campaign: Campaign, out) -> ArchiveExportSummary:
    """Write CAMPAIGN, every row that hangs off it and its files to OUT (a path or a writable binary file) as a
    zip archive (interchange.archive); returns the counts.

    Streamed: rows are read CHUNK_ROWS at a time and written as they come, files copied one at a time, so memory
    stays flat whatever the campaign's size. Everything is read from one snapshot (_snapshot), so the tables agree
    with each other while annotators keep working.
    """
    started = time.perf_counter()
    summary = ArchiveExportSummary(campaign=campaign.slug)
    refs = MediaRefs(campaign_id=campaign.pk)
    users: set[str] = set()
    with _snapshot(), zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as bundle:
        for table in TABLES:
            summary.counts[table.name] = _table_write(bundle, table=table, campaign=campaign, refs=refs, users=users)
        campaign_row = _campaign_row(campaign)
        users.update(_usernames(user_keys(Campaign), campaign_row))
        refs.add_runs(campaign_row["options"])
        for name, path in media_files(refs):
            compress = zipfile.ZIP_STORED if path.suffix.lower() in STORED_SUFFIXES else zipfile.ZIP_DEFLATED
            bundle.write(path, arcname=f"{MEDIA}/{name}", compress_type=compress)
            summary.media_files += 1
        manifest = _manifest(campaign_row=campaign_row, counts=summary.counts, media_files=summary.media_files,
                             users=users)
        bundle.writestr(MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False, default=json_default))
    summary.bytes = Path(out).stat().st_size if isinstance(out, (str, Path)) else out.tell()
    summary.seconds = time.perf_counter() - started
    return summary


@contextmanager
def _snapshot():
    """One consistent view of the campaign's tables for the export's length, blocking no annotator meanwhile.

    PostgreSQL: a read-only REPEATABLE READ transaction. SQLite (WAL mode, config.settings): a deferred
    transaction, which reads one snapshot and takes no lock writers wait for; Django's atomic() would begin
    IMMEDIATE here (the settings' transaction mode), holding the write lock for minutes on a large campaign.
    Inside a caller's transaction the export reads in it.
    """
    if connection.in_atomic_block:
        yield
    elif connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("ROLLBACK")  # nothing was written: ending the read is all that is left
    else:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield


def _usernames(keys: list[str], row: dict) -> Iterator[str]:
    """The usernames a row names under KEYS (its user_keys)."""
    return (row[key] for key in keys if row[key] is not None)


def _table_write(bundle: zipfile.ZipFile, *, table: Table, campaign: Campaign, refs: MediaRefs,
                 users: set[str]) -> int:
    """Stream the campaign's rows of TABLE into `<table>.jsonl`; returns how many. Adds the usernames the rows
    name to USERS."""
    keys, lookups = value_lookups(table.model)
    named = user_keys(table.model)
    fix = ROW_FIXES.get(table.name)
    written = 0
    lines: list[str] = []
    with bundle.open(table.file, "w", force_zip64=True) as sink:
        for values in table.rows(campaign).values_list(*lookups).iterator(chunk_size=CHUNK_ROWS):
            row = dict(zip(keys, values))
            users.update(_usernames(named, row))
            if fix:
                fix(row, refs)
            lines.append(json.dumps(row, ensure_ascii=False, separators=(",", ":"), default=json_default))
            if len(lines) == CHUNK_ROWS:
                sink.write(("\n".join(lines) + "\n").encode("utf-8"))
                written += len(lines)
                lines = []
        if lines:
            sink.write(("\n".join(lines) + "\n").encode("utf-8"))
            written += len(lines)
    return written


def _campaign_row(campaign: Campaign) -> dict:
    keys, lookups = value_lookups(Campaign)
    return dict(zip(keys, Campaign.objects.filter(pk=campaign.pk).values_list(*lookups).get()))


def _schema_migrations() -> dict[str, list[str]]:
    """The migrations of Concord's apps applied to this database, by app: the schema an archive is written in."""
    applied = MigrationRecorder(connection).applied_migrations()
    return {app: sorted(name for label, name in applied if label == app) for app in SCHEMA_APPS}


def _manifest(*, campaign_row: dict, counts: dict[str, int], media_files: int, users: set[str]) -> dict:
    return {
        "format": ARCHIVE_FORMAT,
        "version": ARCHIVE_VERSION,
        "exported_at": timezone.now(),
        "campaign": campaign_row,
        "counts": {**counts, MEDIA: media_files},
        # Every account the rows name: the importer finds or creates them all before it writes a row.
        "users": sorted(users),
        "migrations": _schema_migrations(),
    }
