"""Every URL of the URL configuration, enumerated from the resolver, against six kinds of visitor.

Campaign "qa" has a researcher, an annotator, an adjudicator and a colleague annotator; campaign "theirs" has another
researcher and another annotator. A URL added without a row in EXPECTED fails the enumeration test, so no page or
endpoint escapes the matrix: GET for every role, and every unsafe method (POST, PUT, PATCH, DELETE) for every role
but the ones the URL is for (UNSAFE_FOR), which must be refused without a change to the database.

The world is built once for the module (matrix_world: inside a transaction rolled back at the module's end); each
test runs in a savepoint of it (pytest-django's db), so what one test writes never reaches the next.
"""

import json
from contextlib import ExitStack

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.models import ApiToken, Invitation
from accounts.services import token_create
from annotate.models import Assignment, Campaign, CampaignGuidelines, HumanJudgment, Item, Membership, Role
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.task_types.registry import task_type_get, task_types
from conftest import image_write, qa_campaign_build
from interchange.importers.service import ImportSummary
from interchange.models import ImportJob
from judges.models import Judge, JudgeRun, ModelJudgment
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

ROLES = ("anonymous", "annotator", "other_annotator", "adjudicator", "researcher", "other_researcher")
JUDGE_MARK = "judge-name-no-annotator-may-see"
RAW_MARK = "raw-model-output-no-annotator-may-see"
COLLEAGUE = "colleague-whose-verdicts-are-hidden"

