"""A nugget_evaluation campaign's data written back in the layouts its formats read (formats.py,
docs/task-types/nugget_evaluation.md), each a function (campaign, ...) -> str whose text the matching format imports
again to the same rows:

- answers_rag_jsonl: the answers (each run's answer to each topic once, as first imported) as rag-answers JSONL;
  segments_jsonl: the topics' passages (the cited segments' texts) as the segments.jsonl beside them.
- nuggets_nuggetizer_jsonl, nuggets_tsv, nugget_banks_jsonl: each topic's frozen list as nuggetizer-nuggets,
  nuggets-tsv and autojudge-nugget-bank (a bank per line).
- assignments_nuggetizer_jsonl, assignments_tsv: the marks of each topic's current round, humans' current ones (an
  assessor each, named as the file that imported them named them) or, given JUDGE, that judge's, as
  nuggetizer-assignments and assignments-tsv.

Reads only; nothing here writes a row.
"""

import json

from annotate.models import HumanJudgment, Item, JudgmentKind, Topic
from interchange.importers.writes import annotator_name
from judges.models import ModelJudgment
from tasktypes.nugget_evaluation.layout import ANSWER_KIND, topic_list, topic_lists

NUGGETS_TSV_HEADER = ("topic", "nugget", "importance", "text")
ASSIGNMENTS_TSV_HEADER = ("topic", "run", "nugget", "mark", "assessor")
BANK_FORMAT_VERSION = "v3"


def _jsonl(rows) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _cell(text: str) -> str:
    """TEXT as one TSV cell: tabs and line ends made spaces (a cell cannot hold them)."""
    return " ".join(str(text).split())


def _tsv(header, rows) -> str:
    return "".join("\t".join(_cell(cell) for cell in row) + "\n" for row in [header, *rows])


def _topics(campaign) -> list[Topic]:
    return list(Topic.objects.filter(campaign=campaign).order_by("external_id"))


def _words(text: str) -> int:
    return len(text.split())


def answers_rag_jsonl(campaign) -> str:
    """Each run's answer to each topic as a rag-answers line: references the cited segments in order of first
    citation, each citation an index into them; response_length the answer's words."""
    first: dict[tuple[str, str], Item] = {}
    for item in (Item.objects.filter(campaign=campaign, kind=ANSWER_KIND).select_related("topic")
                 .order_by("topic__external_id", "pk")):
        key = (item.topic.external_id, item.data["run"])
        if key not in first or item.data.get("round", 1) < first[key].data.get("round", 1):
            first[key] = item
    rows = []
    for (topic_id, run), item in sorted(first.items()):
        # An answer with no sentences kept (an item written by other means) is one sentence, its text.
        sentences = item.data.get("sentences") or [{"text": item.text, "citations": []}]
        references = list(dict.fromkeys(cite for sentence in sentences for cite in sentence.get("citations", [])))
        rows.append({"run_id": run, "topic_id": topic_id, "topic": item.topic.text, "references": references,
                     "response_length": _words(item.text),
                     "answer": [{"text": sentence["text"],
                                 "citations": [references.index(cite) for cite in sentence.get("citations", [])]}
                                for sentence in sentences]})
    return _jsonl(rows)


def segments_jsonl(campaign) -> str:
    """The topics' passages, each segment once, as segments.jsonl lines {"docid", "segment", "title"}."""
    seen: set[str] = set()
    rows = []
    for topic in _topics(campaign):
        for passage in (topic.data or {}).get("passages") or []:
            if passage["id"] not in seen:
                seen.add(passage["id"])
                rows.append({"docid": passage["id"], "segment": passage["text"], "title": passage.get("title", "")})
    return _jsonl(rows)


def _frozen(campaign) -> list[tuple[Topic, dict]]:
    return [(topic, found) for topic in _topics(campaign) if (found := topic_list(topic.data)) is not None]


def nuggets_nuggetizer_jsonl(campaign) -> str:
    """Each topic's frozen list as a nuggetizer-nuggets line {"qid", "query", "nuggets": [{"text", "importance"}]}
    (the nuggets' ids are their places, n1, n2, ..., when imported again)."""
    return _jsonl({"qid": topic.external_id, "query": topic.text,
                   "nuggets": [{"text": nugget["text"], "importance": nugget["importance"]}
                               for nugget in frozen["nuggets"]]} for topic, frozen in _frozen(campaign))


