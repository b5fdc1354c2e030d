"""The robustness probes page in Chromium: make probes of a graded campaign, run its BM25 judge on them, read the flip
rates with their n and interval on the page and in the report."""

import os

import pytest
from playwright.sync_api import expect

from judges.services import judge_run_start
from tests.judges.test_probes import passage_campaign
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.report_support import report_stored


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_make_probes_run_a_judge_and_read_its_flip_rates(researcher, login_page, live_server, eager):  # noqa: F811
    campaign = passage_campaign("probes-b", researcher)
    judge_run_start(campaign=campaign, name="bm25", family="bm25", config={}, created_by=researcher)
    page = login_page("res")
    page.goto(f"{live_server.url}/campaigns/probes-b/judges/")
    page.click("#judge-probes")
    expect(page.locator("#probe-kinds tbody tr")).to_have_count(2)
    page.fill("input[name=per_kind]", "6")
    page.click("button[name=make]")
    expect(page.locator("#kind-stuffing td").nth(1)).to_have_text("6")
    expect(page.locator("#kind-instruction td").nth(1)).to_have_text("6")
    page.click("#probe-judges button[name=run]")
    rates = page.locator("#probe-judge-1 td")
    expect(rates.nth(0)).to_contain_text("1.000")  # stuffed query words raise every BM25 score
    expect(rates.nth(0)).to_contain_text("6 of n = 6")
    expect(rates.nth(1)).to_contain_text("0.000")  # the claim shares no word with the queries
    expect(page.locator("#probe-judges td").nth(0)).to_have_text("12")
    if os.environ.get("CONCORD_SHOTS"):
        page.screenshot(path=os.environ["CONCORD_SHOTS"] + "/probes.png", full_page=True)
    report_stored(campaign)
    page.goto(f"{live_server.url}/campaigns/probes-b/report/")
    expect(page.locator("#robustness")).to_be_visible()
    expect(page.locator("#probe-rates")).to_contain_text("6 of n = 6")
