"""`manage.py run_judge` end to end: a real worker process, --wait progress, exit status, broker down."""

import json
import re
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from judges.models import Judge, JudgeRun, ModelJudgment, RunStatus
from judges.services import judge_run_cancel
from tests.judges_support import (  # noqa: F401 - eager is a fixture
    ROOT,
    Worker,
    broker_purge,
    broker_url,
    campaign_with_items,
    eager,
    manage,
    subprocess_env,
    wait_until,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.worker
def test_run_judge_wait_with_a_real_worker(tmp_path):
    campaign = campaign_with_items(n_items=90)
    broker_purge(broker_url(tmp_path))
    with Worker(tmp_path) as worker:
        result = manage(tmp_path, "run_judge", "--campaign", "big", "--judge", "f1", "--family", "f1",
                        "--config", '{"threshold": 0.6}', "--batch-size", "8", "--wait", "--timeout", "90")
        assert result.returncode == 0, f"{result.stdout}\n{result.stderr}\n{worker.log()[-3000:]}"
    lines = result.stdout.splitlines()
    # The worker may already have judged some batches by the time the command prints its first line.
    assert lines[0].startswith("queued run") and re.search(r": \d+/90 judged", lines[0])
    assert "90/90 judged" in lines
    assert lines[-1].startswith("run ") and "succeeded: 90/90 judged (90 by this run)" in lines[-1]
    judgments = ModelJudgment.objects.filter(judge__campaign=campaign, judge__name="f1")
    assert judgments.count() == 90 and judgments.values("item").distinct().count() == 90
    assert judgments.filter(label="yes").count() == 30

    # The same configuration again needs no worker: every item is cached.
    again = manage(tmp_path, "run_judge", "--campaign", "big", "--judge", "f1", "--family", "f1",
                   "--config", '{"threshold": 0.6}', "--wait", "--timeout", "30")
    assert again.returncode == 0, again.stderr
    assert "succeeded: 90/90 judged (0 by this run)" in again.stdout
    assert judgments.count() == 90


def test_run_judge_wait_exits_non_zero_when_the_run_is_cancelled(tmp_path):
    campaign_with_items(n_items=12)
    broker_purge(broker_url(tmp_path))
    waiting = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "run_judge", "--campaign", "big", "--judge", "em", "--family", "em",
         "--wait", "--poll", "0.2", "--timeout", "60"],
        cwd=ROOT, env=subprocess_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        run = wait_until(lambda: JudgeRun.objects.first(), timeout=30, what="run_judge to queue its run")
        judge_run_cancel(run=run)
        out, err = waiting.communicate(timeout=30)
    finally:
        waiting.kill()
    assert waiting.returncode != 0
    assert "0/12 judged" in out
    assert f"run {run.id} cancelled at 0/12 judged" in err


def test_broker_down_fails_loudly_and_marks_the_run_failed(tmp_path):
    campaign_with_items(n_items=6)
    result = manage(tmp_path, "run_judge", "--campaign", "big", "--judge", "em", "--family", "em", "--wait",
                    CELERY_BROKER_URL="redis://127.0.0.1:1/0", timeout=60)
    assert result.returncode != 0
    assert "Celery broker is unreachable" in result.stderr
    run = JudgeRun.objects.get()
    assert run.status == RunStatus.FAILED and "Celery broker is unreachable" in run.error
    assert ModelJudgment.objects.count() == 0  # nothing judged inline behind the user's back


def test_config_from_a_file_bad_config_and_resume(tmp_path, eager, capsys):
    campaign_with_items(n_items=9)
    config = tmp_path / "f1.json"
    config.write_text(json.dumps({"threshold": 0.9}))
    call_command("run_judge", "--campaign", "big", "--judge", "f1", "--family", "f1", "--config", str(config), "--wait")
    assert Judge.objects.get(name="f1").config == {"threshold": 0.9}
    assert "succeeded: 9/9 judged" in capsys.readouterr().out

    with pytest.raises(CommandError, match="unknown configuration key"):
        call_command("run_judge", "--campaign", "big", "--judge", "x", "--family", "f1", "--config", '{"t": 1}')
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("run_judge", "--campaign", "big", "--judge", "x", "--family", "f1", "--config", "{oops")
    with pytest.raises(CommandError, match="no campaign 'nope'"):
        call_command("run_judge", "--campaign", "nope", "--judge", "x", "--family", "em")
    with pytest.raises(CommandError, match="has no run in big to resume"):
        call_command("run_judge", "--campaign", "big", "--judge", "em", "--resume")

    # --resume after a cancel judges only what is left.
    run = JudgeRun.objects.get()
    ModelJudgment.objects.filter(item__external_id__in=["i0", "i1", "i2"]).delete()
    JudgeRun.objects.filter(pk=run.pk).update(status=RunStatus.CANCELLED)
    call_command("run_judge", "--campaign", "big", "--judge", "f1", "--resume", "--wait")
    out = capsys.readouterr().out
    assert f"resumed run {run.id}" in out and "succeeded: 9/9 judged (9 by this run)" in out
    assert ModelJudgment.objects.count() == 9
