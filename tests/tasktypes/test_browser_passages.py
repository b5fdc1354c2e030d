"""The passage assessor in Chromium: keys 3 and 0 grade two passages with auto-advance, u goes back to change one,
? shows the 0-3 definitions; a long passage is clamped ("Show all" opens it) and the grade buttons stay in view."""

from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from annotate.models import Campaign, HumanJudgment, Role
from tests.browser_keys import READY, press
from tests.browser_layout import SIZES, hidden_fields, size_id
from tests.factories import MembershipFactory

SHOTS = Path("/tmp/passage-shots")
PROGRESS = "#annotate-progress .progress-text"


@pytest.fixture
def passage_campaign(db, annotator, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    files = {
        "topics.tsv": "q1\thow long does concrete take to cure\n",
        "runs.txt": "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\n",
        "collection.tsv": "d1\tConcrete reaches most of its strength in about four weeks.\n"
                          "d2\tCement is made by heating limestone and clay in a kiln.\n"
                          "d3\t" + "A very long passage about building sites. " * 400 + "\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    for fmt, name, extra in (("trec-topics", "topics.tsv", ()), ("trec-run", "runs.txt", ("--depth", "3")),
                             ("collection", "collection.tsv", ())):
        call_command("import_data", "--campaign", "pas", "--task-type", "passage_relevance", "--format", fmt, *extra,
                     str(tmp_path / name))
    campaign = Campaign.objects.get(slug="pas")
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    return campaign


def grades(campaign):
    return dict(HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True)
                .values_list("unit__item__external_id", "label"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_assessor_grades_passages_by_keyboard(passage_campaign, login_page, live_server):
    SHOTS.mkdir(exist_ok=True)
    page = login_page("ann")
    page.goto(f"{live_server.url}/campaigns/pas/annotate/")
    expect(page.locator("#question")).to_have_text("how long does concrete take to cure")
    expect(page.locator("#passage")).to_contain_text("four weeks")
    expect(page.locator(PROGRESS)).to_have_text("0 of 3 done")
    for grade, name in ((0, "Not relevant"), (1, "Related"), (2, "Highly relevant"), (3, "Perfectly relevant")):
        expect(page.locator(f"#grade-{grade}")).to_contain_text(name)
    page.screenshot(path=str(SHOTS / "1-passage.png"))

    press(page, "3")
    expect(page.locator("#passage")).to_contain_text("limestone")
    expect(page.locator(PROGRESS)).to_have_text("1 of 3 done")
    press(page, "0")
    expect(page.locator("#passage")).to_contain_text("building sites")
    # the long passage is clamped: the buttons stay on screen
    box = page.locator("#grade-3").bounding_box()
    assert box["y"] + box["height"] <= 900, box
    page.screenshot(path=str(SHOTS / "2-long.png"))
    assert grades(passage_campaign) == {"q1/d1": "3", "q1/d2": "0"}

    press(page, "u")
    expect(page.locator("#earlier-grade")).to_contain_text("0 Not relevant")
    press(page, "1")
    expect(page.locator("#passage")).to_contain_text("building sites")
    assert grades(passage_campaign) == {"q1/d1": "3", "q1/d2": "1"}

    press(page, "?")
    expect(page.locator("#help")).to_be_visible()
    expect(page.locator("#help")).to_contain_text("holds its whole answer")
    page.screenshot(path=str(SHOTS / "3-help.png"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_the_pinned_grades_never_cover_the_query_or_the_passage(passage_campaign, login_page, live_server, size):
    SHOTS.mkdir(exist_ok=True)
    page = login_page("ann")
    page.set_viewport_size(size)
    page.goto(f"{live_server.url}/campaigns/pas/annotate/")
    page.wait_for_selector(READY, state="attached")
    for n in range(3):  # a short passage, another, then the long one (clamped)
        page.screenshot(path=str(SHOTS / f"passage-{size_id(size)}-{n + 1}.png"))
        assert hidden_fields(page, ["#question", "#passage"]) == {}, n
        if n < 2:
            press(page, "1")
            expect(page.locator(PROGRESS)).to_have_text(f"{n + 1} of 3 done")
            page.wait_for_selector(READY, state="attached")
