"""Helpers for the judges tests: campaigns of many items, eager Celery, and real worker subprocesses.

Worker subprocesses run against the pytest test database (passed as DATABASE_URL) and a broker of
the test's own: an SQLite file under tmp_path, or the Redis named by CELERY_BROKER_URL.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from annotate.models import Role
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory

ROOT = Path(__file__).resolve().parent.parent
CELERY = str(ROOT / ".venv" / "bin" / "celery")


def campaign_with_items(*, n_items: int, slug: str = "big", per_topic: int = 3, researcher=None):
    """A QA campaign of N_ITEMS candidate answers, PER_TOPIC per question; every third one is a gold answer."""
    campaign = CampaignFactory(slug=slug, task_type="qa_correctness")
    if researcher is not None:
        MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    topic = None
    for n in range(n_items):
        if n % per_topic == 0:
            topic = TopicFactory(campaign=campaign, external_id=f"q{n // per_topic}", text=f"question {n // per_topic}",
                                 data={"gold_answers": [f"Answer {n // per_topic}"]})
        text = f"the answer {n // per_topic}." if n % per_topic == 0 else f"wrong {n}"
        ItemFactory(campaign=campaign, topic=topic, external_id=f"i{n}", text=text)
    return campaign


@pytest.fixture
def passes(monkeypatch) -> list[list[int]]:
    """The real token lengths of the rows of every forward pass the transformer families make, pass by pass."""
    from contextlib import contextmanager

    from judges.families import batching

    recorded: list[list[int]] = []
    real = batching.pass_timed

    @contextmanager
    def recording(lengths):
        recorded.append(list(lengths))
        with real(lengths):
            yield

    for module in ("judges.families.batching", "judges.families.dense", "judges.llm.hf_backend"):
        monkeypatch.setattr(f"{module}.pass_timed", recording)
    return recorded


def within_budget(recorded: list[list[int]], *, max_items: int, max_tokens: int) -> bool:
    """Every pass of RECORDED holds at most MAX_ITEMS rows and MAX_TOKENS padded tokens, or is one row alone."""
    return all(len(rows) <= max_items and (len(rows) == 1 or len(rows) * max(rows) <= max_tokens)
               for rows in recorded)


@pytest.fixture
def eager(monkeypatch):
    """Celery tasks run inline for tests where the broker is not what is under test."""
    from config.celery import app

    monkeypatch.setattr(app.conf, "task_always_eager", True)
    monkeypatch.setattr(app.conf, "task_eager_propagates", True)


def test_database_url() -> str:
    """The URL of the database pytest-django made, for processes started by the test."""
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(s['NAME']).resolve()}"
    auth = quote(s["USER"] or "")
    if s.get("PASSWORD"):
        auth += ":" + quote(s["PASSWORD"])
    host = f"{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}"
    return f"postgres://{auth}@{host}/{s['NAME']}"


test_database_url.__test__ = False  # not a test, whatever pytest thinks of its name


def broker_url(tmp_path: Path) -> str:
    return os.environ.get("CELERY_BROKER_URL") or f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"


def broker_purge(url: str) -> None:
    """Empty the judges queue of a shared broker (Redis) so an earlier test's messages cannot interfere."""
    if url.startswith("sqla+"):
        return  # a fresh file per test
    from kombu import Connection

    with Connection(url) as conn:
        for queue in ("judges", "judges-gpu", "imports"):
            try:
                conn.default_channel.queue_purge(queue)
            except Exception:  # noqa: BLE001 - a queue that was never declared has nothing to purge
                pass


def subprocess_env(tmp_path: Path, **extra) -> dict:
    env = os.environ.copy()
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=test_database_url(),
        CELERY_BROKER_URL=broker_url(tmp_path),
        PYTHONPATH=str(ROOT),
        LOG_LEVEL="WARNING",
    )
    env.pop("CONCORD_TEST_DB", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def manage(tmp_path: Path, *args, timeout=120, **env_extra) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args], cwd=ROOT, env=subprocess_env(tmp_path, **env_extra),
        capture_output=True, text=True, timeout=timeout,
    )


def wait_until(predicate, *, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def child_pids(pid: int) -> list[int]:
    """The direct children of PID, from /proc (Linux)."""
    children = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return children


class Worker:
    """A real `celery -A APP worker` process (prefork) on the judges queue (or QUEUES), logging to a file."""

    def __init__(self, tmp_path: Path, *, app: str = "config", concurrency: int = 2, name: str = "w1",
                 queues: tuple[str, ...] = ("judges",), **env_extra):
        self.log_path = tmp_path / f"worker-{name}.log"
        self.name = name
        self.args = [CELERY, "-A", app, "worker", "--pool", "prefork", "--concurrency", str(concurrency),
                     "-Q", ",".join(queues),
                     "--loglevel", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
                     "-n", f"{name}@%h", "--logfile", str(self.log_path)]
        self.env = subprocess_env(tmp_path, **env_extra)
        self.proc = None

    def start(self, *, timeout: float = 60) -> "Worker":
        self.proc = subprocess.Popen(self.args, cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=open(self.log_path.with_suffix(".err"), "w"), start_new_session=True)
        wait_until(lambda: self.proc.poll() is not None or " ready." in self.log(), timeout=timeout,
                   what=f"worker {self.name} to be ready")
        assert self.proc.poll() is None, f"worker {self.name} exited at start:\n{self.log()[-3000:]}"
        return self

    def log(self) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        err = self.log_path.with_suffix(".err")
        return text + (err.read_text(errors="replace") if err.exists() else "")

    def pool_pids(self) -> list[int]:
        return child_pids(self.proc.pid)

    def kill(self) -> None:
        """SIGKILL the main process and every process of its session (pool children): a machine lost."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.kill()
