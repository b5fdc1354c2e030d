"""trec-run for graded relevance (tasktypes.graded): systems' runs (`qid Q0 docid rank score tag`) pooled into the
items to grade (images, passages).

Each run (a tag; a file may hold several) is kept whole in the campaign's store, so its NDCG@10 and MAP are
computed on the full run, and pooled: its first `depth` documents per topic (default 25; `--depth K` sets it for
the runs of one import), in trec_eval's order (score descending, ties by docid descending; the rank column is
checked but not used). The pool of a topic is the
union over runs, duplicates merged: one item per (topic, doc id), external id `<qid>/<doc id>`. Every line of
every stored run whose document is an item of the campaign (pooled, or graded in imported qrels) becomes a system
output (system = the run) with its position in the run, however deep. `--tag TAG` labels the runs of one import (e.g.
"clip-based") for the report's group comparison. An image already in the campaign's store is attached at
once (the task type's items_created).

Run metadata lives in `Campaign.options["runs"][name]`: depth, tags, the stored file, lines and a checksum.
Importing a run again with the same lines and settings is a no-op; another run under a stored name is refused.

Nothing is held per line: the file is checked in one streamed pass, copied into the store in another, and
pooling reads the stored runs a line at a time, keeping per topic only the `depth` best documents of each run and
the positions of the documents that are items.
"""

import hashlib
import heapq
import os
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from annotate.bulk import rows_insert
from annotate.images import image_key
from annotate.models import Campaign, Item, SystemOutput, Topic
from interchange.importers.common import ImportDataError, UnusedLines, fits
from interchange.importers.graded_items import graded_items_ensure
from interchange.importers.trec_run import run_scores_read, trec_run_read

DEFAULT_DEPTH = 25
RUN_DIR = "runs"


@dataclass
class PoolResult:
    runs: list[str] = field(default_factory=list)
    runs_already_there: list[str] = field(default_factory=list)
    items_created: int = 0
    system_outputs_created: int = 0
    pool_sizes: dict[str, int] = field(default_factory=dict)  # topic -> items in its pool


def run_file(campaign: Campaign, name: str) -> Path:
    """The stored copy of run NAME of CAMPAIGN."""
    return Path(settings.MEDIA_ROOT) / RUN_DIR / str(campaign.pk) / f"{image_key(name)}.run"


@dataclass
class _IncomingRun:
    path: Path  # the file it came from
    line: int  # its first line there
    lines: int = 0


def runs_pool_import(*, campaign: Campaign, paths: list[Path], depth: int | None, tag: str | None,
                     unused: UnusedLines | None = None) -> PoolResult:
    """Store, pool and link the runs in PATHS; every line is used (kept in its stored run), and counted so in
    UNUSED when given. Call inside the import's transaction."""
    unused = UnusedLines() if unused is None else unused
    depth = DEFAULT_DEPTH if depth is None else depth
    if depth < 1:
        raise ImportDataError(file=paths[0], line=0, field="depth", message=f"expected 1 or more, got {depth}")
    topics = dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "id"))
    runs_meta: dict = dict((campaign.options or {}).get("runs") or {})
    result = PoolResult()
    incoming: dict[str, _IncomingRun] = {}
    for path in paths:
        here: dict[str, _IncomingRun] = {}
        for row in trec_run_read(path):
            if row.qid not in topics:
                raise ImportDataError(
                    file=path, line=row.line, field="qid", message=f"no topic {row.qid!r} in this campaign"
                )
            fits(f"{row.qid}/{row.docid}", model=Item, column="external_id", path=path, line=row.line,
                 field="docid")
            run = here.get(row.tag)
            if run is None:
                fits(row.tag, model=SystemOutput, column="system", path=path, line=row.line, field="tag")
                if row.tag in incoming:
                    raise ImportDataError(file=path, line=row.line, field="tag",
                                          message=f"run {row.tag!r} is also in {incoming[row.tag].path.name}")
                run = here[row.tag] = _IncomingRun(path=path, line=row.line)
            run.lines += 1
            unused.use()
        incoming.update(here)

    written: list[Path] = []
    try:
        for path in dict.fromkeys(run.path for run in incoming.values()):
            names = [name for name, run in incoming.items() if run.path == path]
            for name, (part, digest) in _runs_store(campaign, path, names, written).items():
                run = incoming[name]
                meta = {"depth": depth, "tags": [tag] if tag else [], "lines": run.lines, "sha256": digest,
                        "source": path.name}
                earlier = runs_meta.get(name)
                if earlier is not None:
                    if (earlier["sha256"], earlier["depth"], earlier["tags"]) != (digest, depth, meta["tags"]):
                        raise ImportDataError(file=path, line=run.line, field="tag", message=(
                            f"run {name!r} is already imported with other lines, depth or tags"))
                    part.unlink()
                    result.runs_already_there.append(name)
                    continue
                target = run_file(campaign, name)
                os.replace(part, target)
                written.append(target)
                runs_meta[name] = {**meta, "file": str(target.relative_to(settings.MEDIA_ROOT))}
                result.runs.append(name)
        campaign.options = {**(campaign.options or {}), "runs": runs_meta}
        campaign.save(update_fields=["options"])
        _pool(campaign=campaign, topics=topics, runs_meta=runs_meta, result=result)
    except BaseException:
        for target in written:
            target.unlink(missing_ok=True)
        raise
    return result


