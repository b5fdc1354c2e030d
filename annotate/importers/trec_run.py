"""trec-run: a ranker's TREC run file (`qid Q0 docid rank score tag`, whitespace-separated).

For answer_ranking, a run scores candidates the campaign already has: `qid` is a topic's external id and
`docid` one of its candidates, by the id it was imported with (`Item.data["source_id"]`) or, for a
document, its docno. The scores become the verdicts of an external judge, named by `--judge` or, when
the file has one tag only, by that tag. Higher score = better, as in trec_eval; `rank` must be a
integer (0 or more) but is not stored: the order is the scores'.
"""

import math
from pathlib import Path
from typing import NamedTuple

from annotate.importers.common import ImportDataError, fits, lines_read
from annotate.importers.ranking_index import candidate_source_id
from annotate.importers.writes import JudgeVerdict, external_judge_get, judge_verdicts_write
from annotate.models import Campaign, Item
from judges.models import Judge


class RunLine(NamedTuple):  # a tuple: a run holds up to ~100,000 lines, read in one go
    line: int
    qid: str
    docid: str
    rank: int
    score: float
    tag: str


def trec_run_read(path: Path) -> list[RunLine]:
    """The file's lines, checked: six fields, integer rank >= 0, finite score, each (tag, qid, docid) once."""
    rows: list[RunLine] = []
    seen: dict[tuple[str, str, str], int] = {}
    for number, text in enumerate(lines_read(path), start=1):
        fields = text.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 6:
            raise ImportDataError(file=path, line=number, field="line",
                                  message=f"expected 6 fields `qid Q0 docid rank score tag`, got {len(fields)}")
        qid, _, docid, rank_text, score_text, tag = fields
        try:
            rank = int(rank_text)
        except ValueError:
            raise ImportDataError(file=path, line=number, field="rank",
                                  message=f"expected an integer, got {rank_text!r}") from None
        if rank < 0:
            raise ImportDataError(file=path, line=number, field="rank", message=f"expected 0 or more, got {rank}")
        try:
            score = float(score_text)
        except ValueError:
            raise ImportDataError(file=path, line=number, field="score",
                                  message=f"expected a number, got {score_text!r}") from None
        if not math.isfinite(score):
            raise ImportDataError(file=path, line=number, field="score",
                                  message=f"expected a finite number, got {score_text!r}")
        if (tag, qid, docid) in seen:
            raise ImportDataError(file=path, line=number, field="docid", message=(
                f"{docid!r} appears twice under topic {qid!r} (first on line {seen[tag, qid, docid]})"))
        seen[tag, qid, docid] = number
        rows.append(RunLine(number, qid, docid, rank, score, tag))
    if not rows:
        raise ImportDataError(file=path, line=0, field="file", message="no run lines (only blank lines or comments)")
    return rows


def run_scores_read(path: Path) -> dict[str, dict[str, float]]:
    """{qid: {docid: score}} of a run file already checked by trec_run_read (a stored copy): parsed without checks."""
    run: dict[str, dict[str, float]] = {}
    with path.open(encoding="utf-8") as handle:
        for text in handle:
            fields = text.split()
            if len(fields) == 6:
                run.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return run


def trec_order(docs: dict[str, float]) -> list[str]:
    """A topic's documents in trec_eval's order: score descending, ties by docid descending (the rank column is
    not used, as in trec_eval)."""
    return [doc for doc, _ in sorted(docs.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)]


def _judge_name(path: Path, rows: list[RunLine], judge: str | None) -> str:
    if judge:
        return judge
    tags = sorted({row.tag for row in rows})
    if len(tags) > 1:
        raise ImportDataError(file=path, line=0, field="tag", message=(
            f"the file holds {len(tags)} runs ({', '.join(tags[:5])}); import one at a time or name the judge"))
    return fits(tags[0], model=Judge, column="name", path=path, line=rows[0].line, field="tag")


def _candidates(campaign: Campaign) -> tuple[set[str], dict[tuple[str, str], Item]]:
    """The campaign's topic ids, and (topic id, candidate id or docno) -> item."""
    topics: set[str] = set()
    candidates: dict[tuple[str, str], Item] = {}
    for item in Item.objects.filter(campaign=campaign).select_related("topic"):
        qid = item.topic.external_id
        topics.add(qid)
        candidates[(qid, candidate_source_id(item))] = item
        if item.data.get("docno"):
            candidates.setdefault((qid, str(item.data["docno"])), item)
    return topics, candidates


def trec_run_import(*, campaign: Campaign, paths: list[Path], judge: str | None) -> dict[str, int]:
    """Import each run file as an external judge's scores. Returns {judge name: judgments created}."""
    topics, candidates = _candidates(campaign)
    created: dict[str, int] = {}
    for path in paths:
        rows = trec_run_read(path)
        name = _judge_name(path, rows, judge)
        verdicts = []
        for row in rows:
            if row.qid not in topics:
                raise ImportDataError(file=path, line=row.line, field="qid", message=f"no topic {row.qid!r} in this campaign")
            item = candidates.get((row.qid, row.docid))
            if item is None:
                raise ImportDataError(file=path, line=row.line, field="docid",
                                      message=f"no candidate {row.docid!r} under topic {row.qid!r}")
            # raw stays empty, as for judge-scores: re-importing the same scores is a no-op whatever the ranks.
            verdicts.append(JudgeVerdict(path=path, line=row.line, item=item, score=row.score, label="", raw="",
                                         failed=False))
        judge_row = external_judge_get(campaign=campaign, name=name, config={"format": "trec-run", "name": name},
                                       path=path)
        count, _ = judge_verdicts_write(judge=judge_row, verdicts=verdicts)
        created[name] = created.get(name, 0) + count
    return created
