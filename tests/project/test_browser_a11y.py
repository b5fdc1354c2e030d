"""WCAG 2.1 A and AA, as axe-core checks them (tests/axe_support.py), on every HTML page of the URL configuration
that some role may open, and on each task type's annotation page in each of its states (issue 54). A violation
fails with its rule, its impact and the first elements it names.

The pages are those of the URL matrix (tests/project/test_permissions_matrix.py: ALL_URLS, enumerated from the
resolver, and EXPECTED, whom each answers 200), each opened in Chromium as every role the matrix lets in (one
browser context per role), with every <details> opened. Not pages: the API (a matrix row that answers 401 to a
visitor signed out), files (a URL named like one, or an answer that is not text/html) and the fragments htmx polls.
Each task type's campaign pages are read on a campaign built from its sample (tests/project/test_query_counts:
campaign_from_sample and its way of filling URL kwargs; an adjudicator added), the pages outside campaigns once.
The manual (/docs/) is read where its site is built: tests/project/test_docs.py.

The annotation page's states (annotation_states): the first unit; editing an earlier verdict (u, ?undo=); a model's
suggestion shown in an assisted arm, on every type whose spec makes suggestions (all but nugget_evaluation, which
has none to show); finished (every unit judged: the All done card). On the first unit every control a key works
also names its keys in aria-keyshortcuts, and the unit is read zoomed in to 200 % and 400 %; before the last units are
judged, one is walked as a screen reader reads it and judged by its keys (tests/annotation_access.py).
"""

import re
from urllib.parse import urlencode

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Error as PlaywrightError

from annotate.models import Assignment, Item, Role
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.arms import suggestion_for
from annotate.task_types.registry import task_type_get, task_type_names, task_types
from annotate.task_types.spec import TaskTypeSpec
from tests.annotation_access import screen_reader_checked, zoom_checked
from tests.axe_support import AXE, OPEN_DETAILS, violations
from tests.factories import MembershipFactory, UserFactory
from tests.project.test_permissions_matrix import ADMIN_OPEN, ALL_URLS, EXPECTED, ROLES
from tests.project.test_query_counts import VARIANTS, _url_kwargs, campaign_from_sample, only_for, sample_of
from tests.sides import sqlite_run_only

MEMBERS = ("annotator", "adjudicator", "researcher")
# Pages whose matrix row answers 200 to nobody because the matrix's world lacks what opens them, which this one has:
# the "Can add campaign" permission (the world's researcher holds it) and a live one-time link (anyone may open it).
OPENED_HERE = {"campaign-new": ("researcher",), "account-welcome": ("anonymous",)}
# Pages that show a person only their own account, or nothing of anyone's: the same for every role, so checked as
# one visitor (the sign-in page signed out; the others as the researcher, whose profile lists a token).
ONE_VISITOR = {"login": "anonymous", "profile": "researcher", "password-change": "researcher",
               "password-change-done": "researcher", "api-docs": "researcher", "admin:login": "researcher"}
# Checked elsewhere: the annotation page in its states (annotation_states), the manual on its built site.
ELSEWHERE = {"annotate", "docs"}
# A URL that names a file (report.json, items.csv, export.zip, a plot's .png) serves no page.
FILE_NAME = re.compile(r"/[^/]+\.[a-z]+$")
# What a page must show before it is read: Swagger UI draws the API's operations from the schema after loading.
DRAWN = {"api-docs": ".opblock"}


