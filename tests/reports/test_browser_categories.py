"""One journey through item categories in the browser: a researcher puts an item in a category on the Items page,
finds it by that category, and reads the report's block by category."""

import os

import pytest

from tests.categories_support import categories_campaign
from tests.report_support import report_stored

pytestmark = pytest.mark.django_db(transaction=True)

SHOTS = os.environ.get("CONCORD_SCREENSHOTS")  # a folder: the journey's pages are saved there to be looked at


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def test_researcher_sets_a_category_and_reads_the_report_by_category(login_page, live_server, researcher):
    campaign = categories_campaign(researcher=researcher)
    page = login_page(researcher.username)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/")
    page.click("#items-link")
    row = page.locator("#items tr", has_text="i21")
    field = row.locator("input[name=category]")
    assert field.input_value() == ""
    field.fill("granularity")
    row.get_by_role("button", name="Save").click()
    page.wait_for_load_state("networkidle")
    assert "Item i21: category “granularity”." in page.locator(".messages").inner_text()
    shot(page, "items")
    page.select_option("select[name=category]", "granularity")
    page.get_by_role("button", name="Show").click()
    page.wait_for_load_state("networkidle")
    assert page.locator("#items tbody tr").count() == 1
    report_stored(campaign)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/report/")
    table = page.locator("#categories-agreement")
    rows = table.locator("tbody tr")
    assert [rows.nth(n).locator("th").inner_text() for n in range(rows.count())] == [
        "semantic", "symbolic", "granularity", "without a category"]
    assert "8 of 10" in rows.nth(0).inner_text()
    table.scroll_into_view_if_needed()
    shot(page, "report")
