"""Attributed QA (Bohnet et al. 2022): the public `ratings.csv`, or JSONL lines with the same fields.

Fields: system_name, question, answer, attribution, passage, human_rating (Y/N, blank when unrated),
auto_ais (Y/N, may be blank), nli_score (a probability, may be blank).
- One topic per question (matched by `question_key`), one item per (system, question) row: the item's
  text is the answer; its data holds the passage (the AutoAIS premise), the source title, section and
  URL, the raw attribution and the system. Two systems giving the same answer stay two items: each row
  was rated on its own.
- human_rating is the adjudicated human label (kind adjudication, annotator `attributed-qa-rating`,
  value {"attributable": bool}). Rated items are not put in the annotation queue (their unit needs no
  more judgments); unrated rows go to the queue with the campaign's overlap k.
- nli_score (and auto_ais) is an external AutoAIS judge: score = nli_score, label = auto_ais, or
  score >= 0.5 when auto_ais is blank.
- category (optional; the study's kinds of disagreement, e.g. "inexact match", "stale reference") becomes the
  item's category (interchange.importers.categories); blank leaves it as it is.

The file is streamed: rows are read one at a time and written in batches of BATCH rows, so an 83,000-row,
68 MB file is never held in memory; what is kept per row is a few integers and a float.
"""

import csv
import hashlib
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.utils import timezone

from annotate.bulk import rows_insert
from annotate.ids import json_text
from annotate.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    HumanJudgment,
    Item,
    JudgmentKind,
    SystemOutput,
    Topic,
    Unit,
)
from annotate.services.campaigns import units_ensure, user_get_or_create_imported
from annotate.textnorm import question_key
from interchange.importers.categories import ItemCategories, category_read
from interchange.importers.common import ImportDataError, file_check, fits, jsonl_read, value_check
from interchange.importers.progress import progress_current
from interchange.importers.qa_index import topic_external_id_for
from interchange.importers.writes import (
    HumanVerdict,
    ItemRef,
    JudgeVerdict,
    external_judge_get,
    human_verdicts_write,
    judge_verdicts_write,
    yes_no,
)

COLUMNS = ("system_name", "question", "answer", "attribution", "passage", "human_rating", "auto_ais", "nli_score",
           "category")
REQUIRED = ("system_name", "question", "answer", "passage")
KEY_COLUMNS = ("system_name", "question")  # a row is known by these; an empty answer or passage is kept as it is
RATER = "attributed-qa-rating"
DEFAULT_JUDGE = "auto-ais"
AUTO_AIS_THRESHOLD = 0.5
BATCH = 2000
_YES = {"y", "yes", "true", "1"}
_NO = {"n", "no", "false", "0"}
# Passages written as "« title » « section » text" (the Attributed QA corpus format).
_PASSAGE_HEAD = re.compile(r"\s*«\s*([^»]*?)\s*»\s*«\s*([^»]*?)\s*»\s*(.*)", re.DOTALL)


@dataclass
class AttributedQaResult:
    """What the import did; the names are those of ImportSummary's fields or of the format's counts
    (tasktypes.ais.formats)."""

    rows_read: int = 0
    duplicate_rows: int = 0
    rated_rows: int = 0
    scored: int = 0
    human_judgments_created: int = 0
    units_created: int = 0
    units_not_queued: int = 0
    judge_created: int = 0
    systems: list[str] = field(default_factory=list)
    topics_created: int = 0
    items_created: int = 0
    system_outputs_created: int = 0
    items_categorised: int = 0


@dataclass(frozen=True)
class AisRow:
    line: int
    system: str
    question: str
    answer: str
    attribution: str
    passage: str
    rating: bool | None
    auto_ais: bool | None
    score: float | None
    category: str = ""


