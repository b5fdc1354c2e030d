"""The step a report build is at, for a page that waits on it ("Building… (judges, 12 s)").

The builders name their steps with build_step; whoever runs a build and wants to hear them (agreement.stored, which
records each on the stored report's lock row) wraps the build in build_steps_reported. Elsewhere (the command, tests
of the builders) build_step does nothing. A context variable, so that the task types' report builders keep their
one-argument interface (annotate.task_types.spec.TaskTypeSpec.report_build).
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

READING = "reading the data"
HUMANS = "humans"
JUDGES = "judges"
SYSTEM_LEVEL = "system level"
PLOTS = "plots"

_listener: ContextVar[Callable[[str], None] | None] = ContextVar("report_build_step_listener", default=None)


def build_step(name: str) -> None:
    """Say that the report build running in this context has reached step NAME."""
    listener = _listener.get()
    if listener is not None:
        listener(name)


@contextmanager
def build_steps_reported(to: Callable[[str], None]) -> Iterator[None]:
    """Within the block, each build_step(name) calls TO(name)."""
    token = _listener.set(to)
    try:
        yield
    finally:
        _listener.reset(token)
