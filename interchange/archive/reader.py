"""Reading a campaign archive back into a new campaign: `campaign_import(archive_path, *, slug=None)`."""

import json
import tempfile
import time
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, models, transaction
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone

from annotate.bulk import rows_insert
from annotate.models import Campaign, Item, Role
from annotate.services.campaigns import (
    RESERVED_SLUGS,
    CampaignError,
    campaign_members_invitations_close,
    membership_add,
    slug_problem,
)
from annotate.services.data_version import campaign_data_changed
from annotate.task_types.registry import task_type_get
from annotate.task_types.spec import UNIT_TOPIC
from interchange.archive.media import FILE_KEYS, MEDIA, MediaRestore, media_check, path_check
from interchange.archive.tables import (
    ARCHIVE_FORMAT,
    ARCHIVE_VERSION,
    LATER_TABLES,
    MANIFEST,
    TABLE_NAMES,
    TABLES,
    RowError,
    RowReader,
    Table,
    is_user_field,
)
from interchange.importers.common import ImportDataError, file_check, json_depth_check, jsonl_read, zip_extract
from judges.identity import config_hash
from judges.models import ACTIVE_RUN_STATUSES, RunStatus
from judges.secrets import config_identity

# Models whose old ids other rows refer to: the importer keeps an old -> new map of each.
REFERENCED = {field.related_model for table in TABLES for field in table.model._meta.concrete_fields
              if field.is_relation and not is_user_field(field)}


@dataclass
class ArchiveImportSummary:
    campaign: str
    task_type: str
    archived_as: str
    counts: dict[str, int] = field(default_factory=dict)
    media_files: int = 0
    users_created: list[str] = field(default_factory=list)
    runs_stopped: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        rows = ", ".join(f"{name} {count:,}" for name, count in self.counts.items())
        lines = [f"campaign {self.campaign} ({self.task_type}, archived as {self.archived_as}): {rows}; "
                 f"media files {self.media_files:,}; {self.seconds:.1f} s"]
        if self.users_created:
            lines.append(f"accounts created inactive, with no usable password ({len(self.users_created)}): "
                         f"{', '.join(self.users_created)}")
        if self.runs_stopped:
            lines.append(f"judge runs that were queued or running when exported, now cancelled (resume them to go on): "
                         f"{self.runs_stopped}")
        return lines


def campaign_import(archive_path, *, slug: str | None = None, owner=None) -> ArchiveImportSummary:
    """Create a campaign from the archive at ARCHIVE_PATH (written by campaign_export), under SLUG or its own slug.

    All or nothing: the archive is checked (format and version, entry paths, unpacked size within
    settings.IMPORT_MAX_BYTES, a schema no newer than this installation's, media files) and its rows written in
    one transaction, so a bad row, file or reference leaves the database and MEDIA_ROOT as they were.
    ImportDataError names the archive's entry, line and field; CampaignError refuses a slug already taken.
    Accounts the archive names that this database lacks are created inactive with unusable passwords (listed in the
    summary): the judgments keep their names and nobody can sign in as them until an administrator says so (no
    researcher can make a one-time link for them). An unclaimed account another campaign's invitation made that the
    archive's memberships name is closed to links (annotate.services.campaigns.membership_add does the same).
    OWNER, when given, becomes a researcher of the new campaign.
    """
    archive = Path(archive_path)
    started = time.perf_counter()
    file_check(archive)
    with tempfile.TemporaryDirectory(prefix="concord-archive-") as tmp:
        root = Path(tmp)
        try:
            _unpack(archive, root)
            manifest = _manifest_read(root)
            slug = _slug_check(slug if slug is not None else manifest["campaign"].get("slug"))
            media_check(root / MEDIA)
            summary = _restore(root=root, manifest=manifest, slug=slug, owner=owner)
        except ImportDataError as exc:
            raise _named_in_archive(exc, root=root, archive=archive) from None
    summary.seconds = time.perf_counter() - started
    return summary