def source_fields(*, attribution: str, passage: str) -> dict:
    """The item's display fields: passage body, source title, section and URL, from the two raw columns.

    The attribution is a URL or a title; a passage that starts "« title » « section »" gives both.
    A Wikipedia-style URL without a title gives its last path segment as the title.
    """
    title = section = url = ""
    body = passage
    match = _PASSAGE_HEAD.fullmatch(passage)
    if match:
        title, section, body = match.group(1), match.group(2), match.group(3)
    attribution = attribution.strip()
    if attribution.lower().startswith(("http://", "https://")):
        url = attribution
        if not title:
            title = unquote(urlsplit(attribution).path.rstrip("/").rsplit("/", 1)[-1]).replace("_", " ")
    elif attribution and not title:
        title = attribution
    return {"passage": body, "title": title, "section": section, "url": url}


def _flag(value, *, path: Path, line: int, column: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if not word:
        return None
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise ImportDataError(file=path, line=line, field=column, message=f"expected Y or N (or blank), got {value!r}")


def _score(value, *, path: Path, line: int) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ImportDataError(file=path, line=line, field="nli_score", message="expected a number, got a boolean")
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise ImportDataError(
            file=path, line=line, field="nli_score", message=f"expected a number, got {value!r}"
        ) from None
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        raise ImportDataError(
            file=path, line=line, field="nli_score", message=f"expected a probability in [0, 1], got {value!r}"
        )
    return score


def _text(row: dict, column: str, *, path: Path, line: int) -> str:
    value = row.get(column)
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ImportDataError(
            file=path, line=line, field=column, message=f"expected a string, got {type(value).__name__}"
        )
    if "\x00" in value:
        raise ImportDataError(file=path, line=line, field=column, message="contains a NUL character")
    if column in KEY_COLUMNS and not value.strip():
        raise ImportDataError(file=path, line=line, field=column, message="missing value")
    return value_check(value, path=path, line=line, field=column)


def _row(row: dict, *, path: Path, line: int) -> AisRow:
    return AisRow(
        line=line,
        system=fits(_text(row, "system_name", path=path, line=line).strip(), model=SystemOutput, column="system",
                    path=path, line=line, field="system_name"),
        question=_text(row, "question", path=path, line=line),
        answer=_text(row, "answer", path=path, line=line),
        attribution=_text(row, "attribution", path=path, line=line),
        passage=_text(row, "passage", path=path, line=line),
        rating=_flag(row.get("human_rating"), path=path, line=line, column="human_rating"),
        auto_ais=_flag(row.get("auto_ais"), path=path, line=line, column="auto_ais"),
        score=_score(row.get("nli_score"), path=path, line=line),
        category=category_read(row.get("category"), path=path, line=line),
    )


def csv_rows(path: Path) -> Iterator[AisRow]:
    """The CSV's rows one at a time (strict UTF-8, a BOM allowed); the header must name the REQUIRED columns."""
    file_check(path)
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            try:
                header = next(reader, None)
                if header is None:
                    raise ImportDataError(file=path, line=1, field="file", message="file is empty")
                header = [name.strip() for name in header]
                missing = [name for name in REQUIRED if name not in header]
                if missing:
                    raise ImportDataError(file=path, line=1, field=missing[0],
                                          message=f"missing column (header has: {', '.join(header)})")
                positions = {name: header.index(name) for name in COLUMNS if name in header}
                # A quoted passage may span lines: a row's number is the line it starts on.
                end = reader.line_num
                progress = progress_current()
                for cells in reader:
                    line, end = end + 1, reader.line_num
                    if progress is not None:
                        progress.row(path, end, handle.buffer.tell)
                    if not cells or (len(cells) == 1 and not cells[0].strip()):
                        continue
                    if len(cells) != len(header):
                        raise ImportDataError(file=path, line=line, field="row",
                                              message=f"{len(cells)} fields; the header has {len(header)}")
                    yield _row({name: cells[at] for name, at in positions.items()}, path=path, line=line)
                if progress is not None:
                    progress.file_done(path)
            except csv.Error as exc:
                raise ImportDataError(file=path, line=reader.line_num, field="csv", message=str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ImportDataError(file=path, line=_line_of_byte(path, exc.start), field="encoding",
                              message=f"not UTF-8 (byte 0x{exc.object[exc.start]:02x})") from None


def _line_of_byte(path: Path, offset_in_chunk: int) -> int:
    """The line of the first byte that is not UTF-8 (the decoder reports an offset within its chunk)."""
    line = 1
    with path.open("rb") as handle:
        for raw in handle:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return line
            line += 1
    return line


def jsonl_rows(path: Path) -> Iterator[AisRow]:
    for line, obj in jsonl_read(path):
        yield _row(obj, path=path, line=line)


class _Importer:
    """Writes rows in batches; call inside the import's transaction."""

    def __init__(self, *, campaign: Campaign, judge_name: str):
        self.campaign = campaign
        self.judge_name = judge_name
        self.result = AttributedQaResult()
        self.topic_pk = {question_key(text): pk for pk, text in
                         Topic.objects.filter(campaign=campaign).values_list("id", "text")}
        # external id -> (pk, content key) of items already in the campaign
        self.items = {
            external_id: (pk, content)
            for external_id, pk, content in Item.objects.filter(campaign=campaign).values_list(
                "external_id", "id", json_text("data__content_key")
            )
        }
        self.seen: dict[str, tuple[int, str, bool | None, bool | None, float | None]] = {}
        self.systems: set[str] = set(SystemOutput.objects.filter(campaign=campaign)
                                     .values_list("system", flat=True).distinct())
        self.pending: list[tuple[AisRow, str, str, str]] = []  # (row, question key, item external id, content key)
        self.new_topics: dict[str, Topic] = {}
        self.ratings: list[tuple[str, Path, int, bool]] = []  # (item external id, file, line, attributable)
        # (item external id, file, line, label, score, raw)
        self.scores: list[tuple[str, Path, int, str, float | None, str]] = []
        self.rater = user_get_or_create_imported(username=RATER)
        self.categories = ItemCategories()

    def add(self, row: AisRow, *, path: Path) -> None:
        self.result.rows_read += 1
        key = question_key(row.question)
        external_id = "aqa-" + hashlib.sha1(f"{row.system}\x1f{key}".encode()).hexdigest()[:16]
        content = hashlib.sha1(f"{row.answer}\x1f{row.attribution}\x1f{row.passage}".encode()).hexdigest()[:16]
        # Before the duplicate check: a repeated row that gives its item another category is refused, not merged.
        self.categories.give(external_id, row.category, path=path, line=row.line)
        earlier = self.seen.get(external_id)
        if earlier is not None:
            line, earlier_content, rating, auto_ais, score = earlier
            if earlier_content != content:
                raise ImportDataError(file=path, line=row.line, field="answer",
                                      message=f"system {row.system!r} already answered this question differently "
                                              f"at line {line}")
            if (rating, auto_ais, score) != (row.rating, row.auto_ais, row.score):
                raise ImportDataError(file=path, line=row.line, field="human_rating",
                                      message=f"the same row at line {line} has other ratings or scores")
            self.result.duplicate_rows += 1
            return
        self.seen[external_id] = (row.line, content, row.rating, row.auto_ais, row.score)
        existing = self.items.get(external_id)
        if existing is not None and existing[1] != content:
            raise ImportDataError(file=path, line=row.line, field="answer",
                                  message=f"system {row.system!r} has another answer or passage for this question "
                                          f"from an earlier import")
        if existing is None:
            self.pending.append((row, key, external_id, content))
        if row.rating is not None:
            self.ratings.append((external_id, path, row.line, row.rating))
        if row.score is not None or row.auto_ais is not None:
            label = row.auto_ais if row.auto_ais is not None else row.score >= AUTO_AIS_THRESHOLD
            raw = f"auto_ais={'' if row.auto_ais is None else 'YN'[not row.auto_ais]} nli_score={row.score}"
            self.scores.append((external_id, path, row.line, "yes" if label else "no", row.score, raw))
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the pending rows' topics, items and system outputs."""
        for row, key, _, _ in self.pending:
            if key not in self.topic_pk and key not in self.new_topics:
                self.new_topics[key] = Topic(campaign=self.campaign, external_id=topic_external_id_for(row.question),
                                             text=row.question.strip())
        if self.new_topics:
            Topic.objects.bulk_create(list(self.new_topics.values()), batch_size=1000)
            self.result.topics_created += len(self.new_topics)
            self.topic_pk.update({key: topic.pk for key, topic in self.new_topics.items()})
            self.new_topics = {}
        self.result.items_created += rows_insert(
            Item, ["campaign", "topic", "external_id", "kind", "text", "data"],
            ((self.campaign.pk, self.topic_pk[key], external_id, "answer", row.answer,
              {**source_fields(attribution=row.attribution, passage=row.passage), "attribution": row.attribution,
               "system": row.system, "content_key": content})
             for row, key, external_id, content in self.pending),
        )
        batch = {external_id: row for row, _, external_id, _ in self.pending}
        for external_id, pk, content in (Item.objects.filter(campaign=self.campaign, external_id__in=list(batch))
                                         .values_list("external_id", "id", json_text("data__content_key"))):
            self.items[external_id] = (pk, content)
        self.systems.update(row.system for row in batch.values())
        self.result.system_outputs_created += rows_insert(
            SystemOutput, ["campaign", "system", "topic", "item", "data"],
            ((self.campaign.pk, row.system, self.topic_pk[key], self.items[external_id][0], {})
             for row, key, external_id, _ in self.pending),
        )
        self.pending = []
        self.result.items_categorised += self.categories.write(campaign=self.campaign)

    def finish(self, *, path: Path) -> AttributedQaResult:
        """Write what is left, the units, the human labels and the judge's verdicts; PATH names the judge's source."""
        self.flush()
        campaign = self.campaign
        self.result.units_created = units_ensure(campaign=campaign)
        verdicts = [
            HumanVerdict(path=path, line=line, item=ItemRef(self.items[external_id][0]), annotator=self.rater,
                         kind=JudgmentKind.ADJUDICATION, value={"attributable": attributable},
                         label=yes_no(attributable))
            for external_id, path, line, attributable in self.ratings
        ]
        self.result.rated_rows = len(verdicts)
        self.result.human_judgments_created, _ = human_verdicts_write(campaign=campaign, verdicts=verdicts)
        self.result.units_not_queued = rated_units_dequeue(campaign=campaign)
        if self.scores:
            judge = external_judge_get(campaign=campaign, name=self.judge_name,
                                       config={"source": path.name, "column": "nli_score"}, path=path)
            judge_verdicts = [
                JudgeVerdict(path=path, line=line, item=ItemRef(self.items[external_id][0]), score=score,
                             label=label, raw=raw, failed=False)
                for external_id, path, line, label, score, raw in self.scores
            ]
            self.result.scored = len(judge_verdicts)
            self.result.judge_created, _ = judge_verdicts_write(judge=judge, verdicts=judge_verdicts)
        self.result.systems = sorted(self.systems)
        return self.result


def rated_units_dequeue(*, campaign: Campaign) -> int:
    """Take units whose item has an adjudicated human label, and no human work yet, out of the queue.

    Such an item's label is known; asking k more people would only re-measure it. A unit someone
    has judged or holds a lease on keeps its k. Returns how many units left the queue.
    """
    rated = HumanJudgment.objects.filter(unit__campaign=campaign, kind=JudgmentKind.ADJUDICATION,
                                         is_current=True).values("unit_id")
    leased = Assignment.objects.filter(unit__campaign=campaign, status=AssignmentStatus.ACTIVE,
                                       expires_at__gt=timezone.now()).values("unit_id")
    return (Unit.objects.filter(campaign=campaign, pk__in=rated, judgments_done=0, judgments_needed__gt=0)
            .exclude(pk__in=leased).update(judgments_needed=0))


def attributed_qa_import(*, campaign: Campaign, paths: list[Path], judge: str | None,
                         jsonl: bool = False) -> AttributedQaResult:
    """Import Attributed QA rows (CSV, or JSONL when JSONL) into CAMPAIGN; call inside the import's transaction."""
    importer = _Importer(campaign=campaign, judge_name=judge or DEFAULT_JUDGE)
    for path in paths:
        for row in (jsonl_rows(path) if jsonl else csv_rows(path)):
            importer.add(row, path=path)
    return importer.finish(path=paths[-1])
