"""images: the image files of an image_relevance campaign, named by image id (`<image id>.<ext>`).

Paths may be files, folders (their files, recursively) and .zip archives (entries checked: no absolute
paths, no '..', a size and count limit). Every file is checked before anything is stored:
- a plain file (symbolic links are refused), an allowed extension (.jpg .jpeg .png .webp .gif) that matches
  the format Pillow reads from the bytes (a text file or a PNG named .jpg is refused);
- at most settings.IMAGE_MAX_BYTES bytes and settings.IMAGE_MAX_PIXELS pixels, read from the header
  before decoding (decompression bombs are refused without being decoded);
- fully decodable (a truncated file is refused).
Then each original is copied into the campaign's store unchanged and a JPEG thumbnail is made once
(annotate.images). Items of the campaign whose image id matches get the file fields in `Item.data`; images
not pooled yet are kept in the store and attached when a run pools them. Importing the same bytes again
is a no-op; other bytes under an image id already stored are refused (originals are never replaced).
"""

import hashlib
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from PIL import Image, UnidentifiedImageError

from annotate.images import EXTENSIONS, THUMB_SIZE, image_manifest_write, image_paths, image_stored
from annotate.models import Campaign, Item
from interchange.importers.common import ImportDataError, zip_extract

SUFFIX_FORMATS = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".webp": "WEBP", ".gif": "GIF"}
IMAGE_FIELDS = ("image", "thumbnail", "width", "height", "format", "bytes", "sha256")


@dataclass(frozen=True)
class CheckedImage:
    image_id: str
    path: Path
    shown: str  # the file as the user named it (for messages)
    format: str
    width: int
    height: int
    size: int
    sha256: str


def _refuse(shown: str, message: str, field: str = "file") -> ImportDataError:
    return ImportDataError(file=shown, line=0, field=field, message=message)


def image_check(path: Path, *, shown: str) -> CheckedImage:
    """The image's id, format and size, or ImportDataError naming the file and what is wrong."""
    if path.is_symlink():
        raise _refuse(shown, "a symbolic link, not an image file")
    suffix = path.suffix.lower()
    if suffix not in SUFFIX_FORMATS:
        raise _refuse(shown, f"not an allowed image type (allowed: {', '.join(sorted(SUFFIX_FORMATS))})", "name")
    image_id = path.stem
    if not image_id.strip():
        raise _refuse(shown, "the file name gives no image id", "name")
    size = path.stat().st_size
    if size > settings.IMAGE_MAX_BYTES:
        raise _refuse(shown, f"{size:,} bytes; images may have at most {settings.IMAGE_MAX_BYTES:,}")
    if size == 0:
        raise _refuse(shown, "empty file")
    limit = settings.IMAGE_MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                fmt, (width, height) = image.format, image.size
                if width * height > limit:
                    raise _refuse(shown, f"{width} x {height} pixels; images may have at most {limit:,} pixels")
                if fmt not in EXTENSIONS:
                    raise _refuse(shown, f"a {fmt} image; allowed: {', '.join(EXTENSIONS)}")
                if SUFFIX_FORMATS[suffix] != fmt:
                    raise _refuse(shown, f"named {suffix} but the bytes are a {fmt} image", "name")
            with Image.open(path) as image:
                image.load()  # decode every byte: a truncated file fails here
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise _refuse(shown, "too many pixels to decode safely (decompression bomb)") from None
    except UnidentifiedImageError:
        raise _refuse(shown, "not an image (Pillow cannot read it)") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise _refuse(shown, f"damaged or truncated image ({exc})") from None
    with path.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return CheckedImage(image_id=image_id, path=path, shown=shown, format=fmt, width=width, height=height,
                        size=size, sha256=digest)


