"""No verdict is lost, in Chromium: the session ends under an open page, the server is away, a second tab is stale,
and a key comes 30 ms after the one before. Each time the annotator ends with exactly the judgments they meant."""

import os
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from annotate.models import HumanJudgment
from tests.browser_keys import READY, press
from tests.sessions_support import sessions_end

PROGRESS = "#annotate-progress .progress-text"
SUBMIT = "**/annotate/submit/"


def shots(tmp_path) -> Path:
    """Where screenshots go: CONCORD_SCREENSHOT_DIR to look at them after the run, else the test's tmp dir."""
    folder = Path(os.environ.get("CONCORD_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def wait_for_candidate(page, text):
    page.wait_for_function(
        "text => document.getElementById('candidate') && document.getElementById('candidate').textContent === text",
        arg=text,
    )


def history(campaign, candidate):
    """(label, version, is_current) of every judgment of the unit whose candidate is CANDIDATE, oldest first."""
    return list(HumanJudgment.objects.filter(unit__campaign=campaign, unit__item__text=candidate)
                .order_by("version").values_list("label", "version", "is_current"))


def pending(page):
    return page.evaluate("() => Object.keys(sessionStorage).filter(k => k.startsWith('concord:pending:')).length")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_ended_session_keeps_the_verdict_and_sends_it_once_after_signing_in(qa_campaign, login_page, live_server,
                                                                               password, tmp_path):
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{qa_campaign.slug}/annotate/")
    statuses = []
    page.on("response", lambda r: statuses.append(r.status) if r.url.endswith("/annotate/submit/") else None)
    assert sessions_end() >= 1  # the session ends on the server while the page stays open

    press(page, "n")
    dialog = page.locator("#signin")
    expect(dialog).to_be_visible()
    # The card still shows the unit, never a login page inside it; the verdict waits in the page.
    assert page.locator("#candidate").inner_text() == "Leonardo da Vinci"
    assert "Log in to Concord" not in page.locator("#annotate-unit").inner_text()
    expect(page.locator("#conn-banner")).to_contain_text("not saved yet")
    assert pending(page) == 1
    assert not HumanJudgment.objects.exists()
    assert page.locator("#signin-username").input_value() == "ann"
    page.screenshot(path=str(shots(tmp_path) / "signin-dialog.png"))

    page.fill("#signin-password", "not the password")
    page.click("#signin-submit")
    expect(page.locator("#signin-error")).to_have_text("Your username and password did not match.")
    assert not HumanJudgment.objects.exists()

    page.fill("#signin-password", password)
    page.click("#signin-submit")
    wait_for_candidate(page, "Michelangelo")
    expect(dialog).to_be_hidden()
    expect(page.locator("#conn-banner")).to_be_hidden()
    assert page.locator(PROGRESS).inner_text() == "1 of 6 done"
    assert history(qa_campaign, "Leonardo da Vinci") == [("no", 1, True)]
    # Refused once for the session, then sent once with the token made at sign-in (a stale one would be a 403).
    assert statuses == [401, 200]
    assert pending(page) == 0

    press(page, "y")  # the page goes on as before
    wait_for_candidate(page, "canberra")
    assert history(qa_campaign, "Michelangelo") == [("yes", 1, True)]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_with_the_server_away_the_verdict_waits_and_is_recorded_once(qa_campaign, login_page, live_server):
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{qa_campaign.slug}/annotate/")

    # The server records the verdict but its answer is lost on the way: the page sends it again by itself (after
    # a second), with the same submission id, and the server records nothing twice.
    calls = []

    def answer_lost_once(route):
        fields = parse_qs(route.request.post_data)
        fields.pop("csrfmiddlewaretoken", None)  # the header carries it on a resend
        calls.append(fields)
        if len(calls) == 1:
            route.fetch()
            route.abort()
        else:
            route.continue_()

    page.route(SUBMIT, answer_lost_once)
    press(page, "y")
    expect(page.locator("#conn-banner")).to_contain_text("Concord cannot be reached")
    wait_for_candidate(page, "Michelangelo")
    assert len(calls) == 2 and calls[0] == calls[1]  # the same verdict, the same submission id
    assert calls[0]["verdict"] == ["yes"] and len(calls[0]["submission"][0]) == 32
    assert history(qa_campaign, "Leonardo da Vinci") == [("yes", 1, True)]
    expect(page.locator("#conn-banner")).to_be_hidden()
    page.unroute(SUBMIT)

    # Nothing gets through; the verdict is kept in the page across a reload, then sent once the server is back.
    page.route(SUBMIT, lambda route: route.abort())
    press(page, "n")
    expect(page.locator("#conn-banner")).to_contain_text("is kept in this page")
    page.reload()
    expect(page.locator("#conn-banner")).to_contain_text("is kept in this page")
    assert pending(page) == 1
    assert history(qa_campaign, "Michelangelo") == []
    page.unroute(SUBMIT)
    page.click("#conn-now")
    wait_for_candidate(page, "canberra")
    assert history(qa_campaign, "Michelangelo") == [("no", 1, True)]
    assert page.locator(PROGRESS).inner_text() == "2 of 6 done"
    assert pending(page) == 0


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_stale_tab_offers_a_choice_instead_of_overwriting(qa_campaign, login_page, live_server, tmp_path):
    url = f"{live_server.url}/campaigns/{qa_campaign.slug}/annotate/"
    first = login_page("ann")
    second = first.context.new_page()  # the same session, another tab
    first.goto(url)
    second.goto(url)
    assert first.locator("#candidate").inner_text() == second.locator("#candidate").inner_text() == "Leonardo da Vinci"

    press(first, "y")
    wait_for_candidate(first, "Michelangelo")
    press(second, "n")  # made on a view of the unit from before "y"
    choice = second.locator("#stale-choice")
    expect(choice).to_be_visible()
    assert second.locator("#stale-newer").inner_text() == "correct"
    assert second.locator("#stale-mine").inner_text() == "not correct"
    assert history(qa_campaign, "Leonardo da Vinci") == [("yes", 1, True)]  # nothing applied
    second.screenshot(path=str(shots(tmp_path) / "stale-choice.png"))

    second.click("#stale-keep")  # keep the newer verdict: nothing changes, on to the unit held
    wait_for_candidate(second, "Michelangelo")
    assert history(qa_campaign, "Leonardo da Vinci") == [("yes", 1, True)]

    press(first, "y")
    wait_for_candidate(first, "canberra")
    press(second, "n")
    expect(second.locator("#stale-choice")).to_be_visible()
    second.click("#stale-replace")  # replace it with this tab's verdict: a new version
    wait_for_candidate(second, "canberra")
    assert history(qa_campaign, "Michelangelo") == [("yes", 1, False), ("no", 2, True)]
    assert second.locator(".annotate-note.ok").inner_text() == "Your earlier verdict is changed."


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_two_keys_30_ms_apart_judge_one_unit(qa_campaign, login_page, live_server):
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{qa_campaign.slug}/annotate/")
    page.wait_for_selector(READY, state="attached")
    page.keyboard.press("y")
    page.wait_for_timeout(30)
    page.keyboard.press("n")
    wait_for_candidate(page, "Michelangelo")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_timeout(200)  # time for a second request, were one sent
    assert history(qa_campaign, "Leonardo da Vinci") == [("yes", 1, True)]
    assert history(qa_campaign, "Michelangelo") == []
    assert page.locator(PROGRESS).inner_text() == "1 of 6 done"
