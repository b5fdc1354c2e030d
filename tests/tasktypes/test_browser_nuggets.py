"""An assessor writes the nuggets of 3 topics and marks 5 runs' answers to each, keyboard only, in Chromium; the
researcher freezes the lists on the Nuggets page in between."""

import pytest
from playwright.sync_api import expect

from annotate.models import HumanJudgment
from tasktypes.nugget_evaluation.layout import ANSWER_KIND, NUGGETS_KIND
from tests.browser_keys import press
from tests.tasktypes.nugget_campaign import nugget_campaign_build

PROGRESS = "#annotate-progress .progress-text"
SHOTS = "/tmp/nugget-shots"
MARK_KEYS = ["s", "p", "n"]


@pytest.fixture
def campaign(db, researcher, annotator):
    return nugget_campaign_build(researcher=researcher, annotators=[annotator], topics=3, runs=5)


def wait_for_topic(page, text):
    page.wait_for_function("text => (document.getElementById('topic') || {}).textContent === text", arg=text)


def write_nuggets(page, nuggets):
    """Type NUGGETS (text, vital) into the rows, Enter between them; the focus starts in the first empty row."""
    for n, (text, vital) in enumerate(nuggets):
        if n:
            page.keyboard.press("Enter")
        page.keyboard.type(text)
        if not vital:
            page.keyboard.press("Alt+v")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_assessor_writes_and_marks_three_topics_by_keyboard(campaign, login_page, live_server):
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    expect(page.locator(PROGRESS)).to_have_text("0 of 3 done")  # the answers wait for frozen lists
    written = {
        "What is known of the river bridge?": [("It opened in 1932", True), ("Stone was used", False)],
        "What is known of the town library?": [("It opened in 1932", True), ("It lends maps", False),
                                               ("Stone was used", True)],
    }
    for topic, nuggets in written.items():
        wait_for_topic(page, topic)
        page.wait_for_selector("#annotate-unit[data-ready]", state="attached")
        write_nuggets(page, nuggets)
        page.keyboard.press("Control+Enter")
    # The third starts from the proposed list: keeps its first nugget, rewords the second, adds one.
    wait_for_topic(page, "What is known of the harbour wall?")
    page.wait_for_selector("#annotate-unit[data-ready]", state="attached")
    page.keyboard.press("Alt+1")
    rows = page.locator(".nugget-text-input")
    expect(rows).to_have_count(2)
    rows.nth(1).focus()
    page.keyboard.press("End")
    page.keyboard.type(" and timber")
    page.keyboard.press("Enter")
    page.keyboard.type("It faces the sea")
    page.keyboard.press("Alt+ArrowUp")  # above the reworded one
    page.screenshot(path=f"{SHOTS}/nuggets-writing.png", full_page=True)
    page.keyboard.press("Control+Enter")
    expect(page.locator(PROGRESS)).to_have_text("3 of 3 done")
    creations = {j.unit.topic.external_id: j.value for j in HumanJudgment.objects.filter(
        unit__item__kind=NUGGETS_KIND).select_related("unit__topic")}
    assert [(n["text"], n["importance"]) for n in creations["t1"]["nuggets"]] == [
        ("It opened in 1932", "vital"), ("It lends maps", "okay"), ("Stone was used", "vital")]
    assert [(n["text"], n["origin"], n["from"]) for n in creations["t2"]["nuggets"]] == [
        ("The bridge opened in 1932", "kept", "p1"), ("It faces the sea", "added", None),
        ("It was built of local stone and timber", "edited", "p2")]
    assert creations["t2"]["started_from"] == "import:auto.jsonl"

    # The researcher freezes every topic's list from its assessor.
    research = login_page("res")
    research.goto(f"{live_server.url}/campaigns/{campaign.slug}/nuggets/")
    research.locator("#freeze-all button").click()
    expect(research.locator("#frozen-count")).to_have_text("3 of 3 topics frozen.")
    research.screenshot(path=f"{SHOTS}/nuggets-lists.png", full_page=True)

    # 15 answers, each nugget marked by one key; Enter submits once all are marked.
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/annotate/")
    expect(page.locator(PROGRESS)).to_have_text("3 of 18 done")
    expected = {}
    for n in range(15):
        page.wait_for_selector("fieldset.nugget-mark[aria-current]")
        answer = page.locator("#answer .answer-sentence").first.inner_text().split(" [")[0]  # less its citation
        count = page.locator("fieldset.nugget-mark").count()
        keys = [MARK_KEYS[(n + i) % 3] for i in range(count)]
        press(page, "Enter")  # nothing marked yet: it points at what is left instead of submitting
        expect(page.locator("#draft-status")).to_have_text("Mark every nugget first.")
        for key in keys[:-1]:
            press(page, key)
        if n == 0:
            page.screenshot(path=f"{SHOTS}/nuggets-marking.png", full_page=True)
        press(page, keys[-1])  # the last mark submits
        expect(page.locator(PROGRESS)).to_have_text(f"{4 + n} of 18 done")
        expected[answer] = "".join(keys)
    marks = {j.unit.item.data["sentences"][0]["text"]: j.label for j in HumanJudgment.objects.filter(
        unit__item__kind=ANSWER_KIND).select_related("unit__item")}
    assert marks == expected and len(marks) == 15
