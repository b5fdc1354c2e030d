"""A report block computed in a second thread while the build goes on (issue 52: the report's build).

A build on a machine of two cores reads its data and computes its blocks one after the other, on one core. Its
blocks are array operations for the most part, and numpy lets go of the interpreter's lock while it sorts, counts and
adds: a block run beside the build's other work (its next read, waiting on the database; its other blocks) takes the
second core. On the load test's report (a million human and a million model judgments) the alternative annotator
test and the human-likeness z beside the rest took the build from 4.8 s to 4.1 s (docs/benchmarks.md).

Only a pure block may run beside: no database. The thread's connection would be a connection of its own, which does
not see the build's transaction (a test's, or a caller's) and would add queries to a build that reads a fixed number
of them; a query in the thread raises. The build's context variables hold there too (a copy of its context: the
interval errors recorded, stats.resampling.interval_errors_recorded, go to the same list). Whatever the block raises
is raised again where its result is asked for.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from typing import Any, TypeVar

from django.db import connections

T = TypeVar("T")

# The blocks started beside the build running in this context (blocks_joined), or None outside one.
_started: contextvars.ContextVar[list[Future] | None] = contextvars.ContextVar("report_blocks_beside", default=None)


class QueryBesideError(RuntimeError):
    """A block run beside the build asked the database something."""


def _refuse(execute, sql, params, many, context):
    raise QueryBesideError(f"a report block run beside the build may not query the database: {sql[:200]}")


def _pure(function: Callable[..., T], args: tuple, kwargs: dict) -> T:
    """FUNCTION(*ARGS, **KWARGS) with every database connection of this thread refusing queries, and closed after
    (a refused query opens one first)."""
    try:
        with ExitStack() as refusals:
            for alias in connections:
                refusals.enter_context(connections[alias].execute_wrapper(_refuse))
            return function(*args, **kwargs)
    finally:
        connections.close_all()  # this thread's


def beside(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
    """FUNCTION(*ARGS, **KWARGS), a pure block (module docstring), started now in a thread of its own; its result (or
    what it raised) from .result()."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="report-block")
    try:
        future = pool.submit(contextvars.copy_context().run, _pure, function, args, kwargs)
    finally:
        pool.shutdown(wait=False)  # the thread ends once the block is done
    started = _started.get()
    if started is not None:
        started.append(future)
    return future


@contextmanager
def blocks_joined() -> Iterator[None]:
    """Around a build: every block it starts beside is done before the build ends, also when the build raises (no
    thread outlives it). The warnings the blocks expect are silenced by stats.quiet, which two threads may use at
    once (warnings.catch_warnings may not)."""
    started: list[Future] = []
    token = _started.set(started)
    try:
        yield
    finally:
        wait(started)
        _started.reset(token)
