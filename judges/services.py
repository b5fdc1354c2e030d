"""Writes for judge runs: start, cancel, resume. The batches themselves run in `judges.tasks`.

Batches are queued after the run's row is committed (a worker must find it), through one helper,
and never run inline when the broker is down: the run is marked failed and the caller told.
"""

import logging

from django.db import IntegrityError, transaction
from django.utils import timezone
from kombu.exceptions import KombuError

from annotate.models import Campaign, Item
from annotate.services.data_version import campaign_data_changed
from judges.boundary import limit
from judges.endpoints import endpoint_concurrency_check, endpoint_for_judge
from judges.errors import JudgeConfigError, JudgeQueueError, JudgeRunConflictError, JudgeRunError
from judges.families import family_check_task_type, family_config_validate, family_get
from judges.identity import judge_get_or_create
from judges.models import ACTIVE_RUN_STATUSES, EXTERNAL_FAMILY, Judge, JudgeRun, ModelJudgment, RunStatus
from judges.selectors import campaign_item_sample, judge_judged_count, judge_pending_item_ids
from judges.tasks import judge_batch

logger = logging.getLogger(__name__)

MAX_BATCH_SIZE = 10_000
# How long publishing waits for an unreachable broker before the run is declared failed.
PUBLISH_RETRY_POLICY = {"max_retries": 3, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}


def judge_queue_name(*, config: dict) -> str:
    """GPU judges (config device "cuda", "cuda:1") go to the judges-gpu queue, the rest to judges."""
    device = config.get("device") or ""
    return "judges-gpu" if isinstance(device, str) and device.startswith("cuda") else "judges"


def _batches(item_ids: list[int], size: int) -> list[list[int]]:
    return [item_ids[start:start + size] for start in range(0, len(item_ids), size)]


def judge_run_here(run_id: int) -> int:
    """Judge every item run RUN_ID still lacks in this process, batch by batch as a worker would: for commands that
    run where no worker may be started yet (load_demo, whose reports are then built with the run's verdicts). The
    batches the run queued, when a worker takes them later, find it finished and do nothing. Returns the verdicts
    written."""
    run = JudgeRun.objects.select_related("judge").get(pk=run_id)
    pending = judge_pending_item_ids(judge=run.judge, item_ids=run.sample_item_ids)
    return sum(judge_batch(run_id, batch) for batch in _batches(pending, run.batch_size))


