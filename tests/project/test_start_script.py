"""scripts/serve (what scripts/start runs after the install): the banner only once the app answers, the app served
by gunicorn with DEBUG off and its database private, a 600 MB POST costing the web processes nothing, and Ctrl-C or
SIGTERM stopping the web server and the worker within 10 s, leaving no process behind.

Real processes on a temporary SQLite database and broker holding the demo, as a researcher's machine has them after
the first start: the demo is loaded once for the module, by the commands scripts/serve runs (migrate, load_demo),
and each test starts scripts/serve on a copy of its files (database, broker with the demo rankers' queued batches,
media), so that its own migrate and load_demo find everything there. A fresh load_demo is tested in
tests/tasktypes/test_load_demo.py and tests/project/test_browser_newcomer.py.
"""

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.pg_private import free_port
from tests.sides import sqlite_run_only
from tests.web_memory import MB, peak_growth, peak_reset, post

# scripts/serve is given a SQLite database and broker of its own and no cache (_environment), whichever run starts it.
pytestmark = [pytest.mark.worker, sqlite_run_only("scripts/serve runs on its own SQLite database and broker")]

ROOT = Path(__file__).resolve().parents[2]
BANNER = "Concord is running at"


def _environment(folder: Path, port: int) -> dict:
    """scripts/serve's environment with its database, broker and media in FOLDER, serving on PORT."""
    env = {**os.environ, "PORT": str(port), "DJANGO_SETTINGS_MODULE": "config.settings.local",
           "DATABASE_URL": f"sqlite:///{folder}/db.sqlite3",
           "CELERY_BROKER_URL": f"sqla+sqlite:///{folder}/broker.sqlite3", "MEDIA_ROOT": str(folder / "media")}
    for name in ("CACHE_URL", "CONCORD_TEST_DB"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def demo_files(tmp_path_factory) -> Path:
    """A folder with the files of a first start: migrated, the demo loaded (scripts/serve's own two commands)."""
    folder = tmp_path_factory.mktemp("demo-files")
    env = _environment(folder, free_port())
    for command in (["migrate", "--noinput"], ["load_demo"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True,
                       timeout=600)
    return folder


def _serve(tmp_path, demo_files):
    port = free_port()
    shutil.copytree(demo_files, tmp_path, dirs_exist_ok=True)
    env = _environment(tmp_path, port)
    log = open(tmp_path / "serve.log", "w+")
    # Started as a terminal starts it: with SIGINT at its default. A test run started in the background (`pytest &`
    # from a script, as a CI harness may) ignores SIGINT, and an ignored signal is inherited across exec: bash could
    # then not trap Ctrl-C, gunicorn would ignore it, and only the worker's own handler would stop anything. A
    # Python handler is not inherited (exec resets it to the default), so one is set around the start.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen([str(ROOT / "scripts" / "serve")], cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True, text=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    return process, port, log


def _wait_for_banner(process, log, port):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        log.seek(0)
        if BANNER in log.read():
            # The banner came after the app answered: the first request made after it is answered.
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=5) as answer:
                return answer.status
        assert process.poll() is None, "scripts/serve ended before its banner"
        time.sleep(0.2)
    raise AssertionError("no banner within 120 s")


def _group_alive(pgid: int) -> list[str]:
    """The command lines of the processes still in process group PGID."""
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[2]) == pgid and stat[0] != "Z":
                left.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except (OSError, IndexError, ValueError):
            continue
    return left


def _gunicorn_workers(pgid: int) -> list[int]:
    arbiters = [pid for pid, line in _group_processes(pgid) if "gunicorn" in line and "config.wsgi" in line]
    return [pid for pid, line in _group_processes(pgid) if "gunicorn" in line and _parent(pid) in arbiters]


def _group_processes(pgid: int) -> list[tuple[int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) == pgid:
                    found.append((int(entry.name), (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _check_the_default_install(folder: Path, port: int, pgid: int) -> None:
    """Issue 48: gunicorn serves, DEBUG is off (a 404 is a plain page), the database is 0600, and a 600 MB POST to the
    sign-in page is refused from its length, its connection closed, its body never read."""
    workers = _gunicorn_workers(pgid)
    assert workers, f"no gunicorn worker among {_group_processes(pgid)}"
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/docs/no-such-page/", timeout=5)
    except urllib.error.HTTPError as answer:
        page = answer.read().decode()
        assert answer.code == 404 and "URLconf" not in page and "DEBUG" not in page and len(page) < 2000, page
    assert stat.S_IMODE((folder / "db.sqlite3").stat().st_mode) == 0o600
    baseline = peak_reset(workers)
    answer = post(port, "/accounts/login/", size=600 * MB, close_wait=5)
    assert answer.status == 413 and answer.closed and answer.sent < 64 * MB
    assert peak_growth(baseline) < 20 * MB


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_banner_once_the_app_answers_and_a_signal_stops_everything_within_10_s(tmp_path, demo_files, how):
    process, port, log = _serve(tmp_path, demo_files)
    try:
        assert _wait_for_banner(process, log, port) == 200
        log.seek(0)
        text = log.read()
        assert text.count(BANNER) == 1 and f"http://127.0.0.1:{port}/" in text and "researcher / concord-demo" in text
        assert "Adjudicator: adjudicator / concord-demo" in text
        assert any("celery" in line for line in _group_alive(process.pid)), "the worker runs beside the web server"
        _check_the_default_install(tmp_path, port, process.pid)
        started = time.monotonic()
        if how == "ctrl-c":  # a terminal sends SIGINT to the whole foreground group
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            log.seek(0)
            pytest.fail(f"still running 10 s after the signal; its output:\n{log.read()[-4000:]}\n"
                        f"processes left: {_group_alive(process.pid)}")
        took = time.monotonic() - started
        deadline = time.monotonic() + 1
        while _group_alive(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _group_alive(process.pid) == []
        assert took < 10
        log.seek(0)
        assert "== Stopped" in log.read()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()
