"""The readers of nugget_evaluation's formats (formats.py; the layouts in docs/task-types/nugget_evaluation.md), writing
the rows layout.py describes with interchange's readers and writers. A topic named for the first time is made with
its creation item; an answer is an item of its topic's current round with a SystemOutput beside it, its unit closed
until the topic's list is frozen; a nugget list is frozen with freeze.topic_list_freeze (a new round when the
current one has marks) or kept as a proposal. Every error names the file, the line and the field; the import's
transaction keeps nothing of a failed import."""

import json
from dataclasses import dataclass
from pathlib import Path

from annotate.models import Item, JudgmentKind, SystemOutput, Topic, Unit
from annotate.services.campaigns import units_ensure
from interchange.importers.common import (
    ImportDataError,
    empty_check,
    file_check,
    fits,
    json_parse,
    jsonl_read,
    lines_read,
    str_field,
    tsv_read,
    value_check,
    zip_extract,
)
from interchange.importers.writes import (
    HumanVerdict,
    ImportedAnnotators,
    ItemRef,
    JudgeVerdict,
    JudgeVerdictWriter,
    external_judge_get,
    human_verdicts_write,
    units_done_refresh,
)
from tasktypes.nugget_evaluation.freeze import NuggetListError, answers_open, nuggets_checked, topic_list_freeze
from tasktypes.nugget_evaluation.layout import (
    ANSWER_KIND,
    MARKS,
    NUGGETS_KIND,
    OKAY,
    SOURCE_IMPORT,
    VITAL,
    answer_item_id,
    marks_label,
    nuggets_item_id,
    topic_list,
)
from tasktypes.nugget_evaluation.steps import steps_sync

UNNAMED = "imported"  # the assessor of marks whose line names none
SEGMENT_FILES = ("segments.tsv", "segments.jsonl")
SEGMENT_IDS = ("docid", "id", "segment_id")
SEGMENT_TEXTS = ("segment", "text")


def zips_unpacked(*, root: Path, paths: list[Path]) -> list[Path]:
    """The uploads PATHS with their .zip archives unpacked in ROOT, and ROOT read as the folder."""
    from interchange.importers.uploads import UNPACKED

    for archive in [path for path in paths if path.suffix.lower() == ".zip"]:
        zip_extract(archive, root / UNPACKED)
        archive.unlink()
    return [root]


def files_of(paths: list[Path]) -> list[Path]:
    """PATHS with each folder replaced by the files under it (hidden ones aside), in name order."""
    found = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(file for file in path.rglob("*")
                                if file.is_file() and not any(part.startswith(".") for part in file.parts)))
        else:
            found.append(path)
    return found


def source_of(path: Path) -> str:
    """The source a list imported from PATH is frozen or proposed under: import:<file name>."""
    return f"{SOURCE_IMPORT}{path.name}"


def text_key(text: str) -> str:
    """A nugget's text as matched against a frozen list: whitespace runs made one space, the case kept."""
    return " ".join(text.split())


def _list_error(exc: NuggetListError, *, path: Path, line: int, topic_id: str) -> ImportDataError:
    return ImportDataError(file=path, line=line, field="nuggets", message=f"topic {topic_id!r}: {exc}")


class TopicBook:
    """The campaign's topics by id, a topic named for the first time made with its creation item (and an existing
    one given its creation item when it has none). Keeps the Topic rows it hands out, so that a list frozen in one
    place is seen in the next."""

    def __init__(self, *, campaign, summary):
        self.campaign, self.summary = campaign, summary
        self.topics = {topic.external_id: topic for topic in Topic.objects.filter(campaign=campaign)}
        self.with_creation = set(Item.objects.filter(campaign=campaign, kind=NUGGETS_KIND)
                                 .values_list("topic_id", flat=True))

    def get(self, topic_id: str, text: str, *, path: Path, line: int, field: str = "topic",
            text_field: str = "query") -> Topic:
        """Topic TOPIC_ID, made when missing with TEXT (its id when TEXT is empty); a topic whose text is only its id
        takes TEXT, one with another text already is refused."""
        topic_id = fits(topic_id.strip(), model=Topic, column="external_id", path=path, line=line, field=field)
        if not topic_id:
            raise ImportDataError(file=path, line=line, field=field, message="a topic id cannot be empty")
        text = text.strip()
        topic = self.topics.get(topic_id)
        if topic is None:
            topic = self.topics[topic_id] = Topic.objects.create(campaign=self.campaign, external_id=topic_id,
                                                                 text=text or topic_id)
            self.summary.topics_created += 1
        elif text and topic.text != text:
            if topic.text.strip() not in ("", topic_id):
                raise ImportDataError(file=path, line=line, field=text_field,
                                      message=f"topic {topic_id!r} has another text already: {topic.text[:80]!r}")
            topic.text = text
            topic.save(update_fields=["text"])
            Item.objects.filter(topic=topic, kind=NUGGETS_KIND).update(text=text)
        if topic.pk not in self.with_creation:
            Item.objects.create(campaign=self.campaign, topic=topic, kind=NUGGETS_KIND, text=topic.text,
                                external_id=nuggets_item_id(topic_id))
            self.with_creation.add(topic.pk)
            self.summary.items_created += 1
        return topic