def _named_in_archive(exc: ImportDataError, *, root: Path, archive: Path) -> ImportDataError:
    """EXC with its file named as an entry of the archive (`export.zip:items.jsonl`), not a temporary path."""
    shown = Path(exc.file)
    if shown.is_relative_to(root):
        shown = shown.relative_to(root)
    name = str(shown) if str(shown) == archive.name else f"{archive.name}:{shown.as_posix()}"
    return ImportDataError(file=name, line=exc.line, field=exc.field, message=exc.message)


def _unpack(archive: Path, root: Path) -> None:
    """Unpack with the import's zip checks (no absolute or '..' entries, bounded size); nothing a campaign archive
    does not hold."""
    zip_extract(archive, root)
    allowed = {MANIFEST, *(table.file for table in TABLES)}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_file() and name not in allowed and not name.startswith(f"{MEDIA}/"):
            raise ImportDataError(file=archive.name, line=0, field=name, message="not part of a campaign archive")


def _manifest_error(field: str, message: str) -> ImportDataError:
    return ImportDataError(file=MANIFEST, line=0, field=field, message=message)


def _manifest_read(root: Path) -> dict:
    """The manifest, checked: format, version, the campaign, a count per table, a schema this installation has."""
    path = root / MANIFEST
    if not path.is_file():
        raise _manifest_error("file", "missing: this is not a Concord campaign archive")
    try:
        text = path.read_text(encoding="utf-8")
        json_depth_check(text, path=MANIFEST, line=0)
        manifest = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _manifest_error("json", f"malformed JSON: {exc}") from None
    if not isinstance(manifest, dict):
        raise _manifest_error("json", "expected a JSON object")
    if manifest.get("format") != ARCHIVE_FORMAT:
        raise _manifest_error("format", f"expected {ARCHIVE_FORMAT!r}, got {manifest.get('format')!r}: "
                                        "not a Concord campaign archive")
    version = manifest.get("version")
    if version != ARCHIVE_VERSION or isinstance(version, bool):
        raise _manifest_error("version", f"archive version {version!r}; this Concord reads version {ARCHIVE_VERSION}")
    if not isinstance(manifest.get("campaign"), dict):
        raise _manifest_error("campaign", "expected the campaign's fields as an object")
    counts = manifest.get("counts")
    if not isinstance(counts, dict):
        raise _manifest_error("counts", "expected a row count per table")
    for name in LATER_TABLES:
        counts.setdefault(name, 0)
    for name in (*(table.name for table in TABLES), MEDIA):
        count = counts.get(name)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise _manifest_error(f"counts.{name}", f"expected a count (0 or more), got {count!r}")
    _users_check(manifest.get("users"))
    _migrations_check(manifest.get("migrations"))
    return manifest


def _users_check(users) -> None:
    limit = get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD).max_length
    if not isinstance(users, list) or not all(isinstance(name, str) and name.strip() for name in users):
        raise _manifest_error("users", "expected the usernames the rows name, a list of non-empty strings")
    if len(set(users)) != len(users):
        raise _manifest_error("users", "a username is listed twice")
    too_long = next((name for name in users if len(name) > limit), None)
    if too_long is not None:
        raise _manifest_error("users", f"username {too_long[:40]!r} is longer than {limit} characters")


def _migrations_check(migrations) -> None:
    """Refuse an archive written in a schema this installation does not know (a newer Concord's)."""
    if not isinstance(migrations, dict) or not all(
            isinstance(names, list) and all(isinstance(name, str) for name in names) for names in migrations.values()):
        raise _manifest_error("migrations", "expected {app: [migration name, ...]}")
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    for app, names in sorted(migrations.items()):
        for name in names:
            if (app, name) not in known:
                raise _manifest_error("migrations", f"written by a newer Concord: migration {app}.{name} is "
                                                    "unknown here; upgrade this installation first")


