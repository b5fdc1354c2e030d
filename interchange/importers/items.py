"""How a file's lines name a campaign's items: by the item's external id, or by the id it was imported with (a
candidate's or an image's source id, a passage's doc id). Every format that names items reads them through here."""

from annotate.ids import external_id_tail, json_text
from annotate.models import Campaign, Item


def source_id_of(external_id: str, source_id, qid: str | None = None) -> str:
    """The id a candidate was imported with: SOURCE_ID (its `data["source_id"]`), else the tail of its external id
    after `<QID>/` (QID, its topic's id, may hold a `/`), or after the first `/` when QID is not known."""
    if source_id:
        return str(source_id)
    return external_id_tail(external_id, qid) if qid is not None else external_id.split("/", 1)[-1]


def candidate_source_id(item: Item, *, qid: str) -> str:
    """The id a candidate of the topic QID was imported with (`data["source_id"]`, else the tail of its external id
    after `<QID>/`: a topic id may hold a `/`, so the tail is not what follows the first one)."""
    return source_id_of(item.external_id, item.data.get("source_id"), qid)


def item_keys(campaign: Campaign):
    """(topic id, item external id, candidate source id, docno, pk) of every item of CAMPAIGN, streamed from the
    database: what a file's lines are matched by, without loading the items' texts."""
    rows = (
        Item.objects.filter(campaign=campaign)
        .order_by("id")
        .values_list("topic__external_id", "external_id", json_text("data__source_id"), json_text("data__docno"), "id")
    )
    for qid, external_id, source_id, docno, pk in rows.iterator(chunk_size=5000):
        yield qid, external_id, source_id_of(external_id, source_id, qid), docno, pk