def round_of(topic: Topic) -> int:
    """The round new answers of TOPIC join: its current list's version, 1 before any list."""
    current = topic_list(topic.data)
    return current["version"] if current else 1


class AnswerBook:
    """Answer items made as a file names them: one per (topic, run) in the topic's current round, a SystemOutput
    beside each; an answer already in the campaign is checked to be the same (or, for marks, just found)."""

    def __init__(self, *, campaign, summary):
        self.campaign, self.summary = campaign, summary
        self.known = {external_id: (pk, data, text) for external_id, pk, data, text in
                      Item.objects.filter(campaign=campaign, kind=ANSWER_KIND)
                      .values_list("external_id", "id", "data", "text")}
        self.new: dict[str, Item] = {}
        self.lines: dict[str, tuple[Path, int]] = {}
        self.topics: dict[int, Topic] = {}

    def add(self, *, topic: Topic, run: str, sentences: list[dict], segments: dict, path: Path, line: int,
            check: bool = True) -> str:
        """The external id of RUN's answer to TOPIC, made when missing. With CHECK an answer named twice, or found
        with other sentences or citations, is refused (one found the same is left as it is)."""
        run = fits(run, model=SystemOutput, column="system", path=path, line=line, field="run_id")
        if not run.strip():
            raise ImportDataError(file=path, line=line, field="run_id", message="a run id cannot be empty")
        round_ = round_of(topic)
        external_id = fits(answer_item_id(topic.external_id, run, round_), model=Item, column="external_id",
                           path=path, line=line, field="run_id")
        data = {"run": run, "round": round_, "sentences": sentences, "segments": segments}
        if external_id in self.new:
            if check:
                first = self.lines[external_id]
                raise ImportDataError(file=path, line=line, field="run_id", message=(
                    f"run {run!r} answered topic {topic.external_id!r} on line {first[1]} of {first[0].name} already"))
            return external_id
        if external_id in self.known:
            # Its sentences and citations are the answer; the segments' texts may come with either import.
            if check and self.known[external_id][1].get("sentences") != sentences:
                raise ImportDataError(file=path, line=line, field="answer", message=(
                    f"the answer of run {run!r} to topic {topic.external_id!r} is in the campaign already with other "
                    f"sentences or citations"))
            return external_id
        self.new[external_id] = Item(campaign=self.campaign, topic=topic, kind=ANSWER_KIND, external_id=external_id,
                                     text=" ".join(sentence["text"] for sentence in sentences), data=data)
        self.lines[external_id] = (path, line)
        self.topics[topic.pk] = topic
        return external_id

    def finish(self) -> dict[str, int]:
        """Write the new answers, their outputs and units (closed, or open where the topic's list of their round is
        frozen); returns every answer's pk by external id."""
        Item.objects.bulk_create(self.new.values(), batch_size=2000)
        SystemOutput.objects.bulk_create([
            SystemOutput(campaign=self.campaign, system=item.data["run"], rank=1, topic=item.topic, item=item)
            for item in self.new.values()], batch_size=2000)
        self.summary.items_created += len(self.new)
        self.summary.system_outputs_created += len(self.new)
        self.summary.systems = sorted({*self.summary.systems, *(item.data["run"] for item in self.new.values())})
        self.summary.units_created += units_ensure(campaign=self.campaign)
        Unit.objects.filter(item__in=[item.pk for item in self.new.values()]).update(judgments_needed=0)
        for topic in self.topics.values():
            current = topic_list(topic.data)
            if current is not None:
                answers_open(topic=topic, round_=current["version"])
        return {**{key: pk for key, (pk, _, _) in self.known.items()},
                **{key: item.pk for key, item in self.new.items()}}


