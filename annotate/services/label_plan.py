"""The sample of topics the annotation queue follows (option queue_order "sample"; annotate.models.LabelPlan): drawn
once by the campaign's plan (option ppi_plan, stats.label_plans), so that the topics humans label are a probability
sample the report's humans-and-judges estimate weights (reports.ppi). docs/statistics/ppi.md, "A queue that follows
the plan".

A topic's weight: 1 under the uniform plan; under the active plan, the plan's probability at a budget of one topic
(half uniform, half in proportion to the square root of the judges' mean disagreement on the topic's units, the
queue order "informative"'s score); under the stratified plan, by Neyman allocation between the topics the judges
disagree on more than the median and the others. With no judge's verdict anywhere every plan is the uniform one.
Each topic's key is a uniform draw over its weight (stats.label_plans.sequential_keys); the queue offers topics by
key. Topics imported after the draw get their weight and key then, with the plan's seed and their id, and take their
place by key.
"""

from __future__ import annotations

import secrets

import numpy as np
from django.db import transaction

from annotate.models import Campaign, LabelPlan, Topic, Unit
from annotate.selectors.queue_order import unit_disagreements
from stats import label_plans

DEFAULT_PLAN = "active"


def _topic_errors(campaign: Campaign, topics: list[int]) -> np.ndarray:
    """Each topic's mean disagreement of the judges over its units (0 where no judge has a verdict)."""
    rows = list(Unit.objects.filter(campaign=campaign, topic_id__in=topics)
                .values_list("id", "item_id", "topic_id", "judgments_needed"))
    found = unit_disagreements(campaign=campaign, rows=rows)
    scores: dict[int, list[float]] = {}
    for pk, _, topic, _ in rows:
        scores.setdefault(topic, []).append(found[pk][0] if pk in found else 0.0)
    return np.array([float(np.mean(scores[topic])) if topic in scores else 0.0 for topic in topics])


def _weights(plan: str, errors: np.ndarray) -> np.ndarray:
    """Each topic's weight under PLAN from the judges' disagreement ERRORS (see the module's docstring)."""
    found = label_plans.plan_inclusion(plan, 1.0, errors)
    return np.ones(len(errors)) if found is None else found


def _keys(seed: int, topics: list[int], weights: np.ndarray) -> np.ndarray:
    """The topics' keys: one uniform draw each from the plan's SEED and the topic's id (a topic keeps its key
    whenever it is drawn), over its weight."""
    draws = np.array([np.random.default_rng([seed, topic]).random() for topic in topics])
    return draws / weights


def label_plan_ensure(*, campaign: Campaign) -> LabelPlan:
    """CAMPAIGN's label plan: drawn when it has none or its option ppi_plan names another plan (a new draw: the
    topics labelled so far count as far as they are a beginning of the new order), else the one it has with the
    topics imported since added in their place. One transaction."""
    plan = (campaign.options or {}).get("ppi_plan") or DEFAULT_PLAN
    with transaction.atomic():
        found = LabelPlan.objects.select_for_update().filter(campaign=campaign).first()
        ids = dict(Topic.objects.filter(campaign=campaign).values_list("id", "external_id"))
        by_name = {external: topic for topic, external in ids.items()}
        if found is None or found.plan != plan:
            entries: list = []
            seed = secrets.randbits(62)
        else:
            # Read by external id (an archive moves a campaign's topics to new ids), the id written again.
            entries = [[by_name[external], external, weight, key] for _, external, weight, key in found.topics
                       if external in by_name]
            seed = found.seed
        new = sorted(set(ids) - {entry[0] for entry in entries})
        if new:
            weights = _weights(plan, _topic_errors(campaign, new))
            weights = weights / weights.mean()
            entries += [[topic, ids[topic], float(weight), float(key)]
                        for topic, weight, key in zip(new, weights, _keys(seed, new, weights), strict=True)]
        entries.sort(key=lambda entry: (entry[3], entry[0]))
        if found is None:
            found = LabelPlan.objects.create(campaign=campaign, plan=plan, seed=seed, topics=entries)
        else:
            found.plan, found.seed, found.topics = plan, seed, entries
            found.save(update_fields=["plan", "seed", "topics"])
    return found
