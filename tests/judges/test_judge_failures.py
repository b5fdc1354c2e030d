"""A judge that fails on some items: the run finishes, the failures are listed with reasons, and
"retry failed items" judges them again.

Real worker processes (`celery -A tests.judges_faulty_worker worker`: Concord's app, tasks and llm
family, with a stand-in model that raises on "boom" answers, runs out of memory on "oom" ones and
answers "garbage" ones with no verdict), the suite's real broker and database.
"""

import json

import pytest
from django.db.models import Count

from annotate.models import Item
from judges.models import JudgeRun, LLMSample, ModelJudgment, RunStatus
from judges.selectors import judge_failures
from tests.judges_support import Worker, broker_purge, broker_url, campaign_with_items, manage

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

N_ITEMS = 40
BROKEN = {"i4": "boom", "i17": "boom", "i8": "oom", "i13": "garbage", "i31": "garbage"}
CONFIG = json.dumps({"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "stand-in", "n": 2,
                     "decoding": "sample"})


def _campaign():
    campaign = campaign_with_items(n_items=N_ITEMS)
    for external_id, word in BROKEN.items():
        Item.objects.filter(campaign=campaign, external_id=external_id).update(text=f"an answer that goes {word}")
    return campaign


def _run_judge(tmp_path, *args):
    result = manage(tmp_path, "run_judge", "--campaign", "big", "--judge", "flaky", *args, "--wait", "--poll", "0.3",
                    "--timeout", "120")
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    return result.stdout


def _failed_by_item() -> dict[str, str]:
    return dict(ModelJudgment.objects.filter(failed=True).values_list("item__external_id", "raw"))


def test_failures_are_listed_with_reasons_and_retry_judges_them_again(tmp_path):
    _campaign()
    broker_purge(broker_url(tmp_path))
    with Worker(tmp_path, app="tests.judges_faulty_worker") as worker:
        out = _run_judge(tmp_path, "--family", "llm", "--config", CONFIG, "--batch-size", "8")
        log = worker.log()
    run = JudgeRun.objects.get()
    assert run.status == RunStatus.SUCCEEDED and not run.error, (run.status, run.error, log[-3000:])
    assert f"{N_ITEMS}/{N_ITEMS} judged" in out and "5 failed verdicts" in out
    per_item = ModelJudgment.objects.values("item").annotate(n=Count("id"))
    assert per_item.count() == N_ITEMS and not per_item.filter(n__gt=1).exists()

    failed = _failed_by_item()
    assert set(failed) == set(BROKEN)
    assert failed["i4"] == failed["i17"] == "error: RuntimeError: the model server dropped the connection"
    assert failed["i8"] == "out of memory: MemoryError: cannot allocate 2.0 GiB for the batch"
    assert json.loads(failed["i13"])["reason"] == "no verdict: none of the 2 sample(s) ends with a verdict line"
    # The other items of the batches that raised were judged one by one, with their verdicts.
    assert ModelJudgment.objects.filter(failed=False, label="yes").count() == N_ITEMS - len(BROKEN)
    assert "judging them one by one" in log

    failures = judge_failures(judge=run.judge)
    assert failures.total == 5 and failures.read == 5
    groups = {group.reason: (group.count, group.items) for group in failures.groups}
    assert groups["error: RuntimeError: the model server dropped the connection"] == (2, ["i4", "i17"])
    assert groups["out of memory: MemoryError: cannot allocate 2.0 GiB for the batch"] == (1, ["i8"])
    garbage_reason = "no verdict: none of the 2 sample(s) ends with a verdict line"
    assert groups[garbage_reason] == (2, ["i13", "i31"])

    # The backend is fixed (more memory, the server back): retry asks again for the five failed items only.
    samples_before = LLMSample.objects.count()
    with Worker(tmp_path, app="tests.judges_faulty_worker", name="w2", CONCORD_TEST_HEALED="1"):
        out = _run_judge(tmp_path, "--retry-failed")
    assert "2 failed: error: RuntimeError" in out and "5 failed items queued again" in out
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert ModelJudgment.objects.count() == N_ITEMS
    # The garbage answers' samples were stored (generation worked) and are reused: their verdict stays failed,
    # for the same reason; the three that raised are judged now, and only their samples were generated.
    assert _failed_by_item().keys() == {"i13", "i31"}
    assert judge_failures(judge=run.judge).groups[0].reason == garbage_reason
    assert LLMSample.objects.count() == samples_before + 3 * 2
    assert ModelJudgment.objects.filter(item__external_id__in=["i4", "i17", "i8"], label="yes").count() == 3