LOGIN = "login"  # 302 to the login page
# GET status per role, in the order of ROLES: anonymous, annotator, other_annotator, adjudicator, researcher,
# other_researcher. 404 (not 403) for campaigns one is not part of: no existence leak. A
# member without the page's role gets 403 with a page (or `detail`) saying what it is for (annotate.access).
PAGE_RESEARCHER = (LOGIN, 403, 404, 403, 200, 404)
API_RESEARCHER = (401, 403, 404, 403, 200, 404)
API_RESEARCHER_BY_ID = (401, 404, 404, 404, 200, 404)
API_RESEARCHER_POST_ONLY = (401, 405, 405, 405, 405, 405)  # GET is refused before any lookup, for everyone alike
# The adjudication queue: its adjudicators and the researchers (who may settle disagreements too).
PAGE_ADJUDICATOR = (LOGIN, 403, 404, 200, 200, 404)
API_ADJUDICATOR = (401, 403, 404, 200, 200, 404)
# The report's downloads and API while no report is stored (the matrix builds none): 202 to the researcher, with the
# status URL to poll (tests/agreement/test_stored_reports.py opens them built).
PAGE_RESEARCHER_BUILDING = (LOGIN, 403, 404, 403, 202, 404)
API_RESEARCHER_BUILDING = (401, 403, 404, 403, 202, 404)
EXPECTED = {
    "login": (200, 200, 200, 200, 200, 200),
    "logout": (LOGIN, 405, 405, 405, 405, 405),
    "api-token": (405, 405, 405, 405, 405, 405),  # POST (sign in) and DELETE (revoke the token sent), open to all
    "profile": (LOGIN, 200, 200, 200, 200, 200),  # one's own tokens only (tests/accounts/test_accounts.py)
    "password-change": (LOGIN, 200, 200, 200, 200, 200),
    "password-change-done": (LOGIN, 200, 200, 200, 200, 200),
    # A one-time link to choose a first password, open without signing in; the matrix's key is no link's: 410 Gone
    # for everyone (tests/annotate/test_campaign_people.py opens real ones).
    "account-welcome": (410, 410, 410, 410, 410, 410),
    "api-tokens": (401, 200, 200, 200, 200, 200),
    "api-preferences": (401, 200, 200, 200, 200, 200),  # one's own choices only
    "api-token-detail": (401, 404, 404, 404, 200, 404),  # the researcher's token: a 404 for everyone else
    "api-token-rotate": (401, 405, 405, 405, 405, 405),
    # The manual (config.docs), public: the matrix's world serves a built site of one page (tests/project/test_docs.py
    # builds the real one).
    "docs": (200, 200, 200, 200, 200, 200),
    "api-schema": (401, 200, 200, 200, 200, 200),
    "api-docs": (LOGIN, 200, 200, 200, 200, 200),  # people read it: an anonymous visitor goes to the sign-in page
    "home": (LOGIN, 200, 200, 200, 200, 200),
    "campaign-detail": (LOGIN, 200, 404, 200, 200, 404),
    "campaign-options": PAGE_RESEARCHER,
    # Making campaigns takes the "Can add campaign" permission, which none of these roles holds (staff grant it;
    # tests/annotate/test_campaign_create.py: 200 with it).
    "campaign-new": (LOGIN, 403, 403, 403, 403, 403),
    "campaign-settings": PAGE_RESEARCHER,
    "campaign-people": PAGE_RESEARCHER,
    "campaign-import": PAGE_RESEARCHER,
    "campaign-export": PAGE_RESEARCHER,
    "annotate": (LOGIN, 200, 404, 403, 403, 404),
    "annotate-submit": (LOGIN, 405, 405, 405, 405, 405),
    "annotate-draft": (LOGIN, 405, 405, 405, 405, 405),
    "campaign-image": (LOGIN, 200, 404, 200, 200, 404),  # the campaign's own people, whatever their role
    # Adjudicators and researchers; an annotator is told (403) that it is the adjudicators'
    # (tests/test_adjudication_api)
    "adjudicate": PAGE_ADJUDICATOR,
    "adjudicate-unit": PAGE_ADJUDICATOR,
    # The Items page, where items' categories are set: the adjudicators' and the researchers' (never annotators').
    "campaign-items": PAGE_ADJUDICATOR,
    "item-category": (LOGIN, 405, 405, 405, 405, 405),  # POST only
    "judge-panel": PAGE_RESEARCHER,
    "judge-development": PAGE_RESEARCHER,  # GET the page; POST makes the split (tests/judges/test_development_split.py)
    "judge-probes": PAGE_RESEARCHER,  # GET the page; POST makes probes or runs a judge (tests/judges/test_probes.py)
    "judge-mark-final": (LOGIN, 405, 405, 405, 405, 405),  # POST only
    "judge-run-cancel": (LOGIN, 405, 405, 405, 405, 405),
    "judge-run-resume": (LOGIN, 405, 405, 405, 405, 405),
    "judge-run-retry-failed": (LOGIN, 405, 405, 405, 405, 405),
    "judge-new-items": (LOGIN, 405, 405, 405, 405, 405),
    "import-job": PAGE_RESEARCHER,
    "agreement-report": PAGE_RESEARCHER,
    "agreement-report-json": PAGE_RESEARCHER_BUILDING,
    "agreement-report-status": PAGE_RESEARCHER,  # what the report page polls while its report is building or updating
    "agreement-systems-csv": PAGE_RESEARCHER_BUILDING,
    "agreement-judges-csv": PAGE_RESEARCHER_BUILDING,
    "agreement-topics-csv": PAGE_RESEARCHER_BUILDING,
    "agreement-ppi-csv": PAGE_RESEARCHER_BUILDING,
    "agreement-items-csv": PAGE_RESEARCHER,  # read from the database as it is, not from the stored report
    "agreement-labels-csv": PAGE_RESEARCHER,  # likewise
    "agreement-methods-txt": PAGE_RESEARCHER_BUILDING,
    "agreement-judge-compare": PAGE_RESEARCHER,  # read from the database as it is
    # A plot exists where the report has data for it (tests/agreement/test_agreement_plots.py checks the researcher's
    # 200 on
    # campaigns with systems, and 404 for a plot the report does not have); before the report is built, 202.
    "agreement-plot": PAGE_RESEARCHER_BUILDING,
    "api-campaigns": (401, 200, 200, 200, 200, 200),
    "api-campaign": (401, 200, 404, 200, 200, 404),
    "api-campaign-items": API_RESEARCHER,
    "api-campaign-item": API_RESEARCHER_POST_ONLY,  # PATCH only (an item's category)
    "api-campaign-options": API_RESEARCHER,
    "api-campaign-guidelines": (401, 200, 404, 200, 200, 404),  # the guidelines are the annotators' too
    "api-campaign-members": API_RESEARCHER,
    "api-campaign-member": API_RESEARCHER_POST_ONLY,  # DELETE only
    "api-campaign-member-invitation": API_RESEARCHER_POST_ONLY,
    "api-campaign-adjudication": API_ADJUDICATOR,
    "api-campaign-adjudication-unit": API_ADJUDICATOR,
    "api-campaign-import": API_RESEARCHER_POST_ONLY,
    "api-campaign-imports": API_RESEARCHER,
    "api-campaign-import-job": API_RESEARCHER,
    # The matrix's campaign is a QA campaign: its researcher is told (400) that only answer_ranking has rankings (an
    # endpoint of that type's own URL module).
    "api-campaign-rankings": (401, 403, 404, 403, 400, 404),
    # nugget_evaluation's Nuggets page, its downloads and API: researchers only, and 404 on a campaign of another type.
    "nugget-lists": (LOGIN, 403, 404, 403, 404, 404),
    "nugget-export": (LOGIN, 403, 404, 403, 404, 404),
    "api-nugget-lists": (401, 403, 404, 403, 404, 404),
    "api-nugget-freeze": (401, 403, 404, 403, 404, 404),
    "api-nugget-export": (401, 403, 404, 403, 404, 404),
    "api-nugget-steps": API_RESEARCHER_POST_ONLY,
    "nugget-match": (LOGIN, 403, 404, 404, 404, 404),  # its adjudicators and researchers; 404: another type
    "api-campaign-export": API_RESEARCHER,
    # Creates a campaign: staff only, and no role here is staff.
    "api-campaign-archives": (401, 403, 403, 403, 403, 403),
    "api-campaign-judges": API_RESEARCHER,
    # The model endpoints a researcher may name; no keys (test_judge_endpoints).
    "api-campaign-endpoints": API_RESEARCHER,
    "api-campaign-judge-runs": API_RESEARCHER,
    # By a run's id, not a campaign's slug: a run of a campaign one does not research is a 404 for everyone.
    "api-judge-run": API_RESEARCHER_BY_ID,
    "api-judge-run-cancel": API_RESEARCHER_POST_ONLY,
    "api-judge-run-resume": API_RESEARCHER_POST_ONLY,
    "api-judge-run-failures": API_RESEARCHER_BY_ID,
    "api-judge-run-retry-failed": API_RESEARCHER_POST_ONLY,
    "api-judge-new-items": API_RESEARCHER_POST_ONLY,
    "api-judge-final": API_RESEARCHER_POST_ONLY,
    "api-development-split": API_RESEARCHER,  # GET the split and the judges on it; POST makes it
    "api-probes": API_RESEARCHER,  # GET the probes and flip rates; POST makes probes; DELETE deletes a kind
    "api-judge-probes": API_RESEARCHER_POST_ONLY,
    "api-agreement-report": API_RESEARCHER_BUILDING,
    "api-agreement-methods": API_RESEARCHER_BUILDING,
    "api-agreement-compare": API_RESEARCHER,  # without ?a=&b=: the judges that may be compared
    "api-agreement-status": API_RESEARCHER,  # what a script polls after a 202 from the report or its qrels
}
MATRIX_TYPE = "qa_correctness"  # the task type of the matrix's campaigns


