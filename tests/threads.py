"""Racing test threads: each call on a thread and a database connection of its own, all released at once."""

import threading
from collections.abc import Callable

from django.db import connection


def run_at_once(calls: list[Callable[[], None]], *, timeout: float) -> list[BaseException]:
    """Run CALLS on threads that one barrier releases together; each closes its own database connection when done.

    Waits up to TIMEOUT seconds for each thread and fails when one is still running. Returns what the calls raised
    (reported to the test thread, where an assertion can name it; a thread's own exception would only be printed).
    """
    start = threading.Barrier(len(calls))
    errors: list[BaseException] = []

    def run(call):
        try:
            start.wait()
            call()
        except BaseException as exc:  # noqa: BLE001 (reported to the test thread)
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads), f"a racing thread still runs after {timeout} s"
    return errors
