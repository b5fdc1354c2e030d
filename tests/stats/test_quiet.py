"""stats.quiet: warnings silenced within, and the process's filters as they were after, whatever order two threads
enter and leave in (where warnings.catch_warnings puts back the list it saved, and loses or leaves the other's)."""

import threading
import warnings

import numpy as np
import pytest

from stats.quiet import quiet


def test_within_the_category_is_silenced_and_numpy_s_floating_point_warnings_too():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with quiet(RuntimeWarning):
            warnings.warn("expected", RuntimeWarning, stacklevel=1)
            assert np.isnan(np.array([0.0]) / np.array([0.0]))[0]
            warnings.warn("not silenced", UserWarning, stacklevel=1)
        warnings.warn("after", RuntimeWarning, stacklevel=1)
    assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, "not silenced"), (RuntimeWarning, "after")]


def test_a_category_apart_from_runtime_warning_leaves_numpy_s_settings_alone():
    with quiet(FutureWarning), pytest.warns(RuntimeWarning, match="invalid value"):
        np.array([0.0]) / np.array([0.0])


def test_two_threads_leaving_in_the_other_order_leave_the_filters_as_they_were():
    """Thread A enters, thread B enters, A leaves, then B: with catch_warnings A's exit would put back the list
    without B's filter (B's expected warnings printed meanwhile) and B's exit the list with A's filter in it."""
    before = list(warnings.filters)
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with quiet(RuntimeWarning):
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def second():
        a_in.wait(5)
        with quiet(UserWarning):
            b_in.set()
            a_out.wait(5)
            with warnings.catch_warnings(record=True) as caught:
                warnings.warn("still silenced", UserWarning, stacklevel=1)
            seen["after A left"] = [str(w.message) for w in caught]

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == {"after A left": []}
    assert warnings.filters == before
