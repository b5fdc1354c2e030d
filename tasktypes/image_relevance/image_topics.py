"""image_relevance topics: text sections to find images for.

- `jsonl`: one object per line, `{"id", "page_title", "page_context", "section_title", "section_context"}`
  (`qid` or `topic_id` may stand for `id`; the four text fields are strings, any of them may be missing).
- `atomic-topics`: the TREC AToMiC topic JSON, a list of objects (or an object holding them, by id or under
  "topics"), with the AToMiC text collection's field names: `text_id`, `page_title`, `section_title` (or
  `hierarchical_section_title`), `context_page_description`, `context_section_description`.

A topic becomes `Topic(external_id=id, text=<section title, else page title>, data={the four fields})`.
Importing a topic again with the same fields is a no-op; with other fields it is refused.
"""

from collections.abc import Iterator
from pathlib import Path

from annotate.models import Campaign, Topic
from interchange.importers.common import (
    ImportDataError,
    UnusedLines,
    file_check,
    fits,
    json_start,
    json_top_entries,
    json_values_read,
    jsonl_read,
)

FIELDS = ("page_title", "page_context", "section_title", "section_context")
ID_KEYS = ("id", "qid", "topic_id", "text_id")
# AToMiC text collection names -> ours
ATOMIC_FIELDS = {
    "page_title": ("page_title",),
    "section_title": ("section_title", "hierarchical_section_title"),
    "page_context": ("context_page_description", "page_context"),
    "section_context": ("context_section_description", "section_context"),
}


def _topic_id(obj: dict, *, path: Path, line: int) -> str:
    for key in ID_KEYS:
        if key in obj:
            value = obj[key]
            if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
                raise ImportDataError(
                    file=path, line=line, field=key, message=f"expected a non-empty id, got {value!r}"
                )
            return fits(str(value).strip(), model=Topic, column="external_id", path=path, line=line, field=key)
    raise ImportDataError(file=path, line=line, field="id", message=f"missing key (one of {', '.join(ID_KEYS)})")


def _text(obj: dict, keys: tuple[str, ...], *, path: Path, line: int) -> str:
    for key in keys:
        if key in obj and obj[key] is not None:
            if not isinstance(obj[key], str):
                raise ImportDataError(file=path, line=line, field=key,
                                      message=f"expected a string, got {type(obj[key]).__name__}")
            return obj[key].strip()
    return ""


def _topic_fields(obj: dict, *, path: Path, line: int, names: dict[str, tuple[str, ...]]) -> tuple[str, dict]:
    topic_id = _topic_id(obj, path=path, line=line)
    data = {field: _text(obj, names[field], path=path, line=line) for field in FIELDS}
    if not data["section_title"] and not data["page_title"]:
        raise ImportDataError(file=path, line=line, field="section_title",
                              message="a topic needs a section title or a page title")
    return topic_id, data


def _atomic_objects(path: Path) -> Iterator[tuple[int, dict]]:
    """(position, topic object) from an AToMiC topic JSON: a list, {"topics": [...]}, or {id: {...}}; parsed
    incrementally, one topic in memory at a time (an object is first read once, without building its values,
    to learn which of the two it is)."""
    file_check(path)
    try:
        count = 0
        for position, obj in _atomic_values(path):
            if not isinstance(obj, dict):
                raise ImportDataError(file=path, line=position, field="json",
                                      message=f"topic {position} is not an object")
            count += 1
            yield position, obj
    except ImportDataError as exc:
        if exc.field != "encoding":
            raise
        # A topic's `line` is its position in the list: a bad byte is the file's fault, line 0.
        raise ImportDataError(file=path, line=0, field="encoding", message=exc.message) from None
    if not count:
        raise ImportDataError(file=path, line=0, field="json", message="expected a non-empty list of topic objects")


def _atomic_values(path: Path) -> Iterator[tuple[int, object]]:
    start = json_start(path)
    if start != b"{":
        # A list; anything else reads as no topics, unless it is malformed JSON.
        yield from json_values_read(path, "item")
        return
    topics_list, by_id = False, True
    for key, event in json_top_entries(path):
        topics_list = topics_list or (key == "topics" and event == "start_array")
        by_id = by_id and event == "start_map"
    if topics_list:
        yield from json_values_read(path, "topics.item")
    elif by_id:
        for position, (key, value) in json_values_read(path, "", pairs=True):
            if "\x00" in key:
                raise ImportDataError(file=path, line=position, field="text_id", message="contains a NUL character")
            yield position, {"text_id": key, **value} if not any(k in value for k in ID_KEYS) else value


def image_topics_import(*, campaign: Campaign, paths: list[Path], atomic: bool, unused: UnusedLines) -> int:
    """Create the topics (AToMiC JSON when ATOMIC, else JSONL); returns how many were created. A topic repeating one
    an earlier line of the import gave is counted in UNUSED.

    Errors name the line (JSONL) or the topic's position in the list (AToMiC JSON) as `line`.
    """
    existing = {external_id: data for external_id, data in
                Topic.objects.filter(campaign=campaign).values_list("external_id", "data")}
    names = ATOMIC_FIELDS if atomic else {field: (field,) for field in FIELDS}
    new: dict[str, Topic] = {}
    named: set[str] = set()  # the topics the lines read so far gave
    for path in paths:
        rows = _atomic_objects(path) if atomic else jsonl_read(path)
        for line, obj in rows:
            topic_id, data = _topic_fields(obj, path=path, line=line, names=names)
            earlier = existing.get(topic_id)
            if earlier is None and topic_id in new:
                earlier = new[topic_id].data
            if earlier is not None:
                if {field: earlier.get(field, "") for field in FIELDS} != data:
                    raise ImportDataError(file=path, line=line, field="id",
                                          message=f"topic {topic_id!r} is already there with other text")
                if topic_id in named:
                    unused.skip("repeating a topic an earlier line gave (same text)", path=path, line=line,
                                field="id", value=topic_id)
                else:  # as an earlier import gave it
                    named.add(topic_id)
                    unused.use()
                continue
            named.add(topic_id)
            unused.use()
            new[topic_id] = Topic(campaign=campaign, external_id=topic_id,
                                  text=data["section_title"] or data["page_title"], data=data)
    Topic.objects.bulk_create(list(new.values()), batch_size=1000)
    return len(new)
