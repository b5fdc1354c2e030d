"""Moving a campaign between Concord installations: one zip archive holds it whole.

`campaign_export(campaign, out)` writes, and `campaign_import(path, *, slug=None)` reads back into a new campaign:
- `manifest.json`: format "concord-archive", version 1, the campaign's own fields (slug, name, task type,
  description, overlap k, options, who made it and when), the row count of every table and of the media files,
  and the names of Concord's schema migrations the exporting database had;
- one JSON-lines file per table that hangs off the campaign (interchange.archive.tables.TABLES): memberships,
  topics, items, system outputs, units, assignments, guidelines (every version), human judgments (every version,
  each naming the guidelines version it was made under), judges (API keys left out),
  judge runs, model judgments, LLM samples; accounts by username, other references by the exporting database's ids;
- `media/`: the campaign's stored files, image originals and thumbnails, the image store's manifest, stored runs
  (interchange.archive.media).
"""

from interchange.archive.reader import ArchiveImportSummary, campaign_import
from interchange.archive.writer import ArchiveExportSummary, campaign_export

__all__ = ["ArchiveExportSummary", "ArchiveImportSummary", "campaign_export", "campaign_import"]
