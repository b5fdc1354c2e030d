"""The readers of the passage_relevance formats of its own (tasktypes.passage_relevance.formats): queries
(`trec-topics`) and passage texts (`collection`); the formats every graded type takes (trec-run, trec-qrels,
judge-qrels) are tasktypes.graded.formats'.

- `trec-topics`: `qid<TAB>text` lines (a TREC topics file; blank lines and `#` comments skipped), or JSONL objects
  `{"qid": ..., "text": ...}` (`query_id`, `id` or `topic_id` may stand for qid, `query` for text); a file is JSONL
  when its first character is `{`. A topic becomes `Topic(external_id=qid, text=text)`; importing it again with the
  same text is a no-op, with another text it is refused.
- `collection`: `docid<TAB>text` lines (MS MARCO's collection.tsv) or JSONL objects `{"docid": ..., "text": ...}`
  (`pid`, `id` or `_id` for docid, `contents` or `passage` for text). Only the passages the campaign holds (pooled
  by runs or named in qrels) are read in; every other line is read and passed over, one at a time, so a
  collection of millions of passages imports the pooled ones in memory bounded by the pool. A passage whose text is
  there already must come with the same text.
"""

from pathlib import Path

from annotate.ids import json_text
from annotate.models import Campaign, Item, Topic
from annotate.task_types.registry import task_type_get
from interchange.importers.common import (
    ImportDataError,
    UnusedLines,
    fits,
    json_start,
    jsonl_read,
    lines_read,
    value_check,
)

QID_KEYS = ("qid", "query_id", "id", "topic_id")
QUERY_KEYS = ("text", "query")
DOCID_KEYS = ("docid", "pid", "id", "_id")
PASSAGE_KEYS = ("text", "contents", "passage")
FLUSH = 1000


def _records(path: Path, *, ids: tuple[str, ...], texts: tuple[str, ...], what: str):
    """(line, id, text) of each record of PATH: `id<TAB>text` lines, or JSONL objects when the file starts with `{`."""
    if json_start(path) == b"{":
        for line, obj in jsonl_read(path):
            key = next((key for key in ids if key in obj), None)
            if key is None:
                raise ImportDataError(file=path, line=line, field=ids[0],
                                      message=f"missing key (one of {', '.join(ids)})")
            value = obj[key]
            if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
                raise ImportDataError(
                    file=path, line=line, field=key, message=f"expected a non-empty id, got {value!r}"
                )
            text_key = next((key for key in texts if key in obj), None)
            if text_key is None or not isinstance(obj[text_key], str):
                raise ImportDataError(file=path, line=line, field=texts[0],
                                      message=f"expected the {what} as a string (key {' or '.join(texts)})")
            yield line, str(value).strip(), obj[text_key].strip()
        return
    for line, text in lines_read(path):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        if "\t" not in text:
            raise ImportDataError(file=path, line=line, field="line",
                                  message=f"expected `id<TAB>{what}` (or a JSONL file), found no tab")
        record_id, body = text.split("\t", 1)
        if not record_id.strip():
            raise ImportDataError(file=path, line=line, field="id", message="empty id")
        yield line, record_id.strip(), value_check(body.strip(), path=path, line=line, field=what)


def topics_import(*, campaign: Campaign, paths: list[Path], unused: UnusedLines) -> int:
    """Create the topics of PATHS; returns how many were created. A line repeating a topic an earlier line of the
    import gave is counted in UNUSED."""
    existing = dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "text"))
    new: dict[str, Topic] = {}
    repeated: set[str] = set()  # topics of the campaign a line of this import named already
    for path in paths:
        for line, qid, text in _records(path, ids=QID_KEYS, texts=QUERY_KEYS, what="query"):
            fits(qid, model=Topic, column="external_id", path=path, line=line, field="qid")
            if not text:
                raise ImportDataError(file=path, line=line, field="text", message=f"topic {qid!r} has no query text")
            earlier = existing.get(qid, new[qid].text if qid in new else None)
            if earlier is not None:
                if earlier != text:
                    raise ImportDataError(file=path, line=line, field="text",
                                          message=f"topic {qid!r} is already there with another text")
                if qid in new or qid in repeated:
                    unused.skip("repeating a topic an earlier line gave (same text)", path=path, line=line, field="qid",
                                value=qid)
                else:
                    repeated.add(qid)  # already in the campaign: this line agrees with it
                    unused.use()
                continue
            new[qid] = Topic(campaign=campaign, external_id=qid, text=text, data={})
            unused.use()
    Topic.objects.bulk_create(list(new.values()), batch_size=1000)
    return len(new)


def collection_import(*, campaign: Campaign, paths: list[Path], unused: UnusedLines) -> dict[str, int]:
    """Give the campaign's passages their texts from the collection files PATHS, streamed. Lines naming no passage
    of the campaign, and lines repeating one an earlier line gave, are counted in UNUSED.

    Returns {"read": collection lines read, "filled": passages given their text, "same": passages whose text was
    there already and matched, "missing": the campaign's passages still without text}.
    """
    spec = task_type_get(campaign.task_type)
    wanted: dict[str, list[int]] = {}
    texts: dict[str, str] = {}
    for pk, docid, text in (Item.objects.filter(campaign=campaign, kind=spec.item_kind)
                            .values_list("id", json_text(f"data__{spec.doc_key}"), "text").iterator(chunk_size=5000)):
        wanted.setdefault(docid, []).append(pk)
        if text:
            texts[docid] = text
    counts = {"read": 0, "filled": 0, "same": 0}
    seen: dict[str, tuple[Path, int]] = {}
    pending: list[Item] = []
    for path in paths:
        for line, docid, text in _records(path, ids=DOCID_KEYS, texts=PASSAGE_KEYS, what="passage"):
            counts["read"] += 1
            if docid not in wanted:
                unused.skip(f"naming no {spec.item_noun} of the campaign (none pooled or graded has that docid)",
                            path=path, line=line, field="docid", value=docid)
                continue
            if not text:
                raise ImportDataError(file=path, line=line, field="text", message=f"passage {docid!r} has no text")
            earlier = texts.get(docid)
            if earlier is not None:
                if earlier != text:
                    where = seen.get(docid)
                    origin = f"on line {where[1]} of {where[0].name}" if where else "from an earlier import"
                    raise ImportDataError(file=path, line=line, field="text",
                                          message=f"passage {docid!r} already has another text ({origin})")
                if docid not in seen:
                    counts["same"] += 1
                    seen[docid] = (path, line)
                    unused.use()
                else:
                    unused.skip(f"repeating a {spec.item_noun} an earlier line gave (same text)", path=path, line=line,
                                field="docid", value=docid)
                continue
            unused.use()
            texts[docid], seen[docid] = text, (path, line)
            counts["filled"] += 1
            pending.extend(Item(pk=pk, text=text) for pk in wanted[docid])
            if len(pending) >= FLUSH:
                Item.objects.bulk_update(pending, ["text"], batch_size=FLUSH)
                pending = []
    Item.objects.bulk_update(pending, ["text"], batch_size=FLUSH)
    counts["missing"] = sum(len(pks) for docid, pks in wanted.items() if docid not in texts)
    return counts
