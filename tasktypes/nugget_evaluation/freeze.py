"""Freezing a topic's nugget list (layout.py): the list the assignment step marks against. A topic's first list opens
its answers' assignment units; a list frozen after some of its answers were marked starts a new round: the answers
are copied as new items (external id "<topic>/<run>@<round>") whose units mark the new list, and the earlier round's
marks stay as they were, with the list they name (Topic.data "nugget_versions"). Called inside the caller's
transaction (an import's, the freeze page's)."""

from annotate.models import HumanJudgment, Item, SystemOutput, Topic, Unit
from annotate.services.campaigns import units_ensure
from judges.models import ModelJudgment
from tasktypes.nugget_evaluation.layout import ANSWER_KIND, IMPORTANCES, answer_item_id, topic_list


class NuggetListError(ValueError):
    """A list that cannot be frozen (empty, a nugget without text, ids repeated, an unknown importance)."""


def nuggets_checked(nuggets) -> list[dict]:
    """NUGGETS as a list may be frozen: [{"id", "text", "importance"}] with distinct non-empty ids and texts, the
    importance vital or okay; NuggetListError says what is wrong."""
    if not isinstance(nuggets, list) or not nuggets:
        raise NuggetListError("a nugget list needs at least one nugget")
    seen: set[str] = set()
    checked = []
    for n, nugget in enumerate(nuggets, start=1):
        if not isinstance(nugget, dict):
            raise NuggetListError(f"nugget {n} is not an object")
        nugget_id, text = str(nugget.get("id") or "").strip(), str(nugget.get("text") or "").strip()
        importance = nugget.get("importance")
        if not nugget_id or not text:
            raise NuggetListError(f"nugget {n} needs an id and a text")
        if nugget_id in seen:
            raise NuggetListError(f"nugget id {nugget_id!r} is used twice")
        if importance not in IMPORTANCES:
            raise NuggetListError(f"nugget {nugget_id!r}: importance is vital or okay, not {importance!r}")
        seen.add(nugget_id)
        checked.append({"id": nugget_id, "text": text, "importance": importance})
    return checked


def round_marked(topic: Topic) -> bool:
    """Whether any human or judge has marked an answer of TOPIC's current round."""
    current = topic_list(topic.data)
    if current is None:
        return False
    answers = Item.objects.filter(topic=topic, kind=ANSWER_KIND, data__round=current["version"])
    return (HumanJudgment.objects.filter(unit__item__in=answers).exists()
            or ModelJudgment.objects.filter(item__in=answers).exists())


def topic_list_freeze(*, topic: Topic, nuggets: list[dict], source: str) -> dict:
    """Freeze NUGGETS (checked by nuggets_checked) as TOPIC's list, from SOURCE; returns the list frozen. Before any
    mark the current list is replaced (same version); after one a new round starts (see the module)."""
    nuggets = nuggets_checked(nuggets)
    data = dict(topic.data or {})
    current = topic_list(data)
    version = 1 if current is None else int(current["version"])
    if current is not None and round_marked(topic):
        data["nugget_versions"] = [*(data.get("nugget_versions") or []), current]
        _round_start(topic=topic, round_=version + 1, previous=version)
        version += 1
    frozen = {"version": version, "source": source, "nuggets": nuggets}
    data["nuggets"] = frozen
    topic.data = data
    topic.save(update_fields=["data"])
    answers_open(topic=topic, round_=version)
    return frozen


def _round_start(*, topic: Topic, round_: int, previous: int) -> None:
    """Copy TOPIC's answers of round PREVIOUS as round ROUND's items, each with its SystemOutput, and make their
    units."""
    olds = list(Item.objects.filter(topic=topic, kind=ANSWER_KIND, data__round=previous).order_by("pk"))
    copies = [Item(campaign_id=topic.campaign_id, topic=topic, kind=ANSWER_KIND, text=old.text, split=old.split,
                   external_id=answer_item_id(topic.external_id, old.data["run"], round_),
                   data={**old.data, "round": round_}) for old in olds]
    Item.objects.bulk_create(copies)
    made = {item.external_id: item for item in Item.objects.filter(topic=topic, kind=ANSWER_KIND, data__round=round_)}
    SystemOutput.objects.bulk_create([
        SystemOutput(campaign_id=topic.campaign_id, topic=topic, system=old.data["run"], rank=1,
                     item=made[answer_item_id(topic.external_id, old.data["run"], round_)]) for old in olds])
    units_ensure(campaign=topic.campaign)
    Unit.objects.filter(item__in=[item.pk for item in made.values()]).update(judgments_needed=0)


def answers_open(*, topic: Topic, round_: int) -> int:
    """Open the assignment units of TOPIC's answers of ROUND (k = the campaign's overlap); how many were closed."""
    return (Unit.objects.filter(topic=topic, item__kind=ANSWER_KIND, item__data__round=round_, judgments_needed=0)
            .update(judgments_needed=topic.campaign.overlap))
