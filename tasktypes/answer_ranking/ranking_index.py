"""An answer_ranking campaign's topics, candidates and system outputs held in memory while an import adds to them.

Storage follows docs/answer_ranking.md: a Topic per qid, an Item per candidate with external id
`"<qid>/<candidate id>"`, a SystemOutput per generated answer. A candidate already in the campaign
is reused when it is the same (kind, text, source data); one that differs is refused, so an import never
silently rewrites a candidate. New rows are collected and written in bulk by `flush`, which a streaming
import calls every FLUSH_ITEMS candidates; a written candidate is then held as its primary key and a
fingerprint of what it is, never its text, so memory grows with the campaign's candidates, not their texts.
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, SystemOutput, Topic
from interchange.importers.categories import ItemCategories
from interchange.importers.common import ImportDataError, fits
from interchange.importers.items import source_id_of

ANSWER, DOCUMENT = "answer", "document"


# Item.data keys that describe the candidate itself; other keys (e.g. "qrels") are added by later imports.
CANDIDATE_KEYS = ("source_id", "docno", "system", "prompt", "sample")
FLUSH_ITEMS = 2000


def _fingerprint(kind: str, text: str, data: dict) -> int:
    """What a candidate is (kind, text, source data) in 64 bits: two candidates are the same when these match."""
    payload = json.dumps([kind, text, {key: value for key, value in data.items() if key in CANDIDATE_KEYS}],
                         sort_keys=True, ensure_ascii=False)
    return int.from_bytes(hashlib.blake2b(payload.encode("utf-8"), digest_size=8).digest(), "big")


@dataclass(frozen=True, slots=True)
class KnownCandidate:
    """A written candidate: its primary key (read as `.pk`, like an Item's) and its fingerprint."""

    pk: int
    fingerprint: int


@dataclass(frozen=True)
class Candidate:
    source_id: str
    kind: str
    text: str
    docno: str = ""
    system: str = ""
    prompt: str = ""
    sample: int | str | None = None

    def data(self) -> dict:
        """Item.data per the contract: `docno` for documents, `system`/`prompt`/`sample` for answers (an answer's
        docno in the source, e.g. `gpt-3.5_p1_s1`, is its `source_id` or only the place its system was read from)."""
        data = {"source_id": self.source_id}
        if self.kind == DOCUMENT:
            if self.docno:
                data["docno"] = self.docno
        else:
            for key in ("system", "prompt"):
                if getattr(self, key):
                    data[key] = getattr(self, key)
            if self.sample is not None:
                data["sample"] = self.sample
        return data


class RankingIndex:
    def __init__(self, *, campaign: Campaign):
        self.campaign = campaign
        self.topics: dict[str, Topic] = {}
        # qid -> {candidate source id -> Item to write, or KnownCandidate}; the dicts stay the same objects as
        # items are added.
        self.candidates: dict[str, dict[str, Item | KnownCandidate]] = {}
        self._new_topics: list[Topic] = []
        self._new_items: list[Item] = []
        self._new_outputs: dict[tuple[str, str, str], tuple[Topic, Item, dict]] = {}
        self.topics_created = 0
        self.items_created = 0
        self.answers_created = 0
        self.documents_created = 0
        self.system_outputs_created = 0
        self.systems: list[str] = []
        # Categories the lines give their candidates, written by flush once the candidates are.
        self.categories = ItemCategories()
        self.items_categorised = 0
        for topic in Topic.objects.filter(campaign=campaign).order_by("id"):
            self.topics[topic.external_id] = topic
            self.candidates[topic.external_id] = {}
        rows = (Item.objects.filter(campaign=campaign).order_by("id")
                .values_list("topic__external_id", "external_id", "id", "kind", "text", "data"))
        for qid, external_id, pk, kind, text, data in rows.iterator(chunk_size=2000):
            self.candidates.setdefault(qid, {})[source_id_of(external_id, data.get("source_id"), qid)] = KnownCandidate(
                pk=pk, fingerprint=_fingerprint(kind, text, data))
        self._ranked_topic_ids = set(
            HumanJudgment.objects.filter(unit__campaign=campaign, kind=JudgmentKind.ANNOTATION, is_current=True)
            .values_list("unit__topic_id", flat=True)
        )
        self._existing_outputs = set(
            SystemOutput.objects.filter(campaign=campaign).values_list(
                "system", "topic__external_id", "item__external_id"
            )
        )

    def topic_get_or_add(self, *, qid: str, text: str, path: Path, line: int, field: str) -> Topic:
        """The topic QID, added when missing; the same qid with another query text is refused."""
        topic = self.topics.get(qid)
        if topic is None:
            topic = Topic(campaign=self.campaign, external_id=qid, text=text, data={})
            self.topics[qid] = topic
            self.candidates[qid] = {}
            self._new_topics.append(topic)
        elif text and topic.text != text:
            raise ImportDataError(file=path, line=line, field=field,
                                  message=f"topic {qid!r} already has another query text: {topic.text[:80]!r}")
        return topic

    def candidate_add(self, *, topic: Topic, candidate: Candidate, path: Path, line: int,
                      field: str, category: str = "") -> Item | KnownCandidate:
        """The item for CANDIDATE under TOPIC: the existing one when it is the same, else a new one (an Item whose
        primary key is set by the next `flush`). CATEGORY, when given, becomes the item's category."""
        qid = topic.external_id
        known = self.candidates[qid]
        item = known.get(candidate.source_id)
        self.categories.give(f"{qid}/{candidate.source_id}", category, path=path, line=line,
                             field=f"{field}.category")
        if item is not None:
            had = (
                item.fingerprint if isinstance(item, KnownCandidate) else _fingerprint(item.kind, item.text, item.data)
            )
            if had != _fingerprint(candidate.kind, candidate.text, candidate.data()):
                raise ImportDataError(file=path, line=line, field=field, message=(
                    f"candidate {candidate.source_id!r} of topic {qid!r} differs from the one already imported"))
            return item
        if topic.pk is not None and topic.pk in self._ranked_topic_ids:
            raise ImportDataError(file=path, line=line, field=field, message=(
                f"topic {qid!r} already has human rankings; adding candidate {candidate.source_id!r} would leave "
                f"them incomplete"))
        external_id = fits(f"{qid}/{candidate.source_id}", model=Item, column="external_id", path=path, line=line,
                           field=f"{field}.id")
        fits(candidate.system, model=SystemOutput, column="system", path=path, line=line, field=f"{field}.system")
        item = Item(campaign=self.campaign, topic=topic, external_id=external_id,
                    kind=candidate.kind, text=candidate.text, data=candidate.data())
        known[candidate.source_id] = item
        self._new_items.append(item)
        if candidate.kind == ANSWER and candidate.system:
            key = (candidate.system, qid, item.external_id)
            output_data = {key: value for key, value in (("prompt", candidate.prompt), ("sample", candidate.sample))
                           if value not in ("", None)}
            self._new_outputs[key] = (topic, item, output_data)
        return item

    def flush_when_full(self) -> bool:
        """Flush when FLUSH_ITEMS candidates wait to be written; whether it did."""
        if len(self._new_items) < FLUSH_ITEMS:
            return False
        self.flush()
        return True

    def flush(self) -> None:
        """Write new topics, then items (they point at topics), then system outputs; written items are then
        held as KnownCandidate."""
        if self._new_topics:
            Topic.objects.bulk_create(self._new_topics, batch_size=1000)
            self.topics_created += len(self._new_topics)
            self._new_topics = []
        if self._new_items:
            # Items built before their topic was saved pick up its primary key here (Django fills topic_id).
            Item.objects.bulk_create(self._new_items, batch_size=1000)
            self.items_created += len(self._new_items)
            self.answers_created += sum(item.kind == ANSWER for item in self._new_items)
            self.documents_created += sum(item.kind == DOCUMENT for item in self._new_items)
            for item in self._new_items:
                self.candidates[item.topic.external_id][item.data["source_id"]] = KnownCandidate(
                    pk=item.pk, fingerprint=_fingerprint(item.kind, item.text, item.data))
            self._new_items = []
        outputs = []
        for (system, qid, item_external_id), (topic, item, data) in self._new_outputs.items():
            if (system, qid, item_external_id) in self._existing_outputs:
                continue
            outputs.append(SystemOutput(campaign=self.campaign, system=system, topic=topic, item=item, data=data))
            if system not in self.systems:
                self.systems.append(system)
        SystemOutput.objects.bulk_create(outputs, batch_size=1000)
        self.system_outputs_created += len(outputs)
        self._new_outputs = {}
        self.items_categorised += self.categories.write(campaign=self.campaign)
