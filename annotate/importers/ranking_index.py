"""An answer_ranking campaign's topics, candidates and system outputs held in memory while an import adds to them.

Storage follows docs/answer_ranking.md: a Topic per qid, an Item per candidate with external id
`"<qid>/<candidate id>"`, a SystemOutput per generated answer. A candidate already in the campaign
is reused when it is the same (kind, text, source data); one that differs is refused, so an import never
silently rewrites a candidate. New rows are collected and written in bulk by `flush`.
"""

from dataclasses import dataclass
from pathlib import Path

from annotate.importers.common import ImportDataError, fits
from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, SystemOutput, Topic

ANSWER, DOCUMENT = "answer", "document"


def candidate_source_id(item: Item) -> str:
    """The id a candidate was imported with (`data["source_id"]`, else the tail of its external id)."""
    return str(item.data.get("source_id") or item.external_id.split("/", 1)[-1])


# Item.data keys that describe the candidate itself; other keys (e.g. "qrels") are added by later imports.
CANDIDATE_KEYS = ("source_id", "docno", "system", "prompt", "sample")


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
        # qid -> {candidate source id -> Item}; the dicts stay the same objects as items are added.
        self.candidates: dict[str, dict[str, Item]] = {}
        self._new_topics: list[Topic] = []
        self._new_items: list[Item] = []
        self._new_outputs: dict[tuple[str, str, str], tuple[Topic, Item, dict]] = {}
        self.topics_created = 0
        self.items_created = 0
        self.answers_created = 0
        self.documents_created = 0
        self.system_outputs_created = 0
        self.systems: list[str] = []
        for topic in Topic.objects.filter(campaign=campaign).order_by("id"):
            self.topics[topic.external_id] = topic
            self.candidates[topic.external_id] = {}
        for item in Item.objects.filter(campaign=campaign).select_related("topic").order_by("id"):
            self.candidates.setdefault(item.topic.external_id, {})[candidate_source_id(item)] = item
        self._ranked_topic_ids = set(
            HumanJudgment.objects.filter(unit__campaign=campaign, kind=JudgmentKind.ANNOTATION, is_current=True)
            .values_list("unit__topic_id", flat=True)
        )
        self._existing_outputs = set(
            SystemOutput.objects.filter(campaign=campaign).values_list("system", "topic__external_id", "item__external_id")
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

    def candidate_add(self, *, topic: Topic, candidate: Candidate, path: Path, line: int, field: str) -> Item:
        """The item for CANDIDATE under TOPIC: the existing one when it is the same, else a new one."""
        qid = topic.external_id
        known = self.candidates[qid]
        item = known.get(candidate.source_id)
        if item is not None:
            same = item.kind == candidate.kind and item.text == candidate.text and {
                key: value for key, value in item.data.items() if key in CANDIDATE_KEYS
            } == candidate.data()
            if not same:
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

    def flush(self) -> None:
        """Write new topics, then items (they point at topics), then system outputs."""
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
