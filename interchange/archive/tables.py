"""What a campaign archive holds, table by table, and how one row is written and read back.

Every table that hangs off a campaign is one JSON-lines file, `<table>.jsonl`, one row a line in id order, with
every concrete field of the model under its field name. The row's own `id` and its foreign keys to the campaign's
tables are the ids of the exporting database: the importer gives every row a new id and maps the references
(they are never trusted as ids of the importing database). A foreign key to an account is the username.
Adding a field to one of these models needs no change here; adding a model that hangs off a campaign needs a row
in TABLES (tests/interchange/test_campaign_archive.py fails until it has one).
"""

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import models
from django.utils.dateparse import parse_datetime

from annotate.models import (
    Assignment,
    Campaign,
    CampaignGuidelines,
    HumanJudgment,
    Item,
    LabelPlan,
    Membership,
    SystemOutput,
    Topic,
    Unit,
)
from judges.models import (
    Judge,
    JudgeRun,
    Leaderboard,
    LeaderboardValue,
    LLMSample,
    ModelJudgment,
    Probe,
    ProbeVerdict,
)

ARCHIVE_FORMAT = "concord-archive"
ARCHIVE_VERSION = 1
MANIFEST = "manifest.json"
# The apps whose schema an archive is written in; the manifest names their migrations.
SCHEMA_APPS = ("annotate", "judges", "agreement")


@dataclass(frozen=True)
class Table:
    name: str
    model: type[models.Model]
    campaign_path: str  # the lookup from a row to its campaign

    @property
    def file(self) -> str:
        return f"{self.name}.jsonl"

    def rows(self, campaign: Campaign) -> models.QuerySet:
        """The campaign's rows of this table, in id order."""
        return self.model._default_manager.filter(**{self.campaign_path: campaign}).order_by("pk")


# Parents before children: a row's references are mapped when it is read, so what it points at is in already.
TABLES = (
    Table("memberships", Membership, "campaign"),
    Table("topics", Topic, "campaign"),
    Table("items", Item, "campaign"),
    Table("system_outputs", SystemOutput, "campaign"),
    Table("units", Unit, "campaign"),
    Table("assignments", Assignment, "unit__campaign"),
    Table("guidelines", CampaignGuidelines, "campaign"),  # before human_judgments, which name their version
    Table("human_judgments", HumanJudgment, "unit__campaign"),
    Table("judges", Judge, "campaign"),
    Table("judge_runs", JudgeRun, "judge__campaign"),
    Table("model_judgments", ModelJudgment, "judge__campaign"),
    Table("llm_samples", LLMSample, "judge__campaign"),
    Table("leaderboards", Leaderboard, "campaign"),
    Table("leaderboard_values", LeaderboardValue, "leaderboard__campaign"),
    Table("probes", Probe, "campaign"),
    Table("probe_verdicts", ProbeVerdict, "judge__campaign"),
    # Its topics are named by external id too: the ids in its JSON are the exporting database's, read again by name.
    Table("label_plans", LabelPlan, "campaign"),
)
TABLE_NAMES = {table.model: table.name for table in TABLES} | {Campaign: "campaign"}
# Tables added to TABLES after archives of version 1 were first written: an archive whose manifest does not count one
# was written before it existed, and has no rows of it.
LATER_TABLES = ("guidelines", "leaderboards", "leaderboard_values", "probes", "probe_verdicts", "label_plans")


class RowError(Exception):
    """One field of one row is wrong; the reader adds the file and line."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


def is_user_field(field: models.Field) -> bool:
    return field.is_relation and field.related_model is get_user_model()


def _stored_fields(model: type[models.Model]) -> list[models.Field]:
    return [field for field in model._meta.concrete_fields if not field.primary_key]


def user_keys(model: type[models.Model]) -> list[str]:
    """The keys of MODEL's rows whose values are usernames."""
    return [field.name for field in _stored_fields(model) if is_user_field(field)]


def value_lookups(model: type[models.Model]) -> tuple[list[str], list[str]]:
    """(the row's keys, the values_list lookups that read them): `id`, then every stored field by name."""
    keys, lookups = ["id"], ["pk"]
    for field in _stored_fields(model):
        keys.append(field.name)
        lookups.append(f"{field.name}__{get_user_model().USERNAME_FIELD}" if is_user_field(field) else field.attname)
    return keys, lookups