def _slug_check(slug) -> str:
    max_length = Campaign._meta.get_field("slug").max_length
    try:
        validate_slug(slug)
    except (ValidationError, TypeError):
        raise CampaignError(f"{slug!r} is not a valid campaign slug (letters, digits, - and _)") from None
    if len(slug) > max_length:
        raise CampaignError(f"campaign slug {slug!r} is longer than {max_length} characters")
    if slug in RESERVED_SLUGS:
        raise CampaignError(slug_problem(slug))
    if Campaign.objects.filter(slug=slug).exists():
        raise _slug_taken(slug)
    return slug


def _slug_taken(slug: str) -> CampaignError:
    return CampaignError(f"campaign {slug!r} already exists; import the archive under another slug")


def _restore(*, root: Path, manifest: dict, slug: str, owner) -> ArchiveImportSummary:
    loader = _Loader(root=root, manifest=manifest)
    try:
        with transaction.atomic():
            loader.accounts = _Accounts(manifest["users"])
            campaign = loader.campaign_create(slug=slug)
            counts = {table.name: loader.table_load(table) for table in TABLES}
            media_files = loader.media.copy()
            if owner is not None:
                membership_add(campaign=campaign, user=owner, role=Role.RESEARCHER)
            # The archive's memberships may name an account another campaign invited: it belongs to this one too now.
            campaign_members_invitations_close(campaign=campaign, actor=owner)
            # The new campaign's first data version (an archive carries none: it is this database's count).
            campaign_data_changed(campaign_id=campaign.pk)
    except IntegrityError as exc:  # a constraint checked at commit (deferred foreign keys)
        loader.undo()
        raise ImportDataError(file=MANIFEST, line=0, field="rows",
                              message=f"the rows break a constraint of the database: {exc}") from None
    except BaseException:
        loader.undo()
        raise
    return ArchiveImportSummary(campaign=campaign.slug, task_type=campaign.task_type,
                                archived_as=str(manifest["campaign"].get("slug")), counts=counts,
                                media_files=media_files, users_created=loader.accounts.created,
                                runs_stopped=loader.runs_stopped)


class IdMap:
    """Old ids -> new ids of one table's rows: two sorted arrays, 16 bytes a row (a dict would take ~100).

    The rows are written in ascending old id and the database numbers them in the order written (SQLite's
    AUTOINCREMENT and PostgreSQL's sequences only go up, and one transaction writes them one after the other),
    so the k-th old id maps to the k-th of the table's new ids.
    """

    def __init__(self):
        self.old = array("q")
        self.new = array("q")

    def add(self, old: int) -> None:
        if self.old and old <= self.old[-1]:
            raise RowError("id", f"ids must ascend, one row each: {old} comes after {self.old[-1]}")
        self.old.append(old)

    def finish(self, new_ids: Iterable[int]) -> None:
        self.new.extend(new_ids)
        if len(self.new) != len(self.old):
            raise RuntimeError(f"{len(self.old)} rows written but {len(self.new)} read back")

    def get(self, old: int) -> int | None:
        position = bisect_left(self.old, old)
        if position < len(self.old) and self.old[position] == old:
            return self.new[position]
        return None


class _Accounts:
    """The archive's accounts (the manifest's "users"), username -> id here; those this database lacks are created
    inactive with unusable passwords. All are settled before any row is written, so that a row's account is a
    lookup: rows_insert streams rows into PostgreSQL's COPY, during which the connection can run no other query."""

    def __init__(self, usernames: list[str]):
        User = get_user_model()
        name = User.USERNAME_FIELD
        self.ids = dict(User._default_manager.filter(**{f"{name}__in": usernames}).values_list(name, "pk"))
        self.created = [username for username in usernames if username not in self.ids]
        for username in self.created:
            user = User(**{name: username}, is_active=False)
            user.set_unusable_password()
            user.save()
            self.ids[username] = user.pk

    def id_for(self, username: str, *, field: str) -> int:
        try:
            return self.ids[username]
        except KeyError:
            raise RowError(field, f"account {username!r} is not among the manifest's users") from None


