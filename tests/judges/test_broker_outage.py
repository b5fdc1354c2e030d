"""The broker down: starting a run says so at once and records nothing half-done; when the broker is back,
the worker reconnects and the resumed run proceeds.

Real processes: a Redis server of the test's own (stopped and started again on the same port), gunicorn
serving the API against the test database, a Celery worker connected to that Redis.
"""

import shutil
import subprocess
import time

import pytest
from django.db.models import Count

from accounts.services import token_create
from judges.models import JudgeRun, ModelJudgment, RunStatus
from tests.factories import UserFactory
from tests.http_annotator import HttpAnnotator
from tests.judges_support import ROOT, Worker, campaign_with_items, subprocess_env, wait_until
from tests.pg_private import free_port

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

N_ITEMS = 60


class PrivateRedis:
    def __init__(self, tmp_path):
        self.port, self.tmp_path, self.proc = free_port(), tmp_path, None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "PrivateRedis":
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True,
                                          text=True).stdout.strip() == "PONG", timeout=20, what="redis to start")
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)


def _api(base_url: str, token: str, path: str, data: dict | None = None):
    client = HttpAnnotator(base_url)
    client.opener.addheaders = [("Authorization", f"Token {token}")]
    return client.request(path, data if data is not None else None, htmx=False)


def test_broker_down_refuses_at_once_then_the_resumed_run_proceeds(tmp_path):
    researcher = UserFactory()
    campaign_with_items(n_items=N_ITEMS, researcher=researcher)
    _, token = token_create(user=researcher, name="outage")
    redis = PrivateRedis(tmp_path).start()
    port = free_port()
    web = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "config.wsgi", "--workers", "1", "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT, env=subprocess_env(tmp_path, CELERY_BROKER_URL=redis.url), stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "gunicorn.log", "w"), start_new_session=True)
    base_url = f"http://127.0.0.1:{port}"
    worker = Worker(tmp_path, CELERY_BROKER_URL=redis.url)
    try:
        wait_until(lambda: HttpAnnotator(base_url).request("/accounts/login/", htmx=False).status == 200,
                   timeout=30, what="gunicorn to answer")
        worker.start()
        redis.stop()

        started = time.monotonic()
        reply = _api(base_url, token, "/api/campaigns/big/judge-runs/", {"judge": "em", "family": "em"})
        seconds = time.monotonic() - started
        assert reply.status == 503, reply.body
        assert "the Celery broker is unreachable" in reply.body and "start it, then resume" in reply.body
        assert seconds < 10, f"the refusal took {seconds:.1f} s"
        run = JudgeRun.objects.get()
        assert run.status == RunStatus.FAILED and "broker is unreachable" in run.error
        assert ModelJudgment.objects.count() == 0

        redis.start()  # the same port, empty: the worker reconnects by itself and the resume queues the batches again
        reply = _api(base_url, token, f"/api/judge-runs/{run.id}/resume/", {})
        assert reply.status == 200, reply.body

        def finished():
            run.refresh_from_db()
            return run.status not in ("queued", "running")

        wait_until(finished, timeout=60, what="the resumed run to finish")
        assert run.status == RunStatus.SUCCEEDED and run.error == "", (run.status, run.error, worker.log()[-3000:])
        per_item = ModelJudgment.objects.values("item").annotate(n=Count("id"))
        assert per_item.count() == N_ITEMS and not per_item.filter(n__gt=1).exists()
    finally:
        worker.kill()
        web.terminate()
        web.wait(timeout=30)
        redis.stop()
