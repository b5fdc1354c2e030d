"""A synthetic image_relevance campaign's files: topics, images drawn with Pillow, TREC runs and qrels.

Deterministic for a seed. Image ids are `img-<n>`; a run ranks a random sample of them per topic.
"""

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw


def topics_write(path: Path, *, topics: int) -> list[str]:
    ids = [f"t{n}" for n in range(1, topics + 1)]
    with path.open("w", encoding="utf-8") as handle:
        for n, qid in enumerate(ids, start=1):
            handle.write(json.dumps({
                "id": qid, "page_title": f"Page {n}", "section_title": f"Section {n}",
                "page_context": f"A page about subject {n}. " * 5,
                "section_context": f"This section describes part {n} of the subject in some detail. " * 8,
            }) + "\n")
    return ids


def image_draw(path: Path, *, seed: int, size: tuple[int, int] = (96, 64)) -> Path:
    """An image of random rectangles; the format follows the suffix (.png, .jpg, .webp, .gif)."""
    rng = random.Random(seed)
    image = Image.new("RGB", size, tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(4):
        x0, y0 = rng.randrange(size[0] // 2), rng.randrange(size[1] // 2)
        draw.rectangle([x0, y0, x0 + size[0] // 3, y0 + size[1] // 3], fill=tuple(rng.randrange(256) for _ in range(3)))
    image.save(path)
    return path


def images_write(folder: Path, image_ids: list[str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    suffixes = (".png", ".jpg", ".webp", ".gif")
    return [image_draw(folder / f"{image_id}{suffixes[n % len(suffixes)]}", seed=n)
            for n, image_id in enumerate(image_ids)]


def runs_write(path: Path, *, topics: list[str], runs: list[str], images: int, lines: int, seed: int = 0) -> None:
    """One file holding every run: per topic, LINES images drawn from img-0 .. img-(IMAGES - 1)."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for run in runs:
            for qid in topics:
                ranked = rng.sample(range(images), lines)
                for rank, image in enumerate(ranked, start=1):
                    handle.write(f"{qid} Q0 img-{image} {rank} {1000 - rank}.5 {run}\n")


def qrels_write(path: Path, pairs: dict[tuple[str, str], int]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for (qid, image_id), grade in sorted(pairs.items()):
            handle.write(f"{qid} 0 {image_id} {grade}\n")