def _runs_store(campaign: Campaign, path: Path, names: list[str], written: list[Path]) -> dict[str, tuple[Path, str]]:
    """Write each run of NAMES (all the runs PATH holds) to a part file beside its place in the store, streamed;
    {name: (part file, sha256 of its text)}. A file holding one run is stored as it is (text, newlines as
    `\\n`); the runs of a file holding several are stored as their lines rewritten. Part files are listed in
    WRITTEN as they are made, so that a failure removes them."""
    parts = {name: run_file(campaign, name).with_suffix(".part") for name in names}
    digests = {name: hashlib.sha256() for name in names}
    for part in parts.values():
        part.parent.mkdir(parents=True, exist_ok=True)
        written.append(part)
    if len(names) == 1:
        name = names[0]
        with path.open(encoding="utf-8-sig") as source, open(parts[name], "wb") as sink:
            while chunk := source.read(1024 * 1024):
                data = chunk.encode("utf-8")
                digests[name].update(data)
                sink.write(data)
        return {name: (parts[name], digests[name].hexdigest())}
    # Several runs: lines are buffered per run and appended to its part file a few MB at a time.
    buffers: dict[str, list[bytes]] = defaultdict(list)
    buffered = 0

    def buffers_write() -> None:
        for name, chunks in buffers.items():
            data = b"".join(chunks)
            digests[name].update(data)
            with open(parts[name], "ab") as sink:
                sink.write(data)
        buffers.clear()

    for row in trec_run_read(path):
        line = f"{row.qid} Q0 {row.docid} {row.rank} {row.score!r} {row.tag}\n".encode()
        buffers[row.tag].append(line)
        buffered += len(line)
        if buffered > 8 * 1024 * 1024:
            buffers_write()
            buffered = 0
    buffers_write()
    return {name: (parts[name], digests[name].hexdigest()) for name in names}


def stored_runs(campaign: Campaign, runs_meta: dict | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """Every stored run of CAMPAIGN, {name: {qid: {doc id: score}}}, read back from the store."""
    runs_meta = runs_meta if runs_meta is not None else (campaign.options or {}).get("runs") or {}
    return {name: run_scores_read(Path(settings.MEDIA_ROOT) / meta["file"]) for name, meta in runs_meta.items()}


def _stored_lines(path: Path) -> Iterator[tuple[str, str, float]]:
    """(qid, doc id, score) of each line of a stored run (checked when it was imported), a line at a time."""
    with path.open(encoding="utf-8") as handle:
        for text in handle:
            fields = text.split()
            if len(fields) == 6:
                yield fields[0], fields[2], float(fields[4])


def _pool(*, campaign: Campaign, topics: dict[str, int], runs_meta: dict, result: PoolResult) -> None:
    """Pool every stored run to its depth, create the missing items, link every run line into the pool.

    Each stored run is read three times, a line at a time: for its `depth` best documents per topic (a heap each),
    for the score of each document that is an item, and to count the lines above each of those (its position).
    """
    files = {name: Path(settings.MEDIA_ROOT) / meta["file"] for name, meta in runs_meta.items()}
    pool: dict[str, set[str]] = defaultdict(set)
    for name, path in files.items():
        best: dict[str, list[tuple[float, str]]] = defaultdict(list)
        limit = runs_meta[name]["depth"]
        for qid, docid, score in _stored_lines(path):
            heap = best[qid]
            # trec_eval's order: score descending, ties by docid descending; the heap keeps the LIMIT largest.
            if len(heap) < limit:
                heapq.heappush(heap, (score, docid))
            elif (score, docid) > heap[0]:
                heapq.heapreplace(heap, (score, docid))
        for qid, heap in best.items():
            pool[qid].update(docid for _, docid in heap)

    items, result.items_created = graded_items_ensure(
        campaign=campaign, topics=topics, pairs={(qid, docid) for qid, docids in pool.items() for docid in docids})

    have = set(SystemOutput.objects.filter(campaign=campaign).values_list("system", "item_id"))
    outputs = []
    for name, path in files.items():
        # qid -> the (score, doc id, item) of its documents that are items and not linked to this run yet
        keys: dict[str, list[tuple[float, str, int]]] = defaultdict(list)
        for qid, docid, score in _stored_lines(path):
            item_id = items.get((qid, docid))
            if item_id is not None and (name, item_id) not in have:
                keys[qid].append((score, docid, item_id))
        if not keys:
            continue
        for found in keys.values():
            found.sort()
        # A line outranks the items whose (score, doc id) is below its own: count, per item, the lines above.
        above = {qid: [0] * (len(found) + 1) for qid, found in keys.items()}
        order = {qid: [(score, docid) for score, docid, _ in found] for qid, found in keys.items()}
        for qid, docid, score in _stored_lines(path):
            ranked = order.get(qid)
            if ranked is not None:
                above[qid][bisect_left(ranked, (score, docid))] += 1
        for qid, found in keys.items():
            counts, outranking = above[qid], 0
            for index in range(len(found) - 1, -1, -1):
                outranking += counts[index + 1]
                score, _, item_id = found[index]
                outputs.append((campaign.pk, name, topics[qid], item_id, outranking + 1, score, {}))
    result.system_outputs_created = rows_insert(
        SystemOutput, ["campaign", "system", "topic", "item", "rank", "score", "data"], outputs)
    result.pool_sizes = {qid: len(docs) for qid, docs in sorted(pool.items())}
