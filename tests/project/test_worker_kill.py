"""Killing Celery worker processes in the middle of a judge run loses and duplicates nothing; an import or a judge
batch whose worker is killed at each start is not started a third time.

Real worker processes (`celery -A tests.judges_slow_worker worker`: Concord's app and tasks, the
families slowed so a run lasts several seconds), the real broker of the suite (an SQLite file via
kombu's SQLAlchemy transport, or Redis when CELERY_BROKER_URL is set) and the pytest database.
"""

import os
import signal
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import Count

from annotate.models import Item
from judges.models import JudgeRun, ModelJudgment, RunStatus
from judges.selectors import run_progress
from tests.judges_support import Worker, broker_purge, broker_url, campaign_with_items, manage, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

N_ITEMS = 300
BATCH = 5  # 60 batches of ~0.4 s each on 2 processes: still running after two kills on a loaded machine
DELAY = 0.4


def _slow(tmp_path):
    busy = tmp_path / "busy"
    busy.mkdir(exist_ok=True)
    return {"app": "tests.judges_slow_worker", "CONCORD_TEST_BATCH_SECONDS": DELAY, "CONCORD_TEST_BUSY_DIR": busy}


def _busy_pool_pid(tmp_path, worker) -> int:
    """A pool process that has just entered a batch (so it is mid-task for most of DELAY seconds)."""
    def fresh():
        now = time.time()
        for marker in (tmp_path / "busy").iterdir():
            try:
                if now - marker.stat().st_mtime < DELAY / 2 and int(marker.name) in worker.pool_pids():
                    return int(marker.name)
            except FileNotFoundError:
                continue
        return None

    return wait_until(fresh, timeout=30, interval=0.01, what="a pool process to start a batch")


def _dead(pid: int) -> bool:
    try:
        return "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    except FileNotFoundError:
        return True


def _judged(run) -> int:
    return run_progress(run=run).judged


def _assert_each_item_judged_once(run):
    run.refresh_from_db()
    judgments = ModelJudgment.objects.filter(judge=run.judge)
    per_item = judgments.values("item").annotate(n=Count("id"))
    assert run.status == RunStatus.SUCCEEDED, f"run {run.status}: {run.error}"
    assert judgments.count() == N_ITEMS
    assert per_item.count() == N_ITEMS and not per_item.filter(n__gt=1).exists()
    assert judgments.filter(label="yes").count() == N_ITEMS // 3  # every third answer is the gold one
    assert judgments.filter(failed=True).count() == 0


def _start_run(tmp_path, judge):
    started = manage(tmp_path, "run_judge", "--campaign", "big", "--judge", judge, "--family", judge,
                     "--batch-size", str(BATCH))
    assert started.returncode == 0, started.stderr
    return JudgeRun.objects.get(judge__name=judge)


def _mid_run(run, *, above=0):
    """Wait until the run is part-way (more than ABOVE judged, not finished); returns the count."""
    return wait_until(lambda: above < _judged(run) < N_ITEMS and _judged(run), timeout=60,
                      what=f"run {run.id} to pass {above} of {N_ITEMS} judged")


def _finished(run, worker, *, timeout=60):
    def done():
        run.refresh_from_db()
        return run.status not in ("queued", "running")

    try:
        wait_until(done, timeout=timeout, what=f"run {run.id} to finish")
    except AssertionError as exc:
        raise AssertionError(f"{exc} ({_judged(run)}/{N_ITEMS} judged); worker log:\n{worker.log()[-4000:]}") from None


def test_killing_a_pool_process_mid_run_loses_and_duplicates_nothing(tmp_path):
    campaign_with_items(n_items=N_ITEMS)
    broker_purge(broker_url(tmp_path))
    worker = Worker(tmp_path, **_slow(tmp_path))
    try:
        worker.start()
        run = _start_run(tmp_path, "em")
        judged_before = _mid_run(run)
        # Kill a child in the middle of a batch: with acks_late and reject_on_worker_lost its message
        # goes back to the queue and another process judges the batch.
        os.kill(_busy_pool_pid(tmp_path, worker), signal.SIGKILL)
        killed_at = time.monotonic()
        _finished(run, worker)
        assert time.monotonic() - killed_at > 0.5, "the run ended before the kill could matter"
        assert judged_before < N_ITEMS
        assert "WorkerLostError" in worker.log() or "Process 'ForkPoolWorker" in worker.log(), worker.log()[-2000:]
        _assert_each_item_judged_once(run)
    finally:
        worker.kill()