def json_default(value):
    """JSON for what values_list gives besides JSON types: datetimes, in full (microseconds kept)."""
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    raise TypeError(f"cannot write {type(value).__name__} to an archive")


# --- Reading a row back: each field's value is checked against what its column holds ---

def _expect(kind: str, value) -> RowError:
    return RowError("", f"expected {kind}, got {type(value).__name__} {str(value)[:40]!r}")


def _integer(field: models.Field) -> Callable:
    lowest = 0 if isinstance(field, (models.PositiveIntegerField, models.PositiveSmallIntegerField,
                                     models.PositiveBigIntegerField)) else None

    def check(value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise _expect("a whole number", value)
        if lowest is not None and value < lowest:
            raise RowError("", f"expected {lowest} or more, got {value}")
        return value
    return check


def _float(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _expect("a number", value)
    return float(value)


def _boolean(value):
    if not isinstance(value, bool):
        raise _expect("true or false", value)
    return value


def _text(field: models.Field) -> Callable:
    limit = field.max_length

    def check(value):
        if not isinstance(value, str):
            raise _expect("a string", value)
        if limit is not None and len(value) > limit:
            raise RowError("", f"{len(value)} characters; at most {limit}")
        return value
    return check


def _datetime(value):
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None or parsed.tzinfo is None:
        raise _expect("an ISO 8601 date and time with its offset", value)
    return parsed


def _reference(field: models.Field) -> Callable:
    if is_user_field(field):
        return _text(get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD))
    return _integer(field)


def _checker(field: models.Field) -> Callable:
    if field.is_relation:
        check = _reference(field)
    elif isinstance(field, models.JSONField):
        check = lambda value: value  # noqa: E731 - any JSON value
    elif isinstance(field, models.DateTimeField):
        check = _datetime
    elif isinstance(field, models.BooleanField):
        check = _boolean
    elif isinstance(field, models.FloatField):
        check = _float
    elif isinstance(field, models.IntegerField):
        check = _integer(field)
    elif isinstance(field, (models.CharField, models.TextField)):
        check = _text(field)
    else:
        raise TypeError(f"{field.model.__name__}.{field.name}: no archive reader for {type(field).__name__}")
    if field.choices:
        allowed = {value for value, _ in field.flatchoices}
        inner = check

        def check(value):
            value = inner(value)
            if value not in allowed:
                raise RowError("", f"{value!r} is not one of {', '.join(sorted(map(str, allowed)))}")
            return value
    return check


_MISSING = object()


class RowReader:
    """Reads the rows of one model: the keys value_lookups writes, each value checked for its column.

    RESOLVER(field) gives, for a foreign key, the function that turns its archived value (an old id, a username)
    into the importing database's id, raising RowError when there is none. `read(obj)` returns (the row's old id,
    the values in the order of `columns`). A key the archive lacks takes the field's default (an archive written
    before the field was added); a key this schema does not have is refused.
    """

    def __init__(self, model: type[models.Model], *, resolver: Callable[[models.Field], Callable]):
        fields = _stored_fields(model)
        self.columns = [field.name for field in fields]
        self.keys = {"id", *self.columns}
        self._id = _integer(model._meta.pk)
        # Per field, worked out once (a campaign's tables hold millions of rows): name, check, the default for a
        # missing key, whether null is allowed, and the foreign key's resolver.
        self._plan = [(field.name, _checker(field),
                       field.get_default if field.has_default() or field.null else _MISSING,
                       field.null, resolver(field) if field.is_relation else None) for field in fields]

    def read(self, obj: dict) -> tuple[int, list]:
        if not obj.keys() <= self.keys:
            unknown = sorted(obj.keys() - self.keys)[0]
            raise RowError(unknown, f"unknown field (rows of this table have: {', '.join(sorted(self.keys))})")
        if "id" not in obj:
            raise RowError("id", "missing key")
        try:
            old_id = self._id(obj["id"])
        except RowError as exc:
            raise RowError("id", exc.message) from None
        values = []
        for name, check, default, nullable, resolve in self._plan:
            if name not in obj:
                if default is _MISSING:
                    raise RowError(name, "missing key")
                values.append(default())
                continue
            value = obj[name]
            if value is None:
                if not nullable:
                    raise RowError(name, "may not be null")
            else:
                try:
                    value = check(value)
                except RowError as exc:
                    raise RowError(name, exc.message) from None
                if resolve is not None:
                    value = resolve(value)
            values.append(value)
        return old_id, values
