"""A campaign's questions and candidate answers held in memory while a QA import matches rows to them.

Matching is by key, never by a query per row: questions by `question_key`, answers first by their
exact text and then by `answer_key` (the data writes the same answer with curly quotes, tokenised
contractions, other case or spacing). New topics and items are collected and written in bulk by `flush`.
"""

import hashlib

from annotate.models import Campaign, Item, Topic
from annotate.textnorm import answer_key, question_key
from interchange.importers.categories import ItemCategories


def topic_external_id_for(question: str) -> str:
    """A stable id for a question that arrives without one (qa-eval JSONL): the same question, the same id."""
    return "q-" + hashlib.sha1(question_key(question).encode("utf-8")).hexdigest()[:12]


class QaIndex:
    def __init__(self, *, campaign: Campaign):
        self.campaign = campaign
        self.topics_by_external_id: dict[str, Topic] = {}
        self.topics_by_question: dict[str, Topic] = {}
        self.items_by_topic: dict[str, list[Item]] = {}
        self._new_topics: list[Topic] = []
        self._new_items: list[Item] = []
        self._gold_changed: dict[str, Topic] = {}
        self.topics_created = 0
        self.items_created = 0
        # Categories the lines give their items, written by flush once the items are.
        self.categories = ItemCategories()
        self.items_categorised = 0
        for topic in Topic.objects.filter(campaign=campaign).order_by("id"):
            self._topic_register(topic)
        for item in Item.objects.filter(campaign=campaign).select_related("topic").order_by("id"):
            self.items_by_topic.setdefault(item.topic.external_id, []).append(item)

    def _topic_register(self, topic: Topic) -> None:
        self.topics_by_external_id[topic.external_id] = topic
        self.topics_by_question.setdefault(question_key(topic.text), topic)
        self.items_by_topic.setdefault(topic.external_id, [])

    def topic_find(self, *, question: str) -> Topic | None:
        return self.topics_by_question.get(question_key(question))

    def topic_get_or_add(self, *, question: str, external_id: str | None = None) -> Topic:
        """The topic with EXTERNAL_ID (or, without one, the same question), added when missing."""
        topic = self.topics_by_external_id.get(external_id) if external_id else self.topic_find(question=question)
        if topic is None:
            topic = Topic(
                campaign=self.campaign,
                external_id=external_id or topic_external_id_for(question),
                text=question,
                data={"gold_answers": []},
            )
            self._topic_register(topic)
            self._new_topics.append(topic)
        return topic

    def gold_merge(self, *, topic: Topic, gold: list[str]) -> None:
        """Add gold answers the topic lacks, keeping their order (files disagree: one adds repaired spellings)."""
        have = topic.data.setdefault("gold_answers", [])
        added = [answer for answer in gold if answer not in have]
        if added:
            have.extend(added)
            if topic.pk is not None:
                self._gold_changed[topic.external_id] = topic

    def item_by_text(self, *, topic: Topic, text: str) -> Item | None:
        return next((item for item in self.items_by_topic[topic.external_id] if item.text == text), None)

    def item_by_key(self, *, topic: Topic, text: str) -> Item | None:
        key = answer_key(text)
        return next(
            (item for item in self.items_by_topic[topic.external_id] if item.data.get("answer_key") == key), None
        )

    def item_add(self, *, topic: Topic, text: str) -> Item:
        items = self.items_by_topic[topic.external_id]
        item = Item(
            campaign=self.campaign,
            topic=topic,
            external_id=f"{topic.external_id}-{len(items) + 1}",
            kind="answer",
            text=text,
            data={"answer_key": answer_key(text)},
        )
        items.append(item)
        self._new_items.append(item)
        return item

    def flush(self) -> None:
        """Write the new topics and items (topics first: items point at them) and changed gold answers."""
        if self._new_topics:
            Topic.objects.bulk_create(self._new_topics, batch_size=1000)
            self.topics_created += len(self._new_topics)
            self._new_topics = []
        if self._gold_changed:
            Topic.objects.bulk_update(list(self._gold_changed.values()), ["data"], batch_size=1000)
            self._gold_changed = {}
        if self._new_items:
            # Items built before their topic was saved pick up its primary key here (Django fills topic_id).
            Item.objects.bulk_create(self._new_items, batch_size=1000)
            self.items_created += len(self._new_items)
            self._new_items = []
        self.items_categorised += self.categories.write(campaign=self.campaign)