# --- rag-answers ---


def _segment_rows(path: Path):
    """(line, id, text, title) of a segments file: TSV id<TAB>text, or JSONL {"docid"|"id"|"segment_id",
    "segment"|"text", "title"?}."""
    if path.suffix.lower() == ".tsv":
        for line, text in lines_read(path):
            if not text.strip():
                continue
            key, tab, value = text.partition("\t")
            if not tab or not key.strip():
                raise ImportDataError(file=path, line=line, field="id", message="expected id<TAB>text")
            yield line, key.strip(), value_check(value.strip(), path=path, line=line, field="text"), ""
        return
    for line, row in jsonl_read(path):
        key = next((name for name in SEGMENT_IDS if name in row), "")
        field = next((name for name in SEGMENT_TEXTS if name in row), "")
        if not key or not field:
            raise ImportDataError(file=path, line=line, field=key or "docid", message=(
                'a segment is {"docid" (or "id", "segment_id"), "segment" (or "text"), "title"}'))
        title = row.get("title") or ""
        if not isinstance(title, str):
            raise ImportDataError(file=path, line=line, field="title", message="expected a string")
        yield line, str(row[key]).strip(), str_field(row, field, path=path, line=line), title


def _segments_read(paths: list[Path]) -> dict[str, dict]:
    segments: dict[str, dict] = {}
    for path in paths:
        for line, key, text, title in _segment_rows(path):
            if key in segments and segments[key]["text"] != text:
                raise ImportDataError(file=path, line=line, field="id",
                                      message=f"segment {key!r} is given another text on an earlier line")
            segments[key] = {"id": key, "text": text, "title": title}
    return segments


def _sentences(row: dict, *, path: Path, line: int) -> list[dict]:
    """The answer's sentences, each citation a segment id: an integer citation is an index into references."""
    references = row.get("references", [])
    if not isinstance(references, list) or not all(isinstance(ref, str) for ref in references):
        raise ImportDataError(file=path, line=line, field="references", message="expected a list of segment ids")
    answer = row.get("answer")
    if not isinstance(answer, list) or not answer:
        raise ImportDataError(file=path, line=line, field="answer",
                              message='expected a list of sentences [{"text", "citations"}]')
    sentences = []
    for n, sentence in enumerate(answer, start=1):
        if not isinstance(sentence, dict) or not isinstance(sentence.get("text"), str):
            raise ImportDataError(file=path, line=line, field="answer",
                                  message=f'sentence {n} is not {{"text", "citations"}}')
        citations = sentence.get("citations", [])
        if not isinstance(citations, list):
            raise ImportDataError(file=path, line=line, field="citations",
                                  message=f"sentence {n}: expected a list of citations")
        cited = []
        for citation in citations:
            if isinstance(citation, bool) or not isinstance(citation, int | str):
                raise ImportDataError(file=path, line=line, field="citations", message=(
                    f"sentence {n}: a citation is an index into references or a segment id, not {citation!r}"))
            if isinstance(citation, int):
                if not 0 <= citation < len(references):
                    raise ImportDataError(file=path, line=line, field="citations", message=(
                        f"sentence {n}: citation {citation} is not an index into references (it has "
                        f"{len(references)})"))
                citation = references[citation]
            cited.append(citation)
        sentences.append({"text": sentence["text"].strip(), "citations": cited})
    return sentences


