"""trec-run for image_relevance: systems' runs (`qid Q0 docid rank score tag`) pooled into the images to grade.

Each run (a tag; a file may hold several) is kept whole in the campaign's store, so its NDCG@10 and MAP are
computed on the full run, and pooled: its first `depth` images per topic (default 25; `--depth K` sets it for
the runs of one import), in trec_eval's order (score descending, ties by docid descending; the rank column is
checked but not used). The pool of a topic is the
union over runs, duplicates merged: one item per (topic, image), external id `<qid>/<image id>`. Every line of
every stored run whose image is an item of the campaign (pooled, or graded in imported qrels) becomes a system
output (system = the run) with its position in the run, however deep. `--tag TAG` labels the runs of one import (e.g.
"clip-based") for the report's group comparison. Images already in the campaign's store are attached at once.

Run metadata lives in `Campaign.options["runs"][name]`: depth, tags, the stored file, lines and a checksum.
Importing a run again with the same lines and settings is a no-op; another run under a stored name is refused.
"""

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from annotate.bulk import rows_insert
from annotate.images import image_key
from annotate.importers.common import ImportDataError, fits
from annotate.importers.images import image_items_ensure
from annotate.importers.trec_run import RunLine, run_scores_read, trec_order, trec_run_read
from annotate.models import Campaign, Item, SystemOutput, Topic

DEFAULT_DEPTH = 25
RUN_DIR = "runs"


@dataclass
class PoolResult:
    runs: list[str] = field(default_factory=list)
    runs_already_there: list[str] = field(default_factory=list)
    items_created: int = 0
    system_outputs_created: int = 0
    pool_sizes: dict[str, int] = field(default_factory=dict)  # topic -> images in its pool


def run_file(campaign: Campaign, name: str) -> Path:
    """The stored copy of run NAME of CAMPAIGN."""
    return Path(settings.MEDIA_ROOT) / RUN_DIR / str(campaign.pk) / f"{image_key(name)}.run"


def runs_pool_import(*, campaign: Campaign, paths: list[Path], depth: int | None, tag: str | None) -> PoolResult:
    """Store, pool and link the runs in PATHS. Call inside the import's transaction."""
    depth = DEFAULT_DEPTH if depth is None else depth
    if depth < 1:
        raise ImportDataError(file=paths[0], line=0, field="depth", message=f"expected 1 or more, got {depth}")
    topics = dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "id"))
    runs_meta: dict = dict((campaign.options or {}).get("runs") or {})
    result = PoolResult()
    incoming: dict[str, tuple[Path, list[RunLine]]] = {}
    by_tag: dict[Path, list[str]] = {}
    for path in paths:
        by_run: dict[str, list[RunLine]] = defaultdict(list)
        for row in trec_run_read(path):
            if row.qid not in topics:
                raise ImportDataError(file=path, line=row.line, field="qid", message=f"no topic {row.qid!r} in this campaign")
            fits(f"{row.qid}/{row.docid}", model=Item, column="external_id", path=path, line=row.line,
                 field="docid")
            fits(row.tag, model=SystemOutput, column="system", path=path, line=row.line, field="tag")
            by_run[row.tag].append(row)
        for name, rows in by_run.items():
            if name in incoming:
                raise ImportDataError(file=path, line=rows[0].line, field="tag",
                                      message=f"run {name!r} is also in {incoming[name][0]}")
            incoming[name] = (path, rows)
        by_tag[path] = list(by_run)

    written: list[Path] = []
    try:
        for name, (path, rows) in incoming.items():
            text = _run_text(path, rows, single=len(by_tag[path]) == 1)
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            meta = {"depth": depth, "tags": [tag] if tag else [], "lines": len(rows), "sha256": digest,
                    "source": path.name}
            earlier = runs_meta.get(name)
            if earlier is not None:
                if (earlier["sha256"], earlier["depth"], earlier["tags"]) != (digest, depth, meta["tags"]):
                    raise ImportDataError(file=path, line=rows[0].line, field="tag", message=(
                        f"run {name!r} is already imported with other lines, depth or tags"))
                result.runs_already_there.append(name)
                continue
            target = run_file(campaign, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
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


def _run_text(path: Path, rows: list[RunLine], *, single: bool) -> str:
    """The run's lines as stored: the file itself when it holds this run only, else this run's lines rewritten."""
    if single:
        return path.read_text(encoding="utf-8-sig")
    return "".join(f"{r.qid} Q0 {r.docid} {r.rank} {r.score!r} {r.tag}\n" for r in rows)


def stored_runs(campaign: Campaign, runs_meta: dict | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """Every stored run of CAMPAIGN, {name: {qid: {image id: score}}}, read back from the store."""
    runs_meta = runs_meta if runs_meta is not None else (campaign.options or {}).get("runs") or {}
    return {name: run_scores_read(Path(settings.MEDIA_ROOT) / meta["file"]) for name, meta in runs_meta.items()}


def _pool(*, campaign: Campaign, topics: dict[str, int], runs_meta: dict, result: PoolResult) -> None:
    """Pool every stored run to its depth, create the missing items, link every run line into the pool."""
    runs = stored_runs(campaign, runs_meta)
    orders = {name: {qid: trec_order(docs) for qid, docs in run.items()} for name, run in runs.items()}
    pool: dict[str, set[str]] = defaultdict(set)
    for name, topics_order in orders.items():
        for qid, order in topics_order.items():
            pool[qid].update(order[: runs_meta[name]["depth"]])

    items, result.items_created = image_items_ensure(
        campaign=campaign, topics=topics, pairs={(qid, docid) for qid, docids in pool.items() for docid in docids})

    have = set(SystemOutput.objects.filter(campaign=campaign).values_list("system", "item_id"))
    outputs = []
    for name, topics_order in orders.items():
        for qid, order in topics_order.items():
            for position, docid in enumerate(order, start=1):
                item_id = items.get((qid, docid))
                if item_id is not None and (name, item_id) not in have:
                    outputs.append((campaign.pk, name, topics[qid], item_id, position, runs[name][qid][docid], {}))
    result.system_outputs_created = rows_insert(
        SystemOutput, ["campaign", "system", "topic", "item", "rank", "score", "data"], outputs)
    result.pool_sizes = {qid: len(images) for qid, images in sorted(pool.items())}
