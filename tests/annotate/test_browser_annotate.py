"""The annotator's flow in Chromium, keyboard only: y, n, y with auto-advance, then u to change a verdict."""

import re

import pytest
from playwright.sync_api import expect

from annotate.models import HumanJudgment
from tests.browser_keys import READY, press
from tests.browser_layout import SIZES, hidden_fields, size_id

PROGRESS = "#annotate-progress .progress-text"


def wait_for_candidate(page, text):
    page.wait_for_function(
        "text => document.getElementById('candidate') && document.getElementById('candidate').textContent === text",
        arg=text,
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_annotator_judges_by_keyboard_and_changes_a_verdict(qa_campaign, login_page, live_server, tmp_path):
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{qa_campaign.slug}/annotate/")
    assert page.locator("#question").inner_text() == "who painted the mona lisa"
    assert page.locator("#gold-answers li").all_inner_texts() == ["Leonardo da Vinci"]
    assert page.locator("#candidate").inner_text() == "Leonardo da Vinci"
    assert page.locator(PROGRESS).inner_text() == "0 of 6 done"
    page.screenshot(path=str(tmp_path / "annotate-first.png"), full_page=True)
    # A full page load would wipe this marker; htmx swaps must keep it.
    page.evaluate("window.__concordMarker = 'still here'")

    expected = [("y", "Michelangelo", "1 of 6 done"), ("n", "canberra", "2 of 6 done"), ("y", "Sydney", "3 of 6 done")]
    for key, next_candidate, progress in expected:
        press(page, key)
        wait_for_candidate(page, next_candidate)
        assert page.locator(PROGRESS).inner_text() == progress
    assert page.evaluate("window.__concordMarker") == "still here"
    assert page.locator("#question").inner_text() == "what is the capital of australia"

    # u: back to the last verdict ("canberra", judged yes) and change it to no.
    press(page, "u")
    wait_for_candidate(page, "canberra")
    assert "Changing an earlier verdict" in page.locator(".editing-banner").inner_text()
    expect(page.locator("#verdict-yes")).to_have_class(re.compile(r"\bchosen\b"))  # my earlier verdict
    expect(page.locator("#verdict-no")).not_to_have_class(re.compile(r"\bchosen\b"))
    page.screenshot(path=str(tmp_path / "annotate-undo.png"), full_page=True)
    press(page, "n")
    wait_for_candidate(page, "Sydney")  # back to the unit I was holding
    assert page.locator(PROGRESS).inner_text() == "3 of 6 done"
    assert page.locator(".annotate-note.ok").inner_text() == "Your earlier verdict is changed."

    # ? opens the guidelines, Escape closes them; keys typed meanwhile do not judge.
    press(page, "?")
    assert page.locator("#help").is_visible()
    page.screenshot(path=str(tmp_path / "annotate-help.png"), full_page=True)
    press(page, "y")
    press(page, "Escape")
    assert not page.locator("#help").is_visible()
    assert page.locator("#candidate").inner_text() == "Sydney"
    assert page.evaluate("window.__concordMarker") == "still here"

    current = dict(
        HumanJudgment.objects.filter(unit__campaign=qa_campaign, annotator__username="ann", is_current=True)
        .values_list("unit__item__text", "label")
    )
    assert current == {"Leonardo da Vinci": "yes", "Michelangelo": "no", "canberra": "no"}
    history = list(
        HumanJudgment.objects.filter(unit__item__text="canberra", annotator__username="ann")
        .order_by("version")
        .values_list("label", "version", "is_current")
    )
    assert history == [("yes", 1, False), ("no", 2, True)]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_mouse_works_too_and_the_end_says_all_done(qa_campaign, login_page, live_server, tmp_path):
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{qa_campaign.slug}/annotate/")
    for n in range(6):
        page.click("#verdict-yes" if n % 2 == 0 else "#verdict-no")
        page.wait_for_function(f"document.querySelector('{PROGRESS}').textContent.trim().startsWith('{n + 1} of')")
    assert page.locator("#all-done h2").inner_text() == "All done"
    assert page.locator(PROGRESS).inner_text() == "6 of 6 done"
    page.screenshot(path=str(tmp_path / "annotate-done.png"), full_page=True)
    assert HumanJudgment.objects.filter(unit__campaign=qa_campaign, is_current=True).count() == 6


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_the_pinned_verdicts_never_cover_the_unit(qa_campaign, login_page, live_server, size, tmp_path):
    page = login_page("ann")
    page.set_viewport_size(size)
    page.goto(f"{live_server.url}/campaigns/{qa_campaign.slug}/annotate/")
    page.wait_for_selector(READY, state="attached")
    page.screenshot(path=str(tmp_path / f"qa-{size_id(size)}.png"))
    assert hidden_fields(page, ["#question", "#gold-answers", "#candidate"]) == {}