def _extra_download_rows() -> dict[str, tuple]:
    """The rows of the files task types serve beside their reports (a spec's extra_downloads: graded's qrels and
    leaderboards), read from the registry: on the matrix's QA campaign, whose type serves none, even its researcher
    gets 404 (tests/project/test_query_counts.py opens each on a campaign of a type that serves it, as researcher;
    tests/tasktypes/test_passage_relevance.py the qrels' 200)."""
    assert not task_type_get(MATRIX_TYPE).extra_downloads, "the matrix's rows below expect a 404 for its campaign"
    rows = {}
    for download in (download for spec in task_types() for download in spec.extra_downloads):
        if download.url_name:
            rows[download.url_name] = (LOGIN, 403, 404, 403, 404, 404)
        rows[download.api_url_name] = (401, 403, 404, 403, 404, 404)
    return rows


EXPECTED |= _extra_download_rows()
# Django's admin: staff only, and none of our roles is staff; anonymous visitors meet our own login first.
ADMIN_EXPECTED = (LOGIN,) + ("admin_login",) * 5
ADMIN_OPEN = {"admin:login": (LOGIN,) + (200,) * 5, "admin:logout": (LOGIN,) + (302,) * 5}


def _url_patterns(resolver=None, namespace=""):
    """(full name, kwarg names) of every named URL pattern, walking included URL configurations."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            for name, kwargs in _url_patterns(entry, inner):
                yield name, kwargs | _kwarg_names(entry)
        elif isinstance(entry, URLPattern) and entry.name:
            yield f"{namespace}{entry.name}", _kwarg_names(entry)


def _kwarg_names(entry) -> set[str]:
    pattern = entry.pattern
    return set(getattr(pattern, "converters", {})) | set(pattern.regex.groupindex)


ALL_URLS = sorted({name: kwargs for name, kwargs in _url_patterns()}.items())


def _world_build(media_root) -> dict:
    researcher, annotator = UserFactory(username="res"), UserFactory(username="ann")
    qa_campaign = qa_campaign_build(researcher=researcher, annotator=annotator)
    # An assistance experiment whose assisted arm has no judge: arms can be set (api-campaign-member's PATCH) and no
    # suggestion reaches an annotator's page.
    qa_campaign.options = {**(qa_campaign.options or {}), "arms": ["blind", "assisted:nobody"]}
    qa_campaign.save(update_fields=["options"])
    colleague = UserFactory(username=COLLEAGUE)
    MembershipFactory(campaign=qa_campaign, user=colleague, role=Role.ANNOTATOR)
    adjudicator = UserFactory(username="adj")
    MembershipFactory(campaign=qa_campaign, user=adjudicator, role=Role.ADJUDICATOR)
    theirs = CampaignFactory(slug="theirs", task_type=qa_campaign.task_type)
    other_researcher, other_annotator = UserFactory(username="res2"), UserFactory(username="ann2")
    MembershipFactory(campaign=theirs, user=other_researcher, role=Role.RESEARCHER)
    MembershipFactory(campaign=theirs, user=other_annotator, role=Role.ANNOTATOR)
    topic = TopicFactory(campaign=theirs, external_id="t1", data={"gold_answers": ["x"]})
    UnitFactory(campaign=theirs, topic=topic, item=ItemFactory(campaign=theirs, topic=topic, external_id="t1-0"))

    judge = Judge.objects.create(campaign=qa_campaign, name=JUDGE_MARK, family="em", config={"k": 1})
    run = JudgeRun.objects.create(judge=judge, status="running", total=6)
    for item in Item.objects.filter(campaign=qa_campaign):
        ModelJudgment.objects.create(judge=judge, item=item, run=run, score=1.0, label="yes", raw=RAW_MARK)
    # An image item with its file, for the image URL (added after the judge's verdicts: no model judges it).
    image_topic = TopicFactory(campaign=qa_campaign, external_id="img-topic", data={})
    image_item = ItemFactory(campaign=qa_campaign, topic=image_topic, external_id="img-1", kind="image", text="",
                             data=image_write(media_root, "img-1", (40, 30), "PNG"))
    job = ImportJob.objects.create(
        campaign=qa_campaign, created_by=researcher, format="judge-scores", parameters={"judge": JUDGE_MARK},
        files=[{"name": "scores.tsv", "size": 40}], bytes_total=40, status="done", rows_read=2,
        summary=ImportSummary(campaign="qa", format="judge-scores", files=["scores.tsv"],
                              task_type=qa_campaign.task_type, items_by_judge={JUDGE_MARK: 6}).as_dict())
    their_judge = Judge.objects.create(campaign=theirs, name="theirs-em", family="em", config={"k": 2})
    their_run = JudgeRun.objects.create(judge=their_judge, status="running", total=1)

    # The colleague judges two units; the annotator must never see those verdicts or the colleague's name.
    for _ in range(2):
        judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=colleague), annotator=colleague,
                        value={"correct": False})
    users = {"annotator": annotator, "other_annotator": other_annotator, "adjudicator": adjudicator,
             "researcher": researcher, "other_researcher": other_researcher}
    # A unit the colleague judged: the adjudication pages' (they show its verdicts to adjudicators and researchers).
    judged = HumanJudgment.objects.filter(annotator=colleague).values_list("unit_id", flat=True).first()
    token, _ = token_create(user=researcher, name="the researcher's own")
    return {"campaign": qa_campaign, "run": run, "their_run": their_run, "users": users, "image_item": image_item,
            "judge": judge, "job": job, "unit_id": judged, "token": token}


@pytest.fixture(scope="module")
def matrix_world(django_db_setup, django_db_blocker, tmp_path_factory):
    """The campaigns, people and objects of the matrix, built once for the module inside a transaction that is rolled
    back at its end (nothing reaches the next module); MEDIA_ROOT points at the module's own folder meanwhile."""
    media_root = tmp_path_factory.mktemp("matrix-media")
    docs_root = tmp_path_factory.mktemp("matrix-docs")
    (docs_root / "index.html").write_text("<!doctype html><title>Concord</title><h1>Concord</h1>")
    with ExitStack() as stack:
        stack.enter_context(override_settings(MEDIA_ROOT=str(media_root), DOCS_ROOT=docs_root))
        with django_db_blocker.unblock():
            outer = transaction.atomic()
            outer.__enter__()

            def rollback():
                with django_db_blocker.unblock():
                    transaction.set_rollback(True)
                    outer.__exit__(None, None, None)

            stack.callback(rollback)
            world = _world_build(media_root)
        yield world


