"""Benchmark of an import job: a 200 MB qa-eval-jsonl file sent to a real web process (gunicorn, one sync worker),
first through the import page in Chromium (Playwright), whose job page shows the progress while a real Celery worker
(queue imports) imports it, then through the REST API.

In the browser: the seconds from the click on Import until the job page shows, and the "rows read" figures the job page
showed while the worker imported, as the researcher sees them (read every half second, no reload).

The upload is streamed from disk by the client (http.client, a chunk at a time), so the figures are the server's:
the web process stores the file as it arrives (interchange.jobs.ImportUploadHandler) and answers 202 at once. Printed:
the web process's peak RSS (VmHWM of /proc/<pid>/status, before and after the upload), the upload's seconds (until
the 202), the import's seconds (the job's started_at to finished_at, and until the client saw it done), the rows
per second, and the worker's peak RSS. SQLite database and broker in a temp folder unless DATABASE_URL /
CELERY_BROKER_URL are set.

    .venv/bin/python bench/bench_import_jobs.py [--mb 200]
"""

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent
SLUG = "bench-jobs"
CHUNK = 1 << 20


def data_write(path: Path, *, megabytes: int) -> int:
    """A qa-eval-jsonl file of about MEGABYTES MB: questions with gold answers and a long prediction; its rows."""
    filler = " ".join(f"word{n % 97}" for n in range(300))  # ~2 KB of prediction text per row
    rows = 0
    with path.open("w", encoding="utf-8") as sink:
        while sink.tell() < megabytes * 1_000_000:
            sink.write(json.dumps({"question": f"what is the answer to benchmark question {rows}",
                                   "answer": [f"answer {rows}", f"the answer {rows}"],
                                   "prediction": f"answer {rows}: {filler}"}) + "\n")
            rows += 1
    return rows


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(predicate, *, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise SystemExit(f"timed out waiting for {what}")


def _status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def upload(port: int, token: str, path: Path) -> tuple[float, dict]:
    """POST PATH as a multipart upload to the API, streamed from disk; (seconds until the answer, its JSON)."""
    boundary = uuid.uuid4().hex
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"format\"\r\n\r\nqa-eval-jsonl\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"system\"\r\n\r\nbench-system\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{path.name}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.putrequest("POST", f"/api/campaigns/{SLUG}/import/")
    conn.putheader("Authorization", f"Token {token}")
    conn.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
    conn.putheader("Content-Length", str(len(head) + path.stat().st_size + len(tail)))
    conn.endheaders()
    conn.send(head)
    with path.open("rb") as source:
        while chunk := source.read(CHUNK):
            conn.send(chunk)
    conn.send(tail)
    response = conn.getresponse()
    body = response.read()
    seconds = time.perf_counter() - started
    conn.close()
    if response.status != 202:
        raise SystemExit(f"upload answered {response.status}: {body[:2000]!r}")
    return seconds, json.loads(body)


def browser_upload(port: int, path: Path, *, username: str, password: str) -> dict:
    """Upload PATH on the import page in Chromium and watch the job page until it says done; the figures seen."""
    from playwright.sync_api import sync_playwright

    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(f"{base}/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.goto(f"{base}/campaigns/{SLUG}/import/")
        page.select_option("select[name=format]", "qa-eval-jsonl")
        page.fill("input[name=system]", "bench-browser")
        page.set_input_files("input[name=files]", str(path))
        started = time.perf_counter()
        page.click("button[type=submit]")
        page.wait_for_url(f"{base}/campaigns/{SLUG}/imports/*/", timeout=600_000)
        shown_s = time.perf_counter() - started
        seen, status = [], ""
        while status not in ("done", "failed"):
            page.wait_for_timeout(500)
            status = page.get_attribute("#import-job", "data-status") or ""
            rows = int(page.inner_text("#rows-read").replace(",", "") or 0)
            if not seen or rows != seen[-1]:
                seen.append(rows)
        finished_s = time.perf_counter() - started
        browser.close()
    return {"shown_s": shown_s, "finished_s": finished_s, "seen": seen, "status": status}


def _figures(values: list[int]) -> str:
    shown = [f"{n:,}" for n in values]
    return ", ".join(shown) if len(shown) <= 6 else ", ".join(shown[:4]) + " ... " + shown[-1]


def job_get(port: int, token: str, job_id: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", f"/api/campaigns/{SLUG}/imports/{job_id}/", headers={"Authorization": f"Token {token}"})
    body = json.loads(conn.getresponse().read())
    conn.close()
    return body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="size of the uploaded file in MB")
    parser.add_argument("--no-browser", action="store_true", help="only the REST API upload")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-import-jobs-") as tmp:
        folder = Path(tmp)
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "MEDIA_ROOT": f"{tmp}/media",
               "LOG_LEVEL": "WARNING", "PYTHONPATH": str(ROOT)}
        env.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
        env.setdefault("CELERY_BROKER_URL", f"sqla+sqlite:///{tmp}/broker.sqlite3")
        os.environ.update({key: env[key] for key in ("DJANGO_SETTINGS_MODULE", "MEDIA_ROOT", "DATABASE_URL",
                                                      "CELERY_BROKER_URL")})
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command

        from accounts.services import token_create
        from annotate.services.campaigns import campaign_get_or_create

        call_command("migrate", verbosity=0)
        user = get_user_model().objects.create_user("bench-researcher", password="bench-password-1")
        campaign_get_or_create(slug=SLUG, task_type="qa_correctness", owner=user)
        _, token = token_create(user=user, name="bench")

        path = folder / "NQ_bench.jsonl"
        started = time.perf_counter()
        rows = data_write(path, megabytes=args.mb)
        size = path.stat().st_size
        print(f"== import job: qa-eval-jsonl {size / 1e6:.0f} MB, {rows:,} rows (written in "
              f"{time.perf_counter() - started:.1f} s); database {env['DATABASE_URL'].split(':', 1)[0]}")

        port = _free_port()
        web = subprocess.Popen([str(BIN / "gunicorn"), "config.wsgi", "--workers", "1", "--bind", f"127.0.0.1:{port}",
                                "--timeout", "600"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=open(folder / "web.log", "w"))
        worker = subprocess.Popen([str(BIN / "celery"), "-A", "config", "worker", "-Q", "imports", "--concurrency", "1",
                                   "--pool", "prefork", "--without-gossip", "--without-mingle", "--without-heartbeat",
                                   "--loglevel", "WARNING"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=open(folder / "worker.log", "w"), start_new_session=True)
        try:
            _wait_for(lambda: _connectable(port), timeout=60, what="gunicorn")
            web_pid = _wait_for(lambda: (_children(web.pid) or [None])[0], timeout=30, what="gunicorn's worker")
            job_get(port, token, 0)  # the web worker loads its code before the baseline is read
            if not args.no_browser:
                before = _status_kb(web_pid, "VmHWM")
                seen = browser_upload(port, path, username="bench-researcher", password="bench-password-1")
                after = _status_kb(web_pid, "VmHWM")
                if seen["status"] != "done":
                    raise SystemExit("the job started on the import page failed")
                rows_seen = seen["seen"]
                print(f"import page (Chromium): the job page showed {seen['shown_s']:.1f} s after the click on Import; "
                      f"done {seen['finished_s']:.1f} s after it; rows read shown while it ran: "
                      f"{len(rows_seen)} distinct figures, {_figures(rows_seen)}")
                print(f"web process (gunicorn sync worker) peak RSS: {before / 1024:.0f} MB before the page's upload, "
                      f"{after / 1024:.0f} MB after it (file {size / 1e6:.0f} MB)")
                call_command("flush", interactive=False, verbosity=0)  # the API upload imports the same file again
                user = get_user_model().objects.create_user("bench-researcher", password="bench-password-1")
                campaign_get_or_create(slug=SLUG, task_type="qa_correctness", owner=user)
                _, token = token_create(user=user, name="bench")
            before = _status_kb(web_pid, "VmHWM")
            upload_s, body = upload(port, token, path)
            after = _status_kb(web_pid, "VmHWM")
            accepted = time.perf_counter()
            job = _wait_for(lambda: (lambda j: j if j["status"] in ("done", "failed") else None)(
                job_get(port, token, body["id"])), timeout=3600, what="the import job")
            seen_s = time.perf_counter() - accepted
            if job["status"] != "done":
                raise SystemExit(f"the job failed: {job['error']}")
            from datetime import datetime

            import_s = (datetime.fromisoformat(job["finished_at"]) - datetime.fromisoformat(job["started_at"])
                        ).total_seconds()
            pool = _children(worker.pid)
            worker_rss = max((_status_kb(pid, "VmHWM") for pid in pool), default=0)
            print(f"web process (gunicorn sync worker) peak RSS: {before / 1024:.0f} MB before the upload, "
                  f"{after / 1024:.0f} MB after it (file {size / 1e6:.0f} MB)")
            print(f"upload: {upload_s:.1f} s until the 202 ({size / 1e6 / upload_s:.0f} MB/s)")
            print(f"import: {import_s:.1f} s on the worker (started to finished; {job['rows_read'] / import_s:,.0f} "
                  f"rows/s; {seen_s:.1f} s until the client saw it done); rows read {job['rows_read']:,}, items "
                  f"created {job['summary']['items_created']:,}")
            print(f"worker pool process peak RSS: {worker_rss / 1024:.0f} MB")
        finally:
            web.terminate()
            os.killpg(worker.pid, 15)
            web.wait(timeout=30)
            worker.wait(timeout=60)


def _connectable(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


if __name__ == "__main__":
    main()
