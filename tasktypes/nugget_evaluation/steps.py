"""How many judgments each step's units ask for (Unit.judgments_needed, k): a creation unit the campaign's option
creation_overlap (the overlap when unset); an answer unit the overlap while its round is its topic's current one and
its list is frozen, and no more than it has otherwise (closed: a topic with no frozen list yet, or an earlier round,
whose marks stay as they are). Imports and freezing keep this; a change of the overlap on the settings page (which
sets every unit's k) or of creation_overlap is put right by the Nuggets page's "Apply" (steps_out_of_step counts what
differs)."""

from django.db.models import F

from annotate.models import Campaign, Topic, Unit
from tasktypes.nugget_evaluation.layout import ANSWER_KIND, NUGGETS_KIND, topic_list

CHUNK = 5000  # ids per UPDATE (SQLite's limit on a statement's parameters)


def creation_overlap(campaign: Campaign) -> int:
    """The k of CAMPAIGN's creation units: its creation_overlap option, else its overlap."""
    value = (campaign.options or {}).get("creation_overlap")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else campaign.overlap


def _current_rounds(campaign: Campaign) -> dict[int, int]:
    """{topic id: the version of its frozen list} for CAMPAIGN's topics that have one."""
    rounds = {}
    for pk, data in Topic.objects.filter(campaign=campaign).values_list("pk", "data"):
        current = topic_list(data or {})
        if current is not None:
            rounds[pk] = int(current["version"])
    return rounds


def _answer_rows(campaign: Campaign):
    return (Unit.objects.filter(campaign=campaign, item__kind=ANSWER_KIND)
            .values_list("pk", "topic_id", "item__data__round", "judgments_needed", "judgments_done"))


def _wanted(campaign: Campaign) -> dict[int, int]:
    """{answer unit id: the k it should ask for}."""
    rounds = _current_rounds(campaign)
    return {pk: campaign.overlap if rounds.get(topic) == (round_ or 1) else done
            for pk, topic, round_, _, done in _answer_rows(campaign)}


def steps_out_of_step(campaign: Campaign) -> dict[str, int]:
    """How many of CAMPAIGN's units ask for another k than their step's: {"creation": n, "answers": n}."""
    k = creation_overlap(campaign)
    wanted = _wanted(campaign)
    return {"creation": Unit.objects.filter(campaign=campaign, item__kind=NUGGETS_KIND)
            .exclude(judgments_needed=k).count(),
            "answers": sum(1 for pk, _, _, needed, _ in _answer_rows(campaign) if needed != wanted[pk])}


def steps_sync(campaign: Campaign) -> int:
    """Give every unit of CAMPAIGN its step's k (the module's rule); how many changed. Call inside the caller's
    transaction."""
    changed = (Unit.objects.filter(campaign=campaign, item__kind=NUGGETS_KIND)
               .exclude(judgments_needed=creation_overlap(campaign))
               .update(judgments_needed=creation_overlap(campaign)))
    wanted = _wanted(campaign)
    rows = list(_answer_rows(campaign))
    opened = [pk for pk, _, _, needed, _ in rows if wanted[pk] == campaign.overlap and needed != campaign.overlap]
    closed = [pk for pk, _, _, needed, done in rows if wanted[pk] != campaign.overlap and needed != done]
    for start in range(0, len(opened), CHUNK):
        changed += Unit.objects.filter(pk__in=opened[start:start + CHUNK]).update(judgments_needed=campaign.overlap)
    for start in range(0, len(closed), CHUNK):
        changed += Unit.objects.filter(pk__in=closed[start:start + CHUNK]).update(
            judgments_needed=F("judgments_done"))
    return changed
