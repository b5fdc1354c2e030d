"""reports.beside: a pure report block in a thread of its own, its result or its error where asked, no query, the
build's context variables held."""

import threading

import numpy as np
import pytest

from annotate.models import Campaign
from reports.beside import QueryBesideError, beside, blocks_joined
from stats import resampling


def _thread_name() -> str:
    return threading.current_thread().name


def test_a_block_runs_in_a_thread_of_its_own_and_gives_its_result():
    assert beside(sum, [1, 2, 3], start=4).result() == 10
    assert beside(_thread_name).result().startswith("report-block")
    assert _thread_name() != beside(_thread_name).result()


def test_what_a_block_raises_is_raised_where_its_result_is_asked_for():
    failing = beside(int, "not a number")
    with pytest.raises(ValueError, match="not a number"):
        failing.result()


@pytest.mark.django_db
def test_a_block_that_queries_the_database_is_refused():
    with pytest.raises(QueryBesideError, match="may not query the database"):
        beside(lambda: Campaign.objects.count()).result()
    assert Campaign.objects.count() == 0  # the caller's own connection still answers


def test_intervals_computed_beside_are_recorded_with_the_build_s():
    """stats.resampling records each interval's Monte Carlo errors in a context variable: a block beside adds its
    intervals to the same list as the build's own."""
    rows = np.random.default_rng(0).integers(0, 2, size=(200, 1)).astype(float)

    def interval():
        return resampling.sum_bootstrap(rows, lambda sums: sums[:, 0] / len(rows))[0]

    with resampling.interval_errors_recorded() as recorded:
        here = interval()
        there = beside(interval).result()
    assert here == there and here is not None and len(recorded) == 2 and recorded[0] == recorded[1]


def test_a_build_ends_after_its_blocks_also_when_it_raises():
    """blocks_joined: a block still running when the build raises is waited for."""
    release, done = threading.Event(), []

    def slow():
        release.wait(5)
        done.append(True)

    with pytest.raises(RuntimeError, match="the build failed"):
        with blocks_joined():
            beside(slow)
            threading.Timer(0.2, release.set).start()
            raise RuntimeError("the build failed")
    assert done == [True]
