"""Keyboard shortcuts as each person chooses them (issue 54: WCAG 2.1.4; accounts.models.Preferences, chosen on the
account page, applied by static/js/keys.js), and what a screen reader hears after a verdict (static/js/unit.js: the
status line #unit-said, the focus on the new unit's heading), in Chromium on the QA page of conftest's qa_campaign.

A key that must do nothing is shown to do nothing by what follows it: the verdict the mouse gives next is the only
one recorded, so the key before it made none."""

import pytest
from playwright.sync_api import expect

from accounts.models import Preferences
from annotate.models import HumanJudgment
from tests.browser_keys import press
from tests.factories import PASSWORD
from tests.sides import sqlite_run_only

PROGRESS = "#annotate-progress .progress-text"


def sign_in(page, base_url, username):
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/")


def choose(page, base_url, mode):
    page.goto(f"{base_url}/accounts/profile/")
    page.check(f"#shortcuts-form input[value={mode}]")
    page.click("#shortcuts-form button[name=action]")
    expect(page.locator(".messages")).to_contain_text("Keyboard shortcuts")


def labels(campaign):
    return list(HumanJudgment.objects.filter(unit__campaign=campaign).order_by("id").values_list("label", flat=True))


@pytest.mark.browser
@sqlite_run_only("what is checked is the pages' keys; the choice's storage is read on both (the API test below)")
@pytest.mark.django_db(transaction=True)
def test_shortcuts_turned_off_stay_off_after_signing_in_again_and_with_alt_only_alt_keys_judge(
        qa_campaign, browser, live_server, tmp_path):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    annotate = f"{live_server.url}/campaigns/{qa_campaign.slug}/annotate/"
    sign_in(page, live_server.url, "ann")
    choose(page, live_server.url, "off")

    # Signed out and in again: the choice is the account's, not the session's.
    page.click("form[action$='/logout/'] button")
    sign_in(page, live_server.url, "ann")
    page.goto(annotate)
    assert page.locator("body").get_attribute("data-shortcuts") == "off"
    expect(page.locator(".keys-off")).to_be_visible()
    expect(page.locator(".keys")).to_be_hidden()
    expect(page.locator("#verdict-yes kbd")).to_be_hidden()
    assert page.locator("#verdict-yes").get_attribute("aria-keyshortcuts") is None
    page.screenshot(path=str(tmp_path / "shortcuts-off.png"))
    press(page, "y")
    press(page, "?")
    expect(page.locator("#help")).to_be_hidden()
    page.click("#verdict-no")
    expect(page.locator(PROGRESS)).to_have_text("1 of 6 done")
    assert labels(qa_campaign) == ["no"]

    choose(page, live_server.url, "alt")
    page.goto(annotate)
    assert page.locator("#verdict-yes").get_attribute("aria-keyshortcuts") == "Alt+y"
    assert page.evaluate("getComputedStyle(document.querySelector('#verdict-yes kbd'), '::before').content") == '"Alt+"'
    press(page, "y")
    press(page, "Alt+y")
    expect(page.locator(PROGRESS)).to_have_text("2 of 6 done")
    assert labels(qa_campaign) == ["no", "yes"]
    # What a screen reader hears: the verdict and the progress in a few words, then the new unit from its heading.
    expect(page.locator("#unit-said")).to_have_text("Saved: Correct. 2 of 6 done.")
    assert page.evaluate("document.activeElement.tagName + ':' + document.activeElement.textContent") == "H2:Question"
    assert page.locator("#annotate-unit").get_attribute("aria-live") is None
    press(page, "Alt+Shift+?")
    expect(page.locator("#help")).to_be_visible()
    expect(page.locator("#shortcuts-help")).to_contain_text("works with Alt held")
    assert Preferences.objects.get(user__username="ann").shortcuts == "alt"
    page.context.close()


@pytest.mark.django_db
def test_shortcuts_are_read_and_changed_through_the_api_for_oneself_only(client, django_user_model):
    ann = django_user_model.objects.create_user("ann", password=PASSWORD)
    other = django_user_model.objects.create_user("other", password=PASSWORD)
    client.force_login(ann)
    assert client.get("/api/preferences/").json() == {"shortcuts": "keys"}
    answer = client.patch("/api/preferences/", {"shortcuts": "off"}, content_type="application/json")
    assert answer.status_code == 200 and answer.json() == {"shortcuts": "off"}
    refused = client.patch("/api/preferences/", {"shortcuts": "ctrl"}, content_type="application/json")
    assert refused.status_code == 400 and "shortcuts" in refused.json()
    assert client.get("/api/preferences/").json() == {"shortcuts": "off"}
    assert not Preferences.objects.filter(user=other).exists()
    client.logout()
    assert client.get("/api/preferences/").status_code in (401, 403)
