"""Matching a topic's frozen list with another list of it (a judge's, an imported one), nugget by nugget, by a person:
which of the other list's nuggets says the same as each frozen nugget, or none. The report's recovery of the frozen
lists by each source counts these matches (never string equality). Kept in Topic.data["matches"] (layout.py)."""

from django.db import transaction
from django.utils import timezone

from annotate.models import Campaign, Topic
from annotate.services.data_version import campaign_data_changed
from tasktypes.nugget_evaluation.layout import SOURCE_ADJUDICATED, SOURCE_ASSESSOR, topic_list
from tasktypes.nugget_evaluation.lists import campaign_lists


class MatchError(ValueError):
    """A match that cannot be kept: a topic not frozen, a source it has no list from, an unknown nugget."""


def matchable(*, campaign: Campaign) -> list[dict]:
    """Every (frozen topic, other list) that may be matched: {"topic", "source", "frozen", "other", "match": the
    match kept (None when none, or when it was made on another version of the frozen list)}. The lists the humans
    wrote (an assessor's, the adjudicated) are left out: they are what the frozen list is made from."""
    rows = []
    for lists in campaign_lists(campaign=campaign):
        frozen = lists.frozen
        if frozen is None:
            continue
        kept = (lists.topic.data or {}).get("matches") or {}
        for source, nuggets in lists.candidates.items():
            if source.startswith(SOURCE_ASSESSOR) or source == SOURCE_ADJUDICATED or source == frozen["source"]:
                continue
            match = kept.get(source)
            rows.append({"topic": lists.topic, "source": source, "frozen": frozen, "other": nuggets,
                         "match": match if isinstance(match, dict) and match.get("version") == frozen["version"]
                         else None})
    return rows


def match_save(*, campaign: Campaign, topic_id: str, source: str, pairs: dict[str, str], by) -> dict:
    """Keep BY's match of TOPIC_ID's frozen list with SOURCE's list: PAIRS maps every frozen nugget's id to the
    other list's nugget id that says the same, or "" for none. Returns the match kept."""
    found = next((row for row in matchable(campaign=campaign)
                  if row["topic"].external_id == topic_id and row["source"] == source), None)
    if found is None:
        raise MatchError(f"topic {topic_id!r} has no frozen list, or no list from {source!r} to match with it")
    frozen_ids = [nugget["id"] for nugget in found["frozen"]["nuggets"]]
    other_ids = {nugget["id"] for nugget in found["other"]}
    missing = [nugget for nugget in frozen_ids if nugget not in pairs]
    if missing:
        raise MatchError(f"say for every nugget which nugget of the other list matches it, or none "
                         f"({len(missing)} of {len(frozen_ids)} not said)")
    unknown = sorted({value for value in pairs.values() if value and value not in other_ids})
    if unknown:
        raise MatchError(f"the other list has no nugget {unknown[0]!r}")
    match = {"version": found["frozen"]["version"], "by": by.get_username(), "at": timezone.now().isoformat(),
             "pairs": {nugget: pairs[nugget] or None for nugget in frozen_ids}}
    with transaction.atomic():
        topic = Topic.objects.select_for_update().get(pk=found["topic"].pk)
        if topic_list(topic.data) != found["frozen"]:
            raise MatchError("the topic's frozen list changed meanwhile: open the match again")
        data = dict(topic.data or {})
        data["matches"] = {**(data.get("matches") or {}), source: match}
        topic.data = data
        topic.save(update_fields=["data"])
        campaign_data_changed(campaign_id=campaign.pk)
    return match
