"""Celery tasks of judge runs: one task per batch of item ids; and of robustness probes, one per batch of probe ids.

A batch can be delivered twice (a worker killed after writing, before acknowledging; a resumed run
queueing what a dead worker had taken): it skips items already judged and inserts with
ignore_conflicts, so the (judge, item) constraint keeps every item judged once.

A family that raises on a batch (an exception, out of memory) is asked again item by item: the items
that still raise get a failed verdict saying why, the others their verdict, and the run goes on. The
judge panel lists the failures; "retry failed items" (judges.services.judge_run_retry_failed) asks again.
"""

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from annotate.models import Item
from annotate.services.data_version import campaign_data_changed
from annotate.services.task_starts import lost_worker_reason, starts_limited
from annotate.task_types.registry import task_type_get
from judges.endpoints import endpoint_connection
from judges.errors import JudgeConfigError
from judges.families import ItemInput, Verdict, family_config_validate, family_get
from judges.families.batching import BatchMeter, metered
from judges.llm.backend import MemorySampleStore
from judges.models import ACTIVE_RUN_STATUSES, Judge, JudgeRun, ModelJudgment, Probe, ProbeVerdict, RunStatus
from judges.samples import DbSampleStore
from judges.selectors import judge_failed_count, judge_judged_count

logger = logging.getLogger(__name__)

FAILURE_REASON_CHARS = 500


def _run_fail(run_id: int, message: str) -> None:
    # The report reads a finished run's times (the LLM cost table): its end is a change of the campaign's data.
    with transaction.atomic():
        failed = JudgeRun.objects.filter(pk=run_id, status__in=ACTIVE_RUN_STATUSES).update(
            status=RunStatus.FAILED, error=message, finished_at=timezone.now()
        )
        campaign_id = JudgeRun.objects.filter(pk=run_id).values_list("judge__campaign_id", flat=True).first()
        if failed and campaign_id is not None:
            campaign_data_changed(campaign_id=campaign_id)


def _run_mark_running(run_id: int) -> JudgeRun | None:
    """The run, marked running if it was queued; None when it is gone or no longer active."""
    with transaction.atomic():
        # Only the run's own row is locked: created_by is nullable (an outer join), which FOR UPDATE cannot cover.
        run = (JudgeRun.objects.select_for_update(of=("self",)).select_related("judge__campaign", "created_by")
               .filter(pk=run_id).first())
        if run is None or run.status not in ACTIVE_RUN_STATUSES:
            return None
        if run.status == RunStatus.QUEUED:
            run.status, run.started_at = RunStatus.RUNNING, run.started_at or timezone.now()
            run.save(update_fields=["status", "started_at"])
        return run


def _run_meter_add(run_id: int, meter: BatchMeter) -> None:
    """Add what this batch's forward passes cost to the run's counts: F() sums, since batches finish concurrently."""
    if not meter.pairs:
        return  # no forward passes (em, f1, bm25, an llm over HTTP): the counts stay 0 and the page shows none
    JudgeRun.objects.filter(pk=run_id).update(
        pairs_metered=F("pairs_metered") + meter.pairs, tokens=F("tokens") + meter.tokens,
        padded_tokens=F("padded_tokens") + meter.padded_tokens, model_seconds=F("model_seconds") + meter.seconds,
    )


def _run_finish_if_done(run_id: int) -> None:
    # Under the run's row lock: two batches finishing together must not both decide (or both miss)
    # that the run is complete.
    with transaction.atomic():
        run = JudgeRun.objects.select_for_update().select_related("judge").filter(pk=run_id).first()
        if run is None or run.status not in ACTIVE_RUN_STATUSES:
            return
        if judge_judged_count(judge=run.judge, item_ids=run.sample_item_ids) >= run.total:
            failed = judge_failed_count(judge=run.judge, item_ids=run.sample_item_ids)
            if run.total and failed >= run.total:
                # Nothing was judged: a configuration that cannot work here, not a success.
                run.status, run.error = RunStatus.FAILED, (
                    f"every one of the {run.total} items failed; the judge panel lists the reasons")
            else:
                run.status = RunStatus.SUCCEEDED
            run.finished_at = timezone.now()
            run.save(update_fields=["status", "error", "finished_at"])


