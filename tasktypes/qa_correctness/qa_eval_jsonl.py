"""qa-eval JSONL: one line per question, {"question", "answer": [gold...], "prediction"}, one file per system.
An optional "category" names the kind of answer (interchange.importers.categories), given to the line's item.

Format of castorini/qa-eval's model_outputs. "prediction" is a string, or in some files a list of
strings (text-davinci-003 few-shot): the first element is the answer, the whole list is kept.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from annotate.models import SystemOutput
from interchange.importers.categories import category_read
from interchange.importers.common import ImportDataError, UnusedLines, fits, jsonl_read, str_field, str_list_field
from interchange.importers.qa_index import QaIndex

_SYSTEM_PREFIXES = ("NQ301_", "NQ_")


@dataclass(frozen=True)
class Prediction:
    line: int
    question: str
    gold: list[str]
    answer: str
    raw: str | list[str]
    category: str = ""


def system_name_for(path: Path) -> str:
    """The system a file holds, from its name: NQ_DPR.jsonl -> DPR, NQ301_text-davinci-003_zeroshot.jsonl -> ..."""
    stem = path.stem
    for prefix in _SYSTEM_PREFIXES:
        if stem.startswith(prefix):
            return stem[len(prefix):]
    return stem


def predictions_read(path: Path) -> Iterator[Prediction]:
    """The file's predictions, read and checked one line at a time."""
    for line, obj in jsonl_read(path):
        question = str_field(obj, "question", path=path, line=line)
        gold = str_list_field(obj, "answer", path=path, line=line)
        if "prediction" not in obj:
            raise ImportDataError(file=path, line=line, field="prediction", message="missing key")
        raw = obj["prediction"]
        if isinstance(raw, str):
            answer = raw
        elif isinstance(raw, list) and raw and all(isinstance(v, str) for v in raw):
            answer = raw[0]
        else:
            raise ImportDataError(
                file=path, line=line, field="prediction",
                message=f"expected a string or a non-empty list of strings, got {type(raw).__name__}",
            )
        yield Prediction(line=line, question=question, gold=gold, answer=answer, raw=raw,
                         category=category_read(obj.get("category"), path=path, line=line))


class SystemOutputWriter:
    """Collects system outputs for bulk creation; an output already imported is skipped, a changed one refused. Each
    prediction is counted in UNUSED: used, or not (its question is not the campaign's, or it repeats an earlier
    line's answer)."""

    def __init__(self, *, index: QaIndex, unused: UnusedLines):
        self.index = index
        self.unused = unused
        self.existing = {
            (system, topic_id): item_id
            for system, topic_id, item_id in SystemOutput.objects.filter(campaign=index.campaign).values_list(
                "system", "topic_id", "item_id"
            )
        }
        self.pending: dict[tuple[str, str], tuple] = {}
        self.created = 0
        self.skipped = 0
        self.systems: list[str] = []

    def predictions_add(self, *, system: str, path: Path, predictions: Iterable[Prediction],
                        known_topics_only: bool) -> None:
        """Map each prediction to its topic and item (created when no item has the same answer key).

        KNOWN_TOPICS_ONLY drops lines whose question the campaign does not have (an NQ_ file holds all
        3,610 NQ-open questions; the NQ301 campaign wants its 301).
        """
        fits(system, model=SystemOutput, column="system", path=path, line=0, field="system")
        if system not in self.systems:
            self.systems.append(system)
        for prediction in predictions:
            if known_topics_only:
                topic = self.index.topic_find(question=prediction.question)
                if topic is None:
                    self.unused.skip("naming a question the campaign does not hold", path=path,
                                     line=prediction.line, field="question", value=prediction.question[:80])
                    continue
            else:
                topic = self.index.topic_get_or_add(question=prediction.question)
            self.index.gold_merge(topic=topic, gold=prediction.gold)
            item = self.index.item_by_key(topic=topic, text=prediction.answer) or self.index.item_add(
                topic=topic, text=prediction.answer
            )
            where = (system, topic.external_id)
            if where in self.pending:
                earlier_line, earlier_item = self.pending[where][0], self.pending[where][2]
                if earlier_item is not item:
                    raise ImportDataError(
                        file=path, line=prediction.line, field="question",
                        message=f"system {system!r} already answered this question differently at line {earlier_line}",
                    )
                self.skipped += 1
                self.unused.skip("repeating an earlier line's answer of the same system to the same question",
                                 path=path, line=prediction.line, field="question", value=prediction.question[:80])
                continue
            self.unused.use()
            self.index.categories.give(item.external_id, prediction.category, path=path, line=prediction.line)
            self.pending[where] = (prediction.line, path, item, topic, prediction.raw, prediction.gold)

    def flush(self) -> None:
        """Write the outputs; call after the index flushed, so every item has its primary key."""
        self.index.flush()
        outputs = []
        for (system, _), (line, path, item, topic, raw, gold) in self.pending.items():
            earlier = self.existing.get((system, topic.pk))
            if earlier is not None:
                if earlier != item.pk:
                    raise ImportDataError(
                        file=path,
                        line=line,
                        field="prediction",
                        message=f"system {system!r} already has another answer for this question "
                                f"from an earlier import",
                    )
                self.skipped += 1
                continue
            data = {"prediction": raw}
            # The topic keeps every file's gold answers; an output whose file gave others keeps its own (the qa-eval
            # counting rule scores each output against them, as the study did).
            if list(gold) != list(topic.data.get("gold_answers") or []):
                data["gold_answers"] = list(gold)
            outputs.append(SystemOutput(campaign=self.index.campaign, system=system, topic=topic, item=item,
                                        data=data))
        SystemOutput.objects.bulk_create(outputs, batch_size=1000)
        self.created += len(outputs)
        self.pending = {}


def qa_eval_jsonl_import(*, index: QaIndex, paths: list[Path], system: str | None,
                         unused: UnusedLines) -> SystemOutputWriter:
    if system and len(paths) > 1:
        raise ImportDataError(
            file=paths[1], line=0, field="system",
            message="--system names the system of one file; import one file at a time or name systems by file",
        )
    writer = SystemOutputWriter(index=index, unused=unused)
    for path in paths:
        predictions = predictions_read(path)
        writer.predictions_add(system=system or system_name_for(path), path=path, predictions=predictions,
                               known_topics_only=False)
    writer.flush()
    return writer
