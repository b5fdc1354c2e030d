"""Item categories on import: the `category` key or column of the formats that describe items with named fields, and
the `item-categories` format (interchange.importers.item_categories).

A category is what the agreement report breaks agreement down by (reports.categories): the qa-eval study's
kinds of disagreement (semantic, symbolic, granularity), the Attributed QA study's (inexact match, stale reference).
A line's empty or missing category leaves its item's category as it is; two lines giving one item two different
categories are refused, so an import never decides between them.
"""

from pathlib import Path

from annotate.models import Item
from annotate.services.items import category_problem
from interchange.importers.common import ImportDataError

CATEGORY = "category"
# Items are updated a category at a time, at most this many ids a statement (SQLite's bound-parameter limit).
CHUNK = 900


def category_read(value, *, path: Path, line: int, field: str = CATEGORY) -> str:
    """VALUE (a JSON value or a cell; None: none given) as a category, stripped; ImportDataError when it cannot be
    one (not text, several lines, too long)."""
    if value is None:
        return ""
    problem = category_problem(value)
    if problem:
        raise ImportDataError(file=path, line=line, field=field, message=problem)
    return value.strip()


class ItemCategories:
    """The categories an import's lines give their items, by item external id, written once the items exist."""

    def __init__(self):
        self._given: dict[str, tuple[str, Path, int]] = {}  # every line's, to refuse a second category
        self._pending: dict[str, str] = {}  # not written yet

    def give(self, external_id: str, category: str, *, path: Path, line: int, field: str = CATEGORY) -> None:
        """Note that the line at PATH:LINE gives the item EXTERNAL_ID the category CATEGORY ("": none given)."""
        if not category:
            return
        second_category_check(self._given, external_id, category, path=path, line=line, field=field)
        self._pending[external_id] = category

    def write(self, *, campaign) -> int:
        """Give CAMPAIGN's items the categories noted since the last write (call after the items are written); how
        many items changed."""
        changed = categories_write(Item.objects.filter(campaign=campaign), key="external_id", wanted=self._pending)
        self._pending = {}
        return changed


def second_category_check(given: dict, key, category: str, *, path: Path, line: int, field: str = CATEGORY) -> None:
    """Note in GIVEN (key -> (category, path, line)) that PATH:LINE gives the item KEY the category CATEGORY;
    ImportDataError when an earlier line gave it another one: an import never decides between two."""
    earlier = given.get(key)
    if earlier is not None and earlier[0] != category:
        raise ImportDataError(file=path, line=line, field=field,
                              message=f"{category!r}, but {Path(earlier[1]).name}:{earlier[2]} gives the same "
                                      f"item the category {earlier[0]!r}")
    given[key] = (category, path, line)


def categories_write(items, *, key: str, wanted: dict) -> int:
    """Give each of ITEMS (a queryset) whose KEY ("external_id", "pk") is in WANTED its category there, a statement
    per category and CHUNK items; returns how many items changed (those already in their category are not)."""
    by_category: dict[str, list] = {}
    for name, category in wanted.items():
        by_category.setdefault(category, []).append(name)
    changed = 0
    for category, names in by_category.items():
        for start in range(0, len(names), CHUNK):
            changed += (items.filter(**{f"{key}__in": names[start:start + CHUNK]})
                        .exclude(category=category).update(category=category))
    return changed
