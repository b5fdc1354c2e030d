"""Ids as the text they were imported with, on every database: the one way to read an id kept in a JSON document.

Ids that live in `Item.data` (a passage's `docid`, an image's `image_id`, a candidate's `source_id` and `docno`, a
system name, a content key) are stored as JSON strings. Reading one key of the document in the database,
`values_list("data__docid")`, gives that string back on PostgreSQL, but on SQLite Django decodes the extracted
text as JSON once more: MS MARCO's "1017759" comes back as the int 1017759, "1e5" as 100000.0, "NaN" as nan,
"true" as True, "null" as None (while "007", not valid JSON, stays a string). Every lookup by the file's id then
misses. `json_text` reads the key as SQL text (`->>`) and casts it to text, so both databases give exactly the
stored string, and None where the key is missing.

Filtering is the other direction and needs nothing: `filter(data__docid="007")` compares JSON with JSON on both
databases. (Filtering on a `KT` annotation does not work on SQLite: Django encodes its right-hand side as JSON.)
"""

from django.db import models
from django.db.models.fields.json import KT
from django.db.models.functions import Cast


def json_text(lookup: str) -> Cast:
    """An expression for values_list/values that reads LOOKUP (`"data__docid"`, `"item__data__source_id"`) as the
    text stored there: the same string on SQLite and PostgreSQL, None when the key is missing."""
    return Cast(KT(lookup), output_field=models.TextField())


def external_id_tail(external_id: str, qid: str) -> str:
    """The id part of an item's external id `<qid>/<id>` (an item named by its topic and its own id), cut after its
    topic's id QID, which may itself hold a `/`; the whole external id when it does not start with `<qid>/`."""
    prefix = f"{qid}/"
    return external_id[len(prefix):] if external_id.startswith(prefix) else external_id
