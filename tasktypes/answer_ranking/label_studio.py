"""label-studio: a Label Studio JSON export of a Ranker project (how the CLEF eHealth expert study was collected).

The file is a JSON list of tasks, parsed incrementally (one task in memory at a time; candidates are written
every few thousand). Errors name the task as `line` = its 1-based position in the list; malformed JSON, a byte
that is not UTF-8 or a NUL byte names the line of the file.

- Topic: qid = `data.qid`, else `data.query_id`, else the task `id`; text = `data.query` (else the first
  item's `query`).
- Candidates: `data.items[*]` with `id` (the candidate id), `docno`, `body` (the text shown; `text` when
  there is no body), `score` (a model score, a string such as "0.731" or a number).
- Answer or document: an item's explicit `kind` ("answer" or "document", as Concord's own export writes)
  decides. Otherwise an item is a generated **answer** when it has a non-empty `system`, `model`,
  `prompt` or `sample` key, or has no `docno`, or its `docno` (else its `id`) contains a token that names a
  language model (gpt, chatgpt, llama, mistral, mixtral, falcon, alpaca, vicuna, flan, bloom, gemma, qwen,
  claude, llm, generated; tokens are split at anything but letters and digits). Every other item, one with a
  docno that does not look generated, is a **document**. An answer's system is its `system` or `model` key,
  else the `_`-separated part of the docno/id that holds the model token (`gpt-3.5_p1_s2` -> `gpt-3.5`).
- Human order, best first: `annotations[k].result[j].value.ranker` of the first result that has a ranker;
  either a list of item ids, or Label Studio's dict of bucket -> ids, of which the `rank` bucket is read
  (other non-empty buckets are refused: they are not an order). Annotator: `completed_by`, an int id or a
  dict with `id` (or `email`), imported as user `"<campaign slug>-annotator-<id>"`. Annotations with
  `was_cancelled: true` are skipped and counted. Dimension `"overall"`.
- A candidate's optional `category` (text) becomes its item's category (interchange.importers.categories).
- With `score_judge=NAME` (`--score-judge NAME`) every item's `score` is imported as external judge NAME
  (higher = better); without it the scores are ignored.
"""

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from annotate.models import Topic
from interchange.importers.categories import category_read
from interchange.importers.common import ImportDataError, fits, json_array_read
from interchange.importers.writes import ImportedAnnotators, JudgeVerdict, JudgeVerdictWriter, external_judge_get
from tasktypes.answer_ranking.ranking_index import ANSWER, DOCUMENT, Candidate, RankingIndex
from tasktypes.answer_ranking.rankings import (
    DEFAULT_DIMENSION,
    RankingVerdict,
    RankingVerdictSpool,
    groups_parse,
)

_MODEL_TOKENS = ("gpt", "chatgpt", "llama", "mistral", "mixtral", "falcon", "alpaca", "vicuna", "flan", "bloom",
                 "gemma", "qwen", "claude", "llm", "generated")
_TOKEN_SPLIT = re.compile(r"[^a-z0-9]+")


@dataclass
class LabelStudioResult:
    verdicts: RankingVerdictSpool = field(default_factory=RankingVerdictSpool)
    cancelled: int = 0
    judges: dict[str, int] = field(default_factory=dict)


def _model_system(name: str) -> str | None:
    """The system named in a docno/id such as `gpt-3.5_p1_s2`, or None when it names no language model."""
    for part in name.split("_"):
        if any(token.startswith(_MODEL_TOKENS) for token in _TOKEN_SPLIT.split(part.lower()) if token):
            return part
    return None


def _text(value, *, path, line, field_name) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ImportDataError(file=path, line=line, field=field_name,
                              message=f"expected a string, got {type(value).__name__}")
    return str(value)


