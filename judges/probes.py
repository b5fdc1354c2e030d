"""A judge run on a campaign's robustness probes (judges.models.Probe, made by tasktypes.probes): queued batch by batch
as a judge run is, each verdict a ProbeVerdict (judges.tasks.probe_batch). No JudgeRun is made and no ModelJudgment
written: the probes' verdicts are read by the probes' report only."""

from itertools import groupby

from kombu.exceptions import KombuError

from judges.errors import JudgeConfigError, JudgeQueueError
from judges.families import family_check_task_type, family_config_validate, family_get
from judges.models import Judge, Probe
from judges.services import PUBLISH_RETRY_POLICY, endpoint_use_check, judge_queue_name
from judges.tasks import probe_batch

# How many probes of one kind a campaign may have: the default and the most (tasktypes.probes.probes_make).
PER_KIND_DEFAULT = 100
PER_KIND_MOST = 2000


def _batches(rows: list[tuple[str, int]], size: int) -> list[list[int]]:
    """The probe ids of ROWS (kind, id) in batches of at most SIZE, each of one kind: a batch judges an item once."""
    batches = []
    for _, group in groupby(rows, key=lambda row: row[0]):
        ids = [probe_id for _, probe_id in group]
        batches += [ids[start:start + size] for start in range(0, len(ids), size)]
    return batches


def _pending(judge: Judge) -> list[tuple[str, int]]:
    """(kind, id) of the probes of JUDGE's campaign it has no verdict on, by kind."""
    return list(Probe.objects.filter(campaign_id=judge.campaign_id).exclude(verdicts__judge=judge)
                .order_by("kind", "id").values_list("kind", "id"))


def probes_judge_here(*, judge: Judge, user=None) -> int:
    """Judge every probe JUDGE has no verdict on in this process, batch by batch as a worker would: for load_demo,
    whose reports are built right after. Returns the verdicts written."""
    batches = _batches(_pending(judge), family_get(judge.family).items_per_task)
    return sum(probe_batch(judge.pk, batch, getattr(user, "pk", None)) for batch in batches)


def probes_judge(*, judge: Judge, user) -> int:
    """Queue JUDGE on every probe of its campaign it has no verdict on yet, for USER (whose model endpoints it may use);
    returns how many probes were queued. JudgeConfigError when the judge cannot run (imported verdicts, a family this
    task type does not take, an endpoint USER may not use), JudgeQueueError when the broker cannot be reached."""
    campaign = judge.campaign
    if judge.is_external:
        raise JudgeConfigError(f"judge {judge.name!r} holds imported verdicts: there is no model to run on the probes")
    family = family_get(judge.family)
    family_check_task_type(judge.family, campaign.task_type)
    config = family_config_validate(judge.family, judge.config, task_type=campaign.task_type)
    endpoint_use_check(family=judge.family, config=config, campaign=campaign, user=user)
    rows = _pending(judge)
    # Published at once: nothing is written here for a worker to wait on (the probes are committed already), and a
    # broker that cannot be reached is the caller's error to show, not one raised later after some commit.
    queue, user_id = judge_queue_name(config=config), getattr(user, "pk", None)
    try:
        for batch in _batches(rows, family.items_per_task):
            probe_batch.apply_async(args=(judge.pk, batch, user_id), queue=queue, retry=True,
                                    retry_policy=PUBLISH_RETRY_POLICY)
    except (KombuError, OSError) as exc:
        raise JudgeQueueError(f"could not queue the probes: the Celery broker is unreachable ({exc}); start it, "
                              f"then run the probes again (what was judged is kept)") from exc
    return len(rows)
