"""Imported human rankings of answer_ranking topics, written as docs/answer_ranking.md says.

One HumanJudgment per (topic unit, annotator): kind "annotation", source "import", label "ranked",
value `{"rankings": {"<dimension>": [[item_pk, ...], ...]}}` (tie groups, best first). Every candidate
of the topic must appear exactly once per dimension, unless the campaign's option `rank_depth` (k) allows partial
rankings: then at least the best min(k, n) of the topic's n candidates, each once, and the rest are unranked.
Re-importing the same ranking is a no-op; a
different ranking for the same annotator and topic is refused with the line that conflicts.

Ties: a campaign whose `options["ties"]` is false refuses rankings with a group of more than one; when the
option is not set, an import that brings ties sets it to true (the data decides, and says so in the campaign).

A streaming import keeps its rankings in a RankingVerdictSpool (a temporary file) until every candidate is
written, and `human_rankings_write` writes them in batches, holding a fingerprint of each ranking, not the ranking.
"""

import hashlib
import json
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, JudgmentSource, Topic, Unit
from interchange.importers.common import ImportDataError

RANKED = "ranked"
DEFAULT_DIMENSION = "overall"


@dataclass(frozen=True)
class RankingVerdict:
    path: Path
    line: int
    field: str
    topic: Topic  # may be saved by a later flush; read its pk only when writing
    annotator: object  # a User
    # dimension -> tie groups of candidate source ids, best first
    rankings: dict[str, list[list[str]]]


class RankingVerdictSpool:
    """Ranking verdicts on disk, in the order they were added, instead of in memory: a file's rankings must wait
    until all its candidates are known (a ranking names candidates of its topic that later tasks may add).
    Topics and annotators stay objects, held once each."""

    def __init__(self):
        self._file = tempfile.TemporaryFile(mode="w+", encoding="utf-8", prefix="concord-rankings-")
        self._topics: dict[str, Topic] = {}
        self._annotators: dict[int, object] = {}
        self._paths: dict[str, Path] = {}
        self.count = 0

    def append(self, verdict: RankingVerdict) -> None:
        qid = verdict.topic.external_id
        self._topics.setdefault(qid, verdict.topic)
        self._annotators.setdefault(verdict.annotator.pk, verdict.annotator)
        self._paths.setdefault(str(verdict.path), verdict.path)
        self._file.write(json.dumps([str(verdict.path), verdict.line, verdict.field, qid, verdict.annotator.pk,
                                     verdict.rankings]) + "\n")
        self.count += 1

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[RankingVerdict]:
        self._file.seek(0)
        for text in self._file:
            path, line, field, qid, annotator, rankings = json.loads(text)
            yield RankingVerdict(path=self._paths[path], line=line, field=field, topic=self._topics[qid],
                                 annotator=self._annotators[annotator], rankings=rankings)
        self._file.seek(0, 2)

    def close(self) -> None:
        self._file.close()


def _fingerprint(value: dict) -> bytes:
    """A stored judgment value in 16 bytes: two rankings are the same when these match."""
    return hashlib.blake2b(json.dumps(value, sort_keys=True).encode("utf-8"), digest_size=16).digest()


def campaign_dimensions(campaign: Campaign) -> list[str]:
    return list(campaign.options.get("dimensions") or [DEFAULT_DIMENSION])


def groups_parse(value, *, path: Path, line: int, field: str) -> list[list[str]]:
    """A ranking as the files write it, `[id, ...]` or `[[id], [id, id], ...]`, as tie groups of string ids."""
    if not isinstance(value, list) or not value:
        raise ImportDataError(file=path, line=line, field=field, message="expected a non-empty list of candidate ids")
    groups = []
    for entry in value:
        members = entry if isinstance(entry, list) else [entry]
        if not members:
            raise ImportDataError(file=path, line=line, field=field, message="empty tie group")
        for member in members:
            if isinstance(member, bool) or not isinstance(member, (str, int)):
                raise ImportDataError(file=path, line=line, field=field,
                                      message=f"expected candidate ids (strings), got {type(member).__name__}")
        groups.append([str(member) for member in members])
    return groups


