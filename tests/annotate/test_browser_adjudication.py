"""The adjudicator in Chromium, keyboard only: the queue, then two units settled with a verdict and a note."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotate.models import HumanJudgment, JudgmentKind
from tests.adjudication_support import disagreement_campaign

SHOTS = Path("/tmp/adjudication-shots")


def key(page, name):
    """Press NAME once the page's script has run (it marks <html> once its keys are bound)."""
    page.wait_for_function("document.documentElement.dataset.adjudicateKeys === 'on'")
    page.keyboard.press(name)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_adjudicator_settles_two_units_with_the_keyboard(login_page, live_server):
    campaign, people, units = disagreement_campaign()
    SHOTS.mkdir(exist_ok=True)
    page = login_page("adj")
    page.goto(f"{live_server.url}/campaigns/adj/adjudicate/")
    expect(page.locator("#queue tbody tr")).to_have_count(3)
    page.screenshot(path=str(SHOTS / "queue.png"), full_page=True)

    with page.expect_navigation():
        key(page, "Enter")  # the next unit: u4, the most disagreement
    expect(page.locator("h1")).to_have_text("Adjudicate u4")
    expect(page.locator("#raters tr")).to_have_count(2)
    expect(page.locator("#raters")).to_contain_text("Rater A")
    expect(page.locator("#judges")).to_contain_text("sample 0 of u4: the answer is no")
    key(page, "n")
    expect(page.locator("#q-verdict-no")).to_be_checked()
    key(page, "Backspace")
    expect(page.locator("#q-verdict-no")).not_to_be_checked()
    key(page, "y")
    key(page, "c")
    expect(page.locator("#note")).to_be_focused()
    page.keyboard.type("Both readings are possible; the gold answer decides.")
    page.keyboard.press("Escape")
    page.screenshot(path=str(SHOTS / "unit.png"), full_page=True)
    with page.expect_navigation():
        key(page, "Enter")
    expect(page.locator(".messages")).to_contain_text("Adjudicated u4.")
    expect(page.locator("h1")).to_have_text("Adjudicate u1")  # the next in the queue

    with page.expect_navigation():
        key(page, "j")  # leave u1 for later: the next unit
    expect(page.locator("h1")).to_have_text("Adjudicate u3")
    with page.expect_navigation():
        key(page, "q")  # back to the queue, where u1 still comes first
    expect(page.locator("#queue tbody tr")).to_have_count(2)
    with page.expect_navigation():
        key(page, "Enter")
    expect(page.locator("h1")).to_have_text("Adjudicate u1")
    key(page, "n")
    with page.expect_navigation():
        key(page, "Enter")
    expect(page.locator("h1")).to_have_text("Adjudicate u3")
    # j leaves u3 for later: it is the last one, so there is no next unit to go to; q goes back to the queue.
    expect(page.locator("#adjudicate-skip")).to_have_count(0)
    with page.expect_navigation():
        key(page, "q")
    expect(page.locator("#queue tbody tr")).to_have_count(1)
    expect(page.locator("#adjudicated tbody tr")).to_have_count(2)

    rows = sorted(HumanJudgment.objects.filter(kind=JudgmentKind.ADJUDICATION).values_list(
        "unit__item__external_id", "label", "note", "annotator__username"))
    assert rows == [("u1", "no", "", "adj"), ("u4", "yes", "Both readings are possible; the gold answer decides.",
                                              "adj")]
