"""jsonl for answer_ranking: one topic per line.

    {"qid": "q1", "query": "...",
     "candidates": [{"id": "a1", "kind": "answer", "text": "...", "system": "...", "prompt": "...", "sample": 1},
                    {"id": "d1", "kind": "document", "text": "...", "docno": "..."}],
     "rankings": [{"annotator": "name", "ranking": [["a1"], ["d1", "a2"], ...], "dimension": "overall"}]}

`rankings` is optional; a ranking is a list of ids or a list of tie groups, best first; `dimension`
defaults to "overall" (a campaign with `options["dimensions"]` needs one ranking per dimension and
annotator). Rankings of one annotator for one topic in several entries (one per dimension) make one
judgment. The annotator is imported as user `"<campaign slug>-annotator-<name>"`. An answer without
`system` gets no SystemOutput.
"""

from dataclasses import dataclass, field
from pathlib import Path

from annotate.models import Topic
from interchange.importers.categories import category_read
from interchange.importers.common import ImportDataError, fits, jsonl_read, str_field
from interchange.importers.writes import ImportedAnnotators
from tasktypes.answer_ranking.ranking_index import ANSWER, DOCUMENT, Candidate, RankingIndex
from tasktypes.answer_ranking.rankings import (
    DEFAULT_DIMENSION,
    RankingVerdict,
    RankingVerdictSpool,
    groups_parse,
)


@dataclass
class RankingJsonlResult:
    verdicts: RankingVerdictSpool = field(default_factory=RankingVerdictSpool)


def _id(value, *, path: Path, line: int, field_name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise ImportDataError(file=path, line=line, field=field_name, message="expected a non-empty id (string)")
    return str(value).strip()


def _optional_str(obj: dict, key: str, *, path: Path, line: int, where: str) -> str:
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ImportDataError(file=path, line=line, field=f"{where}.{key}",
                              message=f"expected a string, got {type(value).__name__}")
    return value


def _candidate(raw, *, path: Path, line: int, where: str) -> Candidate:
    if not isinstance(raw, dict):
        raise ImportDataError(
            file=path, line=line, field=where, message=f"expected an object, got {type(raw).__name__}"
        )
    if "id" not in raw:
        raise ImportDataError(file=path, line=line, field=f"{where}.id", message="missing key")
    source_id = _id(raw["id"], path=path, line=line, field_name=f"{where}.id")
    kind = raw.get("kind")
    if kind not in (ANSWER, DOCUMENT):
        raise ImportDataError(file=path, line=line, field=f"{where}.kind",
                              message=f"expected 'answer' or 'document', got {kind!r}")
    if "text" not in raw:
        raise ImportDataError(file=path, line=line, field=f"{where}.text", message="missing key")
    text = _optional_str(raw, "text", path=path, line=line, where=where)
    if not text.strip():
        raise ImportDataError(file=path, line=line, field=f"{where}.text", message="empty text")
    sample = raw.get("sample")
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, (int, str))):
        raise ImportDataError(file=path, line=line, field=f"{where}.sample", message="expected an integer")
    docno = _optional_str(raw, "docno", path=path, line=line, where=where).strip()
    if kind == DOCUMENT:
        return Candidate(source_id=source_id, kind=DOCUMENT, text=text, docno=docno)
    return Candidate(source_id=source_id, kind=ANSWER, text=text, docno=docno,
                     system=_optional_str(raw, "system", path=path, line=line, where=where),
                     prompt=_optional_str(raw, "prompt", path=path, line=line, where=where), sample=sample)


def ranking_jsonl_import(*, index: RankingIndex, paths: list[Path]) -> RankingJsonlResult:
    """Read every line into INDEX (topics, candidates: written as they pile up) and ranking verdicts.

    The caller writes the verdicts (after `units_ensure`); call inside the import's transaction.
    """
    campaign = index.campaign
    result = RankingJsonlResult()
    annotators = ImportedAnnotators(campaign=campaign)
    for path in paths:
        for line, obj in jsonl_read(path):
            if "qid" not in obj:
                raise ImportDataError(file=path, line=line, field="qid", message="missing key")
            qid = fits(_id(obj["qid"], path=path, line=line, field_name="qid"), model=Topic, column="external_id",
                       path=path, line=line, field="qid")
            query = str_field(obj, "query", path=path, line=line)
            topic = index.topic_get_or_add(qid=qid, text=query, path=path, line=line, field="query")
            candidates = obj.get("candidates")
            if not isinstance(candidates, list) or not candidates:
                raise ImportDataError(file=path, line=line, field="candidates", message="missing or empty list")
            seen = set()
            for i, raw in enumerate(candidates):
                where = f"candidates[{i}]"
                candidate = _candidate(raw, path=path, line=line, where=where)
                if candidate.source_id in seen:
                    raise ImportDataError(file=path, line=line, field=f"{where}.id",
                                          message=f"candidate id {candidate.source_id!r} repeated in this topic")
                seen.add(candidate.source_id)
                category = category_read(raw.get("category"), path=path, line=line, field=f"{where}.category")
                index.candidate_add(topic=topic, candidate=candidate, path=path, line=line, field=where,
                                    category=category)
            rankings = obj.get("rankings") or []
            if not isinstance(rankings, list):
                raise ImportDataError(file=path, line=line, field="rankings", message="expected a list")
            by_annotator: dict[str, dict] = {}
            for k, entry in enumerate(rankings):
                where = f"rankings[{k}]"
                if not isinstance(entry, dict):
                    raise ImportDataError(file=path, line=line, field=where, message="expected an object")
                if "annotator" not in entry:
                    raise ImportDataError(file=path, line=line, field=f"{where}.annotator", message="missing key")
                name = _id(entry["annotator"], path=path, line=line, field_name=f"{where}.annotator")
                dimension = entry.get("dimension", DEFAULT_DIMENSION)
                if not isinstance(dimension, str) or not dimension:
                    raise ImportDataError(file=path, line=line, field=f"{where}.dimension", message="expected a name")
                if "ranking" not in entry:
                    raise ImportDataError(file=path, line=line, field=f"{where}.ranking", message="missing key")
                groups = groups_parse(entry["ranking"], path=path, line=line, field=f"{where}.ranking")
                mine = by_annotator.setdefault(name, {"field": f"{where}.ranking", "rankings": {}})
                if dimension in mine["rankings"]:
                    raise ImportDataError(file=path, line=line, field=f"{where}.dimension",
                                          message=f"{name} ranks dimension {dimension!r} twice in this topic")
                mine["rankings"][dimension] = groups
            for name, mine in by_annotator.items():
                annotator = annotators.get(name, path=path, line=line, field=mine["field"])
                result.verdicts.append(RankingVerdict(path=path, line=line, field=mine["field"], topic=topic,
                                                      annotator=annotator, rankings=mine["rankings"]))
            index.flush_when_full()
    index.flush()
    return result
