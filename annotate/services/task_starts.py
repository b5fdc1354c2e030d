"""No Celery message kills workers forever: each start of a task that can lose its worker is counted, and the start
after settings.TASK_MAX_STARTS lost ones records why and does not run the body.

A message whose body takes the worker down (the kernel's OOM killer, a crash in native code) is not acknowledged:
acks_late (and reject_on_worker_lost, for judge and probe batches) hands it back to the queue, and the next worker
runs it again, and dies again. Import jobs count their starts on their own row (interchange.jobs); the other tasks
wrap their body with `starts_limited`, which counts on a row of their message (annotate.models.TaskStart, keyed by
the Celery task id and retry number, which a redelivery keeps and a retry changes). A start that ends, in whatever
way, deletes the row; so a row still there at a start belongs to earlier starts that lost their worker.
"""

import functools
import logging
from collections.abc import Callable

from celery import current_task
from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F

from annotate.models import TaskStart

logger = logging.getLogger(__name__)


def lost_worker_reason(*, what: str, lost: int) -> str:
    """What a task given up says: WHAT it was and how many times its worker was lost."""
    return (f"stopped: {what} lost the worker running it {lost} time{'s' if lost != 1 else ''} (killed for memory, "
            f"or otherwise; setting TASK_MAX_STARTS) and is not started again")


def task_start_count(*, key: str, task: str) -> int:
    """Count a start of the message KEY (of task TASK); how many times it has started, this one included."""
    with transaction.atomic():
        try:
            with transaction.atomic():
                TaskStart.objects.get_or_create(key=key, defaults={"task": task[:100]})
        except IntegrityError:  # another start of the same message made it meanwhile
            pass
        TaskStart.objects.filter(key=key).update(starts=F("starts") + 1)
        return TaskStart.objects.filter(key=key).values_list("starts", flat=True).get()


def _task_start_forget(key: str) -> None:
    try:
        TaskStart.objects.filter(key=key).delete()
    except DatabaseError:  # the database is away: the row stays, and a later start of the message counts one more
        logger.warning("could not forget the starts of message %s", key)


def _message_key() -> str | None:
    """The running message's key, '<task id>:<retries>'; None when the body is called directly or eagerly."""
    task = current_task
    request = getattr(task, "request", None) if task else None
    if request is None or not request.id or request.called_directly or request.is_eager:
        return None
    return f"{request.id}:{request.retries or 0}"


def starts_limited(*, given_up: Callable[..., None]):
    """Decorate a Celery task's body (under @shared_task): each start of its message is counted, and the start after
    settings.TASK_MAX_STARTS starts that lost their worker calls GIVEN_UP(*args, lost=N, **kwargs) instead of the body:
    GIVEN_UP records the failure where its users look (a run's error, a probe's verdicts, the report's build error)."""
    def decorate(body):
        @functools.wraps(body)
        def run(*args, **kwargs):
            key = _message_key()
            if key is None:
                return body(*args, **kwargs)
            starts = task_start_count(key=key, task=getattr(current_task, "name", body.__name__))
            try:
                if starts > settings.TASK_MAX_STARTS:
                    logger.error("%s %s: not started again after %d lost workers", body.__name__, args, starts - 1)
                    given_up(*args, lost=starts - 1, **kwargs)
                    return None
                return body(*args, **kwargs)
            finally:
                _task_start_forget(key)
        return run
    return decorate
