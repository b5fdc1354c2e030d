"""Celery tasks of imports: one task per import job, on the queue "imports" (settings.CELERY_TASK_ROUTES). The task is
defined beside its body (interchange.jobs); this module is where Celery's autodiscovery finds it."""

from interchange.jobs import import_job_run

__all__ = ["import_job_run"]
