"""A Celery app for worker-kill tests: Concord's own app, with each EM/F1 batch held for a moment.

`celery -A tests.judges_slow_worker worker` is the real worker with the real tasks; only the
families sleep CONCORD_TEST_BATCH_SECONDS before judging, so a run lasts long enough to be killed
in the middle. While a pool process is inside a batch, the file CONCORD_TEST_BUSY_DIR/<pid> exists:
the test kills a busy process, as the OOM killer would. (Killing an idle prefork process can
deadlock the pool: it may die holding the shared task-queue lock, which billiard never releases.)
CONCORD_TEST_WORKER_LOST_WAIT, when set, is the seconds the worker waits before reporting a killed pool process lost
(Celery's default of 10 s would make a test of killed workers wait that long per kill).
"""

import os
import time
from pathlib import Path

from celery.signals import worker_init

from config.celery import app

__all__ = ["app"]

if os.environ.get("CONCORD_TEST_WORKER_LOST_WAIT"):
    app.conf.worker_lost_wait = float(os.environ["CONCORD_TEST_WORKER_LOST_WAIT"])


@worker_init.connect
def _slow_families(**_):
    import django

    django.setup()
    from judges.families import FAMILIES

    delay = float(os.environ.get("CONCORD_TEST_BATCH_SECONDS", "0.3"))
    busy_dir = os.environ.get("CONCORD_TEST_BUSY_DIR")
    for family in FAMILIES.values():
        judge = type(family).judge_batch

        def slow(self, items, config, _judge=judge):
            marker = Path(busy_dir, str(os.getpid())) if busy_dir else None
            if marker:
                marker.touch()
            try:
                time.sleep(delay)
                return _judge(self, items, config)
            finally:
                if marker:
                    marker.unlink(missing_ok=True)

        type(family).judge_batch = slow