def _batches_publish(*, run_id: int, campaign_id: int, batches: list[list[int]], queue: str) -> None:
    """Publish one judge_batch task per batch, on one broker connection. Runs after commit.

    A broker that cannot be reached marks the run failed (a new data version of CAMPAIGN_ID: the report counts the
    time of finished runs) and raises JudgeQueueError; batches already published find the run failed and return
    early, and `judge_run_resume` requeues what is left.
    """
    try:
        for batch in batches:
            judge_batch.apply_async(args=(run_id, batch), queue=queue, retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except (KombuError, OSError) as exc:
        message = f"could not queue the run's batches: the Celery broker is unreachable ({exc}); start it, then resume"
        logger.error("judge run %s: %s", run_id, message)
        with transaction.atomic():
            JudgeRun.objects.filter(pk=run_id).update(status=RunStatus.FAILED, error=message,
                                                      finished_at=timezone.now())
            campaign_data_changed(campaign_id=campaign_id)
        raise JudgeQueueError(message) from exc


def _pending_queue(*, run: JudgeRun, judge: Judge) -> int:
    """Queue batches for the judge's unjudged items after commit; mark the run done when there are none.

    Call inside transaction.atomic with the judge's row locked. Returns the number of items queued.
    """
    pending = judge_pending_item_ids(judge=judge, item_ids=run.sample_item_ids)
    if not pending:
        # Every item already has this judge's verdict (cache): nothing to queue.
        now = timezone.now()
        run.status, run.started_at, run.finished_at = RunStatus.SUCCEEDED, run.started_at or now, now
        run.save(update_fields=["status", "started_at", "finished_at"])
        return 0
    batches = _batches(pending, run.batch_size)
    run_id, campaign_id, queue = run.id, judge.campaign_id, judge_queue_name(config=judge.config)
    transaction.on_commit(lambda: _batches_publish(run_id=run_id, campaign_id=campaign_id, batches=batches,
                                                   queue=queue))
    return len(pending)


def _judge_lock_without_active_run(*, judge: Judge) -> Judge:
    judge = Judge.objects.select_for_update().get(pk=judge.pk)
    active = judge.runs.filter(status__in=ACTIVE_RUN_STATUSES).order_by("-id").first()
    if active is not None:
        raise JudgeRunConflictError(
            f"judge {judge.name!r} already has run {active.id} {active.status}; wait for it or cancel it first"
        )
    return judge


def judge_run_start(
    *, campaign: Campaign, name: str, family: str, config: dict | None, batch_size: int | None = None, created_by=None,
    sample: int | None = None,
) -> JudgeRun:
    """Start judge NAME of FAMILY with CONFIG on every item of CAMPAIGN it has not judged yet.

    BATCH_SIZE is the items per Celery task; None takes the family's `items_per_task`.
    With SAMPLE, only on that many items, chosen by a fixed hash of their ids (the same items for every
    judge: a pilot, or configurations compared on the same items at a fraction of the cost).

    The judge is found or created by its configuration hash; the same name with another
    configuration is a JudgeConfigError. Raises JudgeRunConflictError when the judge already has a
    queued or running run, JudgeQueueError (after marking the run failed) when the broker is down.
    Must not be called inside an outer transaction: the batches are published when this one commits.
    """
    judge_family = family_get(family)
    family_check_task_type(family, campaign.task_type)
    config = family_config_validate(family, config, task_type=campaign.task_type)
    if batch_size is None:  # items per Celery task: the family's own default
        batch_size = judge_family.items_per_task
    endpoint_use_check(family=family, config=config, campaign=campaign, user=created_by)
    most = min(MAX_BATCH_SIZE, limit("run_batch_size"))
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or not 1 <= batch_size <= most:
        raise JudgeConfigError(f"batch size must be a whole number from 1 to {most}, not {batch_size!r}")
    if sample is not None and (not isinstance(sample, int) or isinstance(sample, bool) or sample < 1):
        raise JudgeConfigError(f"a sample must be a whole number of items, at least 1, not {sample!r}")
    name = (name or "").strip()
    if not name:
        raise JudgeConfigError("a judge needs a name")
    try:
        with transaction.atomic():
            judge = judge_get_or_create(campaign=campaign, name=name, family=family, config=config)
            judge = _judge_lock_without_active_run(judge=judge)
            sample_ids = None if sample is None else campaign_item_sample(campaign_id=campaign.id, size=sample)
            run = JudgeRun.objects.create(
                judge=judge, batch_size=batch_size, created_by=created_by, sample_item_ids=sample_ids,
                total=len(sample_ids) if sample_ids is not None else Item.objects.filter(campaign=campaign).count(),
            )
            _pending_queue(run=run, judge=judge)
            # The report lists every judge of the campaign with its configuration, from its creation on.
            campaign_data_changed(campaign_id=campaign.pk)
    except IntegrityError as exc:
        # Two starts raced past the check (SQLite cannot lock a row): the partial unique index decided.
        raise JudgeRunConflictError(f"judge {name!r} already has a queued or running run") from exc
    run.refresh_from_db()
    return run


def judge_run_new_items_start(*, judge: Judge, created_by=None) -> JudgeRun:
    """Start JUDGE on the items of its campaign it has not judged yet, and only on those (after an import: the run's
    total is the new items, its progress theirs). The batch size is that of the judge's latest run.

    Raises JudgeRunError when the judge was imported (it cannot run) or has judged every item,
    JudgeRunConflictError when it has a queued or running run, JudgeConfigError when CREATED_BY may not use its
    model endpoint, JudgeQueueError when the broker is down. Must not be called inside an outer transaction.
    """
    if judge.is_external:
        raise JudgeRunError(f"judge {judge.name!r} was imported; only a configured judge can judge new items")
    family_check_task_type(judge.family, judge.campaign.task_type)
    config = family_config_validate(judge.family, judge.config, task_type=judge.campaign.task_type)
    endpoint_use_check(family=judge.family, config=config, campaign=judge.campaign, user=created_by)
    try:
        with transaction.atomic():
            judge = _judge_lock_without_active_run(judge=judge)
            pending = judge_pending_item_ids(judge=judge)
            if not pending:
                raise JudgeRunError(f"judge {judge.name!r} has judged every item of the campaign")
            latest = judge.runs.order_by("-id").values_list("batch_size", flat=True).first()
            run = JudgeRun.objects.create(judge=judge, batch_size=latest or 64, created_by=created_by,
                                          sample_item_ids=pending, total=len(pending), new_items=True)
            _pending_queue(run=run, judge=judge)
    except IntegrityError as exc:
        raise JudgeRunConflictError(f"judge {judge.name!r} already has a queued or running run") from exc
    run.refresh_from_db()
    return run


def judge_new_items_start_all(*, campaign: Campaign, user=None) -> list[dict]:
    """Start every configured judge of CAMPAIGN on its new items (after an import, with the campaign option
    judge_new_items): {"judge", "run", "items"} for each run started, {"judge", "error"} for a judge that could not
    start (a run still active, an endpoint USER may not use, the broker down), in judge name order."""
    started: list[dict[str, str | int]] = []
    for judge in Judge.objects.filter(campaign=campaign).exclude(family=EXTERNAL_FAMILY).order_by("name"):
        try:
            run = judge_run_new_items_start(judge=judge, created_by=user)
        except (JudgeConfigError, JudgeRunError) as exc:
            started.append({"judge": judge.name, "error": str(exc)})
        else:
            started.append({"judge": judge.name, "run": run.id, "items": run.total})
    return started


def judge_run_cancel(*, run: JudgeRun) -> JudgeRun:
    """Cancel RUN if it is queued or running. Batches not yet started return early; one in flight finishes."""
    with transaction.atomic():
        run = JudgeRun.objects.select_for_update().get(pk=run.pk)
        if run.status not in ACTIVE_RUN_STATUSES:
            raise JudgeRunError(f"run {run.id} is {run.status}; only a queued or running run can be cancelled")
        run.status, run.finished_at = RunStatus.CANCELLED, timezone.now()
        run.save(update_fields=["status", "finished_at"])
        campaign_data_changed(campaign_id=run.judge.campaign_id)  # the report counts the time of finished runs
    return run


def endpoint_use_check(*, family: str, config: dict, campaign: Campaign, user) -> None:
    """The model endpoint the validated CONFIG names (if any) is one USER may use on CAMPAIGN, serving the
    configured model at the configured concurrency; JudgeConfigError if not. Checked again on the worker."""
    endpoint = endpoint_for_judge(family=family, config=config, campaign=campaign, user=user)
    endpoint_concurrency_check(family=family, config=config, endpoint=endpoint)


def judge_run_resume(*, run: JudgeRun, user=None) -> JudgeRun:
    """Queue RUN again for the items its judge has not judged yet.

    For cancelled and failed runs, and for interrupted ones (still queued or running, but their
    worker died with the batches): items already judged are never judged again, and a batch that
    is delivered twice writes nothing the second time. Raises JudgeRunConflictError when another
    run of the same judge is active, JudgeQueueError when the broker is down, JudgeConfigError when USER
    (who resumes; the run's creator when None) may no longer use its model endpoint.
    """
    judge = run.judge
    family_check_task_type(judge.family, judge.campaign.task_type)
    config = family_config_validate(judge.family, judge.config, task_type=judge.campaign.task_type)
    endpoint_use_check(family=judge.family, config=config, campaign=judge.campaign, user=user or run.created_by)
    with transaction.atomic():
        judge = Judge.objects.select_for_update().get(pk=judge.pk)
        run = JudgeRun.objects.select_for_update().get(pk=run.pk)
        other = judge.runs.filter(status__in=ACTIVE_RUN_STATUSES).exclude(pk=run.pk).first()
        if other is not None:
            raise JudgeRunConflictError(f"judge {judge.name!r} already has run {other.id} {other.status}")
        if run.sample_item_ids is None:
            run.total = Item.objects.filter(campaign_id=judge.campaign_id).count()
        if run.status not in ACTIVE_RUN_STATUSES:
            judged = judge_judged_count(judge=judge, item_ids=run.sample_item_ids)
            run.status = RunStatus.RUNNING if judged else RunStatus.QUEUED
        run.error, run.finished_at = "", None
        run.save(update_fields=["total", "status", "error", "finished_at"])
        _pending_queue(run=run, judge=judge)
        # The run is unfinished again (the report counts the time of finished runs); for judge_run_retry_failed, its
        # failed verdicts are gone too.
        campaign_data_changed(campaign_id=judge.campaign_id)
    run.refresh_from_db()
    return run


def judge_run_retry_failed(*, run: JudgeRun, user=None) -> tuple[JudgeRun, int]:
    """Judge again the items RUN's judge failed on: their failed verdicts are removed and RUN resumed.

    Returns the run and how many failed verdicts were removed. An LLM judge's stored samples stay: only
    samples that failed are asked for again. Raises JudgeRunError while RUN (or another run of its judge)
    is queued or running, JudgeQueueError when the broker is down (the failed verdicts then stay removed
    and a resume picks them up).
    """
    with transaction.atomic():
        judge = _judge_lock_without_active_run(judge=run.judge)
        failed = ModelJudgment.objects.filter(judge=judge, failed=True)
        if run.sample_item_ids is not None:
            failed = failed.filter(item_id__in=run.sample_item_ids)
        removed, _ = failed.delete()
        if not removed:
            raise JudgeRunError(f"judge {judge.name!r} has no failed items to retry")
        run = judge_run_resume(run=run, user=user)  # ends this transaction with the campaign's next data version
    return run, removed
