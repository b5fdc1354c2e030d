"""Celery task of stored reports: rebuild a campaign's report in the background (agreement.stored).

On the "imports" queue (settings.CELERY_TASK_ROUTES), not the default "judges": a judge run queues its batches there
by the hundred, and a rebuild behind them would leave "updating…" on the page for the whole run. Imports are few and
one at a time per campaign, and every worker started by scripts/serve consumes that queue.
"""

from agreement.stored import report_rebuild

__all__ = ["report_rebuild"]