def nuggets_tsv(campaign) -> str:
    """Each topic's frozen list as nuggets-tsv lines, its nuggets' ids kept."""
    return _tsv(NUGGETS_TSV_HEADER, [(topic.external_id, nugget["id"], nugget["importance"], nugget["text"])
                                     for topic, frozen in _frozen(campaign) for nugget in frozen["nuggets"]])


def nugget_banks_jsonl(campaign) -> str:
    """Each topic's frozen list as a TREC AutoJudge nugget bank, one per line: each nugget a NuggetQuestion keyed by
    its text, {"question": the text, "question_id": our id, "query_id", "importance": "vital" or "okay"}."""
    return _jsonl({"query_id": topic.external_id, "title_query": topic.text, "format_version": BANK_FORMAT_VERSION,
                   "nugget_bank": {nugget["text"]: {"question": nugget["text"], "question_id": nugget["id"],
                                                    "query_id": topic.external_id,
                                                    "importance": nugget["importance"]}
                                   for nugget in frozen["nuggets"]}} for topic, frozen in _frozen(campaign))


def _current_marks(campaign, *, judge: str | None):
    """(topic, item, assessor or "", the list marked, marks) for each answer of a topic's current round: each
    assessor's current marks, or JUDGE's (its failed verdicts left out)."""
    frozen = _frozen(campaign)
    topics = {topic.pk: topic for topic, _ in frozen}
    lists = {topic.pk: {found["version"]: found for found in topic_lists(topic.data)} for topic, _ in frozen}
    current = {topic.pk: found["version"] for topic, found in frozen}
    items = {item.pk: item for item in Item.objects.filter(campaign=campaign, kind=ANSWER_KIND, topic__in=topics)
             if item.data.get("round", 1) == current[item.topic_id]}
    found = []
    if judge:
        for item_id, raw in (ModelJudgment.objects.filter(judge__campaign=campaign, judge__name=judge,
                                                          item__in=items, failed=False)
                             .values_list("item_id", "raw")):
            value = json.loads(raw)
            # A verdict against a judge's list (nuggets_from) names no version: not marks of a frozen list.
            found.append((item_id, "", value.get("version"), value["marks"]))
    else:
        for item_id, username, value in (HumanJudgment.objects.filter(
                unit__campaign=campaign, unit__item__in=items, kind=JudgmentKind.ANNOTATION, is_current=True)
                .values_list("unit__item_id", "annotator__username", "value")):
            found.append((item_id, annotator_name(campaign=campaign, username=username), value["version"],
                          value["marks"]))
    rows = []
    for item_id, assessor, version, marks in found:
        item = items[item_id]
        marked = lists[item.topic_id].get(version)
        if marked is not None:
            rows.append((topics[item.topic_id], item, assessor, marked, marks))
    return sorted(rows, key=lambda row: (row[0].external_id, row[1].data["run"], row[2]))


def assignments_nuggetizer_jsonl(campaign, *, judge: str | None = None) -> str:
    """The current round's marks as nuggetizer-assignments lines, a line per answer and assessor (with "assessor")
    or, given JUDGE, per answer that judge marked."""
    rows = []
    for topic, item, assessor, marked, marks in _current_marks(campaign, judge=judge):
        row = {"qid": topic.external_id, "query": topic.text, "answer_text": item.text,
               "response_length": _words(item.text), "run_id": item.data["run"],
               "nuggets": [{"text": nugget["text"], "importance": nugget["importance"],
                            "assignment": marks[nugget["id"]]}
                           for nugget in marked["nuggets"] if nugget["id"] in marks]}
        if not judge:
            row["assessor"] = assessor
        rows.append(row)
    return _jsonl(rows)


def assignments_tsv(campaign, *, judge: str | None = None) -> str:
    """The current round's marks as assignments-tsv lines, a line per nugget of each answer's marks; the assessor
    column empty for a judge's."""
    return _tsv(ASSIGNMENTS_TSV_HEADER, [
        (topic.external_id, item.data["run"], nugget["id"], marks[nugget["id"]], assessor)
        for topic, item, assessor, marked, marks in _current_marks(campaign, judge=judge)
        for nugget in marked["nuggets"] if nugget["id"] in marks])