def rag_answers_import(*, campaign, paths: list[Path], summary, unused) -> None:
    """Import the answers of PATHS (files, or folders holding them), the cited segments' texts from the files named
    segments.tsv or segments.jsonl among them."""
    files = files_of(paths)
    segment_files = [path for path in files if path.name.lower() in SEGMENT_FILES]
    answer_files = [path for path in files if path not in segment_files and path.suffix.lower() in (".jsonl", ".json")]
    if not answer_files:
        raise ImportDataError(file=paths[0], line=0, field="files",
                              message="no answers: rag-answers reads .jsonl files (beside segments.tsv or .jsonl)")
    segments = _segments_read(segment_files)
    topics = TopicBook(campaign=campaign, summary=summary)
    answers = AnswerBook(campaign=campaign, summary=summary)
    passages: dict[int, list[dict]] = {}
    missing: set[str] = set()
    for path in answer_files:
        for line, row in jsonl_read(path):
            topic = topics.get(str_field(row, "topic_id", path=path, line=line),
                               str_field(row, "topic", path=path, line=line), path=path, line=line,
                               field="topic_id", text_field="topic")
            sentences = _sentences(row, path=path, line=line)
            cited = list(dict.fromkeys(cite for sentence in sentences for cite in sentence["citations"]))
            missing.update(cite for cite in cited if cite not in segments)
            answers.add(topic=topic, run=str_field(row, "run_id", path=path, line=line), sentences=sentences,
                        segments={cite: segments[cite]["text"] for cite in cited if cite in segments},
                        path=path, line=line)
            unused.use()
            shown = passages.setdefault(topic.pk, [])
            shown.extend(segments[cite] for cite in cited if cite in segments)
    answers.finish()
    steps_sync(campaign)
    for topic in topics.topics.values():
        if not passages.get(topic.pk):
            continue
        data = dict(topic.data or {})
        had = list(data.get("passages") or [])
        ids = {passage.get("id") for passage in had}
        for passage in passages[topic.pk]:
            if passage["id"] not in ids:
                had.append(passage)
                ids.add(passage["id"])
        data["passages"] = had
        topic.data = data
        topic.save(update_fields=["data"])
    if segment_files:
        summary.notes.append(f"segments read: {len(segments)}" + (
            f"; cited segments with no text in them: {len(missing)}" if missing else ""))
    elif missing:
        summary.notes.append(f"cited segments: {len(missing)}, their texts not given (no segments.tsv or "
                             f"segments.jsonl)")


# --- nugget lists ---


@dataclass
class NuggetList:
    path: Path
    line: int
    topic_id: str
    query: str
    nuggets: list[dict]


def _importance(value, *, path: Path, line: int, what: str) -> str:
    if value not in (VITAL, OKAY):
        raise ImportDataError(file=path, line=line, field="importance",
                              message=f"{what}: importance is vital or okay, not {value!r}")
    return value


def _nuggetizer_lists(path: Path):
    for line, row in jsonl_read(path):
        nuggets = row.get("nuggets")
        if not isinstance(nuggets, list):
            raise ImportDataError(file=path, line=line, field="nuggets",
                                  message='expected a list of nuggets [{"text", "importance"}]')
        listed = []
        for n, nugget in enumerate(nuggets, start=1):
            if not isinstance(nugget, dict) or not isinstance(nugget.get("text"), str):
                raise ImportDataError(file=path, line=line, field="nuggets",
                                      message=f'nugget {n} is not {{"text", "importance"}}')
            listed.append({"id": f"n{n}", "text": text_key(nugget["text"]),
                           "importance": _importance(nugget.get("importance"), path=path, line=line,
                                                     what=f"nugget {n}")})
        yield NuggetList(path=path, line=line, topic_id=_id_field(row, "qid", path=path, line=line),
                         query=str_field(row, "query", path=path, line=line), nuggets=listed)


def _id_field(row: dict, key: str, *, path: Path, line: int) -> str:
    """A topic id given as a string or a number (TREC's qids are often numbers)."""
    value = row.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return str_field(row, key, path=path, line=line)


def bank_importance(value) -> str:
    """A nugget bank's importance as ours: vital where the bank says "vital" (any case) or gives a number of 1 or
    more, okay otherwise (no importance, "okay", 0)."""
    if isinstance(value, str):
        return VITAL if value.strip().lower() == VITAL else OKAY
    if isinstance(value, int | float) and not isinstance(value, bool):
        return VITAL if value >= 1 else OKAY
    return OKAY


def _bank_list(bank, *, path: Path, line: int) -> NuggetList:
    if not isinstance(bank, dict) or "nugget_bank" not in bank:
        raise ImportDataError(file=path, line=line, field="nugget_bank",
                              message='expected a nugget bank {"query_id", "title_query", "nugget_bank"}')
    entries = bank["nugget_bank"]
    if not isinstance(entries, dict) or not entries:
        raise ImportDataError(file=path, line=line, field="nugget_bank",
                              message="expected the bank's nuggets, an object of questions or claims")
    listed = []
    for n, (key, entry) in enumerate(entries.items(), start=1):
        text = entry.get("question", entry.get("claim")) if isinstance(entry, dict) else None
        if not isinstance(text, str):
            raise ImportDataError(file=path, line=line, field="nugget_bank",
                                  message=f"nugget {key!r} is neither a question nor a claim")
        listed.append({"id": f"n{n}", "text": text_key(value_check(text, path=path, line=line, field="question")),
                       "importance": bank_importance(entry.get("importance"))})
    if not isinstance(bank.get("query_id"), str | int) or isinstance(bank.get("query_id"), bool):
        raise ImportDataError(file=path, line=line, field="query_id", message="a bank needs its query_id")
    return NuggetList(path=path, line=line, topic_id=str(bank["query_id"]),
                      query=str_field(bank, "title_query", path=path, line=line), nuggets=listed)


