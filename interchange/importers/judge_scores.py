"""judge-scores: an external judge's output for any task type, as TSV with header `topic  item  score  label`.

`topic` is a topic's external id; `item` an item's external id or the id it was imported with (an image's
id, a ranking candidate's id); `score` is a number; the `label`
column is optional (and may be blank on a row).

The file is streamed: each row is checked and written as it comes; what is kept is the campaign's item ids
and the items the judge has scored, never the rows.
"""

import math
from pathlib import Path

from annotate.models import Campaign
from interchange.importers.common import ImportDataError, UnusedLines, fits, tsv_read
from interchange.importers.items import item_keys
from interchange.importers.writes import ItemRef, JudgeVerdict, JudgeVerdictWriter, external_judge_get
from judges.models import ModelJudgment


def judge_scores_import(*, campaign: Campaign, paths: list[Path], judge: str, unused: UnusedLines) -> dict[str, int]:
    """Import each file's rows as verdicts of the external judge JUDGE. Returns {judge: judgments created}. A row
    naming an item an earlier row scored is counted in UNUSED (the first row's verdict is kept)."""
    items: dict[tuple[str, str], int] = {}
    for qid, external_id, source_id, _, pk in item_keys(campaign):
        # An item by its external id, or by the id it was imported with (an image's id, a candidate's id).
        items[(qid, external_id)] = pk
        items.setdefault((qid, source_id), pk)
    topics = {topic for topic, _ in items}
    writer = JudgeVerdictWriter(judge=external_judge_get(
        campaign=campaign, name=judge, config={"format": "judge-scores", "name": judge}, path=paths[0]),
        unused=unused)
    for path in paths:
        for line, row in tsv_read(path, required=["topic", "item", "score"], optional=("label",)):
            topic, item_id = row["topic"].strip(), row["item"].strip()
            if topic not in topics:
                raise ImportDataError(
                    file=path, line=line, field="topic", message=f"no topic {topic!r} in this campaign"
                )
            item = items.get((topic, item_id))
            if item is None:
                raise ImportDataError(
                    file=path, line=line, field="item", message=f"no item {item_id!r} under topic {topic!r}"
                )
            try:
                score = float(row["score"])
            except ValueError:
                raise ImportDataError(
                    file=path, line=line, field="score", message=f"expected a number, got {row['score']!r}"
                ) from None
            if not math.isfinite(score):
                raise ImportDataError(
                    file=path, line=line, field="score", message=f"expected a finite number, got {row['score']!r}"
                )
            label = fits(row.get("label", "").strip(), model=ModelJudgment, column="label", path=path, line=line,
                         field="label")
            writer.add(JudgeVerdict(path=path, line=line, item=ItemRef(item), score=score, label=label, raw="",
                                    failed=False, key=item_id))
    writer.flush()
    return {judge: writer.created}
