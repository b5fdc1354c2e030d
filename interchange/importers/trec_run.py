"""trec-run: a ranker's TREC run file (`qid Q0 docid rank score tag`, whitespace-separated).

For answer_ranking, a run scores candidates the campaign already has: `qid` is a topic's external id and
`docid` one of its candidates, by the id it was imported with (`Item.data["source_id"]`) or, for a
document, its docno. The scores become the verdicts of an external judge, named by `--judge` or, when
the file has one tag only, by that tag. Higher score = better, as in trec_eval; `rank` must be a
integer (0 or more) but is not stored: the order is the scores'.

The file is streamed: each line is checked and written as it comes (a run of millions of lines is never held
in memory); what is kept is the campaign's candidate ids and the items the run has scored.
"""

import math
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np

from annotate.models import Campaign
from interchange.importers.common import ImportDataError, UnusedLines, fits, lines_read
from interchange.importers.items import item_keys
from interchange.importers.writes import ItemRef, JudgeVerdict, JudgeVerdictWriter, external_judge_get
from judges.models import Judge

MAX_RUNS = 1000  # tags in one file; TREC tracks have at most a few hundred runs
# Blocks (a run's lines for one topic) remembered to notice a file that returns to one; past this many, the
# file is checked for repeats at the end instead.
_BLOCKS_REMEMBERED = 100_000


class RunLine(NamedTuple):
    line: int
    qid: str
    docid: str
    rank: int
    score: float
    tag: str


def _twice(path: Path, number: int, qid: str, docid: str, first: int) -> ImportDataError:
    return ImportDataError(file=path, line=number, field="docid",
                           message=f"{docid!r} appears twice under topic {qid!r} (first on line {first})")


def trec_run_read(path: Path) -> Iterator[RunLine]:
    """The file's lines, one at a time, checked: six fields, integer rank >= 0, finite score, at most MAX_RUNS
    tags, each (tag, qid, docid) once.

    A docid repeated within a run's lines for one topic is refused at its line: run files list a topic's lines
    together, and only that block's docids are held. A file that leaves a block and comes back to it later is
    checked for repeats once more at the end, in a second pass that holds 8 bytes a line.
    """
    tags: set[str] = set()
    block, docids = None, {}
    left: set[int] = set()  # hashes of the blocks left behind
    returns = False
    count = 0
    for number, text in lines_read(path):
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
        if tag not in tags:
            if len(tags) >= MAX_RUNS:
                raise ImportDataError(file=path, line=number, field="tag",
                                      message=f"more than {MAX_RUNS:,} runs (tags) in one file")
            tags.add(tag)
        if (tag, qid) != block:
            if block is not None and not returns:
                left.add(hash(block))
                if len(left) > _BLOCKS_REMEMBERED:
                    returns, left = True, set()
            block, docids = (tag, qid), {}
            returns = returns or hash(block) in left
        first = docids.get(docid)
        if first is not None:
            raise _twice(path, number, qid, docid, first)
        docids[docid] = number
        count += 1
        yield RunLine(number, qid, docid, rank, score, tag)
    if not count:
        raise ImportDataError(file=path, line=0, field="file", message="no run lines (only blank lines or comments)")
    if returns:
        _repeats_check(path)


def _run_keys(path: Path) -> Iterator[tuple[int, tuple[str, str, str]]]:
    """(line, (tag, qid, docid)) of a file trec_run_read has checked."""
    for number, text in lines_read(path):
        fields = text.split()
        if fields and not fields[0].startswith("#"):
            yield number, (fields[5], fields[0], fields[2])


def _repeats_check(path: Path) -> None:
    """Refuse the first line whose (tag, qid, docid) an earlier line has: the lines' hashes are sorted to find
    the repeated ones (8 bytes a line), then a pass over the file names the line."""
    hashes = array("q", (hash(key) for _, key in _run_keys(path)))
    values = np.frombuffer(hashes, dtype=np.int64)  # a view: sorted in place, no copy
    values.sort()
    repeated = set(values[1:][values[1:] == values[:-1]].tolist())
    del values
    if not repeated:
        return
    first_line: dict[tuple[str, str, str], int] = {}
    for number, key in _run_keys(path):
        if hash(key) in repeated:
            if key in first_line:
                raise _twice(path, number, key[1], key[2], first_line[key])
            first_line[key] = number


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


def _candidates(campaign: Campaign) -> tuple[set[str], dict[tuple[str, str], int]]:
    """The campaign's topic ids, and (topic id, candidate id or docno) -> item pk."""
    topics: set[str] = set()
    candidates: dict[tuple[str, str], int] = {}
    for qid, _, source_id, docno, pk in item_keys(campaign):
        topics.add(qid)
        candidates[(qid, source_id)] = pk
        if docno:
            candidates.setdefault((qid, str(docno)), pk)
    return topics, candidates


def trec_run_import(*, campaign: Campaign, paths: list[Path], judge: str | None, unused: UnusedLines,
                    fmt: str) -> dict[str, int]:
    """Import each run file as an external judge's scores. Returns {judge name: judgments created}. A line naming a
    candidate an earlier line scored (by its docno, say, after its id) is counted in UNUSED. FMT: the format's name,
    which the judge's configuration records."""
    topics, candidates = _candidates(campaign)
    created: dict[str, int] = {}
    for path in paths:
        name, writer = judge, None
        for row in trec_run_read(path):
            if writer is None:
                name = judge or fits(row.tag, model=Judge, column="name", path=path, line=row.line, field="tag")
                writer = JudgeVerdictWriter(judge=external_judge_get(
                    campaign=campaign, name=name, config={"format": fmt, "name": name}, path=path),
                    unused=unused)
            elif not judge and row.tag != name:
                raise ImportDataError(file=path, line=row.line, field="tag", message=(
                    f"the file holds more than one run ({name}, {row.tag}); import one at a time or name the judge"))
            if row.qid not in topics:
                raise ImportDataError(
                    file=path, line=row.line, field="qid", message=f"no topic {row.qid!r} in this campaign"
                )
            item = candidates.get((row.qid, row.docid))
            if item is None:
                raise ImportDataError(file=path, line=row.line, field="docid",
                                      message=f"no candidate {row.docid!r} under topic {row.qid!r}")
            # raw stays empty, as for judge-scores: re-importing the same scores is a no-op whatever the ranks.
            writer.add(JudgeVerdict(path=path, line=row.line, item=ItemRef(item), score=row.score, label="", raw="",
                                    failed=False, key=row.docid))
        writer.flush()
        created[name] = created.get(name, 0) + writer.created
    return created