def candidate_read(raw, *, path: Path, line: int, where: str) -> Candidate:
    if not isinstance(raw, dict):
        raise ImportDataError(
            file=path, line=line, field=where, message=f"expected an object, got {type(raw).__name__}"
        )
    if raw.get("id") in (None, ""):
        raise ImportDataError(file=path, line=line, field=f"{where}.id", message="missing key")
    source_id = _text(raw["id"], path=path, line=line, field_name=f"{where}.id")
    docno = _text(raw.get("docno"), path=path, line=line, field_name=f"{where}.docno").strip()
    body = _text(raw.get("body"), path=path, line=line, field_name=f"{where}.body")
    text = body or _text(raw.get("text"), path=path, line=line, field_name=f"{where}.text")
    if not text.strip():
        raise ImportDataError(file=path, line=line, field=f"{where}.body", message="no text (neither body nor text)")
    declared = {key: raw.get(key) for key in ("system", "model", "prompt", "sample") if raw.get(key) not in (None, "")}
    named_system = _model_system(docno or source_id)
    kind = raw.get("kind")
    if kind not in (None, "", ANSWER, DOCUMENT):
        raise ImportDataError(file=path, line=line, field=f"{where}.kind",
                              message=f"expected 'answer' or 'document', got {kind!r}")
    if kind == ANSWER or (not kind and (declared or not docno or named_system)):
        system = _text(declared.get("system") or declared.get("model"), path=path, line=line,
                       field_name=f"{where}.system") or named_system or ""
        sample = declared.get("sample")
        if sample is not None and not (isinstance(sample, int) and not isinstance(sample, bool)):
            sample = _text(sample, path=path, line=line, field_name=f"{where}.sample")
            sample = int(sample) if sample.isascii() and sample.isdigit() and len(sample) < 19 else sample
        return Candidate(source_id=source_id, kind=ANSWER, text=text, docno=docno, system=system,
                         prompt=_text(declared.get("prompt"), path=path, line=line, field_name=f"{where}.prompt"),
                         sample=sample)
    return Candidate(source_id=source_id, kind=DOCUMENT, text=text, docno=docno)


def score_read(raw: dict, *, path: Path, line: int, where: str) -> float:
    value = raw.get("score")
    if value is None or value == "":
        raise ImportDataError(
            file=path, line=line, field=f"{where}.score", message="missing score (--score-judge needs one per item)"
        )
    try:
        score = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        score = math.nan
    if not math.isfinite(score):
        raise ImportDataError(
            file=path, line=line, field=f"{where}.score", message=f"expected a finite number, got {value!r}"
        )
    return score


def _order(annotation: dict, *, path: Path, line: int, where: str):
    results = annotation.get("result")
    if not isinstance(results, list) or not results:
        raise ImportDataError(file=path, line=line, field=f"{where}.result", message="missing or empty result list")
    for j, result in enumerate(results):
        value = result.get("value") if isinstance(result, dict) else None
        if isinstance(value, dict) and "ranker" in value:
            ranker, field_name = value["ranker"], f"{where}.result[{j}].value.ranker"
            break
    else:
        raise ImportDataError(file=path, line=line, field=f"{where}.result[0].value.ranker", message="no ranker result")
    if isinstance(ranker, dict):
        if "rank" not in ranker:
            raise ImportDataError(file=path, line=line, field=field_name, message=(
                f"no 'rank' bucket (buckets: {', '.join(map(str, ranker)) or 'none'}); only the rank bucket is read"))
        others = [name for name, ids in ranker.items() if name != "rank" and ids]
        if others:
            raise ImportDataError(
                file=path,
                line=line,
                field=field_name,
                message=(
                    f"bucket(s) {', '.join(map(str, others))} besides 'rank' hold items; "
                    f"only one ordered 'rank' list is read"
                ),
            )
        return ranker["rank"], f"{field_name}.rank"
    return ranker, field_name


def _annotator_id(value, *, path: Path, line: int, where: str) -> str:
    if isinstance(value, dict):
        value = value.get("id") if value.get("id") not in (None, "") else value.get("email")
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise ImportDataError(file=path, line=line, field=f"{where}.completed_by",
                              message="expected an annotator id (int) or an object with id or email")
    return str(value).strip()


