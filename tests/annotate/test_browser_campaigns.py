"""A researcher runs a campaign from the browser, in Chromium: makes one with its task type's options as fields and
guidelines, edits the guidelines (the old version stays); invites a new annotator, who opens the one-time link, sets
a password, lands in the campaign and judges a unit under the current guidelines (hostile Markdown in them stays
harmless), while the link refuses a second use; an annotator opening a researcher's page gets a plain 403."""

from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from annotate.models import Campaign, CampaignGuidelines, HumanJudgment, Membership, Role
from tests.browser_keys import press
from tests.factories import UserFactory

SHOTS = Path("/tmp/campaign-shots")
HOSTILE = ("Say **yes** only when the candidate means a gold answer.\n\n"
           "<script>window.pwned = 1</script> [click me](javascript:window.pwned=2) "
           "<img src=x onerror=\"window.pwned=3\"> [the style guide](https://example.org/style)")


@pytest.fixture
def shots():
    SHOTS.mkdir(exist_ok=True)
    return SHOTS


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_researcher_makes_a_campaign_with_options_and_guidelines_then_edits_them(login_page, live_server, shots):
    maker = UserFactory(username="maker")
    maker.user_permissions.add(Permission.objects.get(codename="add_campaign", content_type__app_label="annotate"))
    page = login_page("maker")
    # The task type is chosen before htmx has loaded (a slow network: its script held back here until then); once it
    # loads it fetches the chosen type's fields (it did nothing: the select showed the type, its fields never came).
    held = []
    page.route("**/vendor/htmx-*.js", lambda route: held.append(route))
    page.click("#campaign-new")
    expect(page.locator("h1")).to_have_text("New campaign")
    expect(page.locator("#type-options-hint")).to_be_visible()
    page.select_option("#id_task_type", "answer_ranking")
    page.wait_for_timeout(200)
    assert len(held) == 1 and page.locator("#id_option-dimensions").count() == 0
    held[0].continue_()
    page.unroute("**/vendor/htmx-*.js")
    # htmx swaps the task type's own fields in: dimensions and ties, as fields, and its default overlap.
    expect(page.locator("#id_option-dimensions")).to_be_visible()
    expect(page.locator("#id_option-scale")).to_have_count(0)
    page.fill("#id_name", "Health answers 2026")
    page.fill("#id_option-dimensions", "relevance\nreadability")
    page.select_option("#id_option-ties", "yes")
    page.fill("#id_guidelines", "Rank the **most useful** answer first.\n\n- Ignore typos.")
    page.set_viewport_size({"width": 1024, "height": 900})
    page.screenshot(path=str(shots / "create.png"), full_page=True)
    page.click("button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("Campaign “Health answers 2026” made; you are its researcher.")
    campaign = Campaign.objects.get(slug="health-answers-2026")
    assert (campaign.task_type, campaign.options) == ("answer_ranking",
                                                      {"dimensions": ["relevance", "readability"], "ties": True})
    assert Membership.objects.filter(campaign=campaign, user=maker, role=Role.RESEARCHER).exists()

    page.click("#settings-link")
    expect(page.locator("#guidelines-v1")).to_contain_text("Rank the most useful answer first.")
    page.fill("#id_guidelines", "Rank the **most useful** answer first.\n\n- Ignore typos.\n- A refusal goes last.")
    page.fill("#id_overlap", "3")  # from the default, 2
    page.click("#settings-form button[type=submit]")
    expect(page.locator(".messages")).to_have_text("Saved: overlap k, guidelines (a new version).")
    expect(page.locator("#guidelines-v2")).to_contain_text("A refusal goes last.")
    expect(page.locator("#guidelines-v1 summary")).to_contain_text("Version 1")
    page.click("#guidelines-v1 summary")
    expect(page.locator("#guidelines-v1 .guidelines-text")).not_to_contain_text("A refusal goes last.")
    page.set_viewport_size({"width": 1400, "height": 900})
    page.screenshot(path=str(shots / "settings.png"), full_page=True)
    page.set_viewport_size({"width": 1024, "height": 900})
    page.screenshot(path=str(shots / "settings-1024.png"), full_page=True)
    assert list(CampaignGuidelines.objects.filter(campaign=campaign).order_by("version")
                .values_list("version", flat=True)) == [1, 2]
    assert CampaignGuidelines.objects.get(campaign=campaign, version=1).text.endswith("- Ignore typos.")
    assert Campaign.objects.get(pk=campaign.pk).overlap == 3


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_invited_annotator_sets_a_password_and_judges_under_the_guidelines(qa_campaign, browser, login_page,
                                                                            live_server, shots):
    researcher = login_page("res")
    researcher.goto(f"{live_server.url}/campaigns/qa/settings/")
    researcher.fill("#id_guidelines", HOSTILE)
    researcher.click("#settings-form button[type=submit]")
    expect(researcher.locator(".messages")).to_contain_text("guidelines (a new version)")

    researcher.goto(f"{live_server.url}/campaigns/qa/")
    researcher.click("#work-left ~ a, a:has-text('People') >> nth=0")
    expect(researcher.locator("h1")).to_have_text("People")
    researcher.fill("#id_username", "nora")
    researcher.check("#id_create")
    researcher.click("#member-add button[type=submit]")
    expect(researcher.locator("#invite")).to_contain_text("An account called nora was made.")
    link = researcher.locator("#invite-url").input_value()
    assert link.startswith(f"{live_server.url}/accounts/welcome/")
    expect(researcher.locator("#members")).to_contain_text("no password yet")
    researcher.set_viewport_size({"width": 1024, "height": 900})
    researcher.screenshot(path=str(shots / "people.png"), full_page=True)

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        nora = context.new_page()
        nora.goto(link)
        expect(nora.locator("h1")).to_have_text("Welcome to Concord")
        nora.screenshot(path=str(shots / "welcome.png"), full_page=True)
        nora.fill("#id_new_password1", "short")
        nora.fill("#id_new_password2", "short")
        nora.click("button[type=submit]")
        expect(nora.locator(".errorlist")).to_contain_text("This password is too short.")
        nora.fill("#id_new_password1", "nora-chooses-a-long-one")
        nora.fill("#id_new_password2", "nora-chooses-a-long-one")
        nora.click("button[type=submit]")
        expect(nora).to_have_url(f"{live_server.url}/campaigns/qa/")
        expect(nora.locator(".messages")).to_contain_text("Welcome, nora: your password is set and you are signed in.")
        nora.click("text=Start annotating")
        expect(nora.locator("#candidate")).to_have_text("Leonardo da Vinci")
        nora.wait_for_load_state("load")  # the page's keys are bound (annotate.js, deferred)
        press(nora, "?")
        expect(nora.locator("#campaign-guidelines")).to_be_visible()
        expect(nora.locator("#campaign-guidelines")).to_contain_text(
            "Say yes only when the candidate means a gold answer.")
        # What was script, an image or a javascript: link in the Markdown is text, or no link at all.
        expect(nora.locator("#campaign-guidelines")).to_contain_text("<script>window.pwned = 1</script>")
        assert nora.locator("#campaign-guidelines script, #campaign-guidelines img").count() == 0
        hrefs = nora.locator("#campaign-guidelines a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
        assert hrefs == ["https://example.org/style"]
        nora.screenshot(path=str(shots / "guidelines-help.png"), full_page=True)
        nora.keyboard.press("Escape")
        press(nora, "y")
        expect(nora.locator("#candidate")).to_have_text("Michelangelo")
        assert nora.evaluate("window.pwned") is None

        judgment = HumanJudgment.objects.get(annotator__username="nora")
        current = CampaignGuidelines.objects.get(campaign=qa_campaign)
        assert (judgment.label, judgment.guidelines_id, current.version) == ("yes", current.pk, 1)

        nora.goto(link)
        expect(nora.locator("#welcome-error")).to_have_text(
            "This link has been used already or has expired. Ask the researcher who sent it for a new one.")

        # The researcher sees nora's progress and the work left on the campaign page.
        researcher.goto(f"{live_server.url}/campaigns/qa/")
        expect(researcher.locator("#work-left")).to_contain_text("5")
        expect(researcher.locator("#annotators tr", has_text="nora")).to_contain_text("1")
        researcher.screenshot(path=str(shots / "campaign.png"), full_page=True)
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_annotator_opening_a_researchers_page_is_told_what_it_is_for(qa_campaign, login_page, live_server,
                                                                         shots):
    page = login_page("ann")
    response = page.goto(f"{live_server.url}/campaigns/qa/people/")
    assert response.status == 403
    expect(page.locator("#forbidden")).to_contain_text(
        "This page is for the researchers of campaign “Campaign qa”; you are an annotator here.")
    expect(page.locator("body")).not_to_contain_text("Traceback")
    page.set_viewport_size({"width": 1024, "height": 700})
    page.screenshot(path=str(shots / "forbidden.png"), full_page=True)
    page.click("text=Back to your campaigns")
    expect(page.locator("h1")).to_have_text("Campaigns")
