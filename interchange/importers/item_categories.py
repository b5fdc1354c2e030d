"""item-categories: `topic, item, category` lines (TSV, CSV or JSONL) that set the categories of items already in a
campaign, for every task type: how items made from TREC runs and qrels, which name no category, get one."""

import csv
from pathlib import Path

from annotate.models import Item
from interchange.importers.categories import CATEGORY, categories_write, category_read, second_category_check
from interchange.importers.common import (
    ImportDataError,
    UnusedLines,
    empty_check,
    file_check,
    json_start,
    jsonl_read,
    lines_read,
    value_check,
)
from interchange.importers.items import item_keys

COLUMNS = ("topic", "item", "category")


def _rows(path: Path):
    """(line, {"topic", "item", "category"}) of an item-categories file: JSONL when its document starts with a JSON
    object, else CSV (a .csv file) or TSV, three columns, an optional header line `topic item category`."""
    file_check(path)
    empty_check(path)
    if json_start(path) == b"{":
        for line, obj in jsonl_read(path):
            missing = next((name for name in COLUMNS if name not in obj), None)
            if missing:  # a line without its category would take the item's away unasked
                raise ImportDataError(file=path, line=line, field=missing, message="missing key")
            yield line, {name: obj[name] for name in COLUMNS}
        return
    comma = path.suffix.lower() == ".csv"
    first = True
    for number, text in lines_read(path):
        if not text.strip():
            continue
        cells = next(csv.reader([text])) if comma else text.split("\t")
        if len(cells) != len(COLUMNS):
            raise ImportDataError(file=path, line=number, field="line",
                                  message=f"{len(cells)} fields; a line is topic, item and category "
                                          f"({'comma' if comma else 'tab'}-separated)")
        if first and [cell.strip().lower() for cell in cells] == list(COLUMNS):
            first = False
            continue  # the header
        first = False
        yield number, {name: value_check(cell, path=path, line=number, field=name)
                       for cell, name in zip(cells, COLUMNS)}


def _id(value, *, path: Path, line: int, field: str) -> str:
    """An id as text; a JSONL id may be an integer (as the ranking JSONL's are), never a float or a boolean, whose
    text would not be the id the data means (annotate.ids)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ImportDataError(file=path, line=line, field=field, message="missing value")
    if not isinstance(value, str):
        raise ImportDataError(file=path, line=line, field=field,
                              message=f"expected an id (a string), got {type(value).__name__}")
    return value.strip()


def item_categories_import(*, campaign, paths: list[Path], unused: UnusedLines) -> dict[str, int]:
    """Set the categories of CAMPAIGN's items from `topic, item, category` lines; call inside import_run's
    transaction. An item is named by its topic's id and its own id: its external id, or the id it was imported with
    (a document's docno, a passage's or image's doc id). An empty category takes an item's category away. Lines
    naming no topic or item of the campaign are counted as unused. Returns {"read", "changed", "same"}."""
    topics: dict[str, dict[str, int]] = {}
    for qid, external_id, source_id, docno, pk in item_keys(campaign):
        names = topics.setdefault(qid, {})
        for name in (docno, source_id):
            if name:
                names.setdefault(name, pk)
        names[external_id] = pk  # an item's own external id wins over another's doc id
    wanted: dict[int, tuple[str, Path, int]] = {}
    read = 0
    for path in paths:
        for line, row in _rows(path):
            read += 1
            topic = _id(row["topic"], path=path, line=line, field="topic")
            item = _id(row["item"], path=path, line=line, field="item")
            category = category_read(row["category"], path=path, line=line)
            if row["category"] is None:
                raise ImportDataError(file=path, line=line, field=CATEGORY, message="expected text, got null")
            if topic not in topics:
                unused.skip("naming a topic the campaign does not hold", path=path, line=line, field="topic",
                            value=topic[:80])
                continue
            pk = topics[topic].get(item)
            if pk is None:
                unused.skip("naming no item of its topic", path=path, line=line, field="item", value=item[:80])
                continue
            second_category_check(wanted, pk, category, path=path, line=line)
            unused.use()
    changed = categories_write(Item.objects.filter(campaign=campaign), key="pk",
                               wanted={pk: category for pk, (category, _, _) in wanted.items()})
    return {"read": read, "changed": changed, "same": len(wanted) - changed}
