"""Where an image item's files live, for the pages that serve them and the judges that read them.

An image_relevance item (kind "image") names its files in `Item.data`, relative to settings.MEDIA_ROOT:
`data["image"]` the original as uploaded (checked by Pillow at import), `data["thumbnail"]` a JPEG made once.
Judges receive the same dict as `ItemInput.data` and open the original with `image_file`.
"""

import hashlib
import json
import re
from pathlib import Path

from django.conf import settings


class ImageMissingError(Exception):
    """The item names no image, or its file is gone; the message says which."""


def image_file(data: dict, *, key: str = "image") -> Path:
    """The absolute path of the item's image file (KEY "image": the original; "thumbnail": the thumbnail)."""
    relative = (data or {}).get(key)
    if not isinstance(relative, str) or not relative:
        raise ImageMissingError(f"no {key} file for this item (import its image with --format images)")
    root = Path(settings.MEDIA_ROOT).resolve()
    path = (root / relative).resolve()
    if root not in path.parents:
        raise ImageMissingError(f"{key} path {relative!r} is outside the media folder")
    if not path.is_file():
        raise ImageMissingError(f"{key} file {relative!r} is missing from the media folder")
    return path


# --- The campaign's image store: originals and thumbnails under MEDIA_ROOT, keyed by image id ---

IMAGE_DIR = "images"
THUMB_DIR = "thumbs"
THUMB_SIZE = 512  # pixels, the longer side
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,150}")
EXTENSIONS = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp", "GIF": ".gif"}
MANIFEST = "manifest.json"


def image_key(image_id: str) -> str:
    """The file name stem for IMAGE_ID: the id itself when it is a safe file name, else a hash of it."""
    if _SAFE_ID.fullmatch(image_id) and not image_id.endswith("."):
        return image_id
    return "h-" + hashlib.sha256(image_id.encode("utf-8")).hexdigest()[:32]


def image_paths(*, campaign_id: int, image_id: str, fmt: str) -> tuple[str, str]:
    """(original, thumbnail) paths relative to MEDIA_ROOT for an image of Pillow format FMT."""
    key = image_key(image_id)
    return (f"{IMAGE_DIR}/{campaign_id}/{key}{EXTENSIONS[fmt]}", f"{THUMB_DIR}/{campaign_id}/{key}.jpg")


def image_stored(*, campaign_id: int) -> dict[str, dict]:
    """{image id: the item data fields of its stored files} for every image in the campaign's store.

    The store's manifest, read once per import, so that items pooled after their images were imported
    find them; the fields are those an image import writes (interchange.importers.images).
    """
    manifest = Path(settings.MEDIA_ROOT) / IMAGE_DIR / str(campaign_id) / MANIFEST
    if not manifest.is_file():
        return {}
    return json.loads(manifest.read_text(encoding="utf-8"))


def image_manifest_write(*, campaign_id: int, entries: dict[str, dict]) -> None:
    """Replace the store's manifest ({image id: item data fields}), atomically (write, then rename)."""
    folder = Path(settings.MEDIA_ROOT) / IMAGE_DIR / str(campaign_id)
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{MANIFEST}.tmp"
    temporary.write_text(json.dumps(entries, sort_keys=True), encoding="utf-8")
    temporary.replace(folder / MANIFEST)
