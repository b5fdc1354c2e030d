"""The AIS rater in Chromium, keyboard only: two questions in turn, Backspace back to the first, u to change."""

import re

import pytest
from playwright.sync_api import expect

from annotate.models import HumanJudgment
from tests.browser_keys import READY, press
from tests.browser_layout import SIZES, hidden_fields, size_id

PROGRESS = "#annotate-progress .progress-text"
SHOTS = "/tmp/ais-shots"


def wait_for_answer(page, text):
    page.wait_for_function(
        "text => document.getElementById('answer') && document.getElementById('answer').textContent === text",
        arg=text,
    )


def current_values(campaign):
    return {
        text: (value, label)
        for text, value, label in HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True)
        .values_list("unit__topic__text", "value", "label")
    }


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_rater_answers_both_questions_by_keyboard(ais_campaign, login_page, live_server):
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{ais_campaign.slug}/annotate/")
    q1, q2 = page.locator("#q-interpretable"), page.locator("#q-supported")
    assert page.locator("#question").inner_text() == "when did the eiffel tower open to the public"
    assert page.locator("#answer").inner_text() == "The Eiffel Tower opened to the public in 1889."
    assert page.locator(PROGRESS).inner_text() == "0 of 5 done"
    link = page.locator("#source-link")
    assert link.inner_text() == "Eiffel Tower"
    assert link.get_attribute("href") == "https://en.wikipedia.org/wiki/Eiffel_Tower"
    assert (link.get_attribute("target"), link.get_attribute("rel")) == ("_blank", "noopener noreferrer")
    # with script: question 1 only, and no submit button (the last answer submits)
    expect(q1).to_be_visible()
    expect(q2).to_be_hidden()
    expect(page.locator("#ais-submit")).to_be_hidden()
    page.screenshot(path=f"{SHOTS}/ais-q1.png", full_page=True)
    page.evaluate("window.__concordMarker = 'still here'")  # a full page load would wipe it

    # y y: interpretable, supported
    press(page, "y")
    expect(q2).to_be_visible()
    expect(q2).to_have_attribute("aria-current", "step")
    expect(page.locator("#interpretable-yes")).to_be_checked()
    page.screenshot(path=f"{SHOTS}/ais-q2.png", full_page=True)
    press(page, "y")
    wait_for_answer(page, "She did, the year after.")
    assert page.locator(PROGRESS).inner_text() == "1 of 5 done"
    expect(q2).to_be_hidden()  # the next unit starts at question 1

    # n: not interpretable, submitted at once
    press(page, "n")
    wait_for_answer(page, "Kilimanjaro is 5,895 metres tall, the highest mountain in the world.")
    assert page.locator(PROGRESS).inner_text() == "2 of 5 done"

    # y, Backspace back to question 1, then n
    press(page, "y")
    expect(q2).to_be_visible()
    press(page, "Backspace")
    expect(q2).to_be_hidden()
    expect(q1).to_have_attribute("aria-current", "step")
    press(page, "n")
    wait_for_answer(page, "Canberra is the capital of Australia.")
    assert page.locator(PROGRESS).inner_text() == "3 of 5 done"
    assert page.locator("#source-title").inner_text() == "Sydney"  # no URL: the title, not a link
    assert page.locator("#source-link").count() == 0

    # y n: interpretable, not supported; Escape also steps back from question 2
    press(page, "y")
    press(page, "Escape")
    expect(q2).to_be_hidden()
    press(page, "y")
    press(page, "n")
    wait_for_answer(page, "Water boils at 100 degrees Celsius at sea level.")
    assert page.locator(PROGRESS).inner_text() == "4 of 5 done"
    assert page.evaluate("window.__concordMarker") == "still here"

    yes_yes, not_interpretable = ({"interpretable": True, "supported": True}, "yes"), (
        {"interpretable": False, "supported": None}, "no")
    assert current_values(ais_campaign) == {
        "when did the eiffel tower open to the public": yes_yes,
        "who wrote the novel frankenstein": not_interpretable,
        "how tall is mount kilimanjaro": not_interpretable,
        "what is the capital of australia": ({"interpretable": True, "supported": False}, "no"),
    }

    # u: back to the last verdict, which shows the earlier answers; y y changes it
    press(page, "u")
    wait_for_answer(page, "Canberra is the capital of Australia.")
    assert "you said interpretable yes, supported no" in page.locator("#earlier-answers").inner_text()
    expect(page.locator("label:has(#interpretable-yes)")).to_have_class(re.compile(r"\bchosen\b"))
    expect(page.locator("label:has(#supported-no)")).to_have_class(re.compile(r"\bchosen\b"))
    expect(q2).to_be_hidden()  # asked again from question 1
    page.screenshot(path=f"{SHOTS}/ais-undo.png", full_page=True)
    press(page, "y")
    press(page, "y")
    wait_for_answer(page, "Water boils at 100 degrees Celsius at sea level.")  # back to the unit I was holding
    assert page.locator(".annotate-note.ok").inner_text() == "Your earlier verdict is changed."
    assert page.locator(PROGRESS).inner_text() == "4 of 5 done"
    history = list(
        HumanJudgment.objects.filter(unit__topic__text="what is the capital of australia", annotator__username="ann")
        .order_by("version").values_list("value", "label", "version", "is_current")
    )
    assert history == [({"interpretable": True, "supported": False}, "no", 1, False),
                       ({"interpretable": True, "supported": True}, "yes", 2, True)]

    # ? opens the guidelines; keys typed meanwhile do not judge; Escape closes them
    press(page, "?")
    expect(page.locator("#help")).to_be_visible()
    assert "Interpretable?" in page.locator("#help").inner_text()
    assert "partly supported is not supported" in page.locator("#help").inner_text()
    page.screenshot(path=f"{SHOTS}/ais-guidelines.png")
    press(page, "n")
    press(page, "Escape")
    expect(page.locator("#help")).to_be_hidden()
    expect(q2).to_be_hidden()
    assert page.locator("#answer").inner_text() == "Water boils at 100 degrees Celsius at sea level."
    assert page.locator("#source-link").count() == 0  # its javascript: URL is not a link
    assert len(current_values(ais_campaign)) == 4
    assert page.evaluate("window.__concordMarker") == "still here"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_mouse_answers_take_the_same_path_and_the_end_says_all_done(ais_campaign, login_page, live_server):
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{ais_campaign.slug}/annotate/")
    for n in range(5):
        if n % 2:
            page.click("label:has(#interpretable-no)")
        else:
            page.click("label:has(#interpretable-yes)")
            page.click("label:has(#supported-no)")
        page.wait_for_function(f"document.querySelector('{PROGRESS}').textContent.trim().startsWith('{n + 1} of')")
    assert page.locator("#all-done h2").inner_text() == "All done"
    labels = sorted(label for _, label in current_values(ais_campaign).values())
    assert labels == ["no"] * 5
    assert HumanJudgment.objects.filter(unit__campaign=ais_campaign, value__supported=False).count() == 3


