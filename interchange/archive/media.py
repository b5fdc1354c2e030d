"""The campaign's files under MEDIA_ROOT in an archive: image originals, thumbnails, the image store's manifest,
stored runs (annotate.images, interchange.importers.runs_pool).

A campaign keeps its files in folders named by its id: `images/<id>/`, `thumbs/<id>/`, `runs/<id>/`. The archive
holds them under `media/` without the id (`media/images/Q243.jpg`), so the importer puts them in the new campaign's
folders; a file that an item or run names outside those folders (a store laid out by hand) is archived as
`media/other/<its path>` and comes back under `images/<new id>/other/`. Paths stored in the rows (`Item.data`
"image" and "thumbnail", `Campaign.options["runs"][name]["file"]`, the store's manifest) are rewritten the same way.
"""

import json
import shutil
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from django.conf import settings

from annotate.images import (
    IMAGE_DIR,
    MANIFEST,
    THUMB_DIR,
    ImageMissingError,
    image_file,
    image_manifest_write,
    image_stored,
)
from interchange.importers.common import ImportDataError, json_depth_check
from interchange.importers.images import image_check
from interchange.importers.runs_pool import RUN_DIR

MEDIA = "media"
OWN_DIRS = (IMAGE_DIR, THUMB_DIR, RUN_DIR)
ELSEWHERE = "other"
# Item.data keys that name a file under MEDIA_ROOT (annotate.images.image_file).
FILE_KEYS = ("image", "thumbnail")
RUN_SUFFIX = ".run"


def media_name(stored: str, *, campaign_id: int) -> str:
    """The name under media/ of the file stored at STORED (relative to MEDIA_ROOT) for campaign CAMPAIGN_ID."""
    parts = PurePosixPath(stored).parts
    if len(parts) >= 3 and parts[0] in OWN_DIRS and parts[1] == str(campaign_id):
        return "/".join((parts[0], *parts[2:]))
    return f"{ELSEWHERE}/{stored}"


def media_stored(name: str, *, campaign_id: int) -> str:
    """Where the file archived as NAME is stored for campaign CAMPAIGN_ID, relative to MEDIA_ROOT."""
    top, _, rest = name.partition("/")
    if top == ELSEWHERE:
        return f"{IMAGE_DIR}/{campaign_id}/{ELSEWHERE}/{rest}"
    return f"{top}/{campaign_id}/{rest}"


def path_check(stored) -> str:
    """STORED if it is a relative path that stays under MEDIA_ROOT; ValueError saying what is wrong otherwise."""
    if not isinstance(stored, str) or not stored:
        raise ValueError(f"expected a file path, got {stored!r}")
    path = PurePosixPath(stored)
    if path.is_absolute() or ".." in path.parts or "\\" in stored:
        raise ValueError(f"path {stored!r} leaves the media folder")
    return stored


class MediaRefs:
    """While a campaign is exported: the files its rows name outside its own folders, to archive as well."""

    def __init__(self, *, campaign_id: int):
        self.campaign_id = campaign_id
        self.elsewhere: set[str] = set()

    def add(self, stored) -> None:
        if isinstance(stored, str) and stored and media_name(stored, campaign_id=self.campaign_id).startswith(
                f"{ELSEWHERE}/"):
            self.elsewhere.add(stored)

    def add_item(self, data) -> None:
        for key in FILE_KEYS:
            self.add((data or {}).get(key) if isinstance(data, dict) else None)

    def add_runs(self, options) -> None:
        for meta in ((options or {}).get("runs") or {}).values():
            self.add(meta.get("file") if isinstance(meta, dict) else None)


def media_files(refs: MediaRefs) -> Iterator[tuple[str, Path]]:
    """(name under media/, file) for every file of the campaign: its own folders, then the files named elsewhere.

    Symbolic links and files named outside MEDIA_ROOT are left out (annotate.images.image_file's rule).
    """
    root = Path(settings.MEDIA_ROOT)
    for folder in OWN_DIRS:
        base = root / folder / str(refs.campaign_id)
        if base.is_dir():
            for path in sorted(base.rglob("*")):
                if path.is_file() and not path.is_symlink() and not path.name.startswith("."):
                    yield f"{folder}/{path.relative_to(base).as_posix()}", path
    for stored in sorted(refs.elsewhere):
        try:
            path = image_file({"file": stored}, key="file")
        except ImageMissingError:
            continue  # named but never imported: missing before, missing after
        if not path.is_symlink():
            yield media_name(stored, campaign_id=refs.campaign_id), path