def _topic_candidates(topic_ids: set[int]) -> dict[int, tuple[str, ...]]:
    """The texts of every item of each topic, in item id order: one query for the whole batch."""
    texts: dict[int, list[str]] = {topic_id: [] for topic_id in topic_ids}
    rows = Item.objects.filter(topic_id__in=topic_ids).order_by("topic_id", "id").values_list("topic_id", "text")
    for topic_id, text in rows:
        texts[topic_id].append(text)
    return {topic_id: tuple(candidates) for topic_id, candidates in texts.items()}


def _item_input(item: Item, *, text: str, data: dict, candidates: tuple[str, ...] | None) -> ItemInput:
    topic = item.topic
    return ItemInput(item_id=item.id, topic_text=topic.text,
                     gold_answers=list((topic.data or {}).get("gold_answers") or []),
                     text=text, data=data or {}, topic_candidates=candidates, topic_data=topic.data or {})


def _inputs(judge, item_ids: list[int], *, with_topic_candidates: bool = False) -> list[ItemInput]:
    judged = ModelJudgment.objects.filter(judge=judge, item_id__in=item_ids).values("item_id")
    items = list(
        Item.objects.filter(id__in=item_ids, campaign_id=judge.campaign_id)
        .exclude(id__in=judged)
        .select_related("topic")
        .order_by("id")
    )
    # Corpus-statistics families (BM25) need the whole topic, whatever slice of it this batch holds.
    candidates = _topic_candidates({item.topic_id for item in items}) if with_topic_candidates and items else {}
    return [_item_input(item, text=item.text, data=item.data, candidates=candidates.get(item.topic_id))
            for item in items]


def _family_verdicts(family, inputs: list[ItemInput], config: dict, judge, connection=None, *,
                     run_id: int | None = None, samples=None) -> list[Verdict]:
    """FAMILY's verdicts on INPUTS, one per item, or JudgeConfigError when it returns another number. SAMPLES: where
    an LLM judge keeps its samples, the judge's own in the database (judges.samples.DbSampleStore) when None."""
    extra = {}
    if getattr(family, "uses_samples", False):
        # LLM judges keep each generated sample as it arrives, with the run that asked for it: a rerun asks only for
        # what is missing.
        extra["samples"] = samples if samples is not None else DbSampleStore(judge, run_id=run_id)
    if getattr(family, "uses_endpoint", False):
        extra["connection"] = connection
    spec = task_type_get(judge.campaign.task_type)
    if getattr(family, "uses_task_context", False):
        # The campaign as its task type describes it to judges (a graded type's scale), read for every batch: a
        # scale edited since the run started is the one the remaining items are judged on.
        extra["task_context"] = spec.judge_context(judge.campaign)
    if getattr(family, "uses_prompt", False):
        extra["prompt"] = spec.judge_prompt(family.name)
    # What cannot be judged yet (a passage whose text is not imported) fails without reaching the family, so that
    # "retry failed items" judges it once it is there.
    missing = {item.item_id: reason for item in inputs
               if (reason := spec.judge_input_missing(text=item.text, data=item.data))}
    ready = [item for item in inputs if item.item_id not in missing]
    verdicts = spec.judge_batch(family, ready, config, **extra) if ready else []
    if len(verdicts) != len(ready):
        raise JudgeConfigError(f"family {family.name} returned {len(verdicts)} verdicts for {len(ready)} items")
    if not missing:
        return verdicts
    given = iter(verdicts)
    return [Verdict.failure(missing[item.item_id]) if item.item_id in missing else next(given) for item in inputs]


def exception_reason(exc: BaseException) -> str:
    """What a failed verdict says when the family raised on the item: out of memory is named as such."""
    kind = type(exc).__name__
    memory = isinstance(exc, MemoryError) or "OutOfMemory" in kind
    text = f"{'out of memory' if memory else 'error'}: {kind}: {exc}"
    return text[:FAILURE_REASON_CHARS]


# Raised by a family call but not the items' fault: the whole batch stops (config, time limit) or is retried (database).
_NOT_ITEM_FAILURES = (JudgeConfigError, SoftTimeLimitExceeded, OperationalError, InterfaceError)