@pytest.fixture
def world(matrix_world, db):
    """The module's world, each test in a savepoint of its transaction (pytest-django's db): its writes are undone."""
    return matrix_world


@pytest.fixture(scope="module")
def module_clients():
    """The module's test clients, one plain and one that checks CSRF tokens. A new Client loads the middleware again
    (whitenoise lists the static files each time, most of a test's cost here), so the tests share these."""
    return {"plain": Client(), "csrf": Client(enforce_csrf_checks=True)}


@pytest.fixture
def client(module_clients):
    """The module's plain client, signed out (no cookies): pytest-django's client, without its middleware reload."""
    module_clients["plain"].cookies.clear()
    return module_clients["plain"]


def _kwargs_for(names, world):
    values = {"slug": world["campaign"].slug, "run_id": world["run"].id, "item_id": world["image_item"].id,
              "token_id": world["token"].id, "variant": "full", "source": "consensus", "plot": "systems",
              "fmt": "svg", "username": "ann", "key": "no-such-link", "judge_id": world["judge"].id,
              "job_id": world["job"].id, "unit_id": world["unit_id"], "path": ""}
    return {name: values[name] for name in names}


def _client_as(client, world, role):
    if role != "anonymous":
        client.force_login(world["users"][role])
    return client


def _check(response, expected, url):
    if expected == LOGIN:
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), url
    elif expected == "admin_login":
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url
    else:
        assert response.status_code == expected, (url, response.status_code)