def _resolve(verdict: RankingVerdict, dimension: str, groups: list[list[str]], candidates: dict[str, Item],
             depth: int | None = None) -> list[list[int]]:
    seen: set[str] = set()
    resolved = []
    for group in groups:
        pks = []
        for source_id in group:
            if source_id in seen:
                raise ImportDataError(file=verdict.path, line=verdict.line, field=verdict.field,
                                      message=f"{dimension}: candidate {source_id!r} appears more than once")
            seen.add(source_id)
            item = candidates.get(source_id)
            if item is None:
                raise ImportDataError(file=verdict.path, line=verdict.line, field=verdict.field, message=(
                    f"{dimension}: no candidate {source_id!r} in topic {verdict.topic.external_id!r}"))
            pks.append(item.pk)
        resolved.append(pks)
    missing = [source_id for source_id in candidates if source_id not in seen]
    if depth is not None:
        need = min(depth, len(candidates))
        if len(seen) < need:
            raise ImportDataError(file=verdict.path, line=verdict.line, field=verdict.field, message=(
                f"{dimension}: ranking places {len(seen)} of the topic's {len(candidates)} candidates; this "
                f"campaign's rank_depth asks for the best {need} at least"))
    elif missing:
        shown = ", ".join(repr(source_id) for source_id in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise ImportDataError(file=verdict.path, line=verdict.line, field=verdict.field, message=(
            f"{dimension}: ranking misses {len(missing)} of the topic's {len(candidates)} candidates: {shown}"))
    return resolved


def human_rankings_write(*, campaign: Campaign, verdicts: Iterable[RankingVerdict],
                         candidates: dict[str, dict[str, Item]], depth: int | None,
                         batch: int = 1000) -> tuple[int, int]:
    """Create the imported rankings on the topics' units, BATCH at a time. Returns (created, skipped as already
    there).

    CANDIDATES maps qid -> {candidate source id -> saved Item (or anything with its pk)}: all of the topic's
    candidates; DEPTH the campaign's rank_depth (None: every candidate). Call inside the import's transaction, after
    the candidates were flushed and after `units_ensure`.
    """
    dimensions = campaign_dimensions(campaign)
    ties_option = campaign.options.get("ties")
    unit_of_topic = dict(Unit.objects.filter(campaign=campaign, item__isnull=True).values_list("topic_id", "id"))
    # What each (unit, annotator) already ranked, as a fingerprint: the rankings themselves are not held.
    existing = {
        (unit_id, annotator_id): _fingerprint(value)
        for unit_id, annotator_id, value in HumanJudgment.objects.filter(
            unit__campaign=campaign, kind=JudgmentKind.ANNOTATION, is_current=True
        ).values_list("unit_id", "annotator_id", "value").iterator(chunk_size=2000)
    }
    new, created, skipped, has_ties = [], 0, 0, False
    for verdict in verdicts:
        unknown = [name for name in verdict.rankings if name not in dimensions]
        if unknown:
            raise ImportDataError(file=verdict.path, line=verdict.line, field=verdict.field, message=(
                f"dimension {unknown[0]!r} is not one of the campaign's: {', '.join(dimensions)}"))
        absent = [name for name in dimensions if name not in verdict.rankings]
        if absent:
            raise ImportDataError(
                file=verdict.path,
                line=verdict.line,
                field=verdict.field,
                message=f"no ranking for dimension {absent[0]!r} (the campaign has: {', '.join(dimensions)})",
            )
        topic_candidates = candidates[verdict.topic.external_id]
        rankings = {}
        for name in dimensions:
            groups = _resolve(verdict, name, verdict.rankings[name], topic_candidates, depth)
            if any(len(group) > 1 for group in groups):
                if ties_option is False:
                    raise ImportDataError(file=verdict.path, line=verdict.line, field=verdict.field,
                                          message=f"{name}: tied candidates, and this campaign does not allow ties")
                has_ties = True
            rankings[name] = groups
        value = {"rankings": rankings}
        key = (unit_of_topic[verdict.topic.pk], verdict.annotator.pk)
        fingerprint = _fingerprint(value)
        if key in existing:
            if existing[key] != fingerprint:
                raise ImportDataError(file=verdict.path, line=verdict.line, field=verdict.field, message=(
                    f"{verdict.annotator.username} already has another ranking of topic {verdict.topic.external_id!r}"))
            skipped += 1
            continue
        existing[key] = fingerprint
        new.append(HumanJudgment(unit_id=key[0], annotator=verdict.annotator, kind=JudgmentKind.ANNOTATION,
                                 source=JudgmentSource.IMPORT, value=value, label=RANKED))
        if len(new) >= batch:
            HumanJudgment.objects.bulk_create(new)
            created, new = created + len(new), []
    if has_ties and ties_option is None:
        campaign.options = {**campaign.options, "ties": True}
        campaign.save(update_fields=["options"])
    HumanJudgment.objects.bulk_create(new)
    return created + len(new), skipped