@pytest.fixture
def two_workers(tmp_path):
    """The campaign, and two slowed workers not yet started: the first is lost mid-run, the second finishes."""
    campaign_with_items(n_items=N_ITEMS)
    broker_purge(broker_url(tmp_path))
    workers = Worker(tmp_path, name="w1", **_slow(tmp_path)), Worker(tmp_path, name="w2", **_slow(tmp_path))
    yield workers
    for worker in workers:
        worker.kill()


def _lose_the_machine(worker) -> None:
    """SIGKILL the worker's main process, whose prefetched and in-flight messages are gone with it, and its pool
    processes, as when the machine goes down."""
    pool = worker.pool_pids()
    os.kill(worker.proc.pid, signal.SIGKILL)
    worker.kill()
    wait_until(lambda: all(_dead(pid) for pid in pool), timeout=10, what=f"pool processes {pool} to die")


def _resume_to_the_end(tmp_path, run, worker) -> None:
    """Resume RUN on the started WORKER with `run_judge --resume --wait`; every item ends judged exactly once."""
    resumed = manage(tmp_path, "run_judge", "--campaign", "big", "--judge", run.judge.name, "--resume", "--wait",
                     "--poll", "0.3", "--timeout", "90")
    assert resumed.returncode == 0, f"{resumed.stdout}\n{resumed.stderr}\n{worker.log()[-3000:]}"
    assert f"resumed run {run.id}" in resumed.stdout and f"{N_ITEMS}/{N_ITEMS} judged" in resumed.stdout
    _assert_each_item_judged_once(run)