def _db_state():
    return (HumanJudgment.objects.count(), Assignment.objects.count(), ModelJudgment.objects.count(),
            JudgeRun.objects.count(), sorted(JudgeRun.objects.values_list("status", flat=True)),
            Item.objects.count(), Judge.objects.count(), ImportJob.objects.count(),
            sorted(Membership.objects.values_list("campaign__slug", "user__username", "role", "arm")),
            sorted(Campaign.objects.values_list("slug", "name", "overlap", "options")),
            CampaignGuidelines.objects.count(), Invitation.objects.count(),
            sorted(ApiToken.objects.values_list("id", "digest", "revoked_at")),
            sorted(get_user_model().objects.values_list("username", "password", "is_active", "is_staff")))


def test_every_url_has_a_row_in_the_matrix():
    ours = {name for name, _ in ALL_URLS if not name.startswith("admin:")}
    assert ours == set(EXPECTED), f"URLs without a row: {sorted(ours - set(EXPECTED))}"
    assert len([name for name, _ in ALL_URLS if name.startswith("admin:")]) > 10


@pytest.mark.parametrize("name,kwarg_names", ALL_URLS, ids=[name for name, _ in ALL_URLS])
@pytest.mark.parametrize("role", ROLES)
def test_get_every_url(client, world, name, kwarg_names, role):
    if name.startswith("admin:"):
        expected = ADMIN_OPEN.get(name, ADMIN_EXPECTED)[ROLES.index(role)]
        kwargs = {key: {"app_label": "auth"}.get(key, "1") for key in kwarg_names}
    else:
        expected = EXPECTED[name][ROLES.index(role)]
        kwargs = _kwargs_for(kwarg_names, world)
    url = reverse(name, kwargs=kwargs)
    response = _client_as(client, world, role).get(url)
    _check(response, expected, url)
    if role in ("annotator", "other_annotator") and response.status_code == 200:
        body = b"".join(response.streaming_content) if response.streaming else response.content  # files stream
        assert all(mark.encode() not in body for mark in (JUDGE_MARK, RAW_MARK, COLLEAGUE)), url


