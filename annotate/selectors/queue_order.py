"""Reads for the queue order (campaign option queue_order; annotate.services.queue_order, docs/budget.md).

"position": the order the units were imported in (their ids). "informative": the units where human labels narrow the
report's intervals most first, by what the judges say of them: most disagreement among the judges first (the task
type's adjudication rule with only the kind "judges": the entropy of the judges' votes on an item, 1 - the mean
Kendall tau-b between the judges' orders of a topic), then the judges' mean confidence in their verdicts, lowest
first (annotate.selectors.adjudication.judge_confidence: from 0 on the threshold to 1 at 0 or 1), then the
import order. A human label where the judges disagree or hesitate is where a judge's agreement with humans is least
predictable, so it moves kappa's resamples most; where the judges agree with confidence a label adds little that the
others do not. Units no judge has a verdict on come after those with one, in import order. "sample": the topics of
the campaign's label plan (annotate.models.LabelPlan, drawn by annotate.services.label_plan) in its order, each
topic's units together, then the units of topics the plan does not hold, in import order: a probability sample the
report's humans-and-judges estimate can weight.

Three queries whatever the campaign's size (two for "sample").
"""

from __future__ import annotations

from annotate.adjudication_kinds import ADJUDICATION_JUDGES
from annotate.models import Campaign, LabelPlan, Unit
from annotate.selectors.adjudication import judge_verdicts
from annotate.task_types.options import QUEUE_ORDERS
from annotate.task_types.registry import task_type_get

ORDER_POSITION = "position"
ORDER_INFORMATIVE = "informative"
ORDER_SAMPLE = "sample"


def queue_order_of(campaign: Campaign) -> str:
    """The campaign's queue_order option, "position" when unset."""
    order = (campaign.options or {}).get("queue_order") or ORDER_POSITION
    return order if order in QUEUE_ORDERS else ORDER_POSITION


def units_in_order(*, campaign: Campaign, order: str, units=None) -> list[int]:
    """The ids of CAMPAIGN's units (of UNITS, a Unit queryset of it, when given) in ORDER, "position",
    "informative" or "sample" (see the module's docstring)."""
    if order not in QUEUE_ORDERS:
        raise ValueError(f"unknown queue order {order!r}; choose one of {', '.join(QUEUE_ORDERS)}")
    rows = list((units if units is not None else Unit.objects.filter(campaign=campaign))
                .values_list("id", "item_id", "topic_id", "judgments_needed"))
    if order == ORDER_POSITION:
        return sorted(pk for pk, *_ in rows)
    if order == ORDER_SAMPLE:
        plan = LabelPlan.objects.filter(campaign=campaign).values_list("topics", flat=True).first() or []
        rank = {topic: n for n, (topic, *_) in enumerate(plan)}
        return [pk for pk, *_ in sorted(rows, key=lambda row: (rank.get(row[2], len(rank)), row[0]))]
    found = unit_disagreements(campaign=campaign, rows=rows)

    def key(row) -> tuple:
        pk = row[0]
        if pk not in found:
            return (1, 0.0, 0.0, pk)
        score, confidence = found[pk]
        return (0, -score, confidence, pk)

    return [row[0] for row in sorted(rows, key=key)]


def unit_disagreements(*, campaign: Campaign, rows: list[tuple]) -> dict[int, tuple[float, float]]:
    """{unit id: (the judges' disagreement on it, their mean confidence)} for the units of ROWS ((id, item id, topic
    id, judgments needed) each) some judge has a verdict on: the task type's adjudication rule with the kind "judges"
    only (0 where they agree), the confidence 1 where no verdict states one."""
    spec = task_type_get(campaign.task_type)
    verdicts, item_topic = judge_verdicts(campaign)
    topic_units = {topic_id for _, item_id, topic_id, _ in rows if item_id is None}
    by_target: dict[int, dict[str, dict]] = {}  # item (or -topic, for topic units) -> judge -> item -> verdict
    for name, by_item in verdicts.items():
        for item_id, verdict in by_item.items():
            target = -item_topic[item_id] if item_topic[item_id] in topic_units else item_id
            by_target.setdefault(target, {}).setdefault(name, {})[item_id] = verdict
    found = {}
    for pk, item_id, topic_id, needed in rows:
        judges = by_target.get(item_id if item_id is not None else -topic_id, {})
        if not judges:
            continue
        disagreement = spec.adjudication_disagreement(humans=[], judges=judges, kinds=(ADJUDICATION_JUDGES,),
                                                      judge=None, needed=needed)
        confidences = [verdict.confidence for by_item in judges.values() for verdict in by_item.values()
                       if verdict.confidence is not None]
        found[pk] = (disagreement["score"] if disagreement else 0.0,
                     sum(confidences) / len(confidences) if confidences else 1.0)
    return found
