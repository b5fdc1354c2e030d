"""Shared fixtures: users in each role and a small QA campaign."""

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
