"""The items of a graded relevance campaign (tasktypes.graded): one per (topic, doc id), made as runs pool them or
qrels name them."""

from annotate.bulk import rows_insert
from annotate.ids import json_text
from annotate.models import Campaign, Item
from annotate.task_types.registry import task_type_get


def graded_items_ensure(*, campaign: Campaign, topics: dict[str, int],
                        pairs: set[tuple[str, str]]) -> tuple[dict[tuple[str, str], int], int]:
    """Every graded item of CAMPAIGN by (topic id, doc id), after creating one for each of PAIRS it lacks (external
    id `<qid>/<doc id>`, the doc id under the task type's doc_key, completed by its items_created hook: an image's
    stored files). TOPICS maps topic ids to pks. Returns (the items, how many were created). Call inside the
    import's transaction."""
    spec = task_type_get(campaign.task_type)
    kind, key = spec.item_kind, spec.doc_key
    items = {(qid, doc): pk for pk, qid, doc in Item.objects.filter(campaign=campaign, kind=kind)
             .values_list("id", "topic__external_id", json_text(f"data__{key}"))}
    missing = sorted(pairs - items.keys())
    created = rows_insert(
        Item, ["campaign", "topic", "external_id", "kind", "text", "data"],
        ((campaign.pk, topics[qid], f"{qid}/{doc}", kind, "", {key: doc}) for qid, doc in missing))
    if missing:
        new = Item.objects.filter(campaign=campaign, kind=kind, external_id__in=[f"{q}/{d}" for q, d in missing])
        spec.items_created(campaign=campaign, items=new)
        items.update(
            {(qid, doc): pk for pk, qid, doc in new.values_list("id", "topic__external_id", json_text(f"data__{key}"))}
        )
    return items, created
