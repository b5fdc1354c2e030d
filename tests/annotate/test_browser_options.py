"""A passage campaign's Options page in Chromium: a value beyond the scale is refused on its field and nothing is
saved; then relevant_from and a grade's name are changed, saved, and shown saved."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotate.models import Campaign, Role
from tasktypes.passage_relevance.spec import SCALE
from tests.factories import CampaignFactory, MembershipFactory

SHOTS = Path("/tmp/forms-shots")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_researcher_changes_a_grade_name_and_relevant_from(researcher, login_page, live_server):
    SHOTS.mkdir(exist_ok=True)
    campaign = CampaignFactory(slug="pas", task_type="passage_relevance", options={"scale": SCALE, "runs": {}})
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    page = login_page("res")
    page.goto(f"{live_server.url}/campaigns/pas/options/")
    scale, relevant_from = page.locator("#id_scale"), page.locator("#id_relevant_from")
    expect(scale).to_have_value(
        "\n".join(f"{entry['grade']} | {entry['name']} | {entry['definition']}" for entry in SCALE))
    expect(relevant_from).to_have_value("")
    expect(page.locator("#option-relevant_from .option-help")).to_contain_text("Empty: 2.")

    relevant_from.fill("4")
    page.click("button[type=submit]")
    expect(page.locator("#options-error")).to_contain_text("Nothing was saved")
    expect(page.locator("#option-relevant_from-errors")).to_have_text("4 is not a grade of the scale (0-3)")
    expect(relevant_from).to_have_value("4")
    page.screenshot(path=str(SHOTS / "1-refused.png"), full_page=True)
    assert "relevant_from" not in Campaign.objects.get(slug="pas").options

    relevant_from.fill("3")
    scale.fill(scale.input_value().replace("1 | Related |", "1 | On topic |"))
    page.click("button[type=submit]")
    expect(page.locator(".messages")).to_have_text("Options saved: scale changed, relevant_from 3.")
    expect(relevant_from).to_have_value("3")
    expect(scale).to_contain_text("1 | On topic | The passage is about the query's subject")
    expect(page.locator(".errorlist")).to_have_count(0)
    page.screenshot(path=str(SHOTS / "2-saved.png"), full_page=True)
    options = Campaign.objects.get(slug="pas").options
    assert options["relevant_from"] == 3 and options["runs"] == {}
    assert [entry["name"] for entry in options["scale"]] == ["Not relevant", "On topic", "Highly relevant",
                                                             "Perfectly relevant"]
    assert options["scale"][1]["definition"] == SCALE[1]["definition"]