UNSAFE_METHODS = ("post", "put", "patch", "delete")
EVERYONE = frozenset(ROLES)
SIGNED_IN = EVERYONE - {"anonymous"}
RESEARCHERS = frozenset({"researcher"})
ADJUDICATORS = frozenset({"adjudicator", "researcher"})
NOBODY = frozenset()
# Whom the unsafe methods of a URL are for; every other role's POST, PUT, PATCH and DELETE is refused (401, 403, 404,
# 405, 410 or the sign-in page) and changes nothing. A URL not listed is its campaign's researchers' (whose own
# writes the feature tests check). Add a row here when a new URL is someone else's.
UNSAFE_FOR = {
    "login": EVERYONE, "api-token": EVERYONE,  # signing in (and revoking the token one sends): open to all
    # One's own account and tokens (tests/accounts/test_accounts.py); another's token is a 404 (api-token-detail's row).
    "logout": SIGNED_IN, "profile": SIGNED_IN, "password-change": SIGNED_IN, "api-tokens": SIGNED_IN,
    "api-preferences": SIGNED_IN,
    "api-token-detail": RESEARCHERS, "api-token-rotate": RESEARCHERS,  # the researcher's token is the matrix's
    "annotate": frozenset({"annotator"}), "annotate-submit": frozenset({"annotator"}),
    "annotate-draft": frozenset({"annotator"}),
    "adjudicate": ADJUDICATORS, "adjudicate-unit": ADJUDICATORS, "api-campaign-adjudication": ADJUDICATORS,
    "api-campaign-adjudication-unit": ADJUDICATORS,
    "campaign-items": ADJUDICATORS, "item-category": ADJUDICATORS, "api-campaign-item": ADJUDICATORS,
    # Making campaigns: the "Can add campaign" permission, or staff for archives; no role here holds either.
    "campaign-new": NOBODY, "api-campaigns": NOBODY, "api-campaign-archives": NOBODY,
    "account-welcome": NOBODY,  # only a live link's holder; the matrix's key is none (410)
    "docs": NOBODY,  # read by anyone, written by nobody: every unsafe method is a 405
}
UNSAFE_CASES = [(name, kwargs, role) for name, kwargs in ALL_URLS if not name.startswith("admin:")
                for role in ROLES if role not in UNSAFE_FOR.get(name, RESEARCHERS)]
# What a visitor sends: the fields the campaign's forms and endpoints read, asking for as much as they would give.
UNSAFE_DATA = {"verdict": "yes", "assignment": "1", "family": "em", "name": "x", "batch_size": "8", "format": "nq301",
               "username": "ann", "role": "researcher", "action": "add", "overlap": "5",
               "arm": "assisted:nobody"}


def _unsafe(client, method: str, url: str):
    if method == "post":
        return client.post(url, UNSAFE_DATA)
    return getattr(client, method)(url, json.dumps(UNSAFE_DATA), content_type="application/json")


@pytest.mark.parametrize("name,kwarg_names,role", UNSAFE_CASES,
                         ids=[f"{name}-{role}" for name, _, role in UNSAFE_CASES])
def test_unsafe_methods_are_refused_to_everyone_else(client, world, name, kwarg_names, role):
    url = reverse(name, kwargs=_kwargs_for(kwarg_names, world))
    client = _client_as(client, world, role)
    before = _db_state()
    answers = []
    for method in UNSAFE_METHODS:
        response = _unsafe(client, method, url)
        answers.append((method.upper(), response.status_code))
        assert response.status_code in (302, 401, 403, 404, 405, 410), (url, answers)
        if response.status_code == 302:
            assert response["Location"].startswith("/accounts/login/") or name == "logout", (url, answers)
    assert _db_state() == before, (url, answers)