def test_killing_the_whole_worker_then_resume_finishes_the_run(tmp_path, two_workers):
    first, second = two_workers
    first.start()
    run = _start_run(tmp_path, "f1")
    _mid_run(run, above=N_ITEMS // 6)
    _lose_the_machine(first)
    judged_at_kill = _judged(run)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and judged_at_kill < N_ITEMS, (run.status, judged_at_kill)
    second.start()
    _resume_to_the_end(tmp_path, run, second)


def test_three_kills_during_one_run_lose_and_duplicate_nothing(tmp_path, two_workers):
    """SIGKILL three times in one run: twice a pool process mid-batch (the run goes on by itself), then the
    whole worker (its prefetched messages are gone with it: a new worker and a resume finish the run)."""
    first, second = two_workers
    first.start()
    run = _start_run(tmp_path, "em")
    judged = 0
    for kill in (1, 2):
        judged = _mid_run(run, above=judged)
        os.kill(_busy_pool_pid(tmp_path, first), signal.SIGKILL)
        wait_until(lambda kill=kill: first.log().count("WorkerLostError") >= kill, timeout=30,
                   what=f"the worker to report lost pool process {kill}")
    _mid_run(run, above=judged)
    _lose_the_machine(first)
    second.start()
    _resume_to_the_end(tmp_path, run, second)


@pytest.fixture
def imports_broker(tmp_path, monkeypatch):
    """This process (which queues the job) and the worker share a broker of the test's own."""
    from config.celery import app

    url = broker_url(tmp_path)
    broker_purge(url)
    monkeypatch.setattr(app.conf, "broker_url", url)
    monkeypatch.setattr(app, "_pool", None)  # connections made for another broker are not reused
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    return url


def test_an_import_whose_worker_is_killed_at_each_start_fails_instead_of_killing_the_next(
        tmp_path, qa_campaign, researcher, imports_broker, settings):
    """SIGKILL the pool process mid-import twice, as the kernel's OOM killer did: acks_late and
    reject_on_worker_lost hand the message back each time, and its third start fails the job instead of importing
    (a message that kills workers would otherwise kill them forever). The worker itself lives on."""
    from interchange.jobs import PROGRESS_FILE, import_job_create, job_folder
    from interchange.models import ImportJob

    rows = b"".join(b'{"question": "question %d", "answer": ["a %d"], "prediction": "a %d"}\n' % (n, n, n)
                    for n in range(3000))
    worker = Worker(tmp_path, app="tests.imports_slow_worker", queues=("imports",), concurrency=1,
                    IMPORT_ROOT=settings.IMPORT_ROOT, CONCORD_TEST_PAUSE_SECONDS=0.3, CONCORD_TEST_PAUSE_ROWS=100,
                    CONCORD_TEST_WORKER_LOST_WAIT=0.5)
    items = Item.objects.filter(campaign=qa_campaign).count()
    try:
        worker.start()
        job = import_job_create(campaign=qa_campaign, user=researcher, fmt="qa-eval-jsonl",
                                files=[SimpleUploadedFile("NQ_big.jsonl", rows)])
        progress = job_folder(job.id) / PROGRESS_FILE
        for start in (1, 2):
            wait_until(lambda start=start: worker.log().count("import_job_run[") >= start and progress.exists(),
                       timeout=30, what=f"start {start} of the import to read rows")
            progress.unlink()
            os.kill(worker.pool_pids()[0], signal.SIGKILL)
            wait_until(lambda start=start: worker.log().count("WorkerLostError") >= start, timeout=30,
                       what=f"the worker to report lost pool process {start}")
        job = wait_until(lambda: ImportJob.objects.filter(pk=job.id, status="failed").first(), timeout=30,
                         what="the job to fail at its third start")
        assert job.deliveries == 2
        assert job.error.startswith("stopped: the import used more memory than allowed, or its worker was lost "
                                    "otherwise: the worker running it was killed 2 times")
        assert Item.objects.filter(campaign=qa_campaign).count() == items
        assert worker.proc.poll() is None
    finally:
        worker.kill()


def test_a_judge_batch_whose_worker_is_killed_at_each_start_fails_its_run_at_the_third(tmp_path):
    """Issue 48: a batch whose worker ran out of memory came back after every crash (acks_late, reject_on_worker_lost)
    and the run stayed 'running' with nothing judged until someone cancelled it. SIGKILL the pool process twice in the
    one batch of a run: its third start fails the run with the reason, which the judge panel shows."""
    campaign_with_items(n_items=3)
    broker_purge(broker_url(tmp_path))
    busy = tmp_path / "busy"
    busy.mkdir()
    worker = Worker(tmp_path, app="tests.judges_slow_worker", concurrency=1, CONCORD_TEST_BATCH_SECONDS=60,
                    CONCORD_TEST_BUSY_DIR=busy, CONCORD_TEST_WORKER_LOST_WAIT=0.2)

    def busy_pid():
        pids = worker.pool_pids()
        return next((int(marker.name) for marker in busy.iterdir() if int(marker.name) in pids), None)

    try:
        worker.start()
        started = manage(tmp_path, "run_judge", "--campaign", "big", "--judge", "em", "--family", "em",
                         "--batch-size", "3")
        assert started.returncode == 0, started.stderr
        run = JudgeRun.objects.get(judge__name="em")
        for start in (1, 2):
            pid = wait_until(busy_pid, timeout=60, interval=0.05, what=f"start {start} of the batch")
            os.kill(pid, signal.SIGKILL)
            wait_until(lambda start=start: worker.log().count("WorkerLostError") >= start, timeout=30,
                       what=f"the worker to report lost pool process {start}")
        run = wait_until(lambda: JudgeRun.objects.filter(pk=run.pk, status=RunStatus.FAILED).first(), timeout=30,
                         what="the run to fail at the batch's third start")
        assert run.error.startswith("stopped: a batch of 3 items lost the worker running it 2 times (killed for "
                                    "memory, or otherwise; setting TASK_MAX_STARTS) and is not started again; the "
                                    "run stops here"), run.error
        assert not ModelJudgment.objects.filter(judge=run.judge).exists()
        assert worker.proc.poll() is None
    finally:
        worker.kill()