def _bank_lists(path: Path):
    """A bank per .json file (or the harness's container {"banks": {query id: bank}}), a bank per line of a .jsonl
    file."""
    if path.suffix.lower() == ".jsonl":
        for line, row in jsonl_read(path):
            yield _bank_list(row, path=path, line=line)
        return
    file_check(path)
    empty_check(path)
    document = json_parse(path.read_text(encoding="utf-8-sig"), path=path)
    if isinstance(document, dict) and "nugget_bank" not in document and isinstance(document.get("banks"), dict):
        for bank in document["banks"].values():
            yield _bank_list(bank, path=path, line=0)
        return
    yield _bank_list(document, path=path, line=0)


def _tsv_lists(path: Path):
    """nuggets-tsv: a topic's nuggets in its lines' order (a topic's lines need not be together)."""
    lists: dict[str, NuggetList] = {}
    for line, row in tsv_read(path, required=["topic", "nugget", "importance", "text"]):
        topic_id = row["topic"].strip()
        found = lists.get(topic_id)
        if found is None:
            found = lists[topic_id] = NuggetList(path=path, line=line, topic_id=topic_id, query="", nuggets=[])
        found.nuggets.append({"id": row["nugget"].strip(), "text": text_key(row["text"]),
                              "importance": _importance(row["importance"].strip(), path=path, line=line,
                                                        what=f"nugget {row['nugget'].strip()!r}")})
    yield from lists.values()


LIST_READERS = {"nuggetizer-nuggets": _nuggetizer_lists, "autojudge-nugget-bank": _bank_lists,
                "nuggets-tsv": _tsv_lists}


def nugget_lists_import(*, campaign, fmt: str, paths: list[Path], summary, unused, as_proposals: bool) -> None:
    """Import each topic's list of PATHS (format FMT): frozen as the topic's list, or with AS_PROPOSALS kept in
    Topic.data["proposals"] under import:<file name>. A topic given two lists in one import is refused."""
    topics = TopicBook(campaign=campaign, summary=summary)
    seen: dict[str, NuggetList] = {}
    frozen, rounds, proposed = 0, [], 0
    for path in files_of(paths):
        for listed in LIST_READERS[fmt](path):
            topic = topics.get(listed.topic_id, listed.query, path=listed.path, line=listed.line)
            earlier = seen.get(topic.external_id)
            if earlier is not None:
                raise ImportDataError(file=listed.path, line=listed.line, field="topic", message=(
                    f"topic {topic.external_id!r} has a list on line {earlier.line} of {earlier.path.name} already"))
            seen[topic.external_id] = listed
            unused.use()
            try:
                nuggets = nuggets_checked(listed.nuggets)
            except NuggetListError as exc:
                raise _list_error(exc, path=listed.path, line=listed.line, topic_id=topic.external_id) from None
            if as_proposals:
                data = dict(topic.data or {})
                data["proposals"] = {**(data.get("proposals") or {}), source_of(listed.path): nuggets}
                topic.data = data
                topic.save(update_fields=["data"])
                proposed += 1
                continue
            before = round_of(topic) if topic_list(topic.data) else 0
            made = topic_list_freeze(topic=topic, nuggets=nuggets, source=source_of(listed.path))
            frozen += 1
            if before and made["version"] > before:
                rounds.append(f"{topic.external_id} (round {made['version']})")
    summary.units_created += units_ensure(campaign=campaign)
    steps_sync(campaign)
    if as_proposals:
        summary.notes.append(f"nugget lists kept as proposals: {proposed}")
    else:
        summary.notes.append(f"nugget lists frozen: {frozen}" + (
            f"; new rounds started (the earlier rounds' marks kept): {', '.join(rounds)}" if rounds else ""))


# --- assignments ---


@dataclass
class Marks:
    path: Path
    line: int
    topic_id: str
    answer: str  # the answer item's external id
    assessor: str
    version: int
    marks: dict
    order: list


