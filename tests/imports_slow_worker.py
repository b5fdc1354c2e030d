"""A Celery app for browser tests of import jobs: Concord's own app, with each import slowed down a little.

`celery -A tests.imports_slow_worker worker -Q imports` is the real worker with the real tasks; only the readers'
progress pauses CONCORD_TEST_PAUSE_SECONDS every CONCORD_TEST_PAUSE_ROWS rows, so that an import of a few MB lasts
long enough for a page to show it under way. CONCORD_TEST_WORKER_LOST_WAIT, when set, is the seconds the worker
waits before reporting a killed pool process lost (worker_lost_wait; Celery's default 10 s would make a test of
killed workers wait that long per kill).
"""

import os
import time

from celery.signals import worker_init

from config.celery import app

__all__ = ["app"]

if os.environ.get("CONCORD_TEST_WORKER_LOST_WAIT"):
    app.conf.worker_lost_wait = float(os.environ["CONCORD_TEST_WORKER_LOST_WAIT"])


@worker_init.connect
def _slow_imports(**_):
    import django

    django.setup()
    from interchange.importers.progress import ImportProgress

    pause = float(os.environ.get("CONCORD_TEST_PAUSE_SECONDS", "0.1"))
    every = int(os.environ.get("CONCORD_TEST_PAUSE_ROWS", "1000"))
    row = ImportProgress.row

    def slow(self, path, number, position):
        if number % every == 0:
            time.sleep(pause)
        return row(self, path, number, position)

    ImportProgress.row = slow
