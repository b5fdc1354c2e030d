"""Querysets built and compiled to SQL once per process, then run again with other values.

The annotation page's requests are a handful of small queries each, and building a queryset (its filters, its
subqueries) and compiling it to SQL costs Django more CPU than the database spends running it (issue 52:
docs/benchmarks.md, "One annotator's requests, in-process"). A query of a fixed shape, which only the ids and the
moment it is asked at change between calls, need not be built again: `Precompiled(build)` calls BUILD once with
stand-in values, compiles the queryset, notes where each stand-in lands among the SQL's parameters, and thereafter
hands back a queryset that runs that SQL with the values given. Rows become model instances or tuples exactly as
they would from the queryset BUILD makes with those values (the same compiler does it: its select list, its related
objects, its converters).

A precompiled queryset runs as it is (list(), iteration): chaining it (filter, first, get ...) raises TypeError, as
the SQL would no longer be its own. Values are named by keyword, each an int (an id), a str compared as it is
(a slug) or an aware datetime; BUILD must give each of them to the query as a parameter (a stand-in that does not
reach the SQL, or that changes the SQL text, is refused when first compiled, so a wrong use fails at once, never with
the wrong rows).
"""

import copy
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import DateTimeField, QuerySet

# Stand-ins: values no real query is asked with (ids far above any table's, moments in 2001), distinct per name.
_STAND_IN_ID = 1_900_000_000
_STAND_IN_MOMENT = datetime(2001, 2, 3, 4, 5, 6, tzinfo=UTC)
_STAND_IN_TEXT = "precompiled-stand-in-"


class Precompiled:
    """The queryset BUILD(**values) makes, compiled once per database alias and run again with other values.

    With VARIANTS, BUILD takes a first argument, the variant (a task type's name, say: a name that changes the query's
    shape, not a value it is run with), and each call names it (variant=): one compiled query per variant."""

    def __init__(self, build: Callable[..., QuerySet], *, variants: bool = False):
        self.build = build
        self.variants = variants
        self._compiled: dict[tuple[str, str], tuple] = {}
        self._lock = threading.Lock()

    def __call__(self, *, using: str = DEFAULT_DB_ALIAS, variant: str = "", **values) -> QuerySet:
        """The queryset BUILD(**VALUES) makes (BUILD(VARIANT, **VALUES) with variants), to be run as it is on the
        database USING."""
        queryset, compiler, sql, slots = self._compiled_for(values, using, variant)
        params = _params(slots, values, connections[using])
        run = copy.copy(compiler)
        run.connection = connections[using]
        run.as_sql = lambda *args, **kwargs: (sql, tuple(params))
        query = copy.copy(queryset.query)
        query.get_compiler = lambda *args, **kwargs: run
        query.chain = query.clone = _refuse_chaining
        result = copy.copy(queryset)
        result._query = query  # the setter would make a values_list queryset a values one
        result._result_cache = None
        return result

    def sql(self, *, using: str = DEFAULT_DB_ALIAS, variant: str = "", **values) -> tuple[str, list]:
        """(the SQL of the queryset BUILD(**VALUES) makes, its parameters): to run inside a statement of one's own."""
        _, _, sql, slots = self._compiled_for(values, using, variant)
        return sql, _params(slots, values, connections[using])

    def _compiled_for(self, values: dict, using: str, variant: str) -> tuple:
        if bool(variant) != self.variants:
            raise TypeError("precompiled query: name its variant exactly when it has variants")
        compiled = self._compiled.get((using, variant))
        if compiled is None:
            with self._lock:
                compiled = self._compiled.setdefault((using, variant), self._compile(values, using, variant))
        return compiled

    def _compile(self, values: dict, using: str, variant: str) -> tuple:
        """(the stand-ins' queryset, its compiler after as_sql, the SQL, for each parameter (the name of the value it
        stands for, or None and the parameter itself))."""
        connection = connections[using]
        compiled = []
        for round_ in (0, 1):  # twice, with other stand-ins: the SQL text must not depend on them
            stand_ins = _stand_ins(values, round_)
            queryset = (self.build(variant, **stand_ins) if self.variants else self.build(**stand_ins)).using(using)
            # Never run: each call copies it, and copy.copy takes a queryset's state as pickling does, which runs it.
            queryset._result_cache = []
            compiler = queryset.query.get_compiler(using=using)
            sql, params = compiler.as_sql()
            adapted = [(name, _adapted(value, connection)) for name, value in stand_ins.items()]
            slots = [(next((name for name, value in adapted if _same(param, value)), None), param) for param in params]
            missing = set(stand_ins) - {name for name, _ in slots if name}
            if missing:
                raise ValueError(f"precompiled query: {sorted(missing)} never reach its SQL as parameters")
            compiled.append((queryset, compiler, sql, slots))
        first, second = compiled
        if first[2] != second[2] or [name for name, _ in first[3]] != [name for name, _ in second[3]]:
            raise ValueError("precompiled query: its SQL changes with the values it is given")
        return first


