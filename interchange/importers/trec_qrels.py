"""trec-qrels for answer_ranking: `qid 0 docno grade` lines (whitespace-separated), graded judgments of documents.

Each line must name a document the campaign already has: a topic with external id `qid` and, under it, an
item of kind "document" whose `data["docno"]` is `docno`. The grade (an integer) is stored in that item's
`Item.data["qrels"]` under the file's stem: `{"<file stem>": grade}`, so several assessors' qrels files
(`expert.qrels`, `crowd.qrels`) sit side by side. Re-importing the same grade is a no-op; another grade for a
document already graded under the same name is refused (in the file or from an earlier import).
"""

from collections.abc import Iterator
from pathlib import Path

from annotate.models import Campaign, Item
from interchange.importers.common import ImportDataError, UnusedLines, lines_read


def qrels_read(path: Path) -> Iterator[tuple[int, str, str, int]]:
    """(line, qid, docid, grade) for each `qid 0 docid grade` line, read one at a time; blank lines and # comments
    skipped."""
    for number, line in lines_read(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 4:
            raise ImportDataError(file=path, line=number, field="line",
                                  message=f"expected 4 fields `qid 0 docid grade`, got {len(fields)}")
        qid, _, docid, grade_text = fields
        try:
            grade = int(grade_text)
        except ValueError:
            raise ImportDataError(file=path, line=number, field="grade",
                                  message=f"expected an integer, got {grade_text!r}") from None
        yield number, qid, docid, grade


def trec_qrels_import(*, campaign: Campaign, paths: list[Path], unused: UnusedLines) -> int:
    """Store the grades; returns how many (document, assessor) grades were added. A line repeating a grade an
    earlier line of the import gave is counted in UNUSED."""
    documents: dict[tuple[str, str], Item] = {}
    topics = set()
    for item in Item.objects.filter(campaign=campaign).select_related("topic").defer("text"):
        topics.add(item.topic.external_id)
        if item.kind == "document" and item.data.get("docno"):
            documents[(item.topic.external_id, item.data["docno"])] = item
    changed: dict[int, Item] = {}
    added = 0
    named: set[tuple[int, str]] = set()  # (item, assessor) of the lines read so far
    for path in paths:
        assessor = path.stem
        for number, qid, docno, grade in qrels_read(path):
            if qid not in topics:
                raise ImportDataError(file=path, line=number, field="qid", message=f"no topic {qid!r} in this campaign")
            item = documents.get((qid, docno))
            if item is None:
                raise ImportDataError(file=path, line=number, field="docno",
                                      message=f"no document {docno!r} under topic {qid!r}")
            qrels = item.data.setdefault("qrels", {})
            if assessor in qrels:
                if qrels[assessor] != grade:
                    raise ImportDataError(file=path, line=number, field="grade", message=(
                        f"{docno} already has grade {qrels[assessor]} from {assessor!r}, not {grade}"))
                if (item.pk, assessor) in named:
                    unused.skip("repeating an earlier line's grade of the same document", path=path, line=number,
                                field="docno", value=docno)
                else:  # the grade an earlier import gave
                    named.add((item.pk, assessor))
                    unused.use()
                continue
            named.add((item.pk, assessor))
            unused.use()
            qrels[assessor] = grade
            changed[item.pk] = item
            added += 1
    Item.objects.bulk_update(list(changed.values()), ["data"], batch_size=1000)
    return added
