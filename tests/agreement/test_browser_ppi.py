"""Humans and judges together in Chromium: a researcher reads the check of the method on a QA campaign whose humans
judged every question (reports.ppi), sets its plan and share on the Options page, and reads the rebuilt section, its
plot and its CSV."""

import csv
import io
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.project.test_query_counts import campaign_from_sample
from tests.report_support import report_stored

SHOTS = Path("/tmp/ppi-shots")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_researcher_checks_humans_and_judges_together_and_changes_the_plan(login_page, live_server, settings,
                                                                             tmp_path):
    SHOTS.mkdir(exist_ok=True)
    settings.MEDIA_ROOT = tmp_path / "media"
    world = campaign_from_sample("qa_correctness", topics=20, tag="p", media_root=settings.MEDIA_ROOT)
    campaign = world["campaign"]
    report_stored(campaign)
    page = login_page(world["users"]["researcher"].username)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/report/")
    section = page.locator("details.ppi-judge").first
    # The sample's humans judged 19 of the 20 questions: a check, on a tenth drawn by the default (active) plan, but
    # on 10 at the least (the fewest the judge is read with).
    expect(section.locator(":scope > summary")).to_contain_text("check on 10 of 20 questions drawn by the")
    expect(page.locator(".ppi-draws").first).to_contain_text("Over 40 more draws")
    assert section.locator("table.ppi-systems tbody tr").count() == 3  # the sample's three systems
    expect(page.locator("#ppi-plot svg")).to_be_visible()
    # The labels an interval 0.1 wide would need (option budget_width), by plan and for the humans alone.
    expect(section.locator("th.ppi-needed")).to_contain_text("Labels for width 0.100")
    expect(section.locator("th.ppi-needed")).to_contain_text("uniform · active · humans alone")
    page.screenshot(path=str(SHOTS / "1-check.png"), full_page=True)

    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/options/")
    page.select_option("#id_ppi_plan", "uniform")
    page.fill("#id_ppi_check_share", "0.75")
    page.click("button[type=submit]")
    expect(page.locator(".messages")).to_have_text('Options saved: ppi_plan "uniform", ppi_check_share 0.75.')
    report_stored(campaign)  # the worker's rebuild, run here
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/report/")
    expect(page.locator("details.ppi-judge").first.locator(":scope > summary")).to_contain_text(
        "check on 15 of 20 questions drawn by the uniform plan")
    page.locator("details.ppi-judge").first.screenshot(path=str(SHOTS / "2-uniform.png"))
    with page.expect_download() as download:
        page.click("#ppi-csv")
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
    # 15 questions drawn; 14 labelled where the draw took the question the sample's annotators left undecided.
    assert {row["plan"] for row in rows} == {"uniform"} and len({row["human_labels"] for row in rows}) == 1
    assert rows[0]["human_labels"] in ("14", "15")
    assert len(rows) == 3 * len({row["judge"] for row in rows})
