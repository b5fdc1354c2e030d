"""Stored reports (agreement.stored): a first open answers at once, "Building…", and queues the build (the API and
downloads answer 202 with a status URL); an unchanged report opens from the store; a changed one shows the last
report, says it is updating and queues one background rebuild; downloads read the same stored report; two racing
rebuilds build once; a broker that cannot be reached is said on the page and by the API.

A change of the campaign's data is simulated as every write path makes it: the write, then
annotate.services.data_version.campaign_data_changed.
"""

import json
import threading
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from agreement import report as report_module
from agreement import stored
from agreement.models import StoredReport
from agreement.stored import stored_report_rebuild
from agreement.tasks import report_rebuild
from annotate.services.data_version import campaign_data_changed
from tests.agreement.test_agreement_report import small_campaign  # noqa: F401 (fixture)
from tests.factories import PASSWORD
from tests.report_support import report_stored
from tests.threads import run_at_once

PAGE = "/campaigns/small/report/"


@pytest.fixture
def res(client, small_campaign):  # noqa: F811
    client.login(username="res", password=PASSWORD)
    return client


@pytest.fixture
def builds(monkeypatch):
    """The reports built, by campaign slug, counted where agreement.stored builds them (it imports the builder when
    it builds, so the builder is replaced in its own module)."""
    built = []
    build = report_module.agreement_report_build

    def counted(*, campaign):
        built.append(campaign.slug)
        return build(campaign=campaign)

    monkeypatch.setattr(report_module, "agreement_report_build", counted)
    return built


@pytest.fixture
def queued(monkeypatch):
    """The rebuild tasks published, their arguments round-tripped through JSON as the broker would carry them."""
    sent = []
    monkeypatch.setattr(report_rebuild, "apply_async",
                        lambda args, **options: sent.append((json.loads(json.dumps(args)), options)))
    return sent


def _counting_rule_changed(campaign, rule="qa-eval"):
    campaign.options = {**campaign.options, "counting_rule": rule}
    campaign.save(update_fields=["options"])
    campaign_data_changed(campaign_id=campaign.pk)


