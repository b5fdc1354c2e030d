"""The sentiment task type's formats' reader (tests.tasktype_sentiment.formats): one review per line, {"product",
"review", "text"}; a product is a topic, a review an item (its id `<product>/<review>`), with the readers and writers
every format shares."""

from annotate.models import Item, Topic
from annotate.services.campaigns import units_ensure
from interchange.importers.common import ImportDataError, jsonl_read, str_field


def reviews_import(*, campaign, paths, summary, unused, shop: str | None = None, min_chars: int = 1) -> int:
    """Import the reviews of PATHS, their products named `<SHOP>:<product>` when SHOP is given; a review shorter than
    MIN_CHARS characters is not imported. Returns how many were too short."""
    topics = {topic.external_id: topic for topic in Topic.objects.filter(campaign=campaign)}
    known = set(Item.objects.filter(campaign=campaign).values_list("external_id", flat=True))
    new_items = []
    too_short = 0
    for path in paths:
        for line, row in jsonl_read(path):
            product = str_field(row, "product", path=path, line=line)
            review = str_field(row, "review", path=path, line=line)
            text = str_field(row, "text", path=path, line=line)
            if len(text) < min_chars:
                too_short += 1
                unused.skip(f"shorter than {min_chars} characters", path=path, line=line, field="text", value=text)
                continue
            unused.use()
            product = f"{shop}:{product}" if shop else product
            external_id = f"{product}/{review}"
            if external_id in known:
                raise ImportDataError(file=path, line=line, field="review", message=f"review {external_id!r} twice")
            known.add(external_id)
            if product not in topics:
                topics[product] = Topic.objects.create(campaign=campaign, external_id=product, text=product)
                summary.topics_created += 1
            new_items.append(Item(campaign=campaign, topic=topics[product], external_id=external_id, kind="review",
                                  text=text))
    Item.objects.bulk_create(new_items)
    summary.items_created = len(new_items)
    summary.units_created = units_ensure(campaign=campaign)
    return too_short
