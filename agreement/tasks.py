"""Celery task of stored reports: rebuild a campaign's report in the background (agreement.stored).

On the "imports" queue (settings.CELERY_TASK_ROUTES), not the default "judges": a judge run queues its batches there
by the hundred, and a rebuild behind them would leave "updating…" on the page for the whole run. Imports are few and
one at a time per campaign, and every worker started by scripts/serve consumes that queue.
"""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from agreement.stored import BUILD_TIMEOUT, stored_report_rebuild

# Under the build lock's timeout: a lock older than the timeout then belongs to a build that is no longer running.
_HARD_LIMIT_S = int(BUILD_TIMEOUT.total_seconds()) - 30


@shared_task(acks_late=True, soft_time_limit=_HARD_LIMIT_S - 60, time_limit=_HARD_LIMIT_S,
             autoretry_for=(OperationalError, InterfaceError), retry_backoff=5, max_retries=3)
def report_rebuild(campaign_id: int) -> None:
    """Rebuild campaign CAMPAIGN_ID's stored report if it is stale and no other build runs; a second delivery, or one
    for a deleted campaign, does nothing. Database errors (a restart) are retried."""
    stored_report_rebuild(campaign_id=campaign_id)