def test_a_first_open_answers_at_once_building_and_queues_one_build(res, small_campaign, builds, queued,  # noqa: F811
                                                                     monkeypatch, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        first = res.get(PAGE)
    # The page at once, saying the report is being built; nothing built in the request, one build queued.
    html = first.content.decode()
    assert first.status_code == 200 and 'id="report-building"' in html and "Building…" in html
    assert "(queued, waiting for a worker)" in html and 'id="headline"' not in html
    assert builds == [] and queued == [([small_campaign.pk], queued[0][1])]
    with django_capture_on_commit_callbacks(execute=True):
        assert "Building…" in res.get(PAGE).content.decode()  # the build already queued: not a second one
    assert len(queued) == 1
    status = res.get("/campaigns/small/report/status.json").json()
    assert (status["report_version"], status["updating"], status["building"]) == (None, True, False)

    # A worker's build records its step on the lock row; the page and status.json say it, with the time so far.
    steps = []
    build = report_module.agreement_report_build

    def watched(*, campaign):
        document = build(campaign=campaign)
        steps.append(StoredReport.objects.get(campaign=campaign).building_step)
        return document

    monkeypatch.setattr(report_module, "agreement_report_build", watched)
    report_rebuild(*queued[0][0])
    assert steps == ["system level"] and builds == ["small"]
    row = StoredReport.objects.get(campaign=small_campaign)
    assert row.building_step == "" and row.building_since is None and row.version == 0
    StoredReport.objects.filter(campaign=small_campaign).update(version=None)  # as before it was stored
    now = timezone.now()  # the clock held still from here, so "12 s so far" does not drift on a slow machine
    monkeypatch.setattr(stored, "timezone", SimpleNamespace(now=lambda: now))
    StoredReport.objects.filter(campaign=small_campaign).update(
        building_version=0, building_since=now - timedelta(seconds=12), building_step="judges")
    assert "(judges, 12 s so far)" in res.get(PAGE).content.decode()
    status = res.get("/campaigns/small/report/status.json").json()
    assert (status["step"], status["building"], round(status["building_seconds"])) == ("judges", True, 12)
    StoredReport.objects.filter(campaign=small_campaign).update(  # the lock's holder stores its report
        version=0, building_version=None, building_since=None, building_step="")
    html = res.get(PAGE).content.decode()
    assert 'id="report-building"' not in html and "Counting rule <strong>concord</strong>" in html


def test_the_api_and_downloads_answer_202_with_a_status_url_until_built(client, small_campaign, researcher,  # noqa: F811
                                                                       builds, queued,
                                                                       django_capture_on_commit_callbacks):
    from accounts.services import token_create

    token = token_create(user=researcher, name="script")[1]
    auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
    with django_capture_on_commit_callbacks(execute=True):
        api = client.get("/api/campaigns/small/agreement/", **auth)
    status_url = "http://testserver/api/campaigns/small/agreement/status/"
    assert api.status_code == 202 and api["Location"] == status_url and api["Retry-After"] == "5"
    assert api.json()["status"] == "building" and api.json()["status_url"] == status_url
    assert "is being built" in api.json()["detail"] and builds == [] and len(queued) == 1
    assert client.get(status_url, **auth).json()["report_version"] is None
    client.login(username="res", password=PASSWORD)
    for download in ("report.json", "systems.csv", "judges.csv", "plots/systems.svg"):
        response = client.get(f"/campaigns/small/report/{download}")
        assert response.status_code == 202, download
        assert response["Location"] == "http://testserver/campaigns/small/report/status.json"
    assert builds == [] and len(queued) == 1
    report_rebuild(*queued[0][0])  # the worker
    assert client.get(status_url, **auth).json()["report_version"] == 0
    api = client.get("/api/campaigns/small/agreement/", **auth)
    assert api.status_code == 200 and api.json()["counting"]["rule"] == "concord" and builds == ["small"]
    assert client.get("/campaigns/small/report/report.json").json() == api.json()


def test_an_unchanged_report_opens_from_the_store(res, small_campaign, builds, django_assert_max_num_queries):  # noqa: F811
    report_stored(small_campaign)
    first = res.get(PAGE)
    assert first.status_code == 200 and builds == ["small"]
    assert "Counting rule <strong>concord</strong>" in first.content.decode()
    assert StoredReport.objects.get(campaign=small_campaign).version == 0  # no change yet: data version 0
    # Session, user, campaign, membership, data version, stored report: nothing of the judgments.
    with django_assert_max_num_queries(6):
        again = res.get(PAGE)
    assert builds == ["small"]
    html = again.content.decode()
    assert "Counting rule <strong>concord</strong>" in html and 'id="report-updating"' not in html
    assert 'id="scatter"' in html and "<svg" in html  # the plot as drawn when the report was built
    assert "Built just now" in html
    StoredReport.objects.filter(campaign=small_campaign).update(built_at=timezone.now() - timedelta(minutes=3))
    assert "Built 3\xa0minutes ago" in res.get(PAGE).content.decode()
    with django_assert_max_num_queries(5):
        document = res.get("/campaigns/small/report/report.json").json()
    assert builds == ["small"] and document["counting"]["rule"] == "concord"


def test_a_changed_report_is_shown_updating_then_replaced(res, small_campaign, builds, queued,  # noqa: F811
                                                          django_capture_on_commit_callbacks):
    report_stored(small_campaign)
    _counting_rule_changed(small_campaign)
    with django_capture_on_commit_callbacks(execute=True):
        html = res.get(PAGE).content.decode()
    # The last report, marked updating, and one rebuild queued; nothing built in the request.
    assert "Counting rule <strong>concord</strong>" in html and "Updating…" in html and 'id="report-updating"' in html
    assert "at data version 0 (now 1)" in html
    assert builds == ["small"] and queued == [([small_campaign.pk], queued[0][1])]
    assert queued[0][1]["retry"] is True
    # Opening it again while the rebuild waits on the queue does not queue a second one.
    with django_capture_on_commit_callbacks(execute=True):
        assert "Updating…" in res.get(PAGE).content.decode()
    status = res.get("/campaigns/small/report/status.json").json()
    assert (status["report_version"], status["data_version"], status["updating"], status["building"]) == (0, 1, True,
                                                                                                          False)
    assert len(queued) == 1
    # The worker runs the task: the next open is current and shows the change.
    report_rebuild(*queued[0][0])
    assert builds == ["small", "small"]
    html = res.get(PAGE).content.decode()
    assert "Counting rule <strong>qa-eval</strong>" in html and 'id="report-updating"' not in html
    assert res.get("/campaigns/small/report/status.json").json()["updating"] is False
    report_rebuild(*queued[0][0])  # a second delivery of the same task builds nothing
    assert builds == ["small", "small"]


def test_downloads_and_the_api_read_the_stored_report(res, small_campaign, builds, queued,  # noqa: F811
                                                      django_capture_on_commit_callbacks):
    report_stored(small_campaign)
    _counting_rule_changed(small_campaign)
    with django_capture_on_commit_callbacks(execute=True):
        document = res.get("/campaigns/small/report/report.json").json()
        systems_csv = res.get("/campaigns/small/report/systems.csv").content.decode()
        api = res.get("/api/campaigns/small/agreement/")
        svg = res.get("/campaigns/small/report/plots/systems.svg")
    assert document["counting"]["rule"] == "concord" and api.json() == document
    assert "qa-eval" not in systems_csv and svg.status_code == 200
    assert (api["X-Report-Version"], api["X-Data-Version"], api["X-Report-Updating"]) == ("0", "1", "true")
    assert builds == ["small"] and len(queued) == 1
    stored_report_rebuild(campaign_id=small_campaign.pk)
    api = res.get("/api/campaigns/small/agreement/")
    assert api.json()["counting"]["rule"] == "qa-eval" and api["X-Report-Updating"] == "false"
    assert res.get("/campaigns/small/report/report.json").json() == api.json()


def test_a_change_during_the_build_queues_one_more(small_campaign, builds, queued, monkeypatch,  # noqa: F811
                                                   django_capture_on_commit_callbacks):
    build = report_module.agreement_report_build

    def changed_meanwhile(*, campaign):
        document = build(campaign=campaign)
        if len(builds) == 2:
            _counting_rule_changed(campaign, "concord")  # committed while the rebuild was reading
        return document

    monkeypatch.setattr(report_module, "agreement_report_build", changed_meanwhile)
    report_stored(small_campaign)
    _counting_rule_changed(small_campaign)
    with django_capture_on_commit_callbacks(execute=True):
        assert stored_report_rebuild(campaign_id=small_campaign.pk) is True
    # Stored as of the version read before its data (1), not the one it may partly hold (2); one more is queued.
    assert StoredReport.objects.get(campaign=small_campaign).version == 1 and len(queued) == 1
    with django_capture_on_commit_callbacks(execute=True):
        opened = stored.report_for_open(campaign=small_campaign)
    assert (opened.version, opened.data_version, opened.state) == (1, 2, "updating") and len(queued) == 1


@pytest.mark.django_db(transaction=True)
def test_two_racing_rebuilds_build_once(small_campaign, monkeypatch):  # noqa: F811
    report_stored(small_campaign)
    _counting_rule_changed(small_campaign)
    built, one_returned, results = [], threading.Event(), []
    build = report_module.agreement_report_build

    def slow(*, campaign):
        built.append(campaign.slug)
        one_returned.wait(10)  # the winner holds the lock until the other attempt has returned
        return build(campaign=campaign)

    monkeypatch.setattr(report_module, "agreement_report_build", slow)

    def attempt():
        try:
            results.append(stored_report_rebuild(campaign_id=small_campaign.pk))
        finally:
            one_returned.set()

    assert run_at_once([attempt, attempt], timeout=30) == []
    assert sorted(results) == [False, True] and built == ["small"]
    row = StoredReport.objects.get(campaign=small_campaign)
    assert row.version == 1 and row.building_since is None and row.building_version is None
    assert stored.report_for_open(campaign=small_campaign).document["counting"]["rule"] == "qa-eval"


def test_a_dead_builds_lock_is_taken_over(small_campaign, builds):  # noqa: F811
    report_stored(small_campaign)
    _counting_rule_changed(small_campaign)
    StoredReport.objects.filter(campaign=small_campaign).update(building_version=1, building_since=timezone.now())
    assert stored_report_rebuild(campaign_id=small_campaign.pk) is False  # a live build holds it
    StoredReport.objects.filter(campaign=small_campaign).update(
        building_since=timezone.now() - stored.BUILD_TIMEOUT - timedelta(seconds=1))
    assert stored_report_rebuild(campaign_id=small_campaign.pk) is True and builds == ["small", "small"]
    assert StoredReport.objects.get(campaign=small_campaign).version == 1


@pytest.mark.django_db(transaction=True)  # the rebuild is queued when the request's statement commits, as served
def test_a_broker_that_cannot_be_reached_is_said_and_the_last_report_shown(client, small_campaign, builds,  # noqa: F811
                                                                          monkeypatch):
    from kombu.exceptions import OperationalError

    def unreachable(*args, **kwargs):
        raise OperationalError("[Errno 111] Connection refused")

    client.login(username="res", password=PASSWORD)
    monkeypatch.setattr(report_rebuild, "apply_async", unreachable)
    # The first open, nothing stored: the page and the API say so, and nothing is built in the request.
    html = client.get(PAGE).content.decode()
    assert "Not built" in html and "the Celery broker is unreachable ([Errno 111] Connection refused)" in html
    api = client.get("/api/campaigns/small/agreement/")
    assert api.status_code == 503 and "broker is unreachable" in api.json()["detail"]
    assert "CELERY_BROKER_URL" in api.json()["detail"] and builds == []
    report_stored(small_campaign)  # a worker, once one runs
    _counting_rule_changed(small_campaign)
    html = client.get(PAGE).content.decode()
    assert "Not up to date" in html and "the Celery broker is unreachable ([Errno 111] Connection refused)" in html
    assert "Counting rule <strong>concord</strong>" in html and builds == ["small"]  # never built inline instead
    status = client.get("/campaigns/small/report/status.json").json()
    assert status["updating"] is True and "broker is unreachable" in status["queue_error"]


@pytest.mark.django_db(transaction=True)  # queued as served: outside a transaction, at once
def test_a_rebuild_run_as_soon_as_queued_is_shown_at_once(client, small_campaign, builds, monkeypatch):  # noqa: F811
    from config.celery import app

    monkeypatch.setattr(app.conf, "task_always_eager", True)  # the worker takes the task before the page is read
    monkeypatch.setattr(app.conf, "task_eager_propagates", True)
    client.login(username="res", password=PASSWORD)
    report_stored(small_campaign)
    _counting_rule_changed(small_campaign)
    html = client.get(PAGE).content.decode()
    assert "Counting rule <strong>qa-eval</strong>" in html and 'id="report-updating"' not in html
    assert builds == ["small", "small"]


def test_the_command_builds_fresh_unless_asked_for_the_stored_report(small_campaign, builds, queued,  # noqa: F811
                                                                     django_capture_on_commit_callbacks):
    import io

    from django.core.management import call_command

    report_stored(small_campaign)
    _counting_rule_changed(small_campaign)
    out, err = io.StringIO(), io.StringIO()
    call_command("agreement_report", "--campaign", "small", "--json", stdout=out)
    assert json.loads(out.getvalue())["counting"]["rule"] == "qa-eval"
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("agreement_report", "--campaign", "small", "--json", "--stored", stdout=out, stderr=err)
    assert json.loads(out.getvalue())["counting"]["rule"] == "concord"
    assert "stored report of data version 0, the data is at 1: a rebuild is queued" in err.getvalue()
    assert len(queued) == 1


def _build_fails(monkeypatch, builds):
    """Every build raises from now on; returns what puts the (counted) build back."""
    build = report_module.agreement_report_build

    def fails(*, campaign):
        builds.append(campaign.slug)
        raise ValueError("no such column: demo")

    monkeypatch.setattr(report_module, "agreement_report_build", fails)
    return lambda: monkeypatch.setattr(report_module, "agreement_report_build", build)


def test_a_build_that_fails_is_said_and_not_queued_again_until_the_data_changes(  # noqa: F811
        res, small_campaign, builds, queued, monkeypatch, django_capture_on_commit_callbacks):
    mended = _build_fails(monkeypatch, builds)
    with django_capture_on_commit_callbacks(execute=True):
        assert "Building…" in res.get(PAGE).content.decode()
    with pytest.raises(ValueError):
        report_rebuild(*queued[0][0])  # the worker's task fails; Celery logs the traceback
    row = StoredReport.objects.get(campaign=small_campaign)
    assert (row.failed_version, row.build_error, row.building_since) == (0, "ValueError: no such column: demo", None)

    # The page says why instead of "Building…" for ever; the API answers 500 with the reason; nothing more queued.
    with django_capture_on_commit_callbacks(execute=True):
        html = res.get(PAGE).content.decode()
        api = res.get("/api/campaigns/small/agreement/")
        download = res.get("/campaigns/small/report/systems.csv")
    assert "Could not be built:" in html and "ValueError: no such column: demo" in html and "Building…" not in html
    assert api.status_code == 500 and api.json()["build_error"] == "ValueError: no such column: demo"
    assert download.status_code == 500 and len(queued) == 1 and builds == ["small"]
    status = res.get("/campaigns/small/report/status.json").json()
    assert (status["report_version"], status["build_error"]) == (None, "ValueError: no such column: demo")

    # A change of the data tries again; a build that succeeds clears the failure.
    mended()
    _counting_rule_changed(small_campaign)
    with django_capture_on_commit_callbacks(execute=True):
        assert "Building…" in res.get(PAGE).content.decode()
    assert len(queued) == 2
    report_rebuild(*queued[1][0])
    html = res.get(PAGE).content.decode()
    assert 'id="headline"' in html and "Could not be built" not in html
    row = StoredReport.objects.get(campaign=small_campaign)
    assert (row.version, row.failed_version, row.build_error) == (1, None, "")


def test_a_failed_rebuild_keeps_the_last_report_and_says_why(res, small_campaign, builds, queued,  # noqa: F811
                                                              monkeypatch, django_capture_on_commit_callbacks):
    report_stored(small_campaign)
    _counting_rule_changed(small_campaign)
    _build_fails(monkeypatch, builds)
    with pytest.raises(ValueError):
        stored_report_rebuild(campaign_id=small_campaign.pk)
    with django_capture_on_commit_callbacks(execute=True):
        html = res.get(PAGE).content.decode()
        api = res.get("/api/campaigns/small/agreement/")
    assert "Counting rule <strong>concord</strong>" in html and "could not be built" in html and "Updating…" not in html
    assert api.status_code == 200 and api["X-Report-Updating"] == "false"
    assert api["X-Report-Build-Error"] == "ValueError: no such column: demo" and queued == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_page_says_updating_then_swaps_in_the_new_report(small_campaign, login_page, live_server, queued,  # noqa: F811
                                                             tmp_path):
    report_stored(small_campaign)
    page = login_page("res")
    page.goto(f"{live_server.url}{PAGE}")
    assert page.locator("#report-updating").count() == 0
    assert "Counting rule concord" in page.inner_text("main")
    _counting_rule_changed(small_campaign)
    page.reload()
    banner = page.locator("#report-updating")
    assert banner.is_visible() and banner.inner_text().startswith("Updating…")
    assert "at data version 0 (now 1)" in banner.inner_text() and len(queued) == 1
    page.screenshot(path=str(tmp_path / "report-updating.png"))
    page.evaluate("window.scrollTo(0, 600)")
    stored_report_rebuild(campaign_id=small_campaign.pk)  # the worker; the page polls, then reloads
    page.wait_for_selector("#report-updating", state="detached", timeout=15_000)
    assert "Counting rule qa-eval" in page.inner_text("main") and 'id="printed"' in page.content()
    page.wait_for_function("window.scrollY > 0", timeout=5_000)
    assert 450 <= page.evaluate("window.scrollY") <= 600  # where the reader was, less the banner gone above
    page.screenshot(path=str(tmp_path / "report-updated.png"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def _held_until(module, name: str, monkeypatch) -> threading.Event:
    """Replace MODULE.NAME (called with keywords) by one that returns only once the event returned is set."""
    real, go = getattr(module, name), threading.Event()

    def held(**kwargs):
        result = real(**kwargs)
        go.wait(30)
        return result

    monkeypatch.setattr(module, name, held)
    return go


def test_the_page_says_building_with_its_step_then_fills_in(small_campaign, login_page, live_server, queued,  # noqa: F811
                                                            monkeypatch, tmp_path):
    from django.db import connection

    page = login_page("res")
    page.goto(f"{live_server.url}{PAGE}")  # nothing stored: answered at once
    banner = page.locator("#report-building")
    assert banner.inner_text().startswith("Building…") and "(queued, waiting for a worker)" in banner.inner_text()
    assert len(queued) == 1 and page.locator("#headline").count() == 0

    # A worker takes the build; it holds at its last step until let go, so the page can be seen following it; its
    # plots are drawn after its statistics are stored, and hold too.
    let_go = _held_until(report_module, "agreement_report_build", monkeypatch)
    plots_go = _held_until(stored, "_plots_draw", monkeypatch)

    def worker():
        try:
            report_rebuild(*queued[0][0])
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        page.wait_for_function("document.getElementById('report-building-progress').textContent"
                               ".startsWith('(system level, ')", timeout=20_000)
        assert page.locator("#report-building-progress").inner_text().endswith(" s so far)")
        page.screenshot(path=str(tmp_path / "report-building.png"))
    finally:
        let_go.set()
    try:
        # Polled, then reloaded: the report, whole, while its plots are still being drawn.
        page.wait_for_selector("#report-building", state="detached", timeout=15_000)
        assert "Counting rule concord" in page.inner_text("main") and page.locator("#headline").count() == 1
        assert page.inner_text("#report-plots").startswith("Drawing the plots…")
        assert page.locator("#scatter").count() == 0
    finally:
        plots_go.set()
        thread.join(30)
    page.wait_for_selector("#report-plots", state="detached", timeout=15_000)  # polled again, then reloaded
    assert page.locator("#scatter svg").count() == 1 and "Counting rule concord" in page.inner_text("main")


def test_plots_that_cannot_be_drawn_leave_the_report_and_say_why(res, small_campaign, monkeypatch):  # noqa: F811
    def broken(*, document):
        raise ValueError("no font for this name")

    monkeypatch.setattr(stored, "_plots_draw", broken)
    assert stored_report_rebuild(campaign_id=small_campaign.pk)
    row = StoredReport.objects.get(campaign=small_campaign)
    assert row.version == 0 and row.building_since is None  # stored, and the lock released
    html = res.get(PAGE).content.decode()
    assert 'id="headline"' in html and 'id="scatter"' not in html
    assert "<b>No plots:</b> they could not be drawn\n  (ValueError: no font for this name)" in html


def test_a_report_stored_by_an_earlier_version_is_built_again_before_it_is_shown(client, small_campaign, researcher,  # noqa: F811
                                                                                  builds, queued,
                                                                                  django_capture_on_commit_callbacks):
    """Found after an upgrade in place: a document stored by the old code still counted as current (its data version
    had not moved), and the new templates read fields it lacked: the report pages answered 500. A document of another
    schema now counts as nothing stored: "Building…" and one build queued, the API 202, then the new document."""
    from accounts.services import token_create

    report_stored(small_campaign)
    # As an earlier version left it: another shape (a field the templates read is missing), no schema recorded.
    row = StoredReport.objects.get(campaign=small_campaign)
    old = stored._unpack(row.document)
    old.pop("counting")
    StoredReport.objects.filter(pk=row.pk).update(document=stored._pack(old), schema=0)
    builds.clear()
    client.login(username="res", password=PASSWORD)
    with django_capture_on_commit_callbacks(execute=True):
        page = client.get(PAGE)
    assert page.status_code == 200 and "Building…" in page.content.decode() and len(queued) == 1
    auth = {"HTTP_AUTHORIZATION": f"Token {token_create(user=researcher, name='script')[1]}"}
    assert client.get("/api/campaigns/small/agreement/", **auth).status_code == 202
    assert client.get("/campaigns/small/report/report.json").status_code == 202
    assert client.get("/campaigns/small/report/status.json").json()["report_version"] is None
    report_rebuild(*queued[0][0])  # the worker
    assert builds == ["small"] and StoredReport.objects.get(campaign=small_campaign).schema == stored.REPORT_SCHEMA
    api = client.get("/api/campaigns/small/agreement/", **auth)
    assert api.status_code == 200 and api["X-Report-Schema"] == str(stored.REPORT_SCHEMA)
    assert api.json()["counting"]["rule"] == "concord"
    assert "Counting rule <strong>concord</strong>" in client.get(PAGE).content.decode()