def _verdicts_or_one_by_one(
    family, inputs: list[ItemInput], config: dict, judge, *, run_id: int | None, connection=None, samples=None
) -> list[Verdict]:
    """The batch's verdicts; when the family raises on the batch, each item's verdict asked alone."""
    try:
        return _family_verdicts(family, inputs, config, judge, connection, run_id=run_id, samples=samples)
    except _NOT_ITEM_FAILURES:
        raise
    except Exception:  # noqa: BLE001 - which item made it raise is found by asking again one by one
        logger.exception("judge %s: a batch of %d items raised; judging them one by one", judge.name, len(inputs))
        return [_verdict_alone(family, item, config, judge, connection, run_id=run_id, samples=samples)
                for item in inputs]


def _verdict_alone(family, item: ItemInput, config: dict, judge, connection=None, *, run_id: int | None = None,
                   samples=None) -> Verdict:
    """The verdict on ITEM judged alone; a failed verdict saying why when the family raises on it too."""
    try:
        return _family_verdicts(family, [item], config, judge, connection, run_id=run_id, samples=samples)[0]
    except _NOT_ITEM_FAILURES:
        raise
    except Exception as exc:  # noqa: BLE001 - any defect on one item becomes that item's failure, listed with its reason
        return Verdict.failure(exception_reason(exc))


# How a batch task (judge_batch, probe_batch) is delivered and retried.
BATCH_TASK_OPTIONS = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "soft_time_limit": 10 * 60,
    "time_limit": 11 * 60,
    # Only a database that is briefly unavailable or locked is worth another try. Each wait is drawn from 0 to 2, 4,
    # 8, 16, 32 s, then 60 s (full jitter, so that batches do not come back all at once): ten tries, three minutes on
    # average before the batch is given up, and with it the run's completion. Five tries were too few: all five once
    # fell within the 3 s of a database restart in CI, and that run never ended.
    "autoretry_for": (OperationalError, InterfaceError),
    "max_retries": 10,
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "retry_jitter": True,
}


def _batch_given_up(run_id: int, item_ids: list[int], *, lost: int) -> None:
    """A batch whose worker was lost at every start fails its run, saying so (annotate.services.task_starts)."""
    _run_fail(run_id, lost_worker_reason(what=f"a batch of {len(item_ids)} items", lost=lost) + (
        "; the run stops here. Lower the batch size or what the judge asks of the worker (model, batch_size, "
        "max_batch_tokens), then resume it"))


@shared_task(name="judges.judge_batch", **BATCH_TASK_OPTIONS)
@starts_limited(given_up=_batch_given_up)
def judge_batch(run_id: int, item_ids: list[int]) -> int:
    """Judge the items ITEM_IDS for run RUN_ID; returns how many verdicts it wrote."""
    run = _run_mark_running(run_id)
    if run is None:
        return 0
    judge = run.judge
    try:
        family = family_get(judge.family)
        config = family_config_validate(judge.family, judge.config, task_type=judge.campaign.task_type)
        # Where an llm or vlm judge may connect is decided here, on the worker, for every batch: an endpoint
        # switched off or no longer granted since the run started stops it.
        connection = endpoint_connection(judge=judge, config=config, user=run.created_by)
        inputs = _inputs(judge, item_ids, with_topic_candidates=family.needs_topic_candidates)
        if not inputs:
            _run_finish_if_done(run_id)
            return 0
        with metered() as meter:
            verdicts = _verdicts_or_one_by_one(family, inputs, config, judge, run_id=run_id, connection=connection)
    except JudgeConfigError as exc:
        _run_fail(run_id, str(exc))
        return 0
    except SoftTimeLimitExceeded:
        _run_fail(run_id, f"a batch of {len(item_ids)} items ran past the time limit; use smaller batches and resume")
        return 0
    except (OperationalError, InterfaceError):
        raise  # transient: retried by the policy above
    except Exception as exc:
        # A defect outside the family (reading the items): record it where the researcher looks, then let Celery log it.
        _run_fail(run_id, f"internal error in a batch ({type(exc).__name__}: {exc}); see the worker log")
        raise
    # The verdicts, their meter, the run's end when they complete it, and the campaign's next data version commit
    # together (annotate.services.data_version: the version row is locked last, after the run's row).
    with transaction.atomic():
        ModelJudgment.objects.bulk_create(
            [
                ModelJudgment(
                    judge=judge, item_id=item.item_id, run_id=run_id, score=verdict.score,
                    label="" if verdict.failed else verdict.label, raw=verdict.raw, failed=verdict.failed,
                )
                for item, verdict in zip(inputs, verdicts)
            ],
            ignore_conflicts=True,
        )
        _run_meter_add(run_id, meter)
        _run_finish_if_done(run_id)
        campaign_data_changed(campaign_id=judge.campaign_id)
    return len(inputs)


