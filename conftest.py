"""Shared fixtures: users in each role, a small QA campaign and a small AIS campaign."""

import pytest

from annotate.models import Role
from tests.factories import PASSWORD, CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory


@pytest.fixture
def password():
    return PASSWORD


@pytest.fixture
def researcher(db):
    return UserFactory(username="res")


@pytest.fixture
def annotator(db):
    return UserFactory(username="ann")


@pytest.fixture
def qa_campaign(db, researcher, annotator):
    """A QA campaign of 3 questions x 2 candidate answers, one unit each, with one researcher and one annotator."""
    campaign = CampaignFactory(slug="qa", task_type="qa_correctness", overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    answers = [("who painted the mona lisa", ["Leonardo da Vinci"], ["Leonardo da Vinci", "Michelangelo"]),
               ("what is the capital of australia", ["Canberra"], ["canberra", "Sydney"]),
               ("how many legs does a spider have", ["eight", "8"], ["8 legs", "six"])]
    for qid, (question, gold, candidates) in enumerate(answers, start=1):
        topic = TopicFactory(campaign=campaign, external_id=str(qid), text=question, data={"gold_answers": gold})
        for n, text in enumerate(candidates):
            item = ItemFactory(campaign=campaign, topic=topic, external_id=f"{qid}-{n}", text=text)
            UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=1)
    return campaign


AIS_UNITS = [
    # (question, answer, passage, title, section, url)
    ("when did the eiffel tower open to the public", "The Eiffel Tower opened to the public in 1889.",
     "The tower was built for the 1889 World's Fair.\nIt opened to the public on 31 March 1889, after two years"
     " of work, and was the tallest structure in the world until 1930.",
     "Eiffel Tower", "History", "https://en.wikipedia.org/wiki/Eiffel_Tower"),
    ("who wrote the novel frankenstein", "She did, the year after.",
     "Frankenstein; or, The Modern Prometheus is an 1818 novel written by the English author Mary Shelley.",
     "Frankenstein", "", "https://en.wikipedia.org/wiki/Frankenstein"),
    ("how tall is mount kilimanjaro", "Kilimanjaro is 5,895 metres tall, the highest mountain in the world.",
     "Mount Kilimanjaro is a dormant volcano in Tanzania. At 5,895 metres above sea level it is the highest"
     " mountain in Africa.", "", "Geography", "http://example.org/kilimanjaro"),
    ("what is the capital of australia", "Canberra is the capital of Australia.",
     "Sydney is the largest city in Australia and the capital of New South Wales.", "Sydney", "", ""),
    ("what is the boiling point of water at sea level", "Water boils at 100 degrees Celsius at sea level.",
     "At a pressure of one atmosphere (sea level), water boils at 100 °C (212 °F).",
     "Boiling point", "", "javascript:alert(1)"),
]


@pytest.fixture
def ais_campaign(db, researcher, annotator):
    """An ais campaign of 5 attributed answers, one unit each (k = 1), in the order of AIS_UNITS.

    Every item names its system in Item.data ("SYSTEM-<n>-secret"), which the rater must never see.
    """
    campaign = CampaignFactory(slug="ais", task_type="ais", overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    for n, (question, answer, passage, title, section, url) in enumerate(AIS_UNITS, start=1):
        topic = TopicFactory(campaign=campaign, external_id=str(n), text=question, data={})
        item = ItemFactory(
            campaign=campaign, topic=topic, external_id=f"ais-{n}", text=answer,
            data={"passage": passage, "title": title, "section": section, "url": url, "system": f"SYSTEM-{n}-secret"},
        )
        UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=1, position=n)
    return campaign


# --- Browser tests: Playwright driving Debian's Chromium (never a downloaded browser) ---

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    import os

    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop; Django must still allow ORM calls from the test thread.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def login_page(browser, live_server):
    """Returns login(username, password) -> a Playwright page logged in on the live server."""
    contexts = []

    def login(username, password=PASSWORD):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_load_state("networkidle")
        return page

    yield login
    for context in contexts:
        context.close()
