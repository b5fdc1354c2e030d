"""judge-scores: an external judge's output for any task type, as TSV with header `topic  item  score  label`.

`topic` is a topic's external id; `item` an item's external id or the id it was imported with (an image's
id, a ranking candidate's id); `score` is a number; the `label`
column is optional (and may be blank on a row).
"""

import math
from pathlib import Path

from annotate.importers.common import ImportDataError, fits, tsv_read
from annotate.importers.ranking_index import candidate_source_id
from annotate.importers.writes import JudgeVerdict, external_judge_get, judge_verdicts_write
from annotate.models import Campaign, Item
from judges.models import ModelJudgment


def judge_scores_import(*, campaign: Campaign, paths: list[Path], judge: str) -> dict[str, int]:
    """Import each file's rows as verdicts of the external judge JUDGE. Returns {judge: judgments created}."""
    items = {}
    for item in Item.objects.filter(campaign=campaign).select_related("topic"):
        # An item by its external id, or by the id it was imported with (an image's id, a candidate's id).
        items[(item.topic.external_id, item.external_id)] = item
        items.setdefault((item.topic.external_id, candidate_source_id(item)), item)
    topics = {topic for topic, _ in items}
    verdicts = []
    for path in paths:
        for line, row in tsv_read(path, required=["topic", "item", "score"], optional=("label",)):
            topic, item_id = row["topic"].strip(), row["item"].strip()
            if topic not in topics:
                raise ImportDataError(file=path, line=line, field="topic", message=f"no topic {topic!r} in this campaign")
            item = items.get((topic, item_id))
            if item is None:
                raise ImportDataError(file=path, line=line, field="item", message=f"no item {item_id!r} under topic {topic!r}")
            try:
                score = float(row["score"])
            except ValueError:
                raise ImportDataError(file=path, line=line, field="score", message=f"expected a number, got {row['score']!r}") from None
            if not math.isfinite(score):
                raise ImportDataError(file=path, line=line, field="score", message=f"expected a finite number, got {row['score']!r}")
            label = fits(row.get("label", "").strip(), model=ModelJudgment, column="label", path=path, line=line,
                         field="label")
            verdicts.append(JudgeVerdict(path=path, line=line, item=item, score=score, label=label, raw="", failed=False))
    judge_row = external_judge_get(
        campaign=campaign, name=judge, config={"format": "judge-scores", "name": judge}, path=paths[0]
    )
    created, _ = judge_verdicts_write(judge=judge_row, verdicts=verdicts)
    return {judge: created}
