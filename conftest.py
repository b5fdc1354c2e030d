"""Shared fixtures: users in each role, a small QA campaign, a small AIS campaign and a small image campaign."""

import shutil

import pytest

from annotate.models import Role, SystemOutput
from tests.factories import (
    PASSWORD,
    CampaignFactory,
    ItemFactory,
    MembershipFactory,
    TopicFactory,
    UnitFactory,
    UserFactory,
)

# The files that take longest, longest first (SQLite run, `--durations=0`, 2026-11-27): they run first, so that with
# several processes (scripts/test) none is left running alone at the end. Order is all this changes.
SLOW_FIRST = (
    "tests/project/test_browser_injection.py",
    "tests/project/test_start_script.py",
    "tests/project/test_query_counts.py",
    "tests/project/test_browser_newcomer.py",
    "tests/project/test_worker_kill.py",
    "tests/judges/test_llm_hf.py",
    "tests/interchange/test_ids_property.py",
    "tests/tasktypes/test_load_demo.py",
    "tests/project/test_upgrade.py",
    "tests/project/test_postgres_restart.py",
    "tests/agreement/test_stored_reports.py",
    "tests/project/test_browser_long_content.py",
    "tests/interchange/test_campaign_archive.py",
    "tests/annotate/test_browser_arms.py",
    "tests/project/test_permissions_matrix.py",
    "tests/interchange/test_import_jobs_browser.py",
)


