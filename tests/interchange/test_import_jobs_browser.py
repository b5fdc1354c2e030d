"""The import page in Chromium with a real worker: a file of a few MB is uploaded, the page moves on to the job's
page, whose progress moves by itself (htmx polling) while the worker imports, then shows the summary; the judge
page then offers to judge the new items."""

import json
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotate.models import Item
from interchange.models import ImportJob
from judges.identity import config_hash
from judges.models import Judge, JudgeRun, ModelJudgment
from tests.judges_support import Worker, broker_url

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]
SHOTS = Path(__file__).resolve().parents[2] / "var"
ROWS = 20_000


@pytest.fixture
def broker(tmp_path, monkeypatch):
    """The live server (this process) and the worker share a broker of the test's own."""
    from config.celery import app

    url = broker_url(tmp_path)
    monkeypatch.setattr(app.conf, "broker_url", url)
    monkeypatch.setattr(app, "_pool", None)  # connections made for another broker are not reused
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    return url


def test_upload_moves_to_the_job_page_which_shows_progress_then_the_summary(
        tmp_path, qa_campaign, researcher, login_page, live_server, broker, settings):
    judge = Judge.objects.create(campaign=qa_campaign, name="em", family="em", config={},
                                 config_hash=config_hash(family="em", config={}))
    run = JudgeRun.objects.create(judge=judge, status="succeeded", total=6)
    ModelJudgment.objects.bulk_create([ModelJudgment(judge=judge, item=item, run=run, score=1.0, label="yes")
                                       for item in Item.objects.filter(campaign=qa_campaign)])
    path = tmp_path / "NQ_big-system.jsonl"
    with path.open("w", encoding="utf-8") as sink:
        for n in range(ROWS):
            sink.write(json.dumps({"question": f"what is the answer to question number {n} of the big set",
                                   "answer": [f"answer {n}", f"the answer {n}"],
                                   "prediction": f"the predicted answer {n}, give or take"}) + "\n")
    assert path.stat().st_size > 3_000_000
    worker = Worker(tmp_path, app="tests.imports_slow_worker", queues=("imports",), concurrency=1,
                    IMPORT_ROOT=settings.IMPORT_ROOT, CONCORD_TEST_PAUSE_SECONDS=0.15, CONCORD_TEST_PAUSE_ROWS=1000)
    try:
        worker.start()
        page = login_page("res")
        page.goto(f"{live_server.url}/campaigns/qa/import/")
        page.select_option("select[name=format]", "qa-eval-jsonl")
        page.set_input_files("input[name=files]", str(path))
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/campaigns/qa/imports/\d+/$"))
        job = ImportJob.objects.get()
        assert job.bytes_total == path.stat().st_size
        rows = page.locator("#rows-read")
        # No reload from here on: only htmx polling can move the numbers.
        expect(page.locator("#import-job[data-status=running]")).to_be_visible(timeout=30_000)
        expect(rows).not_to_have_text(re.compile(r"^0$"), timeout=30_000)
        midway = int(rows.inner_text())
        assert 0 < midway < ROWS
        assert page.locator("#import-job").get_attribute("hx-trigger") == "every 1s"
        page.screenshot(path=str(tmp_path / "running.png"), full_page=True)

        expect(page.locator("#import-job[data-status=done]")).to_be_visible(timeout=60_000)
        assert page.locator("#import-job").get_attribute("hx-trigger") is None  # polling stopped
        assert rows.inner_text() == str(ROWS)
        summary = page.locator("#import-summary").inner_text()
        assert f"created: {ROWS} topics, {ROWS} items" in summary and "(1 systems)" in summary
        page.screenshot(path=str(tmp_path / "done.png"), full_page=True)
        page.set_viewport_size({"width": 1024, "height": 800})
        page.screenshot(path=str(tmp_path / "done-1024.png"), full_page=True)
        page.set_viewport_size({"width": 1920, "height": 1000})
        page.screenshot(path=str(tmp_path / "done-1920.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})
        job.refresh_from_db()
        assert (job.status, job.rows_read, job.bytes_read) == ("done", ROWS, job.bytes_total)

        page.goto(f"{live_server.url}/campaigns/qa/judges/")
        button = page.locator(f"#new-items-{judge.id} button[name=judge-new-items]")
        assert button.inner_text() == f"Judge {ROWS} new items"
        page.screenshot(path=str(tmp_path / "judges.png"), full_page=True)
        page.goto(f"{live_server.url}/campaigns/qa/import/")
        assert "NQ_big-system.jsonl" in page.locator("#recent-imports").inner_text()
        page.screenshot(path=str(tmp_path / "import-page.png"), full_page=True)
        for name in ("running", "done", "done-1024", "done-1920", "judges", "import-page"):
            shutil.copy(tmp_path / f"{name}.png", SHOTS / f"screenshot-import-job-{name}.png")
    finally:
        worker.kill()
