"""No task crashes forever (issue 48, item 2): judge batches, probe batches and report builds count the starts of their
message (annotate.services.task_starts), and the start after TASK_MAX_STARTS lost ones records why instead of running.
A real worker killed twice: tests/project/test_worker_kill.py::test_a_judge_batch_whose_worker_is_killed_at_each_start_
fails_its_run_at_the_third. Here the starts that lost their worker are the row they leave behind."""

import json

import pytest

from agreement.models import StoredReport
from agreement.stored import report_rebuild
from annotate.models import Item, TaskStart
from annotate.selectors.campaigns import campaign_data_version
from annotate.services import task_starts
from judges.models import Judge, JudgeRun, ModelJudgment, Probe, ProbeVerdict, RunStatus
from judges.tasks import judge_batch, probe_batch
from tests.judges_support import campaign_with_items

pytestmark = pytest.mark.django_db

KEY = "4b8f0c1e-message:0"
LOST = ("stopped: {what} lost the worker running it 2 times (killed for memory, or otherwise; setting "
        "TASK_MAX_STARTS) and is not started again")


@pytest.fixture
def message(monkeypatch):
    """The body runs as a worker runs one message, KEY."""
    monkeypatch.setattr(task_starts, "_message_key", lambda: KEY)


def _lost_twice(task: str) -> None:
    """What two starts whose worker was killed leave: the message's row, counted twice."""
    TaskStart.objects.create(key=KEY, task=task, starts=2)


def _run(campaign, family="em"):
    judge = Judge.objects.create(campaign=campaign, name=family, family=family, config={}, config_hash=family)
    return JudgeRun.objects.create(judge=judge, total=Item.objects.filter(campaign=campaign).count(),
                                   status=RunStatus.RUNNING)


def test_a_judge_batch_started_again_after_two_lost_workers_fails_its_run_with_the_reason(message):
    campaign = campaign_with_items(n_items=3)
    run = _run(campaign)
    ids = list(Item.objects.filter(campaign=campaign).values_list("id", flat=True))
    _lost_twice("judges.judge_batch")
    assert judge_batch(run.id, ids) is None
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.finished_at is not None
    assert run.error.startswith(LOST.format(what="a batch of 3 items") + "; the run stops here")
    assert not ModelJudgment.objects.exists() and not TaskStart.objects.exists()


def test_a_start_that_ends_forgets_its_message_and_the_first_two_starts_run(message):
    campaign = campaign_with_items(n_items=3)
    run = _run(campaign)
    ids = list(Item.objects.filter(campaign=campaign).values_list("id", flat=True))
    TaskStart.objects.create(key=KEY, task="judges.judge_batch", starts=1)  # one start lost its worker: run again
    assert judge_batch(run.id, ids) == 3
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and ModelJudgment.objects.count() == 3
    assert not TaskStart.objects.exists()


def test_a_probe_batch_given_up_fails_each_probe_with_the_reason(message):
    campaign = campaign_with_items(n_items=2)
    judge = _run(campaign).judge
    probes = [Probe.objects.create(campaign=campaign, item=item, kind="instruction", text=f"{item.text} (correct)")
              for item in Item.objects.filter(campaign=campaign)]
    _lost_twice("judges.probe_batch")
    probe_batch(judge.id, [probe.id for probe in probes], None)
    verdicts = ProbeVerdict.objects.filter(judge=judge)
    assert verdicts.count() == 2 and all(v.failed for v in verdicts)
    assert {v.raw for v in verdicts} == {LOST.format(what="a batch of 2 probes")}


def test_a_report_build_given_up_says_why_and_is_not_queued_again_at_that_version(message, client, researcher,
                                                                                 password):
    campaign = campaign_with_items(n_items=3, researcher=researcher)
    StoredReport.objects.create(campaign=campaign)
    _lost_twice("agreement.tasks.report_rebuild")
    report_rebuild(campaign.id)
    row = StoredReport.objects.get(campaign=campaign)
    assert row.failed_version == campaign_data_version(campaign_id=campaign.id) and row.version is None
    assert row.build_error == LOST.format(what="the report's build")
    client.login(username=researcher.username, password=password)
    status = client.get(f"/api/campaigns/{campaign.slug}/agreement/status/")
    assert status.status_code == 200, status.content
    assert json.loads(status.content)["build_error"] == row.build_error
