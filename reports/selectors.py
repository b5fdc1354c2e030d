"""Reads for the agreement report: a campaign's human labels, judge labels and system outputs.

Each selector issues a fixed number of queries whatever the campaign's size (flat `values_list`
reads, grouped in Python), so the report costs the same handful of queries for 10 items or 100,000.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter

import numpy as np
from django.contrib.auth import get_user_model
from django.db import connections
from django.db.models import Count, Q

from annotate.ids import external_id_tail, json_text
from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, LabelPlan, SystemOutput, Topic
from annotate.task_types.registry import task_type_get
from annotate.task_types.spec import OPEN, TIE
from annotate.textnorm import answer_key
from judges.families import CUTTING_FAMILIES, EXTERNAL_FAMILY, FAMILIES, SAMPLE_FAMILIES
from judges.models import Judge, LeaderboardValue, ModelJudgment
from stats.distinct import distinct, lookup, sorted_as_sklearn
from stats.ratings import Ratings, label_counts
from stats.ratings import coded as ratings_coded
from stats.resampling import row_classes


@dataclass
class HumanLabels:
    """Current human labels of a campaign.

    `ratings` holds the current annotation labels (kind annotation; adjudications are verdicts, not raters) as
    integer-coded columns (stats.ratings.Ratings); `by_unit[unit_id][annotator]` gives the same labels as dicts.
    `item_label[item_id]` is the item's human label: the adjudication's label when there is one (the most recent, when
    several adjudicators settled it), else the majority of the current annotation labels once it is decided (the task
    type's human_label; by default annotate.task_types.spec.majority_label). Items whose k annotations are all in and
    tie
    are in `ties`; items whose annotations are still coming and could yet change the majority are in `open`; neither
    has an entry in `item_label`.
    """

    annotators: list[str] = field(default_factory=list)
    ratings: Ratings = field(default_factory=Ratings)
    item_label: dict[int, str] = field(default_factory=dict)
    ties: set[int] = field(default_factory=set)
    open: set[int] = field(default_factory=set)
    adjudicated: int = 0
    adjudicated_items: set[int] = field(default_factory=set)
    item_topic: dict[int, int] = field(default_factory=dict)  # item -> its topic: the cluster intervals resample

    @cached_property
    def by_unit(self) -> dict[int, dict[str, str]]:
        """{unit: {annotator: label}}, in unit order."""
        return self.ratings.by_unit()

    @cached_property
    def unit_item(self) -> dict[int, int]:
        """unit -> its item, for the units with annotation labels (item-level units)."""
        has_item = self.ratings.item >= 0
        return dict(zip(self.ratings.unit[has_item].tolist(), self.ratings.item[has_item].tolist(), strict=True))

    @cached_property
    def item_label_codes(self) -> tuple[np.ndarray, np.ndarray, list]:
        """item_label as codes (labels_coded)."""
        return labels_coded(self.item_label)

    @cached_property
    def item_topic_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """item_topic as (the items, ascending; each one's topic, -2 for none: a cluster of its own, as None is)."""
        items = np.fromiter(self.item_topic.keys(), dtype=np.int64, count=len(self.item_topic))
        try:
            topics = np.fromiter(self.item_topic.values(), dtype=np.int64, count=len(self.item_topic))
        except TypeError:  # a None among them
            topics = np.fromiter((-2 if topic is None else topic for topic in self.item_topic.values()),
                                 dtype=np.int64, count=len(self.item_topic))
        order = np.argsort(items, kind="stable")
        return items[order], topics[order]

    @cached_property
    def item_votes(self) -> dict[int, tuple[int, int]]:
        """item -> (annotations labelled "yes", annotations): the raters' votes behind a majority."""
        ratings = self.ratings
        has_item = ratings.item >= 0
        items, group = np.unique(ratings.item[has_item], return_inverse=True)
        yes = ratings.labels.index("yes") if "yes" in ratings.labels else -1
        counts = np.bincount(group.reshape(-1), minlength=len(items))
        yes_counts = np.bincount(group.reshape(-1), weights=ratings.label[has_item] == yes, minlength=len(items))
        return dict(zip(items.tolist(), zip(yes_counts.astype(int).tolist(), counts.tolist(), strict=True),
                        strict=True))


@dataclass
class JudgeLabels:
    """One judge's verdicts: `labels[item_id]` for the items it judged, `failed` the items it was asked
    about but gave no readable verdict on (kept apart: they are no label, but not "never asked")."""

    name: str
    family: str
    config: dict = field(default_factory=dict)
    labels: dict[int, str] = field(default_factory=dict)
    failed: set[int] = field(default_factory=set)
    scores: dict[int, float] = field(default_factory=dict)
    # Of the failed items, the label the imported file gave beside the unreadable verdict (fallback_label).
    fallback: dict[int, str] = field(default_factory=dict)
    id: int | None = None
    # Read on the held-out part of the campaign's development split (marked final), not on the development part.
    held_out: bool = False
    config_hash: str = ""  # the judge's version (judges.identity.config_hash)
    # The items of the part it is read on (judge_part_filter), None without a split: every figure of the judge, and
    # the humans' side of every comparison with it, reads these items only (reads_item).
    part: frozenset[int] | None = None

    @cached_property
    def label_codes(self) -> tuple[np.ndarray, np.ndarray, list]:
        """LABELS as codes (labels_coded), found once for every block that reads them so."""
        return labels_coded(self.labels)

    @property
    def imported(self) -> bool:
        """Whether its verdicts were imported (no family module runs it), as judges.models.Judge.is_external says."""
        return self.family == EXTERNAL_FAMILY

    def reads_item(self, item: int) -> bool:
        """Whether a figure of this judge may read ITEM: without a split every item; with one only its part's, so
        that no rule (a gold match, a string another verdict accepted) decides an output of the other part for it."""
        return self.part is None or item in self.part


@dataclass
class SystemOutputs:
    """Every system's outputs: `outputs[system]` is a list of (topic_id, item_id), sorted by system name.

    `gold_match[item_id]` says whether the item's answer matches one of its topic's gold answers
    after normalisation (`annotate.textnorm.answer_key`, which applies SQuAD normalisation).
    """

    outputs: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    gold_match: dict[int, bool] = field(default_factory=dict)
    # Read only for the qa-eval counting rule (tasktypes.qa_correctness.counting), else empty: each output's
    # prediction string and the gold answers its own file gave where they differ from its topic's, in the order of
    # `outputs`; each topic's gold answers; each item's (topic, answer string).
    predictions: dict[str, list[str]] = field(default_factory=dict)
    own_gold: dict[str, list[list[str] | None]] = field(default_factory=dict)  # an output's file's gold, if other
    gold_answers: dict[int, list[str]] = field(default_factory=dict)
    item_texts: dict[int, tuple[int, str]] = field(default_factory=dict)


# What a row costs the planner to pass on from a parallel worker, in the report's reads (_driver_rows).
PARALLEL_TUPLE_COST = 0.001


def _driver_rows(queryset) -> list[tuple]:
    """QUERYSET's rows (a values_list) as the database driver returns them, in one fetch: no per-row conversion by
    Django, which is a third of reading a million rows. Only for columns the driver already gives as the caller reads
    them (ids, text, numbers; a boolean may come as 0/1)."""
    sql, params = queryset.query.sql_with_params()
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    # PostgreSQL prices each row a parallel worker hands on at 0.1 (parallel_tuple_cost), which rules out a parallel
    # plan for a read of a million rows; the humans' read (a join) takes 0.2 s less with one (docs/benchmarks.md). The
    # setting holds for this read alone: sent with it in one query string, which PostgreSQL runs as one transaction.
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL parallel_tuple_cost = {PARALLEL_TUPLE_COST}; {sql}", params)
        cursor.nextset()
        return cursor.fetchall()


def judge_part_filter(campaign: Campaign) -> Q:
    """The model judgments of CAMPAIGN a statistic may read (ModelJudgment rows): all of them without a development
    split; with one (judges.development), a judge marked final on the held-out part only, every other judge on the
    development part only, so that nothing tuned on the development part is ever scored on the held-out part before
    it is marked final."""
    if not campaign.development_split:
        return Q()
    return (Q(judge__final_at__isnull=True, item__split="development")
            | Q(judge__final_at__isnull=False, item__split="held_out"))


def judge_parts_get(*, campaign: Campaign) -> dict[bool, frozenset[int]] | None:
    """The items each kind of judge is read on (judge_part_filter), by whether it is marked final: {False: the
    development part, True: the held-out part}; None without a split. One query with a split, none without."""
    if not campaign.development_split:
        return None
    parts: dict[str, list[int]] = {"development": [], "held_out": []}
    for item_id, part in Item.objects.filter(campaign=campaign).exclude(split="").values_list("id", "split"):
        parts.setdefault(part, []).append(item_id)
    return {False: frozenset(parts["development"]), True: frozenset(parts["held_out"])}


@dataclass
class HumanRead:
    """What human_labels_get reads of a campaign, before anything is computed of it: the current annotations as columns
    (_columns: unit, item, topic, judgments_needed, annotator, label), their annotators' ids (distinct, ascending) and
    names, the adjudications ((item, topic, label), oldest first) and the task type's rule for an item's label."""

    columns: list
    annotator_ids: np.ndarray
    names: dict[int, str]
    adjudications: list[tuple]
    human_label: Callable


def human_labels_read(*, campaign: Campaign) -> HumanRead:
    """The queries of human_labels_get (three), and the annotations turned into columns at once (their rows, a
    million tuples, let go here)."""
    current = HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True).exclude(label="")
    rows = _driver_rows(current.filter(kind=JudgmentKind.ANNOTATION).order_by().values_list(
        "unit_id", "unit__item_id", "unit__topic_id", "unit__judgments_needed", "annotator_id", "label"))
    # Of several adjudicators' current verdicts on an item, the most recent is its label: oldest first.
    adjudications = list(current.filter(kind=JudgmentKind.ADJUDICATION).order_by("unit_id", "created_at", "id")
                         .values_list("unit__item_id", "unit__topic_id", "label"))
    read = HumanRead(columns=[], annotator_ids=np.zeros(0, dtype=np.int64), names={}, adjudications=adjudications,
                     human_label=task_type_get(campaign.task_type).human_label)
    if rows:
        read.columns = _columns(rows)
        read.annotator_ids = distinct(read.columns[4])
        read.names = dict(get_user_model().objects.filter(pk__in=read.annotator_ids.tolist())
                          .values_list("pk", "username"))
    return read


def human_labels_of(read: HumanRead) -> HumanLabels:
    """The HumanLabels of what human_labels_read read: no query, so that a build may find them in a thread beside its
    next read (reports.beside)."""
    adjudications = read.adjudications
    adjudication = {item: label for item, _, label in adjudications if item is not None}
    result = HumanLabels(item_topic={item: topic for item, topic, _ in adjudications if item is not None})
    if read.columns:
        unit, item, topic, needed, annotator, label = read.columns
        label_code, labels = ratings_coded(label)
        order = np.argsort(unit, kind="stable")
        unit, item, topic, needed, annotator, label_code = (column[order] for column in (
            unit, item, topic, needed, annotator, label_code))
        # Annotators by name: their ids' positions, reordered as their names sort.
        ids = read.annotator_ids
        rater = lookup(ids, annotator)[0]
        raters = [read.names[pk] for pk in ids.tolist()]
        by_name = np.argsort(np.array(raters, dtype=object), kind="stable")
        position = np.empty(len(ids), dtype=np.int64)
        position[by_name] = np.arange(len(ids))
        rater, raters = position[rater], [raters[index] for index in by_name.tolist()]
        result.annotators = raters
        result.ratings = Ratings(unit=unit, item=item, rater=rater, label=label_code, raters=raters, labels=labels)
        _item_labels(result, topic=topic, needed=needed, adjudicated=adjudication.keys(), human_label=read.human_label)
    result.item_label.update(adjudication)
    result.adjudicated = len(adjudication)
    result.adjudicated_items = set(adjudication)
    return result


def human_labels_get(*, campaign: Campaign) -> HumanLabels:
    """Current human annotation labels as columns (stats.ratings) and each item's human label. Three queries.

    Written for campaigns of a million judgments: the annotations are read as the driver's rows and turned into
    integer columns at once; each item's label is asked of the task type once per distinct tally of votes (how many of
    each label, and k), not once per item.
    """
    return human_labels_of(human_labels_read(campaign=campaign))


def _columns(rows: list[tuple]) -> list:
    """The driver's rows (unit, item, topic, judgments_needed, annotator, label) as columns: numpy integers, each read
    straight from the rows (no transposed copy), an item or topic that is NULL (a unit that is a topic) as -1; the
    labels as a list."""
    def integers(index: int) -> np.ndarray:
        try:
            return np.fromiter(map(itemgetter(index), rows), dtype=np.int64, count=len(rows))
        except TypeError:  # a NULL among them
            return np.fromiter((-1 if value is None else value for value in map(itemgetter(index), rows)),
                               dtype=np.int64, count=len(rows))

    return [*(integers(index) for index in range(5)), list(map(itemgetter(5), rows))]


def _item_labels(result: HumanLabels, *, topic: np.ndarray, needed: np.ndarray, adjudicated, human_label) -> None:
    """Fill RESULT's item_label, ties, open and item_topic from its ratings: each item's votes are the labels of its
    units, tallied; HUMAN_LABEL (the task type's) is asked once per distinct tally and k, with the labels in no
    particular order (the rule reads how many of each there are). Items in ADJUDICATED keep no majority: their
    adjudication is their label."""
    ratings = result.ratings
    has_item = np.flatnonzero(ratings.item >= 0)
    if not len(has_item):
        return
    items, first, group = np.unique(ratings.item[has_item], return_index=True, return_inverse=True)
    group = group.reshape(-1)
    result.item_topic.update(zip(items.tolist(), topic[has_item][first].tolist(), strict=True))
    # k of an item: its last unit's (the rows are in unit order).
    last = len(has_item) - 1 - np.unique(ratings.item[has_item][::-1], return_index=True)[1]
    tally = label_counts(group, ratings.label[has_item], groups=len(items), labels=len(ratings.labels))
    tallies, which = row_classes(np.column_stack([tally, needed[has_item][last]]))
    verdicts = [human_label([label for label, count in zip(ratings.labels, row[:-1].tolist(), strict=True)
                             for _ in range(count)], needed=int(row[-1])) for row in tallies]
    # The items in the order their first unit comes (the order item_label has always had), the adjudicated left out.
    order = np.argsort(first, kind="stable")
    order = order[~np.isin(items[order], np.fromiter(adjudicated, dtype=np.int64, count=len(adjudicated)))]
    items, which = items[order], which[order]
    tie = np.array([verdict is TIE for verdict in verdicts])[which]
    still_open = np.array([verdict == OPEN for verdict in verdicts])[which]
    result.ties.update(items[tie].tolist())
    result.open.update(items[still_open].tolist())
    decided = ~(tie | still_open)
    result.item_label.update(zip(items[decided].tolist(), np.array(verdicts, dtype=object)[which[decided]].tolist(),
                                 strict=True))


def labels_coded(labels: Mapping[int, Hashable]) -> tuple[np.ndarray, np.ndarray, list]:
    """LABELS {integer item: label} as codes: (the items, ascending; each one's label as a position in the third; the
    distinct labels, sorted as sklearn sorts them)."""
    values = sorted_as_sklearn(set(labels.values()))
    code = {value: index for index, value in enumerate(values)}
    items = np.fromiter(labels.keys(), dtype=np.int64, count=len(labels))
    codes = np.fromiter(map(code.__getitem__, labels.values()), dtype=np.int64, count=len(labels))
    order = np.argsort(items, kind="stable")
    return items[order], codes[order], values


@dataclass
class Paired:
    """A judge's label beside the human label on every item both have one for, as codes, with each item's topic: what
    the judge's item agreement, its budget and the tests between judges read. ITEM: the ids, ascending; HUMAN_CODE and
    MODEL_CODE: each side's label, a position in LEVELS (the labels either side gives here, sorted as sklearn sorts
    them: as interrater.cohen_kappa codes them); TOPIC: each item's topic (the item itself when it has none)."""

    item: np.ndarray
    human_code: np.ndarray
    model_code: np.ndarray
    topic: np.ndarray
    levels: list

    @cached_property
    def tables(self) -> np.ndarray:
        """One contingency table per topic, the human label by row (interrater.cluster_tables of human, model, topics
        over LEVELS): what the item agreement's interval and the budget resample."""
        from stats import interrater  # on first use: start-up stays without sklearn and scipy

        return interrater.code_tables(self.human_code, self.model_code, self.topic, len(self.levels))


def judge_human_pairs(*, judge: JudgeLabels, humans: HumanLabels) -> Paired:
    """JUDGE's labels and HUMANS' on the items both labelled (a judge's failed verdicts and the humans' ties and open
    items are no label)."""
    human_items, human_codes, human_values = humans.item_label_codes
    items, model, model_values = judge.label_codes
    at, both = lookup(human_items, items)
    items, human, model = items[both], human_codes[at[both]], model[both]
    levels = sorted_as_sklearn({*(human_values[code] for code in distinct(human).tolist()),
                                *(model_values[code] for code in distinct(model).tolist())})
    position = {label: index for index, label in enumerate(levels)}

    def recoded(codes: np.ndarray, values: list) -> np.ndarray:
        return np.array([position.get(value, -1) for value in values] + [-1], dtype=np.int64)[codes]

    topic_items, topics = humans.item_topic_ids
    where, has_topic = lookup(topic_items, items)
    return Paired(item=items, human_code=recoded(human, human_values), model_code=recoded(model, model_values),
                  topic=np.where(has_topic, topics[where] if len(topics) else items, items), levels=levels)


def judge_labels_get(*, campaign: Campaign) -> list[JudgeLabels]:
    """Every judge of the campaign (external ones included), by name, with its verdicts and the items of its part of a
    development split (judge_part_filter, judge_parts_get). Two queries, three with a split."""
    split = bool(campaign.development_split)
    parts = judge_parts_get(campaign=campaign)
    judges = {
        judge_id: JudgeLabels(name=name, family=family, config=config or {}, id=judge_id, config_hash=config_hash,
                              held_out=split and final_at is not None,
                              part=None if parts is None else parts[final_at is not None])
        for judge_id, name, family, config, config_hash, final_at in Judge.objects.filter(campaign=campaign)
        .order_by("name").values_list("id", "name", "family", "config", "config_hash", "final_at")
    }
    rows = _driver_rows(ModelJudgment.objects.filter(judge_part_filter(campaign), judge__campaign=campaign).values_list(
        "judge_id", "item_id", "label", "failed", "score", "fallback_label"
    ))
    for judge_id, item_id, label, failed, score, fallback in rows:
        judge = judges[judge_id]
        if failed or not label:
            judge.failed.add(item_id)
            if fallback:
                judge.fallback[item_id] = fallback
        else:
            judge.labels[item_id] = label
            if score is not None:
                judge.scores[item_id] = score
    return list(judges.values())


def system_outputs_get(*, campaign: Campaign, texts: bool = False) -> SystemOutputs:
    """Every system's outputs (system -> [(topic, item)]) and whether each output item matches a gold answer.

    Two queries. The match uses the item's stored `data["answer_key"]` when present, else its text. TEXTS (the
    qa-eval counting rule) also reads each output's prediction, the gold answers and the items' answer strings: one
    query more.
    """
    # Only the topics that have system outputs (none read when the campaign has no systems).
    with_outputs = SystemOutput.objects.filter(campaign=campaign).values("topic_id")
    result = SystemOutputs()
    gold_keys = {}
    for topic_id, data in Topic.objects.filter(campaign=campaign, id__in=with_outputs).values_list("id", "data"):
        gold = [str(answer) for answer in (data or {}).get("gold_answers", [])]
        gold_keys[topic_id] = {answer_key(answer) for answer in gold}
        if texts:
            result.gold_answers[topic_id] = gold
    columns = ["system", "topic_id", "item_id", "item__text", "item__data"] + (["data"] if texts else [])
    rows = SystemOutput.objects.filter(campaign=campaign).values_list(*columns).order_by("system", "topic_id",
                                                                                          "item_id")
    for system, topic_id, item_id, text, data, *output_data in rows:
        result.outputs.setdefault(system, []).append((topic_id, item_id))
        if texts:
            result.predictions.setdefault(system, []).append(_prediction(output_data[0], fallback=text or ""))
            own = (output_data[0] or {}).get("gold_answers")
            result.own_gold.setdefault(system, []).append([str(a) for a in own] if isinstance(own, list) else None)
        if item_id not in result.gold_match:
            key = (data or {}).get("answer_key") or answer_key(text or "")
            result.gold_match[item_id] = bool(key) and key in gold_keys.get(topic_id, ())
    if texts:
        result.item_texts = {
            item_id: (topic_id, text)
            for item_id, topic_id, text in Item.objects.filter(campaign=campaign, topic_id__in=with_outputs)
            .values_list("id", "topic_id", "text")
        }
    return result


def _prediction(data, *, fallback: str) -> str:
    """An output's prediction string: its stored prediction (the first of a list), stripped; else its item's text."""
    raw = (data or {}).get("prediction") if isinstance(data, dict) else None
    if isinstance(raw, list) and raw and isinstance(raw[0], str):
        raw = raw[0]
    return raw.strip() if isinstance(raw, str) else fallback


# --- ais: the raters' answers to each question, and the items a report lists ---


@dataclass
class AisAnswers:
    """`by_unit[unit_id][annotator]` = (interpretable, supported or None) from current AIS annotations."""

    by_unit: dict[int, dict[str, tuple[bool, bool | None]]] = field(default_factory=dict)


def ais_answers_get(*, campaign: Campaign) -> AisAnswers:
    """Every current AIS annotation's two answers. One query; values of another shape are skipped."""
    rows = HumanJudgment.objects.filter(
        unit__campaign=campaign, kind=JudgmentKind.ANNOTATION, is_current=True
    ).values_list("unit_id", "annotator__username", "value")
    result = AisAnswers()
    for unit_id, username, value in rows:
        if isinstance(value, dict) and isinstance(value.get("interpretable"), bool):
            supported = value.get("supported")
            result.by_unit.setdefault(unit_id, {})[username] = (
                value["interpretable"], supported if isinstance(supported, bool) else None
            )
    return result


def input_cuts_get(*, campaign: Campaign) -> dict[str, dict]:
    """Per judge of a family whose input limit may cut an item's text (judges.families.CUTTING_FAMILIES): how many of
    its inputs it read whole, truncated or in windows, with its settings.

    Counted from the notes families write in each verdict's raw text (judges.families.base NOTE_*). One query.
    {"long_passages" (families that take that option; else None), "max_length" (None: the model's limit), "whole",
    "truncated", "windowed"}. With a development split, over the judge's part only.
    """
    from judges.families.base import NOTE_TRUNCATED, NOTE_WINDOWED

    judged = Q(judgments__failed=False)
    if campaign.development_split:
        # Counted on the judge's part only, as every figure of it (judge_part_filter, seen from the judge).
        judged &= (Q(final_at__isnull=True, judgments__item__split="development")
                   | Q(final_at__isnull=False, judgments__item__split="held_out"))
    rows = Judge.objects.filter(campaign=campaign, family__in=CUTTING_FAMILIES).annotate(
        judged=Count("judgments", filter=judged),
        truncated=Count("judgments", filter=judged & Q(judgments__raw__contains=NOTE_TRUNCATED)),
        windowed=Count("judgments", filter=judged & Q(judgments__raw__contains=NOTE_WINDOWED)),
    ).values_list("name", "family", "config", "judged", "truncated", "windowed")
    return {
        name: {"long_passages": (config or {}).get("long_passages", "truncate")
               if "long_passages" in FAMILIES[family].options else None,
               "max_length": (config or {}).get("max_length"),
               "whole": judged - truncated - windowed, "truncated": truncated, "windowed": windowed}
        for name, family, config, judged, truncated, windowed in rows
    }


def item_rows_get(*, campaign: Campaign):
    """(item id, topic id, item external id, kind, category) of every item of CAMPAIGN in id order, streamed (the
    items CSV)."""
    return (Item.objects.filter(campaign=campaign).order_by("id")
            .values_list("id", "topic__external_id", "external_id", "kind", "category").iterator(chunk_size=5000))


def item_categories_get(*, campaign: Campaign) -> dict[int, str]:
    """{item: its category, "" for none} of every item of CAMPAIGN, or {} when no item has a category (one cheap
    query then, the usual case: the report's block by category is null)."""
    items = Item.objects.filter(campaign=campaign)
    if not items.exclude(category="").exists():
        return {}
    return dict(items.values_list("id", "category").iterator(chunk_size=10_000))


def items_brief_get(*, item_ids: set[int]) -> dict[int, dict]:
    """{item id: {"external_id", "question", "answer", "system"}} for a few listed items. One query."""
    rows = Item.objects.filter(pk__in=item_ids).values_list(
        "pk", "external_id", "topic__text", "text", json_text("data__system")
    )
    return {pk: {"external_id": external_id, "question": question, "answer": answer, "system": system or ""}
            for pk, external_id, question, answer, system in rows}


# --- graded relevance (image_relevance, passage_relevance): judges' raw scores, items' topics, stored runs ---


@dataclass
class JudgeScores:
    """One judge's scores: `scores[item]` (higher = better; rankers, CLIPScore, VLM), `grades[item]` when the
    verdict's label is already a grade "0"/"1"/"2" (imported grades), `failed` the items it gave no score."""

    name: str
    family: str
    scores: dict[int, float] = field(default_factory=dict)
    grades: dict[int, int] = field(default_factory=dict)
    failed: set[int] = field(default_factory=set)
    part: frozenset[int] | None = None  # as JudgeLabels.part
    held_out: bool = False  # as JudgeLabels.held_out

    reads_item = JudgeLabels.reads_item


GRADE_LABELS = {str(grade): grade for grade in range(10)}  # a judge's grade on any scale (tasktypes.graded)


def judge_scores_get(*, campaign: Campaign) -> list[JudgeScores]:
    """Every judge of the campaign, by name, with its scores and grades and the items of its part of a development
    split (judge_part_filter, judge_parts_get). Two queries, three with a split."""
    parts = judge_parts_get(campaign=campaign)
    judges = {
        judge_id: JudgeScores(name=name, family=family, part=None if parts is None else parts[final_at is not None],
                               held_out=parts is not None and final_at is not None)
        for judge_id, name, family, final_at in Judge.objects.filter(campaign=campaign).order_by("name").values_list(
            "id", "name", "family", "final_at")
    }
    rows = ModelJudgment.objects.filter(judge_part_filter(campaign), judge__campaign=campaign).values_list(
        "judge_id", "item_id", "score", "label", "failed")
    for judge_id, item_id, score, label, failed in rows:
        judge = judges[judge_id]
        if failed:
            judge.failed.add(item_id)
            continue
        if label in GRADE_LABELS:
            judge.grades[item_id] = GRADE_LABELS[label]
        if score is not None:
            judge.scores[item_id] = score
        elif label not in GRADE_LABELS:
            judge.failed.add(item_id)
    return list(judges.values())


def graded_items_get(*, campaign: Campaign) -> dict[int, tuple[str, str]]:
    """{item id: (topic external id, doc id)} for the campaign's graded items: those of its task type's item_kind,
    the doc id (what runs and qrels name the item by) from Item.data[doc_key], else the external id's part after
    "<qid>/". One query."""
    spec = task_type_get(campaign.task_type)
    fields = ["id", "topic__external_id", "external_id"] + (
        [json_text(f"data__{spec.doc_key}")] if spec.doc_key else []
    )
    return {pk: (qid, (doc[0] if doc else None) or external_id_tail(external_id, qid))
            for pk, qid, external_id, *doc in
            Item.objects.filter(campaign=campaign, kind=spec.item_kind).values_list(*fields)}


def leaderboards_get(*, campaign: Campaign) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """The campaign's imported leaderboards (format trec-leaderboard): {judge: {run: {measure: {topic: value}}}}, the
    topic "all" holding a run's mean over topics; by judge name."""
    boards: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    rows = (LeaderboardValue.objects.filter(leaderboard__campaign=campaign)
            .order_by("leaderboard__name", "run", "measure", "topic")
            .values_list("leaderboard__name", "run", "measure", "topic", "value"))
    for name, run, measure, topic, value in rows.iterator(chunk_size=5000):
        boards[name][run][measure][topic] = value
    return {name: {run: dict(measures) for run, measures in runs.items()} for name, runs in boards.items()}


# --- answer_ranking (docs/answer_ranking.md) ---


@dataclass
class RankingCandidate:
    pk: int
    external_id: str
    kind: str  # "answer" or "document"
    # A document's grades from imported trec-qrels files: {qrels name (the file's stem): grade}.
    qrels: dict = field(default_factory=dict)


@dataclass
class RankingTopic:
    """One topic of an answer_ranking campaign with its candidates and its current human rankings.

    `rankings[annotator][dimension]` and `adjudicated[dimension]` are lists of tie groups of Item pks,
    best first (HumanJudgment.value["rankings"]); pks that are not candidates of this topic are dropped.
    In a campaign with rank_depth (partial rankings), a ranking that leaves candidates out is completed here with
    one last tie group of the unranked candidates (docs/answer_ranking.md: unranked = tied below every ranked one);
    `partial[annotator]` (the adjudication under "adjudication") names the dimensions that were completed so.
    """

    pk: int
    external_id: str
    candidates: list[RankingCandidate] = field(default_factory=list)
    rankings: dict[str, dict[str, list[list[int]]]] = field(default_factory=dict)
    adjudicated: dict[str, list[list[int]]] = field(default_factory=dict)
    partial: dict[str, set[str]] = field(default_factory=dict)


@dataclass
class RankingData:
    """`answer_system[item_id]` = (system, prompt) of each generated answer that a SystemOutput names."""

    topics: list[RankingTopic] = field(default_factory=list)
    answer_system: dict[int, tuple[str, str]] = field(default_factory=dict)
    annotators: list[str] = field(default_factory=list)
    dimensions: list[str] = field(default_factory=list)
    judges: list[JudgeScores] = field(default_factory=list)
    # The campaign's rank_depth (k: rankings of the best k candidates), None when every candidate is ranked.
    rank_depth: int | None = None


def _topic_sort_key(external_id: str):
    # qids are usually numbers: "2" before "10" ("007" beside "7", each kept as it is; other digits than 0-9 are text)
    return (0, int(external_id), external_id) if external_id.isascii() and external_id.isdigit() \
        else (1, 0, external_id)


def _pk(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _clean_groups(groups, allowed: set[int]) -> list[list[int]]:
    """The tie groups with every pk an int of this topic's candidates; empty groups dropped."""
    cleaned = []
    for group in groups or []:
        members = [pk for pk in map(_pk, group if isinstance(group, list) else [group]) if pk in allowed]
        if members:
            cleaned.append(members)
    return cleaned


def _completed(groups: list[list[int]], candidates: list[RankingCandidate]) -> list[list[int]]:
    """GROUPS with the candidates they leave out appended as one last tie group (candidate order), if any."""
    placed = {pk for group in groups for pk in group}
    unranked = [c.pk for c in candidates if c.pk not in placed]
    return groups + [unranked] if unranked else groups


def ranking_data_get(*, campaign: Campaign) -> RankingData:
    """Everything the answer_ranking report needs, in six queries whatever the campaign's size (seven with a
    development split).

    Topics and their candidate items; each annotator's current ranking per topic and dimension, and
    the current adjudicated ranking; every judge's scores per item.
    """
    data = RankingData()
    topics: dict[int, RankingTopic] = {
        pk: RankingTopic(pk=pk, external_id=external_id)
        for pk, external_id in Topic.objects.filter(campaign=campaign).values_list("id", "external_id")
    }
    candidate_topic: dict[int, int] = {}
    for pk, topic_id, external_id, kind, item_data in (
        Item.objects.filter(campaign=campaign).order_by("topic_id", "id").values_list("id", "topic_id", "external_id",
                                                                                      "kind", "data")
    ):
        qrels = (item_data or {}).get("qrels") if isinstance(item_data, dict) else None
        topics[topic_id].candidates.append(RankingCandidate(
            pk=pk, external_id=external_id, kind=kind,
            qrels={str(name): grade for name, grade in qrels.items() if isinstance(grade, int)}
            if isinstance(qrels, dict) else {}))
        candidate_topic[pk] = topic_id
    allowed = {topic_id: {c.pk for c in topic.candidates} for topic_id, topic in topics.items()}

    dimensions = [str(d) for d in (campaign.options or {}).get("dimensions") or []] or ["overall"]
    depth = (campaign.options or {}).get("rank_depth")
    data.rank_depth = depth if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 1 else None
    seen_dimensions: set[str] = set()
    annotators: set[str] = set()
    rows = (
        HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True)
        .values_list("unit__topic_id", "annotator__username", "kind", "value")
        # Oldest first: of several adjudicators' current rankings of a topic, the most recent is the reference.
        .order_by("unit__topic_id", "created_at", "id")
    )
    for topic_id, username, kind, value in rows:
        rankings = (value or {}).get("rankings") if isinstance(value, dict) else None
        if not isinstance(rankings, dict) or topic_id not in topics:
            continue
        cleaned = {str(dim): _clean_groups(groups, allowed[topic_id]) for dim, groups in rankings.items()}
        seen_dimensions.update(cleaned)
        if data.rank_depth is not None:
            # A candidate a partial ranking leaves out is unranked: tied below every ranked one. Without rank_depth
            # a missing candidate was added after the ranking, and is left out of the statistics as before.
            candidates = topics[topic_id].candidates
            completed = {dim: _completed(groups, candidates) if groups else groups for dim, groups in cleaned.items()}
            partial = {dim for dim in cleaned if completed[dim] is not cleaned[dim]}
            who = "adjudication" if kind == JudgmentKind.ADJUDICATION else username
            if partial:
                topics[topic_id].partial[who] = partial
            else:
                topics[topic_id].partial.pop(who, None)
            cleaned = completed
        if kind == JudgmentKind.ADJUDICATION:
            topics[topic_id].adjudicated = cleaned
        else:
            topics[topic_id].rankings[username] = cleaned
            annotators.add(username)
    data.dimensions = dimensions + sorted(seen_dimensions - set(dimensions))
    data.annotators = sorted(annotators)
    data.topics = sorted(topics.values(), key=lambda topic: _topic_sort_key(topic.external_id))

    parts = judge_parts_get(campaign=campaign)
    judges = {
        judge_id: JudgeScores(name=name, family=family, part=None if parts is None else parts[final_at is not None],
                               held_out=parts is not None and final_at is not None)
        for judge_id, name, family, final_at in Judge.objects.filter(campaign=campaign).order_by("name").values_list(
            "id", "name", "family", "final_at"
        )
    }
    for judge_id, item_id, score, failed in ModelJudgment.objects.filter(
        judge_part_filter(campaign), judge__campaign=campaign
    ).values_list("judge_id", "item_id", "score", "failed"):
        if failed or score is None:
            judges[judge_id].failed.add(item_id)
        else:
            judges[judge_id].scores[item_id] = float(score)
    data.judges = list(judges.values())
    for item_id, system, output_data in SystemOutput.objects.filter(campaign=campaign, item__kind="answer").values_list(
        "item_id", "system", "data"
    ).order_by("id"):
        prompt = (output_data or {}).get("prompt") if isinstance(output_data, dict) else None
        data.answer_system.setdefault(item_id, (system, str(prompt) if prompt not in (None, "") else ""))
    return data


@dataclass(frozen=True)
class LlmJudgeCost:
    """What one LLM judge's configuration is and what its samples cost (for the ablation table)."""

    name: str
    config: dict
    samples: int
    seconds: float  # generation time summed over the samples
    prompt_tokens: int
    completion_tokens: int
    run_seconds: float  # wall-clock time of its finished runs, queueing included
    last_run: str = ""  # its latest run as a phrase ("latest run failed: ..."), "" when never run


def llm_judge_costs_get(*, campaign: Campaign) -> list[LlmJudgeCost]:
    """The campaign's LLM judges by name, with totals over their samples (judges.selectors) and runs. Four queries."""
    from judges.models import JudgeRun
    from judges.secrets import config_public
    from judges.selectors import judges_usage_for_campaign

    judges = list(Judge.objects.filter(campaign=campaign, family__in=SAMPLE_FAMILIES).order_by("name")
                  .values_list("id", "name", "config"))
    usage = judges_usage_for_campaign(campaign=campaign, configs={judge_id: config for judge_id, _, config in judges})
    run_seconds: dict[int, float] = defaultdict(float)
    runs = JudgeRun.objects.filter(
        judge__campaign=campaign, judge__family__in=SAMPLE_FAMILIES, started_at__isnull=False, finished_at__isnull=False
    ).values_list("judge_id", "started_at", "finished_at")
    for judge_id, started, finished in runs:
        assert started is not None and finished is not None  # the query keeps the runs that have both
        run_seconds[judge_id] += (finished - started).total_seconds()
    last_run = {}
    # No run id in the phrase: the report must read the same after an archive restores the runs under other ids.
    for judge_id, status, error in (JudgeRun.objects.filter(judge__campaign=campaign, judge__family__in=SAMPLE_FAMILIES)
                                    .order_by("judge_id", "id").values_list("judge_id", "status", "error")):
        last_run[judge_id] = f"latest run {status}" + (f": {error}" if error else "")
    costs = []
    for judge_id, name, config in judges:
        totals = usage[judge_id]
        costs.append(LlmJudgeCost(
            name=name, config=config_public(config), samples=totals.samples, seconds=totals.seconds,
            prompt_tokens=totals.prompt_tokens, completion_tokens=totals.completion_tokens,
            run_seconds=run_seconds[judge_id], last_run=last_run.get(judge_id, ""),
        ))
    return costs


def label_plan_get(*, campaign: Campaign) -> tuple[str, list[list]] | None:
    """(the plan's name, its topics: [topic id, external id, weight, key] in the queue's order) of the label plan
    CAMPAIGN's queue follows (queue_order "sample", annotate.models.LabelPlan), each topic's id read again by its
    external id; None when it follows none. Two queries."""
    if (campaign.options or {}).get("queue_order") != "sample":
        return None
    found = LabelPlan.objects.filter(campaign=campaign).values_list("plan", "topics").first()
    if found is None:
        return None
    # The topics' ids as they are here (an archive's import gives them new ones; the external ids stay).
    ids = dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "id"))
    plan, topics = found
    return plan, [[ids[external], external, weight, key] for _, external, weight, key in topics if external in ids]