def media_entries(folder: Path) -> list[tuple[str, Path]]:
    """(name under media/, file) for every file of an unpacked archive's media FOLDER."""
    if not folder.is_dir():
        return []
    return [(path.relative_to(folder).as_posix(), path) for path in sorted(folder.rglob("*")) if path.is_file()]


def media_check(folder: Path) -> None:
    """Refuse (ImportDataError) a file outside the media folders, or one that is not what its folder holds: images
    are checked as an image import checks them (interchange.importers.images.image_check), the store's manifest must
    be JSON, runs are text files of a run's name."""
    for name, path in media_entries(folder):
        shown = f"{MEDIA}/{name}"
        top, _, rest = name.partition("/")
        if top not in (*OWN_DIRS, ELSEWHERE) or not rest:
            raise ImportDataError(file=shown, line=0, field="name", message=(
                f"not a media folder of a campaign archive (expected {', '.join((*OWN_DIRS, ELSEWHERE))})"))
        if top == RUN_DIR and rest.endswith(RUN_SUFFIX):
            continue
        if name == f"{IMAGE_DIR}/{MANIFEST}":
            _manifest_json_check(path, shown=shown)
            continue
        image_check(path, shown=shown)


def _manifest_json_check(path: Path, *, shown: str) -> None:
    try:
        text = path.read_text(encoding="utf-8")
        json_depth_check(text, path=shown, line=0)
        json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ImportDataError(file=shown, line=0, field="json", message=f"malformed JSON: {exc}") from None


class MediaRestore:
    """The archive's media files copied into a new campaign's folders; `undo()` removes what was copied."""

    def __init__(self, *, folder: Path, old_id: int, new_id: int):
        self.folder = folder
        self.old_id = old_id
        self.new_id = new_id
        self.written: list[Path] = []

    def relocate(self, stored: str) -> str:
        """The path, relative to MEDIA_ROOT, that STORED (a path of the exporting campaign) has after import."""
        return media_stored(media_name(stored, campaign_id=self.old_id), campaign_id=self.new_id)

    def copy(self) -> int:
        """Copy every media file to its place (media_check has passed them); returns how many."""
        root = Path(settings.MEDIA_ROOT)
        files = media_entries(self.folder)
        for name, path in files:
            target = root / media_stored(name, campaign_id=self.new_id)
            target.parent.mkdir(parents=True, exist_ok=True)
            self.written.append(target)
            shutil.copyfile(path, target)
        self._manifest_rewrite()
        return len(files)

    def _manifest_rewrite(self) -> None:
        """The image store's manifest names its files by path: point them at the new campaign's folders."""
        entries = image_stored(campaign_id=self.new_id)
        if not entries:
            return
        shown = f"{MEDIA}/{IMAGE_DIR}/{MANIFEST}"
        if not isinstance(entries, dict) or not all(isinstance(fields, dict) for fields in entries.values()):
            raise ImportDataError(file=shown, line=0, field="json", message="expected {image id: {file fields}}")
        for image_id, fields in entries.items():
            for key in FILE_KEYS:
                if key in fields:
                    try:
                        fields[key] = self.relocate(path_check(fields[key]))
                    except ValueError as exc:
                        raise ImportDataError(file=shown, line=0, field=f"{image_id}.{key}", message=str(exc)) from None
        image_manifest_write(campaign_id=self.new_id, entries=entries)

    def undo(self) -> None:
        """Remove the copied files and the folders left empty (the import failed; the rows were rolled back)."""
        for path in self.written:
            path.unlink(missing_ok=True)
        root = Path(settings.MEDIA_ROOT)
        for folder in OWN_DIRS:
            base = root / folder / str(self.new_id)
            if base.is_dir():
                for directory in sorted((path for path in base.rglob("*") if path.is_dir()), reverse=True):
                    _rmdir_if_empty(directory)
                _rmdir_if_empty(base)


def _rmdir_if_empty(directory: Path) -> None:
    try:
        directory.rmdir()
    except OSError:
        pass  # not empty (files that were there before), or gone