def signed_in_pages(browser, live_server, people: dict) -> dict:
    """{role: a Playwright page in a browser context of its own, signed in as PEOPLE[role] (None: signed out)}, axe
    loaded in each of its pages. The session is made as login_page makes one (force_login), without its visit to the
    home page and with one test client for all: a new Client loads the middleware again."""
    client, pages = Client(), {}
    for role, user in people.items():
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(path=str(AXE))
        if user is not None:
            client.cookies.clear()  # a session of its own: signing in on the last one would end it
            client.force_login(user)
            context.add_cookies([{"name": django_settings.SESSION_COOKIE_NAME, "url": live_server.url,
                                  "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value}])
        pages[role] = context.new_page()
    return pages


def _api(name: str) -> bool:
    """Whether URL NAME is the API's, for scripts: its matrix row answers 401 to a visitor signed out, where a page
    sends them to the sign-in page (a task type's own API URLs too: their names start with api-)."""
    row = EXPECTED.get(name)
    return row[0] == 401 if row is not None else name.startswith("api-")


def _files() -> set[str]:
    """The URL names of the files task types serve beside their reports (their specs' extra_downloads)."""
    return {name for spec in task_types() for download in spec.extra_downloads
            for name in (download.url_name, download.api_url_name)}


def _roles_opening(name: str, task_type: str | None, own: dict[str, set[str]]) -> tuple[str, ...]:
    """The world's roles that a GET of URL NAME shows a page: ONE_VISITOR, OPENED_HERE, else the matrix's 200s (the
    admin's own rows for Django's admin); for a URL of a task type's own (OWN: query counts' only_for), every member
    of a campaign of that type, as the matrix's QA campaign cannot say (a refusal is seen and passed over)."""
    if name in ONE_VISITOR:
        return (ONE_VISITOR[name],)
    if name in OPENED_HERE:
        return OPENED_HERE[name]
    types = own.get(name)
    if types is not None:
        return MEMBERS if task_type in types else ()
    row = ADMIN_OPEN.get(name) or EXPECTED.get(name)
    if row is None:  # the admin's other pages: staff only, and nobody here is staff
        return ()
    return tuple(role for role in ("anonymous", *MEMBERS) if row[ROLES.index(role)] == 200)


def matrix_pages(world: dict, *, task_type: str | None) -> list[tuple[str, str, str]]:
    """(role, URL name, path with its query) of every GET of the URL configuration that a role of WORLD may open: the
    pages of its campaign (URLs with a slug) when TASK_TYPE is the campaign's type, else those outside campaigns
    (TASK_TYPE None). With each URL its VARIANTS of query counts that are pages (not htmx fragments)."""
    found, files, own = [], _files() | {"campaign-image"}, only_for()
    for name, kwarg_names in ALL_URLS:
        if ("slug" in kwarg_names) != (task_type is not None) or name in ELSEWHERE | files or _api(name):
            continue
        roles = _roles_opening(name, task_type, own)
        if not roles or ("plot" in kwarg_names and world["plot"] is None):
            continue
        url = reverse(name, kwargs=_url_kwargs(kwarg_names, world))
        if FILE_NAME.search(url):
            continue
        fill = {"run_id": world["run"].id, "judge": world["judge"], "first_judge": world["first_judge"]}
        queries = [""] + ["?" + urlencode({key: value.format(**fill) for key, value in query.items()})
                          for _, query, headers in VARIANTS.get(name, []) if not headers]
        found += [(role, name, url + query) for role in roles for query in queries]
    return found


def pages_checked(pages: dict, live_server, wanted: list[tuple[str, str, str]]) -> tuple[list[str], list[str]]:
    """(violations, the pages checked as "role name") of WANTED, each opened in its role's page of PAGES with its
    <details> open. A URL the matrix says the role opens must answer 200; a file (sent as an attachment, or not
    text/html) is no page and is passed over, as is the refusal of a task type's own URL to a role."""
    found, checked, own = [], [], only_for()
    for role, name, path in wanted:
        page = pages[role]
        try:
            response = page.goto(f"{live_server.url}{path}")
        except PlaywrightError as error:  # an attachment: Chromium downloads it and shows no page
            assert "Download is starting" in error.message, (role, path, error.message)
            continue
        assert response.status == 200 or name in own, (role, path, response.status)
        if response.status != 200 or not response.headers.get("content-type", "").startswith("text/html"):
            continue
        if name in DRAWN:
            page.wait_for_selector(DRAWN[name])
        page.evaluate(OPEN_DETAILS)
        found += violations(page)
        checked.append(f"{role} {name}")
    return found, checked


def _suggests(task_type: str) -> bool:
    """Whether TASK_TYPE's spec makes suggestions for an assisted arm (TaskTypeSpec.suggestions makes none)."""
    return type(task_type_get(task_type)).suggestions is not TaskTypeSpec.suggestions


def annotation_states(page, world: dict, live_server) -> tuple[list[str], list[str]]:
    """(violations, the states checked) of WORLD's annotation page, as its annotator on PAGE: the first unit (the
    world's lease), editing (u: their last verdict), a suggestion shown (the lease put in the assisted arm of the
    world's first judge, where the type makes suggestions), finished (every unit judged, through the services)."""
    campaign, annotator = world["campaign"], world["users"]["annotator"]
    url = f"{live_server.url}{reverse('annotate', kwargs={'slug': campaign.slug})}"
    found, states = [], []

    def check(state, query="", shown="#annotate-unit[data-ready]"):
        page.goto(url + query)
        page.wait_for_selector(shown, state="attached")
        page.evaluate(OPEN_DETAILS)
        found.extend(violations(page))
        states.append(state)

    check("first unit")
    # Every control a key works says its keys to assistive technology.
    said = page.evaluate("""() => Array.from(document.querySelectorAll(
        '#annotate-unit button[data-key], #annotate-unit input[data-key], #annotate-unit a[data-key]')).map(
        el => [el.getAttribute('data-key').trim(), el.getAttribute('aria-keyshortcuts')])""")
    assert said and all(keys == announced for keys, announced in said), said
    zoom_checked(page, url, campaign.task_type)
    states.append("zoomed in")
    check("editing", "?undo=", "#annotate-unit[data-ready] .editing-banner")
    if _suggests(campaign.task_type):
        arm = f"assisted:{world['first_judge']}"
        campaign.options = {**campaign.options, "arms": ["blind", arm], "arm_assignment": "researcher"}
        campaign.save(update_fields=["options"])
        campaign.memberships.filter(user=annotator, role=Role.ANNOTATOR).update(arm=arm)
        # The world's lease was made before the campaign had arms: it is given the arm and its suggestion as a lease
        # made now would be (annotate.services.arms.lease_arm).
        lease = unit_lease_next(campaign=campaign, annotator=annotator)
        suggestion = suggestion_for(unit=lease.unit, arm=arm)
        assert suggestion is not None, campaign.task_type
        Assignment.objects.filter(pk=lease.pk).update(arm=arm, suggestion=suggestion)
        check("suggestion shown", shown="#annotate-unit[data-ready] #assist-note")
    page.goto(url)
    page.wait_for_selector("#annotate-unit[data-ready]", state="attached")
    screen_reader_checked(page, campaign.task_type)
    states.append("heard")
    sample = sample_of(campaign.task_type)
    n = 0
    while (lease := unit_lease_next(campaign=campaign, annotator=annotator)) is not None:
        candidates = list(Item.objects.filter(topic_id=lease.unit.topic_id).order_by("pk").values_list("pk", flat=True))
        judgment_submit(assignment=lease, annotator=annotator, value=sample.value(n, candidates)[0])
        n += 1
    check("finished", shown="#all-done")
    return found, states


def _world(task_type: str, media_root) -> tuple[dict, dict]:
    """(a campaign_from_sample world of TASK_TYPE, two topics: one judged, one open to the annotator; its people by
    role, with an adjudicator added)."""
    world = campaign_from_sample(task_type, topics=2, tag="a11y", media_root=media_root)
    adjudicator = UserFactory(username="adj-a11y")
    MembershipFactory(campaign=world["campaign"], user=adjudicator, role=Role.ADJUDICATOR)
    return world, {**world["users"], "adjudicator": adjudicator}


@pytest.mark.browser
@sqlite_run_only("what axe reads is the pages' markup and styles, the same on either database")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("task_type", task_type_names())
def test_every_task_types_pages_meet_wcag_21_aa_as_axe_checks_them(task_type, browser, live_server, settings,
                                                                   tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    world, people = _world(task_type, settings.MEDIA_ROOT)
    pages = signed_in_pages(browser, live_server, people)
    try:
        found, states = annotation_states(pages["annotator"], world, live_server)
        more, checked = pages_checked(pages, live_server, matrix_pages(world, task_type=task_type))
    finally:
        for page in pages.values():
            page.context.close()
    assert states == ["first unit", "zoomed in", "editing", *["suggestion shown"] * _suggests(task_type), "heard",
                      "finished"]
    # The campaign's page for each of its roles, the adjudication pages, the researcher's pages among them.
    assert {"annotator campaign-detail", "adjudicator campaign-detail", "adjudicator adjudicate-unit",
            "researcher agreement-report", "researcher judge-panel", "researcher campaign-options"} <= set(checked)
    assert found + more == []


@pytest.mark.browser
@sqlite_run_only("what axe reads is the pages' markup and styles, the same on either database")
@pytest.mark.django_db(transaction=True)
def test_the_pages_outside_campaigns_meet_wcag_21_aa(browser, live_server, settings, tmp_path):
    """The sign-in page and a one-time link's (signed out), each role's home page, the account pages, the API's docs
    for people, the new-campaign form and Django admin's sign-in page (the matrix: 200 to a signed-in person who is
    not staff, told that they may not enter)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    world, people = _world("qa_correctness", settings.MEDIA_ROOT)
    pages = signed_in_pages(browser, live_server, {"anonymous": None, **people})
    try:
        found, checked = pages_checked(pages, live_server, matrix_pages(world, task_type=None))
    finally:
        for page in pages.values():
            page.context.close()
    assert {"anonymous login", "anonymous account-welcome", "researcher campaign-new", "annotator home",
            "adjudicator home", "researcher home", "researcher profile", "researcher password-change",
            "researcher api-docs", "researcher admin:login"} <= set(checked), checked
    assert found == []
