"""The nugget lists a campaign's topics may be frozen from, and freezing them (freeze.py) by the researcher's choice:
the Nuggets page (views.py) and its API.

A topic's candidate lists, by source (layout.py's SOURCE_*): each assessor's current creation list
("assessor:<username>"), the adjudicated one ("adjudicated"), each judge's ("judge:<name>", a readable verdict on the
topic's nuggets item) and each imported proposal ("import:<name>"). Two queries for the candidates, whatever the
campaign's size."""

import json
from dataclasses import dataclass, field

from django.db import transaction

from annotate.models import Campaign, HumanJudgment, JudgmentKind, Topic
from annotate.services.data_version import campaign_data_changed
from judges.models import ModelJudgment
from tasktypes.nugget_evaluation.freeze import NuggetListError, nuggets_checked, round_marked, topic_list_freeze
from tasktypes.nugget_evaluation.layout import (
    NUGGETS_KIND,
    SOURCE_ADJUDICATED,
    SOURCE_ASSESSOR,
    SOURCE_JUDGE,
    topic_list,
)
from tasktypes.nugget_evaluation.steps import steps_sync

# The rules the page offers for freezing every topic at once, beside a source named exactly.
RULE_HUMAN = "human"  # the adjudicated list, else the only assessor's; a topic with two and no adjudication is left


class FreezeError(ValueError):
    """A freeze that cannot be done: an unknown source, a topic without it."""


@dataclass
class TopicLists:
    topic: Topic
    candidates: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def frozen(self) -> dict | None:
        return topic_list(self.topic.data)

    def human(self) -> str | None:
        """The source RULE_HUMAN picks: the adjudicated list, else the only assessor's; None when neither."""
        if SOURCE_ADJUDICATED in self.candidates:
            return SOURCE_ADJUDICATED
        assessors = [source for source in self.candidates if source.startswith(SOURCE_ASSESSOR)]
        return assessors[0] if len(assessors) == 1 else None


def _listed(nuggets) -> list[dict] | None:
    """NUGGETS as a list that may be frozen (ids, texts and importances only), None when it may not."""
    try:
        return nuggets_checked(nuggets)
    except NuggetListError:
        return None


def campaign_lists(*, campaign: Campaign, topics=None) -> list[TopicLists]:
    """Every topic of CAMPAIGN (of TOPICS, ids, when given) with its candidate lists, in import order."""
    rows = Topic.objects.filter(campaign=campaign).order_by("pk")
    if topics is not None:
        rows = rows.filter(pk__in=topics)
    found = {topic.pk: TopicLists(topic=topic) for topic in rows}
    humans = (HumanJudgment.objects.filter(unit__campaign=campaign, unit__item__kind=NUGGETS_KIND, is_current=True,
                                           unit__topic_id__in=list(found))
              .order_by("kind", "annotator__username").values_list("unit__topic_id", "kind", "annotator__username",
                                                                   "value"))
    for topic_id, kind, username, value in humans:
        nuggets = _listed((value or {}).get("nuggets"))
        if nuggets:
            source = SOURCE_ADJUDICATED if kind == JudgmentKind.ADJUDICATION else f"{SOURCE_ASSESSOR}{username}"
            found[topic_id].candidates[source] = nuggets
    judged = (ModelJudgment.objects.filter(judge__campaign=campaign, item__kind=NUGGETS_KIND, failed=False,
                                           item__topic_id__in=list(found))
              .order_by("judge__name").values_list("item__topic_id", "judge__name", "raw"))
    for topic_id, name, raw in judged:
        try:
            nuggets = _listed(json.loads(raw).get("nuggets"))
        except (ValueError, AttributeError):
            nuggets = None
        if nuggets:
            found[topic_id].candidates[f"{SOURCE_JUDGE}{name}"] = nuggets
    for lists in found.values():
        for source, nuggets in sorted(((lists.topic.data or {}).get("proposals") or {}).items()):
            listed = _listed(nuggets)
            if listed:
                lists.candidates[source] = listed
    return list(found.values())


def _why_none(lists: TopicLists, source: str) -> str:
    if source != RULE_HUMAN:
        return f"no list from {source}"
    if any(candidate.startswith(SOURCE_ASSESSOR) for candidate in lists.candidates):
        return "two or more assessors' lists and none adjudicated"
    return "no assessor's list yet"


def lists_freeze(*, campaign: Campaign, source: str, topics: list[int] | None = None) -> dict:
    """Freeze the list of SOURCE (a candidate source, or RULE_HUMAN) for TOPICS of CAMPAIGN (every topic when None).
    Returns {"frozen": topics frozen, "new_rounds": those that started a new round, "left": {topic external id:
    why not}}. A topic whose list from that source is already its frozen one is left as it is."""
    result: dict = {"frozen": 0, "new_rounds": 0, "left": {}}
    with transaction.atomic():
        # The campaign's row first: two freezes of one campaign take turns.
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        for lists in campaign_lists(campaign=campaign, topics=topics):
            chosen = lists.human() if source == RULE_HUMAN else source
            nuggets = lists.candidates.get(chosen) if chosen else None
            if nuggets is None:
                result["left"][lists.topic.external_id] = (
                    _why_none(lists, source))
                continue
            current = lists.frozen
            if current is not None and current["nuggets"] == nuggets:
                result["left"][lists.topic.external_id] = f"already frozen from {current['source']}"
                continue
            new_round = current is not None and round_marked(lists.topic)
            topic_list_freeze(topic=lists.topic, nuggets=nuggets, source=chosen or source)
            result["frozen"] += 1
            result["new_rounds"] += int(new_round)
        if result["frozen"]:
            steps_sync(campaign)
            campaign_data_changed(campaign_id=campaign.pk)
    if not result["frozen"] and not result["left"]:
        raise FreezeError("The campaign has no topics.")
    return result
