"""The judge panel in Chromium: when a run ends, the Judges table follows without a reload (it said "run under way"
after the run's own row said "Succeeded"). The run's batches are judged here, in the test, instead of by a worker:
what is under test is the page's polling (tests/judges/test_judges_browser.py runs a real worker)."""

import pytest
from playwright.sync_api import expect

from judges.models import JudgeRun
from judges.services import judge_run_start
from judges.tasks import judge_batch


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_judges_table_follows_a_run_to_its_end_without_a_reload(qa_campaign, researcher, login_page,
                                                                    live_server, monkeypatch):
    published = []
    monkeypatch.setattr("judges.services._batches_publish", lambda **kwargs: published.append(kwargs["batches"]))
    judge_run_start(campaign=qa_campaign, name="em", family="em", config={}, batch_size=4, created_by=researcher)
    run = JudgeRun.objects.get()
    page = login_page("res")
    page.goto(f"{live_server.url}/campaigns/qa/judges/")
    expect(page.locator(f"#new-items-{run.judge_id}")).to_contain_text(f"run {run.id} is under way")
    for batch in published[0]:
        judge_batch(run.id, batch)
    expect(page.locator(f"#run-{run.id} .status")).to_have_text("Succeeded")
    expect(page.locator(f"#new-items-{run.judge_id}")).to_have_text("none")
    expect(page.locator(f"#judgments-{run.judge_id}")).to_have_text("6")
    assert page.locator("#judges tbody tr").first.locator("td").count() == page.locator("#judges thead th").count()