def _frozen_or_freeze(topic: Topic, nuggets: list[dict], *, path: Path, line: int, frozen: list) -> dict:
    """TOPIC's frozen list; before one, NUGGETS (the file's, in order) frozen as it."""
    current = topic_list(topic.data)
    if current is not None:
        return current
    try:
        made = topic_list_freeze(topic=topic, nuggets=nuggets, source=source_of(path))
    except NuggetListError as exc:
        raise _list_error(exc, path=path, line=line, topic_id=topic.external_id) from None
    frozen.append(topic.external_id)
    return made


def _mark(value, *, path: Path, line: int, what: str) -> str:
    if value not in MARKS:
        raise ImportDataError(file=path, line=line, field="assignment" if "nugget " in what else "mark",
                              message=f"{what}: a mark is support, partial_support or not_support, not {value!r}")
    return value


def _complete(marks: dict, current: dict, *, path: Path, line: int, topic_id: str) -> list[str]:
    order = [nugget["id"] for nugget in current["nuggets"]]
    missing = [nugget for nugget in order if nugget not in marks]
    if missing:
        raise ImportDataError(file=path, line=line, field="nuggets", message=(
            f"topic {topic_id!r}: {len(missing)} of the {len(order)} nuggets of its list are not marked (first: "
            f"{missing[0]!r}); an answer's marks name every nugget"))
    return order


def _nuggetizer_marks(path: Path, *, topics: TopicBook, answers: AnswerBook, frozen: list):
    for line, row in jsonl_read(path):
        topic = topics.get(_id_field(row, "qid", path=path, line=line), str_field(row, "query", path=path, line=line),
                           path=path, line=line, field="qid")
        nuggets = row.get("nuggets")
        if not isinstance(nuggets, list) or not nuggets:
            raise ImportDataError(file=path, line=line, field="nuggets",
                                  message='expected a list of nuggets [{"text", "importance", "assignment"}]')
        for n, nugget in enumerate(nuggets, start=1):
            if not isinstance(nugget, dict) or not isinstance(nugget.get("text"), str):
                raise ImportDataError(file=path, line=line, field="nuggets",
                                      message=f'nugget {n} is not {{"text", "importance", "assignment"}}')
        current = _frozen_or_freeze(topic, [{"id": f"n{n}", "text": text_key(nugget["text"]),
                                             "importance": nugget.get("importance")}
                                            for n, nugget in enumerate(nuggets, start=1)],
                                    path=path, line=line, frozen=frozen)
        by_text = {text_key(nugget["text"]): nugget["id"] for nugget in current["nuggets"]}
        marks: dict[str, str] = {}
        for n, nugget in enumerate(nuggets, start=1):
            found = by_text.get(text_key(nugget["text"]))
            if found is None:
                raise ImportDataError(file=path, line=line, field="nuggets", message=(
                    f"nugget {n} ({nugget['text'][:60]!r}) is not in the frozen list of topic "
                    f"{topic.external_id!r} (version {current['version']}): freeze a list with it first, or mark the "
                    f"nuggets of the list"))
            if found in marks:
                raise ImportDataError(file=path, line=line, field="nuggets",
                                      message=f"nugget {n} ({nugget['text'][:60]!r}) is marked twice")
            marks[found] = _mark(nugget.get("assignment"), path=path, line=line, what=f"nugget {n}")
        order = _complete(marks, current, path=path, line=line, topic_id=topic.external_id)
        answer_text = str_field(row, "answer_text", path=path, line=line).strip()
        answer = answers.add(topic=topic, run=str_field(row, "run_id", path=path, line=line),
                             sentences=[{"text": answer_text, "citations": []}], segments={}, path=path, line=line,
                             check=False)
        assessor = row.get("assessor") or UNNAMED
        if not isinstance(assessor, str):
            raise ImportDataError(file=path, line=line, field="assessor", message="expected a name")
        yield Marks(path=path, line=line, topic_id=topic.external_id, answer=answer, assessor=assessor,
                    version=current["version"], marks=marks, order=order)


