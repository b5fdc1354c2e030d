"""Qrels of graded relevance (tasktypes.graded): `qid 0 docid grade` lines, each grade one of the campaign's scale.

- trec-qrels: an assessor's grades. The assessor is named by the file: `qrels-<file stem>` (an account that cannot
  log in). Each line is that assessor's annotation of the (topic, doc id) item, value {"grade": g}, label "g"; a
  document the pool does not hold yet becomes an item of its topic (graded documents belong to the judged set). The
  grades count towards the units' overlap like any annotation.
- judge-qrels (`--judge NAME`): an external judge's grades (an LLM's, say), kept as they are: verdicts with the grade
  as label and no score, so the report uses them without mapping. A judge grades the campaign's items; lines naming
  a document the campaign does not hold are not imported, and the summary counts them. A grade off the campaign's
  scale is refused, unless the import asks to clip (`--clip`): then it is set to the scale's nearest end (a judge
  asked for 0-3 that answered 4 meant the top) and the summary counts how many were.

Either way, the same grade imported again is a no-op; another grade for the same document (in the files or from an
earlier import) is refused at its line.
"""

import re
from pathlib import Path

from annotate.ids import json_text
from annotate.models import Campaign, Item, JudgmentKind, Topic
from annotate.services.campaigns import units_ensure, user_get_or_create_imported
from annotate.task_types.registry import task_type_get
from annotate.words import or_list
from interchange.importers.common import ImportDataError, UnusedLines, fits
from interchange.importers.graded_items import graded_items_ensure
from interchange.importers.trec_qrels import qrels_read
from interchange.importers.writes import (
    HumanVerdict,
    ItemRef,
    JudgeVerdict,
    JudgeVerdictWriter,
    external_judge_get,
    human_verdicts_write,
    units_done_refresh,
)


def assessor_name(path: Path) -> str:
    """The imported assessor's username for a qrels file: qrels-<stem>, in the characters usernames allow."""
    return ("qrels-" + re.sub(r"[^\w.@+-]", "-", path.stem))[:150]


def _graded_lines(*, campaign: Campaign, paths: list[Path], topics: dict[str, int], source, unused: UnusedLines,
                  clipped: list[int] | None = None) -> list[tuple[Path, int, str, str, str, int]]:
    """(path, line, source, qid, docid, grade) of every distinct line, checked: the grade on the campaign's scale,
    a known topic, one grade per (source, document). SOURCE(path) names whose grades a file holds. A line repeating
    an earlier one is counted in UNUSED. With CLIPPED (a list), a grade off the scale is set to its nearest end and
    its line number appended there, instead of refused."""
    grades = task_type_get(campaign.task_type).levels(campaign)
    expected = or_list([str(grade) for grade in grades])
    lines = []
    seen: dict[tuple[str, str, str], tuple[int, int]] = {}
    for path in paths:
        who = source(path)
        for number, qid, docid, grade in qrels_read(path):
            if grade not in grades and clipped is not None and not min(grades) < grade < max(grades):
                grade = min(max(grade, min(grades)), max(grades))
                clipped.append(number)
            if grade not in grades:
                raise ImportDataError(file=path, line=number, field="grade",
                                      message=f"expected {expected} (the campaign's scale), got {grade}")
            if qid not in topics:
                raise ImportDataError(file=path, line=number, field="qid", message=f"no topic {qid!r} in this campaign")
            fits(f"{qid}/{docid}", model=Item, column="external_id", path=path, line=number, field="docid")
            earlier = seen.get((who, qid, docid))
            if earlier is not None:
                if earlier[1] != grade:
                    raise ImportDataError(file=path, line=number, field="grade", message=(
                        f"{docid!r} under topic {qid!r} has grade {earlier[1]} on line {earlier[0]}"))
                unused.skip("repeating an earlier line's grade of the same document", path=path, line=number,
                            field="docid", value=docid)
                continue
            seen[(who, qid, docid)] = (number, grade)
            lines.append((path, number, who, qid, docid, grade))
    return lines


def human_qrels_import(*, campaign: Campaign, paths: list[Path], unused: UnusedLines) -> tuple[int, int, int]:
    """trec-qrels: import the assessors' grades; returns (judgments, items, units) created. Call inside the import's
    transaction."""
    topics = dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "id"))
    lines = _graded_lines(campaign=campaign, paths=paths, topics=topics, source=assessor_name, unused=unused)
    unused.use(len(lines))  # every distinct line grades its document (made an item when the pool lacks it)
    items, created_items = graded_items_ensure(campaign=campaign, topics=topics,
                                               pairs={(qid, docid) for _, _, _, qid, docid, _ in lines})
    created_units = units_ensure(campaign=campaign)
    users = {name: user_get_or_create_imported(username=name) for name in {line[2] for line in lines}}
    verdicts = [
        HumanVerdict(path=path, line=number, item=ItemRef(items[(qid, docid)]), annotator=users[assessor],
                     kind=JudgmentKind.ANNOTATION, value={"grade": grade}, label=str(grade))
        for path, number, assessor, qid, docid, grade in lines
    ]
    created, _ = human_verdicts_write(campaign=campaign, verdicts=verdicts)
    units_done_refresh(campaign=campaign)
    return created, created_items, created_units


def judge_qrels_import(*, campaign: Campaign, paths: list[Path], judge: str, unused: UnusedLines,
                       clip: bool = False) -> tuple[int, int, int]:
    """judge-qrels: import JUDGE's grades of the campaign's items; returns (verdicts created, lines naming no item of
    the campaign, grades clipped to the scale), those lines counted in UNUSED. CLIP: a grade off the scale is set to
    its nearest end instead of refused. Call inside the import's transaction."""
    spec = task_type_get(campaign.task_type)
    topics = dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "id"))
    clipped: list[int] | None = [] if clip else None
    lines = _graded_lines(campaign=campaign, paths=paths, topics=topics, source=lambda path: judge, unused=unused,
                          clipped=clipped)
    items = {(qid, doc): pk for pk, qid, doc in Item.objects.filter(campaign=campaign, kind=spec.item_kind)
             .values_list("id", "topic__external_id", json_text(f"data__{spec.doc_key}"))}
    writer = JudgeVerdictWriter(judge=external_judge_get(
        campaign=campaign, name=judge, config={"format": "judge-qrels", "name": judge}, path=paths[0]), unused=unused)
    outside = 0
    for path, number, _, qid, docid, grade in lines:
        item = items.get((qid, docid))
        if item is None:
            outside += 1
            unused.skip(f"naming no {spec.item_noun} of the campaign (a judge grades the pooled or graded ones)",
                        path=path, line=number, field="docid", value=docid)
            continue
        writer.add(JudgeVerdict(path=path, line=number, item=ItemRef(item), score=None, label=str(grade),
                                raw=f"{path.name}:{number}", failed=False, key=docid))
    writer.flush()
    return writer.created, outside, len(clipped or [])
