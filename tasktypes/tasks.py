"""Celery tasks of imports: one task per import job, on the queue "imports" (settings.CELERY_TASK_ROUTES)."""

from celery import shared_task
from django.conf import settings

from tasktypes.jobs import import_job_execute


@shared_task(acks_late=True, soft_time_limit=settings.IMPORT_TIME_LIMIT, time_limit=settings.IMPORT_TIME_LIMIT + 60)
def import_job_run(job_id: int) -> None:
    """Run import job JOB_ID (tasktypes.jobs.import_job_execute); a second delivery of an ended job does nothing."""
    import_job_execute(job_id=job_id)