def _params(slots: list, values: dict, connection) -> list:
    """The SQL's parameters for VALUES: each stand-in's slot given its value, the others as compiled."""
    return [_like(param, _adapted(values[name], connection)) if name else param for name, param in slots]


def _stand_ins(values: dict, round_: int) -> dict:
    """A stand-in for each of VALUES, of its kind, distinct from each other and between rounds."""
    stand_ins = {}
    for n, (name, value) in enumerate(sorted(values.items())):
        n += round_ * 1_001  # odd in one round, even in the other: a build that branches on a value shows it
        if isinstance(value, datetime):
            stand_ins[name] = _STAND_IN_MOMENT + timedelta(microseconds=n + 1)
        elif isinstance(value, int) and not isinstance(value, bool):
            stand_ins[name] = _STAND_IN_ID + n
        elif isinstance(value, str):
            stand_ins[name] = f"{_STAND_IN_TEXT}{n}"
        else:
            raise TypeError(f"precompiled query: {name} is a {type(value).__name__}, not an id, a text or a moment")
    return stand_ins


_MOMENT = DateTimeField()


def _adapted(value, connection):
    """VALUE as the query's SQL parameters hold it (a moment as the database's backend writes it)."""
    return _MOMENT.get_db_prep_value(value, connection) if isinstance(value, datetime) else value


def _same(param, stand_in) -> bool:
    """Whether the SQL parameter PARAM is STAND_IN (adapted): equal, of its type, or both integers (PostgreSQL's
    backend hands an integer field's value over wrapped, in psycopg's Int4)."""
    if isinstance(param, bool) or param != stand_in:
        return False
    return type(param) is type(stand_in) or isinstance(param, int) and isinstance(stand_in, int)


def _like(param, value):
    """VALUE as the parameter PARAM stood for it is handed to the database: in PARAM's wrapper (Int4) if it has one."""
    if isinstance(param, int) and type(param) is not int and not isinstance(param, bool):
        return type(param)(value)
    return value


def _refuse_chaining(*args, **kwargs):
    raise TypeError("a precompiled queryset runs as it is: build the whole query in its build function")


# psycopg parses a statement for its placeholders on every run unless the statement is short: it keeps the parse
# (an LRU cache of 128 statements) only for statements up to 4,096 bytes with at most 50 parameters. The precompiled
# queries a submit runs are up to 6 kB with up to 82 parameters (the unit's state under its lock, the held lease
# with its page columns), so each was parsed anew: 0.2-0.3 ms of a submit's 7-10 ms of CPU, two or three times.
DRIVER_CACHED_LENGTH = 16_384
DRIVER_CACHED_PARAMS = 128


def driver_parse_cached() -> None:
    """Raise psycopg's limits for keeping a statement's parse (above) so that the precompiled queries are parsed
    once per process. A statement with more parameters than DRIVER_CACHED_PARAMS (a report's long IN lists, a bulk
    insert) is still parsed each time and never fills the cache. Called once the default database is PostgreSQL."""
    from psycopg import _queries  # psycopg's own module; the limits are plain module constants read at each run

    _queries.MAX_CACHED_STATEMENT_LENGTH = max(_queries.MAX_CACHED_STATEMENT_LENGTH, DRIVER_CACHED_LENGTH)
    _queries.MAX_CACHED_STATEMENT_PARAMS = max(_queries.MAX_CACHED_STATEMENT_PARAMS, DRIVER_CACHED_PARAMS)