def _files(paths: list[Path], unpack_root: Path) -> list[tuple[Path, str]]:
    """(file, name shown in messages) for every file under PATHS; zips are unpacked under UNPACK_ROOT."""
    found = []
    for number, path in enumerate(paths):
        if path.is_symlink():
            raise _refuse(str(path), "a symbolic link, not an image file or folder")
        if path.is_file() and path.suffix.lower() == ".zip":
            target = unpack_root / str(number)
            zip_extract(path, target)
            found += [(file, f"{path.name}:{file.relative_to(target)}") for file in sorted(target.rglob("*"))
                      if file.is_file() or file.is_symlink()]
        elif path.is_dir():
            found += [(file, str(file)) for file in sorted(path.rglob("*")) if file.is_file() or file.is_symlink()]
        elif path.is_file():
            found.append((path, str(path)))
        else:
            raise _refuse(str(path), "no such file or folder")
    # Hidden files (.DS_Store, ._name from macOS archives) are not images anyone meant to import.
    return [(file, shown) for file, shown in found if not file.name.startswith(".")]


def images_import(*, campaign: Campaign, paths: list[Path]) -> dict:
    """Check and store the images, attach them to the campaign's items. Call inside the import's transaction.

    Returns {"stored": new images, "already_there": unchanged ones, "attached": items that got their image}.
    """
    with tempfile.TemporaryDirectory(prefix="concord-images-") as tmp:
        checked: dict[str, CheckedImage] = {}
        for file, shown in _files(paths, Path(tmp)):
            image = image_check(file, shown=shown)
            if image.image_id in checked:
                raise _refuse(shown, f"image id {image.image_id!r} also names {checked[image.image_id].shown}", "name")
            checked[image.image_id] = image
        if not checked:
            raise _refuse(", ".join(str(path) for path in paths), "no image files found")
        store = image_stored(campaign_id=campaign.pk)
        new = {}
        for image in checked.values():
            earlier = store.get(image.image_id)
            if earlier is not None:
                if earlier["sha256"] != image.sha256:
                    raise _refuse(image.shown, f"image {image.image_id!r} is already stored with other bytes; "
                                               "originals are not replaced")
                continue
            new[image.image_id] = image
        written: list[Path] = []
        try:
            for image in new.values():
                store[image.image_id] = _store(campaign=campaign, image=image, written=written)
            attached = _attach(campaign=campaign, store=store)
            image_manifest_write(campaign_id=campaign.pk, entries=store)
        except BaseException:
            for path in written:
                path.unlink(missing_ok=True)
            raise
    return {"stored": len(new), "already_there": len(checked) - len(new), "attached": attached}


def _store(*, campaign: Campaign, image: CheckedImage, written: list[Path]) -> dict:
    """Copy the original, make the thumbnail; the item data fields that name them."""
    original, thumbnail = image_paths(campaign_id=campaign.pk, image_id=image.image_id, fmt=image.format)
    root = Path(settings.MEDIA_ROOT)
    for relative in (original, thumbnail):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(image.path, root / original)
    written.append(root / original)
    with Image.open(image.path) as source:
        source.thumbnail((THUMB_SIZE, THUMB_SIZE))
        rgb = source.convert("RGB")
        rgb.save(root / thumbnail, format="JPEG", quality=85)
    written.append(root / thumbnail)
    return {"image": original, "thumbnail": thumbnail, "width": image.width, "height": image.height,
            "format": image.format, "bytes": image.size, "sha256": image.sha256}


def _attach(*, campaign: Campaign, store: dict[str, dict]) -> int:
    """Give every image item of the campaign whose image is in STORE its file fields; returns how many changed."""
    return image_items_attach(items=Item.objects.filter(campaign=campaign, kind="image"), store=store)


def image_items_attach(*, items, store: dict[str, dict]) -> int:
    """Set the file fields of ITEMS (an iterable of image Items) from STORE; saves those that changed."""
    changed = []
    for item in items:
        fields = store.get(item.data.get("image_id"))  # every graded item holds its doc id (graded_items)
        if fields and any(item.data.get(key) != fields[key] for key in IMAGE_FIELDS):
            item.data.update({key: fields[key] for key in IMAGE_FIELDS})
            changed.append(item)
    Item.objects.bulk_update(changed, ["data"], batch_size=1000)
    return len(changed)