def label_studio_import(*, index: RankingIndex, paths: list[Path], score_judge: str | None) -> LabelStudioResult:
    """Read every file into INDEX (candidates, written as they pile up), ranking verdicts and the judge's scores.

    The caller writes the verdicts (after `units_ensure`); call inside the import's transaction.
    """
    campaign = index.campaign
    result = LabelStudioResult()
    writer = None
    if score_judge:
        judge = external_judge_get(
            campaign=campaign,
            name=score_judge,
            config={"format": "label-studio", "field": "score", "name": score_judge},
            path=paths[0],
        )
        writer = JudgeVerdictWriter(judge=judge)
    scores: list[JudgeVerdict] = []  # of candidates not written yet: written with them

    def scores_write() -> None:
        for verdict in scores:
            writer.add(verdict)
        scores.clear()

    annotators = ImportedAnnotators(campaign=campaign)
    for path in paths:
        for line, task in json_array_read(path, what="tasks"):
            if not isinstance(task, dict):
                raise ImportDataError(
                    file=path, line=line, field="task", message=f"expected an object, got {type(task).__name__}"
                )
            data = task.get("data")
            if not isinstance(data, dict):
                raise ImportDataError(file=path, line=line, field="data", message="missing or not an object")
            items = data.get("items")
            if not isinstance(items, list) or not items:
                raise ImportDataError(file=path, line=line, field="data.items", message="missing or empty list")
            qid = next((data[key] for key in ("qid", "query_id") if data.get(key) not in (None, "")), task.get("id"))
            if qid in (None, "") or isinstance(qid, (bool, dict, list, float)):
                raise ImportDataError(file=path, line=line, field="data.qid", message="no qid, query_id or task id")
            qid = fits(str(qid).strip(), model=Topic, column="external_id", path=path, line=line, field="data.qid")
            query = data.get("query")
            if query in (None, "") and isinstance(items[0], dict):
                query = items[0].get("query")
            if not isinstance(query, str) or not query.strip():
                raise ImportDataError(file=path, line=line, field="data.query", message="missing query text")
            topic = index.topic_get_or_add(qid=qid, text=query, path=path, line=line, field="data.query")
            seen = set()
            for i, raw in enumerate(items):
                where = f"data.items[{i}]"
                candidate = candidate_read(raw, path=path, line=line, where=where)
                if candidate.source_id in seen:
                    raise ImportDataError(file=path, line=line, field=f"{where}.id",
                                          message=f"candidate id {candidate.source_id!r} repeated in this task")
                seen.add(candidate.source_id)
                item = index.candidate_add(topic=topic, candidate=candidate, path=path, line=line, field=where,
                                           category=category_read(raw.get("category"), path=path, line=line,
                                                                  field=f"{where}.category"))
                if writer:
                    scores.append(JudgeVerdict(path=path, line=line, item=item, score=score_read(
                        raw, path=path, line=line, where=where), label="", raw="label-studio score", failed=False))
            annotations = task.get("annotations") or []
            if not isinstance(annotations, list):
                raise ImportDataError(file=path, line=line, field="annotations", message="expected a list")
            for k, annotation in enumerate(annotations):
                where = f"annotations[{k}]"
                if not isinstance(annotation, dict):
                    raise ImportDataError(file=path, line=line, field=where, message="expected an object")
                if annotation.get("was_cancelled"):
                    result.cancelled += 1
                    continue
                order, field_name = _order(annotation, path=path, line=line, where=where)
                groups = groups_parse(order, path=path, line=line, field=field_name)
                if any(len(group) > 1 for group in groups):
                    raise ImportDataError(
                        file=path, line=line, field=field_name, message="expected a flat list of item ids"
                    )
                name = _annotator_id(annotation.get("completed_by"), path=path, line=line, where=where)
                annotator = annotators.get(name, path=path, line=line, field=f"{where}.completed_by",
                                           what="annotator id")
                result.verdicts.append(RankingVerdict(path=path, line=line, field=field_name, topic=topic,
                                                      annotator=annotator, rankings={DEFAULT_DIMENSION: groups}))
            if index.flush_when_full() and writer:
                scores_write()
    index.flush()
    if writer:
        scores_write()
        writer.flush()
        result.judges[score_judge] = writer.created
    return result