class _Loader:
    """The state of one import: the new campaign, the id maps so far, the accounts, the media being copied."""

    def __init__(self, *, root: Path, manifest: dict):
        self.root = root
        self.manifest = manifest
        self.maps: dict[type[models.Model], IdMap] = {}
        self.accounts: _Accounts | None = None
        self.campaign: Campaign | None = None
        self.media: MediaRestore | None = None
        self.runs_stopped = 0
        self.now = timezone.now()

    def resolver(self, field: models.Field) -> Callable:
        """The function that turns FIELD's archived value (an old id, or a username) into the id of its row here."""
        if is_user_field(field):
            return lambda username: self.accounts.id_for(username, field=field.name)
        model = field.related_model
        where = MANIFEST if model is Campaign else f"{TABLE_NAMES[model]}.jsonl"

        def resolve(old: int) -> int:
            new = self.maps[model].get(old)
            if new is None:
                raise RowError(field.name, f"no {field.name} with id {old} in {where}")
            return new
        return resolve

    def campaign_create(self, *, slug: str) -> Campaign:
        """The campaign row from the manifest, under SLUG; its runs' stored files renamed for its new id."""
        reader = RowReader(Campaign, resolver=self.resolver)
        try:
            old_id, values = reader.read(self.manifest["campaign"])
        except RowError as exc:
            raise _manifest_error(f"campaign.{exc.field}", exc.message) from None
        row = dict(zip(reader.columns, values)) | {"slug": slug}
        try:
            rows_insert(Campaign, reader.columns, [[row[name] for name in reader.columns]])
        except IntegrityError:  # made meanwhile by another request
            raise _slug_taken(slug) from None
        self.campaign = Campaign.objects.get(slug=slug)
        self.maps[Campaign] = IdMap()
        self.maps[Campaign].add(old_id)
        self.maps[Campaign].finish([self.campaign.pk])
        self.media = MediaRestore(folder=self.root / MEDIA, old_id=old_id, new_id=self.campaign.pk)
        try:
            self.campaign.options = self._options_relocated(self.campaign.options)
        except RowError as exc:
            raise _manifest_error(f"campaign.{exc.field}", exc.message) from None
        self.campaign.save(update_fields=["options"])
        return self.campaign

    def _options_relocated(self, options):
        runs = (options or {}).get("runs") if isinstance(options, dict) else None
        if not runs:
            return options
        if not isinstance(runs, dict) or not all(isinstance(meta, dict) for meta in runs.values()):
            raise RowError("options", "runs: expected {run name: {...}}")
        moved = {}
        for name, meta in runs.items():
            moved[name] = {**meta, "file": self._relocated(meta.get("file"), field=f"options.runs.{name}.file")}
        return {**options, "runs": moved}

    def _relocated(self, stored, *, field: str) -> str:
        try:
            return self.media.relocate(path_check(stored))
        except ValueError as exc:
            raise RowError(field, str(exc)) from None

    def table_load(self, table: Table) -> int:
        """Write the rows of TABLE's file; returns how many. Call inside the import's transaction."""
        expected = self.manifest["counts"][table.name]
        reader = RowReader(table.model, resolver=self.resolver)
        fix = ROW_FIXES.get(table.name)
        ids = IdMap()

        def rows() -> Iterator[list]:
            for line, obj in self._lines(table, expected):
                try:
                    old_id, values = reader.read(obj)
                    ids.add(old_id)
                    if fix:
                        row = dict(zip(reader.columns, values))
                        fix(self, row)
                        values = [row[name] for name in reader.columns]
                except RowError as exc:
                    raise ImportDataError(file=table.file, line=line, field=exc.field, message=exc.message) from None
                yield values

        try:
            written = rows_insert(table.model, reader.columns, rows())
        except IntegrityError as exc:
            raise ImportDataError(file=table.file, line=0, field="rows",
                                  message=f"the rows break a constraint of the database: {exc}") from None
        if written != expected:
            raise ImportDataError(file=table.file, line=0, field="rows",
                                  message=f"{written:,} rows, but the manifest says {expected:,}")
        if table.model in REFERENCED:
            ids.finish(table.rows(self.campaign).values_list("pk", flat=True).iterator(chunk_size=10_000))
            self.maps[table.model] = ids
        return written

    def _lines(self, table: Table, expected: int) -> Iterator[tuple[int, dict]]:
        path = self.root / table.file
        if expected:
            return jsonl_read(path)
        if path.is_file() and path.read_bytes().strip():
            raise ImportDataError(file=table.file, line=1, field="rows", message="rows, but the manifest says none")
        return iter(())

    def undo(self) -> None:
        if self.media is not None:
            self.media.undo()

    # --- What a row needs beyond its foreign keys (ROW_FIXES) ---

    def item_files(self, row: dict) -> None:
        data = row["data"]
        if isinstance(data, dict):
            for key in FILE_KEYS:
                if data.get(key) is not None:
                    data[key] = self._relocated(data[key], field=f"data.{key}")

    def ranking_items(self, value, *, field: str):
        """An answer_ranking value (or draft) with its item ids mapped: {"rankings": {dimension: [[id, ...], ...]}}."""
        if value is None or task_type_get(self.campaign.task_type).unit != UNIT_TOPIC:
            return value
        rankings = value.get("rankings") if isinstance(value, dict) else None
        if not isinstance(rankings, dict) or not all(
                isinstance(groups, list) and all(isinstance(group, list) for group in groups)
                for groups in rankings.values()):
            raise RowError(field, 'expected a ranking, {"rankings": {dimension: [[item id, ...], ...]}}')
        return {**value, "rankings": {dimension: [[self._item_id(pk, field=field) for pk in group] for group in groups]
                                      for dimension, groups in rankings.items()}}

    def draft_items(self, row: dict) -> None:
        try:
            row["draft"] = self.ranking_items(row["draft"], field="draft")
        except RowError:
            # A draft is work in progress that assignment_draft_save keeps whatever its shape; one that is not a
            # ranking of this campaign's items means nothing here, and the page starts that unit afresh.
            row["draft"] = None

    def assignment_items(self, row: dict) -> None:
        """An assignment's draft, and the suggestion of its assistance arm (a ranking holds item ids)."""
        self.draft_items(row)
        if "suggestion" in row:
            row["suggestion"] = self.ranking_items(row["suggestion"], field="suggestion")

    def judgment_items(self, row: dict) -> None:
        """A judgment's value, and the suggestion it was shown (a ranking holds item ids)."""
        row["value"] = self.ranking_items(row["value"], field="value")
        if "suggestion" in row:
            row["suggestion"] = self.ranking_items(row["suggestion"], field="suggestion")

    def _item_id(self, old, *, field: str) -> int:
        new = None if isinstance(old, bool) or not isinstance(old, int) else self.maps[Item].get(old)
        if new is None:
            raise RowError(field, f"item {old!r} is not in items.jsonl")
        return new

    def judge_identity(self, row: dict) -> None:
        if not isinstance(row["config"], dict):
            raise RowError("config", "expected an object")
        # An archive from an older Concord may hold a key in an llm judge's configuration: it stays behind.
        row["config"] = config_identity(row["config"])
        row["config_hash"] = config_hash(family=row["family"], config=row["config"])

    def run_items_and_status(self, row: dict) -> None:
        sample = row["sample_item_ids"]
        if sample is not None:
            if not isinstance(sample, list):
                raise RowError("sample_item_ids", "expected a list of item ids or null")
            row["sample_item_ids"] = [self._item_id(pk, field="sample_item_ids") for pk in sample]
        # No worker here has this run's batches: an active run would stay active for ever and block its judge.
        if row["status"] in ACTIVE_RUN_STATUSES:
            row["status"], row["finished_at"] = RunStatus.CANCELLED, self.now
            self.runs_stopped += 1


ROW_FIXES: dict[str, Callable[[_Loader, dict], None]] = {
    "items": _Loader.item_files,
    "assignments": _Loader.assignment_items,
    "human_judgments": _Loader.judgment_items,
    "judges": _Loader.judge_identity,
    "judge_runs": _Loader.run_items_and_status,
}