# As long as ais-demo's longest passages: three lines at 1280 px.
DEMO_PASSAGE = ("The Stockton and Darlington Railway opened in September 1825. It was the first public railway to "
                "carry passengers and goods using steam locomotives on part of its line. ") * 2


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_the_pinned_questions_never_cover_the_passage(ais_campaign, login_page, live_server, size):
    """Question 2 makes the panel pinned to the window's bottom taller: it covered the passage's last line at
    1280x900 and all of it at 1280x760. The page now scrolls the passage into view above the panel."""
    item = ais_campaign.items.get(external_id="ais-1")
    item.data = {**item.data, "passage": DEMO_PASSAGE}
    item.save()
    page = login_page("ann")
    page.set_viewport_size(size)
    page.goto(f"{live_server.url}/campaigns/{ais_campaign.slug}/annotate/")
    page.wait_for_selector(READY, state="attached")
    fields = ["#question", "#answer", "#passage"]
    assert hidden_fields(page, fields) == {}
    page.screenshot(path=f"{SHOTS}/ais-{size_id(size)}-q1.png")

    press(page, "y")
    expect(page.locator("#q-supported")).to_be_visible()
    page.wait_for_selector(READY, state="attached")
    page.screenshot(path=f"{SHOTS}/ais-{size_id(size)}-q2.png")
    assert hidden_fields(page, fields) == {}
    # The passage's last line, not only its box, lies above the panel.
    last_line = page.evaluate("""() => { const range = document.createRange();
        range.selectNodeContents(document.getElementById('passage'));
        const rects = range.getClientRects(); return rects[rects.length - 1].bottom; }""")
    assert last_line <= page.locator("#ais-form").bounding_box()["y"]
    press(page, "n")  # the panel still answers: supported? no
    wait_for_answer(page, "She did, the year after.")