def test_annotator_cannot_post_to_the_researchers_endpoints(client, world):
    before = _db_state()
    client.force_login(world["users"]["annotator"])
    run = world["run"]
    # The campaign's pages say they are for its researchers (403); a run reached by its id alone is a 404.
    for url, status in ((reverse("judge-run-cancel", kwargs={"slug": "qa", "run_id": run.id}), 403),
                        (reverse("judge-panel", kwargs={"slug": "qa"}), 403),
                        (reverse("api-judge-run-cancel", kwargs={"run_id": run.id}), 404),
                        (reverse("api-campaign-judge-runs", kwargs={"slug": "qa"}), 403),
                        (reverse("campaign-people", kwargs={"slug": "qa"}), 403),
                        (reverse("campaign-settings", kwargs={"slug": "qa"}), 403),
                        (reverse("api-campaign-members", kwargs={"slug": "qa"}), 403)):
        assert client.post(url, {"family": "em", "name": "sneaky", "action": "add", "username": "ann",
                                 "role": "researcher"}).status_code == status, url
    assert _db_state() == before


def test_annotator_cannot_reach_a_colleagues_assignment_by_id(client, world):
    colleague_assignment = Assignment.objects.filter(annotator__username=COLLEAGUE).first()
    client.force_login(world["users"]["annotator"])
    before = _db_state()
    response = client.post(reverse("annotate-submit", kwargs={"slug": "qa"}),
                           {"assignment": colleague_assignment.id, "verdict": "yes"})
    assert response.status_code == 404
    response = client.get(reverse("annotate", kwargs={"slug": "qa"}), {"undo": colleague_assignment.id})
    assert response.status_code == 404
    assert _db_state() == before


def test_no_object_of_another_campaign_is_reachable_by_id(client, world):
    client.force_login(world["users"]["researcher"])
    their_run = world["their_run"]
    before = _db_state()
    assert client.get(reverse("api-judge-run", kwargs={"run_id": their_run.id})).status_code == 404
    assert client.post(reverse("api-judge-run-cancel", kwargs={"run_id": their_run.id})).status_code == 404
    assert client.post(reverse("judge-run-cancel", kwargs={"slug": "qa", "run_id": their_run.id})).status_code == 404
    assert client.get(reverse("judge-panel", kwargs={"slug": "qa"}), {"run": their_run.id},
                      HTTP_HX_REQUEST="true").status_code == 404
    assert _db_state() == before


def test_token_of_one_researcher_does_not_open_anothers_campaign(client, world):
    _, token = token_create(user=world["users"]["other_researcher"], name="matrix")
    for url in (reverse("api-campaign", kwargs={"slug": "qa"}), reverse("api-agreement-report", kwargs={"slug": "qa"}),
                reverse("api-judge-run", kwargs={"run_id": world["run"].id})):
        assert client.get(url, HTTP_AUTHORIZATION=f"Token {token}").status_code == 404, url
    listing = client.get(reverse("api-campaigns"), HTTP_AUTHORIZATION=f"Token {token}").json()
    slugs = {row["slug"] for row in listing.get("results", listing)}
    assert slugs == {"theirs"}


def test_a_script_gets_its_token_with_username_and_password(client, world, password):
    response = client.post(reverse("api-token"), {"username": "res", "password": password})
    assert response.status_code == 200
    token = response.json()["token"]
    listing = client.get(reverse("api-campaigns"), HTTP_AUTHORIZATION=f"Token {token}").json()
    assert {row["slug"] for row in listing.get("results", listing)} == {"qa"}
    assert client.post(reverse("api-token"), {"username": "res", "password": "wrong"}).status_code == 400


@pytest.mark.parametrize("name,kwarg_names", [u for u in ALL_URLS if not u[0].startswith("admin:")],
                         ids=[name for name, _ in ALL_URLS if not name.startswith("admin:")])
def test_post_without_a_csrf_token_is_refused(world, module_clients, name, kwarg_names):
    """A signed-in researcher's browser session cannot be made to POST anywhere by another site (no CSRF token):
    every URL of the configuration answers 403, the API's session-authenticated views included; nothing changes."""
    client = module_clients["csrf"]
    client.cookies.clear()
    client.force_login(world["users"]["researcher"])
    before = _db_state()
    url = reverse(name, kwargs=_kwargs_for(kwarg_names, world))
    data = {"verdict": "yes", "assignment": "1", "family": "em", "name": "x", "batch_size": "8", "format": "nq301",
            "username": "res", "password": "x"}
    response = client.post(url, data)
    # Refused for want of the token (403) before any view code runs: the CSRF middleware answers every POST.
    assert response.status_code == 403, (url, response.status_code)
    assert _db_state() == before, url

