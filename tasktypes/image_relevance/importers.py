"""The image_relevance formats (text sections, AToMiC topics, image files, and the graded formats), run by its spec's
import_run."""

from pathlib import Path

from annotate.models import Campaign
from annotate.services.campaigns import units_ensure
from interchange.importers.common import UnusedLines
from interchange.importers.images import images_import
from interchange.importers.service import ImportSummary
from tasktypes.graded.importers import graded_import
from tasktypes.image_relevance.image_topics import image_topics_import


def image_import(*, campaign: Campaign, fmt: str, paths: list[Path], summary: ImportSummary, unused: UnusedLines,
                 **kwargs) -> None:
    """The image_relevance formats; call inside interchange.importers.service.import_run's transaction."""
    if fmt in ("jsonl", "atomic-topics"):
        summary.topics_created = image_topics_import(campaign=campaign, paths=paths, atomic=fmt == "atomic-topics",
                                                     unused=unused)
    elif fmt == "images":
        stored = images_import(campaign=campaign, paths=paths)
        summary.images_stored, summary.images_already_there = stored["stored"], stored["already_there"]
        summary.images_attached = stored["attached"]
    else:
        graded_import(campaign=campaign, fmt=fmt, paths=paths, summary=summary, unused=unused, **kwargs)
        return
    summary.units_created += units_ensure(campaign=campaign)
