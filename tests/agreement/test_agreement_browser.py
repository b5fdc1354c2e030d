"""The report page in Chromium: a researcher reads the tables and the plot, and downloads the CSV."""

import pytest

from tests.agreement.test_agreement_report import small_campaign  # noqa: F401 (fixture)
from tests.agreement.test_browser_report_tables import OVERFLOWS
from tests.report_support import report_stored


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_researcher_reads_the_report_and_downloads_csv(small_campaign, login_page, live_server, tmp_path):  # noqa: F811
    page = login_page("res")
    report_stored(small_campaign)
    page.goto(f"{live_server.url}/campaigns/small/report/")
    judges = page.locator("#judges tbody tr")
    assert judges.count() == 2
    kappa = judges.nth(0).locator("td").nth(3)
    assert kappa.inner_text().splitlines()[0] == "-0.500"  # greyed: 3 items only, over 2 questions: no interval
    assert kappa.locator(".ci-under").inner_text() == "no interval: too few questions to resample: 2"
    assert "small-sample" in kappa.get_attribute("class")
    dash = judges.nth(0).locator("td .undefined").first
    assert dash.inner_text() == "—"
    assert dash.get_attribute("title") == "every system has the same score under the judge"
    assert page.locator("#systems tbody tr").count() == 3
    assert page.locator("#scatter svg").is_visible()
    page.screenshot(path=str(tmp_path / "agreement-report.png"), full_page=True)
    assert page.evaluate(OVERFLOWS) == []  # every table within its card at 1280 px (the graded report: its own test)
    with page.expect_download() as download:
        page.click("text=Download systems CSV")
    path = download.value.path()
    assert open(path, encoding="utf-8").readline().strip().startswith("system,n,human,judge-a,judge-b,judge-a_all,")
