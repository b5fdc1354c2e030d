"""Benchmark: API tokens issued, used and revoked while a 1,000,000-line trec-run import holds SQLite's write lock.

A throw-away SQLite install in a temp folder (config.settings.local): the run's topics are imported, a researcher
made, the web app started (runserver); then `manage.py import_data` imports a run of LINES lines (1,000 topics,
pooled to depth 25) in a process of its own, and while its transaction holds the default database's write lock,
every 0.5 s this signs in for a token (POST /api/token/), makes one with it (POST /api/tokens/), revokes that (DELETE
/api/tokens/ID/) and uses the first (GET /api/campaigns/); the same before the import, idle, for comparison (signing
in costs the password hash: PBKDF2's iterations). Issue 48 found POST /api/token/ taking 14-34 s, or 503 after 33.4 s,
during such an import.

    .venv/bin/python bench/bench_token_during_import.py [--lines 1000000] [--depth 25]
"""

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PORT = 8765
TOPICS = 1000
PASSWORD = "bench-password-1"


def _run_write(folder: Path, lines: int) -> Path:
    (folder / "topics.jsonl").write_text("".join(
        json.dumps({"id": f"t{n:04d}", "page_title": f"Page {n}", "section_title": f"Section {n}"}) + "\n"
        for n in range(TOPICS)), encoding="utf-8")
    path = folder / "bench.run"
    per_topic = lines // TOPICS
    with open(path, "w", encoding="utf-8") as out:
        for n in range(TOPICS):
            out.write("".join(f"t{n:04d} Q0 img{(n * 7919 + p * 104_729) % 10_000_000:07d} {p + 1} "
                              f"{1000 - p / 100:.4f} bench-run\n" for p in range(per_topic)))
    return path


def _call(method: str, path: str, *, data: dict | None = None, token: str | None = None) -> tuple[int, float, dict]:
    body = json.dumps(data).encode() if data is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=body, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            status, text = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    took = time.monotonic() - started
    try:
        return status, took, json.loads(text or b"{}")
    except ValueError:
        return status, took, {}


def _locked(database: Path) -> bool:
    """Whether another connection holds DATABASE's write lock."""
    probe = sqlite3.connect(database, timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        probe.close()


def _round(sign_in: dict, *, locked: bool) -> dict:
    """Sign in for a token, make one with it, revoke that, use the first: each one's (status, seconds)."""
    status, took, answer = _call("POST", "/api/token/", data=sign_in)
    key = answer.get("token")
    made = _call("POST", "/api/tokens/", data={"name": "made"}, token=key) if key else (0, 0.0, {})
    revoked = _call("DELETE", f"/api/tokens/{made[2]['id']}/", token=key) if made[2].get("id") else (0, 0.0, {})
    used = _call("GET", "/api/campaigns/", token=key) if key else (0, 0.0, {})
    return {"locked": locked, "issue": (status, took), "make": made[:2], "revoke": revoked[:2], "use": used[:2]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--depth", type=int, default=25, help="pool depth per topic (import_data's default)")
    arguments = parser.parse_args()
    lines, depth = arguments.lines, arguments.depth
    tmp = Path(tempfile.mkdtemp(prefix="tokens-bench-"))
    database = tmp / "concord.sqlite3"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DATABASE_URL": f"sqlite:///{database}",
           "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp / 'broker.sqlite3'}", "MEDIA_ROOT": str(tmp / "media"),
           "DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1"}
    manage = [PYTHON, "manage.py"]
    run = _run_write(tmp, lines)
    for command in (["migrate", "-v0"],
                    ["import_data", "--campaign", "bench", "--task-type", "image_relevance", "--format", "jsonl",
                     str(tmp / "topics.jsonl")],
                    ["shell", "-c", "from django.contrib.auth import get_user_model; "
                                    f"get_user_model().objects.create_user('researcher', password='{PASSWORD}')"]):
        subprocess.run([*manage, *command], cwd=ROOT, env=env, check=True, capture_output=True)
    web = subprocess.Popen([*manage, "runserver", "--noreload", f"127.0.0.1:{PORT}"], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(240):
            try:
                if _call("GET", "/accounts/login/")[0] == 200:
                    break
            except OSError:
                time.sleep(0.5)
        sign_in = {"username": "researcher", "password": PASSWORD, "name": "bench"}
        idle = [_round(sign_in, locked=False) for _ in range(4)][1:]  # the first answers each URL once
        started = time.monotonic()
        importing = subprocess.Popen(
            [*manage, "import_data", "--campaign", "bench", "--task-type", "image_relevance", "--format", "trec-run",
             "--depth", str(depth), str(run)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        while not _locked(database) and importing.poll() is None:
            time.sleep(0.1)
        lock_seen = time.monotonic() - started
        rounds = []
        while importing.poll() is None:
            rounds.append(_round(sign_in, locked=_locked(database)))
            time.sleep(0.5)
        output = importing.stdout.read().decode()
        if importing.returncode:
            sys.exit(f"the import failed:\n{output[-3000:]}")
        seconds = time.monotonic() - started
    finally:
        web.terminate()
        web.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    held = [r for r in rounds if r["locked"]]
    print(f"import of {lines:,} lines (pool depth {depth}): {seconds:.1f} s (write lock seen after {lock_seen:.1f} s); "
          f"{len(rounds)} rounds, {len(held)} while the lock was held")
    for name, want in (("issue", 200), ("make", 201), ("revoke", 200), ("use", 200)):
        for label, sample in (("during the import", held), ("idle, before it", idle)):
            times = [r[name][1] for r in sample]
            if times:
                print(f"  {name:<7} {label:<18} statuses {sorted({r[name][0] for r in sample})} (want {want}); "
                      f"median {statistics.median(times):.3f} s, max {max(times):.3f} s")


if __name__ == "__main__":
    main()
