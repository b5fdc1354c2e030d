"""The judge development page in Chromium: split the items, three versions scored on the development part, one marked
final (the page asks first), its held-out figure in the report."""

import pytest
from playwright.sync_api import expect

from tests.judges.test_development_split import _campaign, _overfit_judge
from tests.report_support import report_stored


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_split_tune_three_versions_mark_one_final_and_read_it_held_out(researcher, login_page, live_server):
    campaign = _campaign("dev-b", researcher)
    page = login_page("res")
    page.goto(f"{live_server.url}/campaigns/dev-b/judges/")
    page.click("#judge-development")
    page.fill("input[name=held_out]", "0.5")
    page.fill("input[name=seed]", "7")
    asked = []  # the split cannot be undone: the page asks first, and says so
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.click("button[name=make-split]")
    expect(page.locator("#split-summary")).to_contain_text("12 items to develop judges on, 12 held out")
    assert "cannot be undone" in asked[0]
    campaign.refresh_from_db()
    for name in ("v1", "v2", "v3"):  # three prompts tuned on the development part (planted: right on all of it)
        _overfit_judge(campaign, name)
    page.reload()
    rows = page.locator("#development-judges tbody tr")
    expect(rows).to_have_count(3)
    for row in range(3):
        expect(rows.nth(row).locator("td").nth(0)).to_have_text("development part")
        expect(rows.nth(row).locator("td").nth(3)).to_contain_text("1.000")
    page.once("dialog", lambda dialog: dialog.accept())
    rows.nth(2).locator("button[name=mark-final]").click()
    expect(page.locator("#development-3 td").nth(0)).to_contain_text("held-out part")
    expect(page.locator("#development-3 td").nth(3)).to_contain_text("0.000")  # the plant: wrong on every held-out item
    expect(page.locator("button[name=mark-final]")).to_have_count(2)
    report_stored(campaign)
    page.goto(f"{live_server.url}/campaigns/dev-b/report/")
    expect(page.locator("#split-final")).to_contain_text("v3: marked final")
    expect(page.locator("#split-final")).to_contain_text("the first version scored there")
    expect(page.locator("#replacement")).to_be_visible()  # the replacement tests read v3 on the held-out part
