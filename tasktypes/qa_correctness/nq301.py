"""The NQ-open 301 folder of castorini/qa-eval (Kamalloo et al., ACL 2023), as in ../shared/data/qa-eval-nq301.

- NQ301_human.tsv: id, Question, Model answer, Acceptable?, annotator1..annotator3. One item per
  distinct (id, answer string); annotator columns become imported annotations (blank: no judgment),
  "Acceptable?" the adjudicated verdict.
- NQ301_gpt-4.tsv, NQ301_text-davinci-003.tsv: external judges' free-text verdicts starting Yes/No. A verdict
  text that starts with neither is a failed verdict; the file's own "Acceptable?" column (the study's reading of
  the text) is kept beside it as its fallback label, which only the qa-eval counting rule reads.
  They share the `id` column with the human file and attach to its items by (id, exact answer),
  then by answer key, then by row position (the three files are row-aligned; NQ301_gpt-4.tsv line 151
  writes "July 11 1901" where the human file has "558" for question 29); their question text is not
  used (davinci's differs in ~150 rows).
- model_outputs/NQ_<system>.jsonl (restricted to the 301 questions) and
  NQ301_text-davinci-003_{zeroshot,fewshot-n64}.jsonl: the 12 systems. Gold answers come from them.
System and judge files may also lie directly in the folder (an upload of loose files).
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from annotate.models import JudgmentKind, Topic
from annotate.services.campaigns import units_ensure, user_get_or_create_imported
from interchange.importers.categories import CATEGORY, category_read
from interchange.importers.common import ImportDataError, UnusedLines, fits, tsv_read
from interchange.importers.qa_index import QaIndex
from interchange.importers.writes import (
    HumanVerdict,
    JudgeVerdict,
    external_judge_get,
    human_verdicts_write,
    judge_verdicts_write,
    units_done_refresh,
    yes_no,
)
from tasktypes.qa_correctness.qa_eval_jsonl import SystemOutputWriter, predictions_read, system_name_for

HUMAN_FILE = "NQ301_human.tsv"
JUDGE_FILES = {"gpt-4": "NQ301_gpt-4.tsv", "text-davinci-003": "NQ301_text-davinci-003.tsv"}
SYSTEM_GLOB = "NQ_*.jsonl"
EXTRA_SYSTEM_FILES = ("NQ301_text-davinci-003_zeroshot.jsonl", "NQ301_text-davinci-003_fewshot-n64.jsonl")
ANNOTATOR_COLUMNS = ("annotator1", "annotator2", "annotator3")
ADJUDICATOR = "nq301-adjudicator"
# A question's answers become items "<id>-<n>": a question id that fits Topic.external_id (200) leaves room for them
# within Item.external_id (401).
_FIRST_WORD = re.compile(r"\W*(\w+)")


@dataclass
class Nq301Result:
    systems: SystemOutputWriter
    human_created: int = 0
    duplicate_rows: int = 0
    matched_by_position: int = 0
    units_created: int = 0
    judges: dict[str, int] = field(default_factory=dict)


def _yes_no(value: str, *, path: Path, line: int, column: str, blank_ok: bool) -> bool | None:
    word = value.strip().lower()
    if word in ("yes", "no"):
        return word == "yes"
    if not word and blank_ok:
        return None
    raise ImportDataError(file=path, line=line, field=column, message=f"expected Yes or No, got {value!r}")


def verdict_parse(text: str) -> tuple[str, bool]:
    """(label, failed) of a free-text verdict: its first word, yes or no; anything else is a failed verdict."""
    match = _FIRST_WORD.match(text)
    word = match.group(1).lower() if match else ""
    if word in ("yes", "no"):
        return word, False
    return "", True


def _find(folder: Path, name: str) -> Path | None:
    for candidate in (folder / "model_outputs" / name, folder / name):
        if candidate.is_file():
            return candidate
    return None


def system_files(folder: Path) -> list[Path]:
    found = {}
    for place in (folder, folder / "model_outputs"):
        if place.is_dir():
            for path in sorted(place.glob(SYSTEM_GLOB)):
                found.setdefault(path.name, path)
    paths = [found[name] for name in sorted(found)]
    return paths + [path for path in (_find(folder, name) for name in EXTRA_SYSTEM_FILES) if path]


def nq301_import(*, index: QaIndex, folder: Path, unused: UnusedLines) -> Nq301Result:
    """Import the folder into INDEX's campaign. Call inside the import's transaction. The human judgments' rows are
    used; the systems' predictions of questions the judgments do not hold are counted in UNUSED."""
    campaign = index.campaign
    if not folder.is_dir():
        raise ImportDataError(file=folder, line=0, field="folder", message="the nq301 format takes the data folder")
    human_path = folder / HUMAN_FILE
    # Every file is read a row at a time, in the order its rows are needed.
    human_rows = tsv_read(human_path, required=["id", "Question", "Model answer", "Acceptable?"],
                          optional=(*ANNOTATOR_COLUMNS, CATEGORY))
    judge_rows = {}
    for name, file_name in JUDGE_FILES.items():
        path = _find(folder, file_name)
        if path is not None:
            judge_rows[name] = (path, tsv_read(path, required=["id", "Model answer", name], optional=["Acceptable?"]))
    predictions = [(path, predictions_read(path)) for path in system_files(folder)]

    # Items: one per distinct (id, answer string) of the human file.
    result = Nq301Result(systems=SystemOutputWriter(index=index, unused=unused))
    annotators = {column: user_get_or_create_imported(username=f"nq301-{column}") for column in ANNOTATOR_COLUMNS}
    adjudicator = user_get_or_create_imported(username=ADJUDICATOR)
    verdicts: list[HumanVerdict] = []
    seen_pairs = set()
    item_at_line = {}
    for line, row in human_rows:
        unused.use()
        question_id = row["id"].strip()
        if not question_id:
            raise ImportDataError(file=human_path, line=line, field="id", message="missing value")
        fits(question_id, model=Topic, column="external_id", path=human_path, line=line, field="id")
        final = _yes_no(row["Acceptable?"], path=human_path, line=line, column="Acceptable?", blank_ok=False)
        labels = {
            column: _yes_no(row.get(column, ""), path=human_path, line=line, column=column, blank_ok=True)
            for column in ANNOTATOR_COLUMNS
        }
        topic = index.topic_get_or_add(question=row["Question"], external_id=question_id)
        answer = row["Model answer"]
        if (question_id, answer) in seen_pairs:
            result.duplicate_rows += 1
        seen_pairs.add((question_id, answer))
        item = index.item_by_text(topic=topic, text=answer) or index.item_add(topic=topic, text=answer)
        item_at_line[line] = item
        # An optional `category` column (not in the study's file) gives the answer its category.
        index.categories.give(item.external_id, category_read(row.get(CATEGORY), path=human_path, line=line),
                              path=human_path, line=line)
        verdicts.append(HumanVerdict(path=human_path, line=line, item=item, annotator=adjudicator,
                                     kind=JudgmentKind.ADJUDICATION, value={"correct": final}, label=yes_no(final)))
        for column, correct in labels.items():
            if correct is not None:
                verdicts.append(HumanVerdict(path=human_path, line=line, item=item, annotator=annotators[column],
                                             kind=JudgmentKind.ANNOTATION, value={"correct": correct},
                                             label=yes_no(correct)))

    for path, rows in predictions:
        result.systems.predictions_add(system=system_name_for(path), path=path, predictions=rows,
                                       known_topics_only=True)
    result.systems.flush()  # writes topics, items and system outputs
    result.units_created = units_ensure(campaign=campaign)
    result.human_created, _ = human_verdicts_write(campaign=campaign, verdicts=verdicts)
    units_done_refresh(campaign=campaign)

    for name, (path, rows) in judge_rows.items():
        judge = external_judge_get(campaign=campaign, name=name, config={"source": path.name}, path=path)
        judge_verdicts = []
        for line, row in rows:
            topic = index.topics_by_external_id.get(row["id"].strip())
            if topic is None:
                raise ImportDataError(
                    file=path, line=line, field="id", message=f"no question {row['id']!r} in {HUMAN_FILE}"
                )
            answer = row["Model answer"]
            item = index.item_by_text(topic=topic, text=answer) or index.item_by_key(topic=topic, text=answer)
            aligned = item_at_line.get(line)
            if item is None and aligned is not None and aligned.topic.external_id == topic.external_id:
                item = aligned
                result.matched_by_position += 1
            if item is None:
                raise ImportDataError(file=path, line=line, field="Model answer",
                                      message=f"no such answer to question {topic.external_id} in {HUMAN_FILE}")
            label, failed = verdict_parse(row[name])
            fallback = ""
            if failed and row.get("Acceptable?", "").strip():
                fallback = yes_no(_yes_no(row["Acceptable?"], path=path, line=line, column="Acceptable?",
                                          blank_ok=False))
            judge_verdicts.append(JudgeVerdict(path=path, line=line, item=item, score=None, label=label,
                                               raw=row[name], failed=failed, fallback_label=fallback))
        result.judges[name], _ = judge_verdicts_write(judge=judge, verdicts=judge_verdicts)
    return result
