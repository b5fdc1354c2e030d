"""Warnings a statistic expects (0/0 in a resample, a library's notice of a parameter it deprecates), silenced
around it in a way two threads can share.

`warnings.catch_warnings` saves the process's list of filters on entry and puts that list back on exit: a report
block run beside the build (reports.beside) that leaves its catch while the build's thread is inside its own puts
back a list without the build's filter, or with its own in it for good, and an expected warning is printed (or an
unexpected one lost) at random. `quiet` adds one filter of its own on entry and takes out that filter, and only it,
on exit, under a lock: any two threads may be quiet at once, in any order of entry and exit.

While any thread is quiet, its filter holds for the whole process, as catch_warnings' does: a warning of that
category raised meanwhile in another thread is silenced too. Where RuntimeWarning is silenced, numpy's
floating-point errors are also turned off by np.errstate, which holds for this thread (and this context) alone.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import cast

import numpy as np

_lock = threading.Lock()


def _filters() -> list:
    """The process's list of warning filters (typeshed calls it a Sequence; it is the list warn() reads)."""
    return cast(list, warnings.filters)


@contextmanager
def quiet(category: type[Warning] = Warning) -> Iterator[None]:
    """Within: warnings of CATEGORY (every warning by default) ignored; where that takes in RuntimeWarning, numpy's
    floating-point errors (divide, invalid, overflow, underflow) neither warned of nor raised either."""
    entry = ("ignore", None, category, None, 0)  # the form warnings.filters holds; taken out by identity
    with _lock:
        _filters().insert(0, entry)
        warnings._filters_mutated()  # type: ignore[attr-defined]  # as filterwarnings does: the registries see the new list
    try:
        with np.errstate(all="ignore") if issubclass(RuntimeWarning, category) else nullcontext():
            yield
    finally:
        with _lock:
            # The list may have been swapped meanwhile (a catch_warnings of other code leaving): take the entry out
            # of the list that holds it now, if it still does.
            filters = _filters()
            for index, held in enumerate(filters):
                if held is entry:
                    del filters[index]
                    break
            warnings._filters_mutated()  # type: ignore[attr-defined]