def pytest_collection_modifyitems(session, config, items):
    """The files of SLOW_FIRST first, in its order; the rest after them, as collected. Every test that uses the
    database may use all of them (_every_database)."""
    rank = {path: n for n, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
    for item in items:
        _every_database(item)


DATABASE_FIXTURES = {"db", "transactional_db", "live_server"}


def _every_database(item) -> None:
    """ITEM, when it uses the database, may use every database of the settings: on SQLite API tokens are in one of
    their own (accounts.routers), and any test may make or read a token. Its django_db mark is kept, with
    databases="__all__" added (pytest-django then makes each test database and lets the test reach it)."""
    marker = item.get_closest_marker("django_db")
    if marker is None and not DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return
    args, kwargs = (marker.args, dict(marker.kwargs)) if marker is not None else ((), {})
    if kwargs.get("databases") is None and len(args) < 3:
        item.add_marker(pytest.mark.django_db(*args, **{**kwargs, "databases": "__all__"}), append=False)


def pytest_sessionstart(session):
    """Start from an empty media folder (settings.MEDIA_ROOT of the test settings: images and runs of earlier runs)."""
    from django.conf import settings

    shutil.rmtree(settings.MEDIA_ROOT, ignore_errors=True)


@pytest.fixture(autouse=True)
def _login_failures_forgotten():
    """Each test starts with no counted sign-in failures (config.login_throttle keeps them in the cache)."""
    from django.core.cache import cache

    cache.clear()


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
    return qa_campaign_build(researcher=researcher, annotator=annotator)


def qa_campaign_build(*, researcher, annotator):
    """The qa_campaign fixture's campaign, for fixtures of a wider scope (tests/project/test_permissions_matrix.py)."""
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


IMAGE_TOPICS = {
    "eiffel-construction": {
        "text": "Eiffel Tower: Construction",
        "data": {
            "page_title": "Eiffel Tower",
            "page_context": "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
                            "It is named after the engineer Gustave Eiffel, whose company designed and built it.",
            "section_title": "Construction",
            "section_context": "Work on the foundations started on 28 January 1887. The iron parts were made at "
                               "Eiffel's factory in Levallois-Perret and riveted together on site; the tower was "
                               "finished in March 1889, in time for the World's Fair.",
        },
    },
    "kilimanjaro-routes": {
        "text": "Mount Kilimanjaro: Climbing routes",
        "data": {
            "page_title": "Mount Kilimanjaro",
            "page_context": " ".join(
                ["Mount Kilimanjaro is a dormant volcano in Tanzania, the highest mountain in Africa and the highest "
                 "single free-standing mountain above sea level in the world."] * 6),
            "section_title": "Climbing routes",
            "section_context": "\n".join(
                [f"Route {n}: the path climbs through cultivated land, rain forest, heath, moorland and alpine desert "
                 f"before the summit zone; most climbers take five to nine days and rest at camps on the way, "
                 f"because the thin air at altitude makes the last night's climb slow." for n in range(1, 13)]),
        },
    },
}
# (topic, item external id, image id, (width, height), format); the last one's file is not imported yet.
IMAGE_UNITS = [
    ("eiffel-construction", "img-1", "Q243-landscape", (1600, 900), "JPEG"),
    ("eiffel-construction", "img-2", "Q243-tall", (600, 1400), "PNG"),
    ("kilimanjaro-routes", "img-3", "Q7296-square", (900, 900), "WEBP"),
    ("kilimanjaro-routes", "img-4", "Q7296-small", (400, 300), "GIF"),
    ("kilimanjaro-routes", "img-5", "Q7296-missing", (800, 600), None),
]
IMAGE_RUN = "RUN-clip-secret-{n}"  # every item is in a TREC run by this name, which the assessor must never see


def image_write(root, image_id, size, image_format):
    """Draw a picture of SIZE under ROOT in IMAGE_FORMAT and a JPEG thumbnail (max 512 px side) beside it.

    Returns the Item.data an importer writes for it (paths relative to ROOT, the MEDIA_ROOT).
    """
    from PIL import Image, ImageDraw

    width, height = size
    mode = "RGBA" if image_format == "PNG" else "RGB"
    image = Image.new(mode, size, (40, 90, 160, 255) if mode == "RGBA" else (40, 90, 160))
    draw = ImageDraw.Draw(image)
    for y in range(0, height, 4):  # a sky-to-ground gradient, so a screenshot shows the scaling
        shade = int(200 * y / height)
        draw.rectangle([0, y, width, y + 3], fill=(40 + shade // 3, 90 + shade // 2, 160 + shade // 4, 255))
    draw.polygon([(width * .2, height * .9), (width * .5, height * .15), (width * .8, height * .9)],
                 fill=(90, 70, 50, 255))
    draw.ellipse([width * .05, height * .05, width * .2, height * .05 + width * .15], fill=(250, 210, 60, 255))
    if mode == "RGBA":
        draw.rectangle([0, 0, width // 6, height], fill=(0, 0, 0, 0))  # a transparent band
    draw.text((10, 10), f"{image_id} {width}x{height}", fill=(255, 255, 255, 255))
    extension = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp", "GIF": "gif"}[image_format]
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "thumbnails").mkdir(parents=True, exist_ok=True)
    original = f"images/{image_id}.{extension}"
    image.save(root / original, image_format)
    thumbnail = image.convert("RGB")
    thumbnail.thumbnail((512, 512))
    thumbnail.save(root / f"thumbnails/{image_id}.jpg", "JPEG", quality=80)
    return {"image_id": image_id, "image": original, "thumbnail": f"thumbnails/{image_id}.jpg",
            "width": width, "height": height, "format": image_format}


@pytest.fixture
def image_campaign(db, researcher, annotator, settings, tmp_path):
    """An image_relevance campaign of 5 images for 2 sections, one unit each (k = 1), in the order of IMAGE_UNITS.

    The files are drawn with Pillow into a temporary MEDIA_ROOT (settings.MEDIA_ROOT, which the live
    server reads too: it runs in this process). The fifth image is named but its file was never imported.
    """
    settings.MEDIA_ROOT = tmp_path / "media"
    campaign = CampaignFactory(slug="img", name="Image suggestion", task_type="image_relevance", overlap=1)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    MembershipFactory(campaign=campaign, user=annotator, role=Role.ANNOTATOR)
    topics = {
        external_id: TopicFactory(campaign=campaign, external_id=external_id, text=spec["text"], data=spec["data"])
        for external_id, spec in IMAGE_TOPICS.items()
    }
    for n, (topic_id, external_id, image_id, size, image_format) in enumerate(IMAGE_UNITS, start=1):
        if image_format:
            data = image_write(settings.MEDIA_ROOT, image_id, size, image_format)
        else:
            data = {"image_id": image_id, "width": size[0], "height": size[1], "format": "JPEG"}
        topic = topics[topic_id]
        item = ItemFactory(campaign=campaign, topic=topic, external_id=external_id, kind="image", text="", data=data)
        SystemOutput.objects.create(campaign=campaign, system=IMAGE_RUN.format(n=n), topic=topic, item=item, rank=n,
                                    score=0.5)
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
    """Returns login(username) -> a Playwright page signed in on the live server, on the home page.

    The session is made as Django's test client makes one (force_login: a real session row, its cookie given to the
    browser), not through the sign-in form: that form is driven by the tests of signing in
    (tests/project/test_browser_signed_out.py, tests/project/test_browser_newcomer.py), and typing it again before every
    page cost
    each browser test about a second."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    contexts = []

    def login(username):
        client = Client()
        client.force_login(get_user_model().objects.get(username=username))
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_server.url,
                              "value": client.cookies[settings.SESSION_COOKIE_NAME].value}])
        page = context.new_page()
        page.goto(f"{live_server.url}/")
        return page

    yield login
    for context in contexts:
        context.close()
