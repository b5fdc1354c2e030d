"""How many judgments each step's units ask for (Unit.judgments_needed, k): a creation unit the campaign's option
creation_overlap (the overlap when unset) until its topic's list is frozen, and no more than it has after (closed:
the list it would feed is settled); an answer unit the overlap while its round is its topic's current one and its
list is frozen, and no more than it has otherwise (closed: a topic with no frozen list yet, or an earlier round,
whose marks stay as they are). Imports and freezing keep this; a change of the overlap on the settings page (which
sets every unit's k) or of creation_overlap is put right by the Nuggets page's "Apply" (steps_out_of_step counts what
differs)."""

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


def _rows(campaign: Campaign) -> list[tuple[int, int, int, str, int | None]]:
    """(unit id, k wanted, k asked, the unit's step, its answer's round) of every unit of CAMPAIGN."""
    rounds = _current_rounds(campaign)
    creation, overlap = creation_overlap(campaign), campaign.overlap
    found = []
    for pk, kind, topic, round_, needed, done in (
            Unit.objects.filter(campaign=campaign, item__kind__in=(NUGGETS_KIND, ANSWER_KIND))
            .values_list("pk", "item__kind", "topic_id", "item__data__round", "judgments_needed", "judgments_done")):
        if kind == NUGGETS_KIND:
            wanted = done if topic in rounds else creation
        else:
            wanted = overlap if rounds.get(topic) == (round_ or 1) else done
        found.append((pk, wanted, needed, kind, round_))
    return found


def steps_out_of_step(campaign: Campaign) -> dict[str, int]:
    """How many of CAMPAIGN's units ask for another k than their step's: {"creation": n, "answers": n}."""
    rows = _rows(campaign)
    return {"creation": sum(1 for _, wanted, needed, kind, _ in rows if kind == NUGGETS_KIND and wanted != needed),
            "answers": sum(1 for _, wanted, needed, kind, _ in rows if kind == ANSWER_KIND and wanted != needed)}


def steps_sync(campaign: Campaign) -> int:
    """Give every unit of CAMPAIGN its step's k (the module's rule); how many changed. Call inside the caller's
    transaction."""
    by_wanted: dict[int, list[int]] = {}
    for pk, wanted, needed, _, _ in _rows(campaign):
        if wanted != needed:
            by_wanted.setdefault(wanted, []).append(pk)
    changed = 0
    for wanted, units in by_wanted.items():
        for start in range(0, len(units), CHUNK):
            changed += Unit.objects.filter(pk__in=units[start:start + CHUNK]).update(judgments_needed=wanted)
    return changed