# --- Robustness probes (judges.probes): a judge's verdicts on changed copies of items, kept apart from its verdicts ---

def _probe_inputs(probes: list[Probe], *, with_topic_candidates: bool) -> list[ItemInput]:
    """Each probe as the family sees an item: the item it copies (its id, its topic), with the probe's text and data.
    A probe is judged as its item would be (the same id: the same order drawn for a pair, the same seeds), so only
    its change differs. With WITH_TOPIC_CANDIDATES, the topic's texts with the item's own text replaced by the
    probe's."""
    by_topic: dict[int, list[tuple[int, str]]] = {}
    if with_topic_candidates:
        rows = (Item.objects.filter(topic_id__in={probe.item.topic_id for probe in probes})
                .order_by("topic_id", "id").values_list("topic_id", "id", "text"))
        for topic_id, item_id, text in rows:
            by_topic.setdefault(topic_id, []).append((item_id, text))

    def candidates(probe: Probe) -> tuple[str, ...] | None:
        if not with_topic_candidates:
            return None
        return tuple(probe.text if item_id == probe.item_id else text
                     for item_id, text in by_topic[probe.item.topic_id])

    return [_item_input(probe.item, text=probe.text, data=probe.data, candidates=candidates(probe)) for probe in probes]


def _probes_given_up(judge_id: int, probe_ids: list[int], user_id: int | None = None, *, lost: int) -> None:
    """A probe batch whose worker was lost at every start gives each of its probes a failed verdict saying so."""
    judge = Judge.objects.filter(pk=judge_id).first()
    if judge is None:
        return
    reason = lost_worker_reason(what=f"a batch of {len(probe_ids)} probes", lost=lost)
    probes = Probe.objects.filter(id__in=probe_ids, campaign_id=judge.campaign_id).exclude(verdicts__judge=judge)
    with transaction.atomic():
        ProbeVerdict.objects.bulk_create([ProbeVerdict(judge=judge, probe=probe, label="", raw=reason, failed=True)
                                          for probe in probes], ignore_conflicts=True)
        campaign_data_changed(campaign_id=judge.campaign_id)


@shared_task(name="judges.probe_batch", **BATCH_TASK_OPTIONS)
@starts_limited(given_up=_probes_given_up)
def probe_batch(judge_id: int, probe_ids: list[int], user_id: int | None = None) -> int:
    """Judge the probes PROBE_IDS (of one kind: no item twice) with judge JUDGE_ID, for the user USER_ID who asked
    (whose model endpoints it may use); returns how many verdicts it wrote. A configuration that cannot run here
    (an endpoint switched off since) gives every probe of the batch a failed verdict saying why."""
    from django.contrib.auth import get_user_model

    judge = Judge.objects.select_related("campaign").filter(pk=judge_id).first()
    if judge is None:
        return 0
    probes = list(Probe.objects.filter(id__in=probe_ids, campaign_id=judge.campaign_id)
                  .exclude(verdicts__judge=judge).select_related("item__topic").order_by("id"))
    if not probes:
        return 0
    try:
        family = family_get(judge.family)
        config = family_config_validate(judge.family, judge.config, task_type=judge.campaign.task_type)
        user = get_user_model().objects.filter(pk=user_id).first() if user_id is not None else None
        connection = endpoint_connection(judge=judge, config=config, user=user)
        inputs = _probe_inputs(probes, with_topic_candidates=family.needs_topic_candidates)
        verdicts = _verdicts_or_one_by_one(family, inputs, config, judge, run_id=None, connection=connection,
                                           samples=MemorySampleStore())
    except (JudgeConfigError, SoftTimeLimitExceeded) as exc:
        reason = str(exc) or f"a batch of {len(probes)} probes ran past the time limit"
        verdicts = [Verdict.failure(reason[:FAILURE_REASON_CHARS])] * len(probes)
    with transaction.atomic():
        ProbeVerdict.objects.bulk_create(
            [ProbeVerdict(judge=judge, probe=probe, score=verdict.score, label="" if verdict.failed else verdict.label,
                          raw=verdict.raw, failed=verdict.failed) for probe, verdict in zip(probes, verdicts)],
            ignore_conflicts=True,
        )
        campaign_data_changed(campaign_id=judge.campaign_id)
    return len(probes)
