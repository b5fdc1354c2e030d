"""The judge panel in Chromium: the progress bar moves by itself while a real worker judges, then stops."""

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from judges.models import JudgeRun, RunStatus
from tests.judges_support import Worker, broker_purge, broker_url, campaign_with_items, manage

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]
SHOTS = Path(__file__).resolve().parents[2] / "var"


def test_live_progress_bar_until_the_run_succeeds(tmp_path, researcher, login_page, live_server):
    campaign_with_items(n_items=120, researcher=researcher)
    broker_purge(broker_url(tmp_path))
    worker = Worker(tmp_path, app="tests.judges_slow_worker", CONCORD_TEST_BATCH_SECONDS=0.5)
    try:
        # The run is queued and its page open before the worker starts, so however slow the machine, the page sees
        # the run from its start (a worker started first could finish the run before the page opens).
        started = manage(tmp_path, "run_judge", "--campaign", "big", "--judge", "f1", "--family", "f1",
                         "--batch-size", "8")
        assert started.returncode == 0, started.stderr
        run = JudgeRun.objects.get()
        page = login_page("res")
        page.goto(f"{live_server.url}/campaigns/big/judges/")
        row = page.locator(f"#run-{run.id}")
        text = row.locator(".progress-text")
        first = int(re.match(r"(\d+)/120", text.inner_text()).group(1))
        assert first == 0
        worker.start()
        # No reload from here on: only htmx polling can move the numbers.
        expect(text).not_to_have_text(re.compile(rf"^({first}|0)/120 judged"), timeout=30_000)
        assert row.locator(".status").inner_text() in ("Running", "Queued")
        assert row.locator("button[name=cancel]").is_visible()
        page.screenshot(path=str(tmp_path / "running.png"), full_page=True)
        midway = int(re.match(r"(\d+)/", text.inner_text()).group(1))

        expect(text).to_have_text(re.compile(r"^120/120 judged"), timeout=60_000)
        page.wait_for_selector(f"#run-{run.id}[data-status=succeeded]", timeout=10_000)
        final = page.locator(f"#run-{run.id}")
        assert final.locator(".status").inner_text() == "Succeeded"
        assert final.get_attribute("hx-trigger") is None  # polling stopped
        assert final.locator("button[name=cancel]").count() == 0
        page.screenshot(path=str(tmp_path / "done.png"), full_page=True)
        assert first < midway < 120
        run.refresh_from_db()
        assert run.status == RunStatus.SUCCEEDED
        for name in ("running", "done"):
            shutil.copy(tmp_path / f"{name}.png", SHOTS / f"screenshot-judges-{name}.png")
    finally:
        worker.kill()
