"""judge_run_start / cancel / resume and the judge_batch task, with Celery eager where the broker is not under test."""

import json

import pytest

from judges.errors import JudgeConfigError, JudgeRunConflictError, JudgeRunError
from judges.models import Judge, JudgeRun, ModelJudgment, RunStatus
from judges.selectors import judge_pending_item_ids, run_progress
from judges.services import judge_queue_name, judge_run_cancel, judge_run_resume, judge_run_start
from judges.tasks import judge_batch
from tests.judges_support import campaign_with_items, eager  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


def _labels(judge_name):
    return dict(ModelJudgment.objects.filter(judge__name=judge_name).values_list("item__external_id", "label"))


def test_em_and_f1_runs_judge_every_item(qa_campaign, researcher, eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        em = judge_run_start(
            campaign=qa_campaign, name="em", family="em", config={}, batch_size=4, created_by=researcher
        )
    with django_capture_on_commit_callbacks(execute=True):
        f1 = judge_run_start(campaign=qa_campaign, name="f1", family="f1", config={}, batch_size=4)
    em.refresh_from_db(), f1.refresh_from_db()
    assert (em.status, f1.status) == (RunStatus.SUCCEEDED, RunStatus.SUCCEEDED)
    assert _labels("em") == {"1-0": "yes", "1-1": "no", "2-0": "yes", "2-1": "no", "3-0": "no", "3-1": "no"}
    # "8 legs" vs gold "8": F1 = 2/3 >= 0.5
    assert _labels("f1")["3-0"] == "yes"
    progress = run_progress(run=em)
    assert (progress.judged, progress.total, progress.by_run, progress.percent) == (6, 6, 6, 100)
    assert Judge.objects.get(name="f1").config == {"threshold": 0.5}


def test_second_run_of_same_configuration_judges_nothing_again(qa_campaign, eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = judge_run_start(campaign=qa_campaign, name="f1", family="f1", config={}, batch_size=2)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        # The explicit default is the same configuration, hence the same judge and its cache.
        second = judge_run_start(campaign=qa_campaign, name="f1", family="f1", config={"threshold": 0.5}, batch_size=2)
    assert callbacks == []  # nothing queued
    assert second.status == RunStatus.SUCCEEDED
    assert run_progress(run=second).by_run == 0
    assert run_progress(run=second).judged == 6
    assert set(ModelJudgment.objects.values_list("run_id", flat=True)) == {first.id}
    assert ModelJudgment.objects.count() == 6


def test_same_name_with_another_configuration_is_an_error(qa_campaign, eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        judge_run_start(campaign=qa_campaign, name="f1", family="f1", config={"threshold": 0.5})
    with pytest.raises(JudgeConfigError, match="already exists .* with another configuration"):
        judge_run_start(campaign=qa_campaign, name="f1", family="f1", config={"threshold": 0.7})
    with pytest.raises(JudgeConfigError, match="unknown configuration key"):
        judge_run_start(campaign=qa_campaign, name="f1b", family="f1", config={"thresh": 0.7})
    with pytest.raises(JudgeConfigError, match="batch size"):
        judge_run_start(campaign=qa_campaign, name="em", family="em", config={}, batch_size=0)
    assert JudgeRun.objects.count() == 1


def test_a_judge_has_one_active_run(qa_campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = judge_run_start(campaign=qa_campaign, name="em", family="em", config={})
    assert run.status == RunStatus.QUEUED
    with pytest.raises(JudgeRunConflictError, match=f"already has run {run.id} queued"):
        judge_run_start(campaign=qa_campaign, name="em", family="em", config={})


def test_cancel_stops_and_resume_finishes_with_each_item_judged_once(eager, django_capture_on_commit_callbacks):
    campaign = campaign_with_items(n_items=30)
    with django_capture_on_commit_callbacks(execute=False):  # batches not delivered yet
        run = judge_run_start(campaign=campaign, name="em", family="em", config={}, batch_size=10)
    judge = run.judge
    pending = judge_pending_item_ids(judge=judge)
    assert judge_batch(run.id, pending[:10]) == 10
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and run.started_at is not None

    judge_run_cancel(run=run)
    # The rest of the batches arrive after the cancel: they write nothing.
    assert judge_batch(run.id, pending[10:20]) == 0
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert run_progress(run=run).judged == 10
    with pytest.raises(JudgeRunError, match="only a queued or running run can be cancelled"):
        judge_run_cancel(run=run)

    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_resume(run=run)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and run.error == ""
    assert ModelJudgment.objects.filter(judge=judge).count() == 30
    assert ModelJudgment.objects.filter(judge=judge).values("item").distinct().count() == 30
    assert ModelJudgment.objects.filter(judge=judge, label="yes").count() == 10  # every third answer is gold


def test_a_redelivered_batch_writes_nothing_twice(qa_campaign, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = judge_run_start(campaign=qa_campaign, name="em", family="em", config={}, batch_size=6)
    ids = judge_pending_item_ids(judge=run.judge)
    assert judge_batch(run.id, ids[:3]) == 3
    # The same message again (worker died before the ack), then the whole campaign (a resume).
    assert judge_batch(run.id, ids[:3]) == 0
    assert judge_batch(run.id, ids) == 3
    assert ModelJudgment.objects.filter(judge=run.judge).count() == 6
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED


def test_batches_are_json_ids_on_the_right_queue(qa_campaign, monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(judge_batch, "apply_async", lambda args, **options: sent.append((json.dumps(args), options)))
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=qa_campaign, name="em", family="em", config={}, batch_size=4)
    assert len(sent) == 2
    batches = [json.loads(args) for args, _ in sent]
    assert [b[0] for b in batches] == [run.id, run.id]
    assert sorted(i for b in batches for i in b[1]) == sorted(qa_campaign.items.values_list("id", flat=True))
    assert {options["queue"] for _, options in sent} == {"judges"}
    assert judge_queue_name(config={"device": "cuda:0"}) == "judges-gpu"
    assert judge_queue_name(config={"device": "cpu"}) == "judges"


def test_a_bad_stored_configuration_fails_the_run_with_its_message(qa_campaign):
    judge = Judge.objects.create(
        campaign=qa_campaign, name="odd", family="f1", config={"threshold": 3}, config_hash="x"
    )
    run = JudgeRun.objects.create(judge=judge, total=6, batch_size=6)
    assert judge_batch(run.id, list(qa_campaign.items.values_list("id", flat=True))) == 0
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert "threshold must be between 0 and 1" in run.error
    assert ModelJudgment.objects.count() == 0


def test_items_without_gold_answers_are_failed_verdicts_and_the_run_succeeds(
    qa_campaign, eager, django_capture_on_commit_callbacks
):
    qa_campaign.topics.filter(external_id="1").update(data={})
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=qa_campaign, name="em", family="em", config={})
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    failed = ModelJudgment.objects.filter(judge=run.judge, failed=True)
    assert failed.count() == 2
    assert all(j.raw == "no gold answers for this topic" and j.label == "" for j in failed)
    assert run_progress(run=run).failed == 2


def test_task_for_a_deleted_run_returns_early(qa_campaign):
    assert judge_batch(987654, [1, 2, 3]) == 0
    assert ModelJudgment.objects.count() == 0
