"""Benchmark of start-up (issue 35: a command, a worker and the web process each start in under 2 s).

Three processes, each started REPEATS times on a migrated throw-away SQLite database and broker (unless DATABASE_URL
/ CELERY_BROKER_URL are set), timed from the exec to the moment it can work:
- a management command: `manage.py check` (Django set up, every app, the URL configuration and the system checks)
  to its exit;
- the web process: `manage.py runserver --noreload` (as scripts/serve runs it) to its first answer of the sign-in page;
- a worker: `celery -A config worker` (the queues scripts/serve gives it, the solo pool) to its "ready" line.
Prints the median and the slowest of each, and which of the heavy libraries each loaded before it could work.

    .venv/bin/python bench/bench_startup.py [--repeats 5]
"""

import argparse
import os
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")
CELERY = str(ROOT / ".venv" / "bin" / "celery")
TARGET_S = 2.0
HEAVY = ("scipy", "sklearn", "matplotlib", "statsmodels", "krippendorff", "ir_measures", "pandas", "sqlalchemy",
         "torch", "transformers")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def command_once(env: dict) -> float:
    started = time.perf_counter()
    subprocess.run([PYTHON, "manage.py", "check"], cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def web_once(env: dict) -> float:
    port = _free_port()
    started = time.perf_counter()
    process = subprocess.Popen([PYTHON, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"], cwd=ROOT,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - started < 60:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=2) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - started
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("the web process did not answer within 60 s")
    finally:
        process.terminate()
        process.wait(timeout=10)


def worker_once(env: dict) -> float:
    started = time.perf_counter()
    process = subprocess.Popen([CELERY, "-A", "config", "worker", "-Q", "judges,judges-gpu,imports", "--pool", "solo",
                                "--loglevel", "INFO", "--without-mingle", "--without-gossip"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in process.stdout:
            if " ready." in line:
                return time.perf_counter() - started
        raise RuntimeError("the worker ended before it was ready")
    finally:
        process.terminate()
        process.wait(timeout=20)


def heavy_loaded(env: dict, code: str) -> list[str]:
    """The HEAVY libraries in sys.modules once CODE (after django.setup()) has run."""
    probe = ("import sys, django; django.setup()\n" + code +
             f"\nprint(','.join(sorted({{n.split('.')[0] for n in sys.modules}} & set({HEAVY!r}))))")
    out = subprocess.run([PYTHON, "-c", probe], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return [name for name in out.stdout.strip().split(",") if name]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="concord-bench-startup-"))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "PYTHONPATH": str(ROOT)}
    env.setdefault("DATABASE_URL", f"sqlite:///{workdir / 'bench.sqlite3'}")
    env.setdefault("CELERY_BROKER_URL", f"sqla+sqlite:///{workdir / 'broker.sqlite3'}")
    env.setdefault("MEDIA_ROOT", str(workdir / "media"))
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)

    loads = {
        "command": heavy_loaded(env, "from django.urls import get_resolver; get_resolver().url_patterns"),
        "web": heavy_loaded(env, "import config.wsgi; from django.urls import get_resolver; "
                                 "get_resolver().url_patterns"),
        "worker": heavy_loaded(env, "from config.celery import app; app.loader.import_default_modules()"),
    }
    print(f"Start-up, {args.repeats} starts each, {env['DATABASE_URL'].split(':')[0]} database "
          f"(target under {TARGET_S:g} s):")
    for name, once in (("command (manage.py check)", command_once), ("web (first answer)", web_once),
                       ("worker (ready)", worker_once)):
        times = [once(env) for _ in range(args.repeats)]
        key = name.split()[0]
        heavy = ", ".join(loads[key]) or "none"
        print(f"  {name:<28} median {statistics.median(times):.2f} s, slowest {max(times):.2f} s; "
              f"heavy libraries loaded at start: {heavy}")


if __name__ == "__main__":
    main()