def _tsv_marks(path: Path, *, topics: TopicBook, answers: AnswerBook, frozen: list):
    """assignments-tsv: an answer's marks gathered from its lines (topic, run and assessor the same)."""
    gathered: dict[tuple, Marks] = {}
    for line, row in tsv_read(path, required=["topic", "run", "nugget", "mark"], optional=("assessor",)):
        topic_id, run = row["topic"].strip(), row["run"].strip()
        topic = topics.topics.get(topic_id)
        current = topic_list(topic.data) if topic is not None else None
        if current is None:
            raise ImportDataError(file=path, line=line, field="topic", message=(
                f"topic {topic_id!r} has no frozen nugget list in the campaign: import its nuggets first"
                if topic is not None else f"no topic {topic_id!r} in the campaign: import its answers first"))
        answer = answer_item_id(topic_id, run, current["version"])
        if answer not in answers.known:
            raise ImportDataError(file=path, line=line, field="run", message=(
                f"no answer of run {run!r} to topic {topic_id!r} in round {current['version']}: import the answers "
                f"first"))
        nugget = row["nugget"].strip()
        if nugget not in {listed["id"] for listed in current["nuggets"]}:
            raise ImportDataError(file=path, line=line, field="nugget", message=(
                f"no nugget {nugget!r} in the frozen list of topic {topic_id!r} (version {current['version']})"))
        assessor = row.get("assessor", "").strip() or UNNAMED
        key = (answer, assessor)
        marks = gathered.get(key)
        if marks is None:
            marks = gathered[key] = Marks(path=path, line=line, topic_id=topic_id, answer=answer,
                                          assessor=assessor, version=current["version"], marks={}, order=[])
        mark = _mark(row["mark"].strip(), path=path, line=line, what=f"nugget {nugget!r}")
        if marks.marks.setdefault(nugget, mark) != mark:
            raise ImportDataError(file=path, line=line, field="mark", message=(
                f"nugget {nugget!r} of run {run!r}'s answer to topic {topic_id!r} is marked {marks.marks[nugget]!r} "
                f"on an earlier line"))
        marks.order = [listed["id"] for listed in current["nuggets"]]
    for marks in gathered.values():
        current = topic_list(topics.topics[marks.topic_id].data) or {}
        _complete(marks.marks, current, path=marks.path, line=marks.line, topic_id=marks.topic_id)
        yield marks


MARK_READERS = {"nuggetizer-assignments": _nuggetizer_marks, "assignments-tsv": _tsv_marks}


def assignments_import(*, campaign, fmt: str, paths: list[Path], summary, unused, judge: str | None) -> None:
    """Import the marks of PATHS (format FMT) on the answers of each topic's current round: humans' (an assessor
    each), or under JUDGE that external judge's verdicts."""
    topics = TopicBook(campaign=campaign, summary=summary)
    answers = AnswerBook(campaign=campaign, summary=summary)
    frozen: list[str] = []
    read: list[Marks] = []
    for path in files_of(paths):
        for marks in MARK_READERS[fmt](path, topics=topics, answers=answers, frozen=frozen):
            if not judge:  # a judge's are counted by its writer: an answer's second marks are not used
                unused.use()
            read.append(marks)
    pks = answers.finish()
    summary.units_created += units_ensure(campaign=campaign)
    steps_sync(campaign)
    if frozen:
        summary.notes.append(f"nugget lists frozen from the marks' nuggets (topics with none before): {len(frozen)}")
    if judge:
        writer = JudgeVerdictWriter(judge=external_judge_get(campaign=campaign, name=judge, path=paths[0],
                                                             config={"format": fmt, "name": judge}), unused=unused)
        for marks in read:
            writer.add(JudgeVerdict(path=marks.path, line=marks.line, item=ItemRef(pks[marks.answer]), score=None,
                                    label=marks_label(marks.marks, marks.order),
                                    raw=json.dumps({"version": marks.version, "marks": marks.marks, "failed": {}}),
                                    failed=False, key=marks.answer))
        writer.flush()
        summary.model_judgments_created = {judge: writer.created}
        return
    annotators = ImportedAnnotators(campaign=campaign)
    verdicts = [HumanVerdict(path=marks.path, line=marks.line, item=ItemRef(pks[marks.answer]),
                             annotator=annotators.get(marks.assessor, path=marks.path, line=marks.line,
                                                      field="assessor"),
                             kind=JudgmentKind.ANNOTATION, value={"version": marks.version, "marks": marks.marks},
                             label=marks_label(marks.marks, marks.order)) for marks in read]
    summary.human_judgments_created, _ = human_verdicts_write(campaign=campaign, verdicts=verdicts)
    units_done_refresh(campaign=campaign)
