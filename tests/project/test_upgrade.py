"""An installation of the version before, upgraded in place to this code: every page of the permission matrix answers
without a 500 for every role, on SQLite and on PostgreSQL (the suite runs on both).

The installation is the fixture tests/project/upgrade_fixture.py wrote with commit 5753f21's own code: its demo
(nq301 cut to 25 questions), rankers' runs, judgments, adjudications, an open lease, API tokens, a pending
invitation, an import job, another researcher's campaign, and every report stored by that code. The test database is
migrated back to the migrations that commit had applied (Django's MigrationExecutor), the rows go in through that
state's models and the media files beside them, and `manage.py migrate` takes it to this code, as `scripts/start` does
on an upgraded checkout. At the next release, a fixture of this version replaces it (upgrade_fixture.py says how).
"""

import base64
import gzip
import io
import json
import time
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Count
from django.test import Client, override_settings
from django.urls import reverse

from accounts.models import ApiToken
from agreement.stored import REPORT_SCHEMA, stored_report_rebuild
from annotate.models import Campaign, HumanJudgment, Membership, Unit
from config.databases import TOKENS
from config.version import VERSION
from judges.models import Judge, JudgeRun, Probe, ProbeVerdict
from tasktypes.demo_ais import RATERS
from tests.project.test_permissions_matrix import ALL_URLS, ROLES

pytestmark = pytest.mark.django_db(transaction=True)

FIXTURE = Path(__file__).parent / "fixtures" / "upgrade-5753f21.json.gz"
# The matrix's roles, as the installation's people: the demo's researcher, assessor and adjudicator on every demo
# campaign; res2 and ann2, another campaign's ("theirs"), on none of them.
PEOPLE = {"annotator": "assessor1", "other_annotator": "ann2", "adjudicator": "adjudicator", "researcher": "researcher",
          "other_researcher": "res2"}
REPORTS_BUILT = ("nq301", "ais-demo")  # the two report pages that answered 500 after the upgrade (issue 53)


def _fixture() -> dict:
    with gzip.open(FIXTURE, "rt") as stream:
        return json.load(stream)


def _old_installation_make(fixture: dict, media_root: Path) -> None:
    """The test database as the fixture's version left it: its migrations, its rows, its media files."""
    executor = MigrationExecutor(connection)
    targets = [(app, fixture["migrations"].get(app)) for app in sorted(executor.loader.migrated_apps)]
    executor.migrate(targets)
    old = MigrationExecutor(connection).loader.project_state([target for target in targets if target[1]]).apps
    if TOKENS in connections:
        # On SQLite the tokens have a file of their own since accounts 0005, which moves an older install's tokens
        # there from the one file they were in: both files as that install had them, so that the move is tested too.
        MigrationExecutor(connections[TOKENS]).migrate([("accounts", "0004_invitation_scopes")])
        tokens = old.get_model("accounts", "ApiToken")
        if tokens._meta.db_table not in connection.introspection.table_names():
            with connection.schema_editor() as editor:
                editor.create_model(tokens)
    models = {key: old.get_model(*key.split(".")) for key in fixture["models"]}
    everything = [model for model in old.get_models(include_auto_created=True) if model._meta.managed]
    connection.ops.execute_sql_flush(connection.ops.sql_flush(
        no_style(), [model._meta.db_table for model in everything], reset_sequences=True, allow_cascade=True))
    with transaction.atomic():  # foreign keys are checked at its end: the rows go in in any order
        for key, model in models.items():
            for field in model._meta.concrete_fields:  # the rows' own times, not now
                field.auto_now = field.auto_now_add = False
            binary = {
                field.attname for field in model._meta.concrete_fields if field.get_internal_type() == "BinaryField"
            }
            model.objects.using(DEFAULT_DB_ALIAS).bulk_create([
                model(**{name: base64.b64decode(value["__bytes__"]) if name in binary and value else value
                         for name, value in row.items()})
                for row in fixture["models"][key]["rows"]], batch_size=500)
    with connection.cursor() as cursor:  # PostgreSQL's sequences past the ids written
        for statement in connection.ops.sequence_reset_sql(no_style(), list(models.values())):
            cursor.execute(statement)
    for name, content in fixture["media"].items():
        path = media_root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(content))


def _counts(tables) -> dict[str, int]:
    """Each of TABLES' rows, counted where they live now: the API tokens in their own file on SQLite."""
    counts = {}
    for table in tables:
        alias = TOKENS if table == ApiToken._meta.db_table and TOKENS in connections else DEFAULT_DB_ALIAS
        with connections[alias].cursor() as cursor:
            cursor.execute(f"SELECT COUNT(*) FROM {connections[alias].ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def _kwargs(names, campaign: Campaign) -> dict:
    run = JudgeRun.objects.filter(judge__campaign=campaign).order_by("pk").first()
    judge = Judge.objects.filter(campaign=campaign).order_by("pk").first()
    item = campaign.items.order_by("-kind", "pk").first()  # an image where the campaign has some
    unit = Unit.objects.filter(campaign=campaign, judgments__isnull=False).order_by("pk").first()
    job = campaign.import_jobs.order_by("pk").first()
    values = {"slug": campaign.slug, "run_id": run.pk if run else 0, "item_id": item.pk if item else 0,
              "token_id": ApiToken.objects.filter(  # no join: the tokens may be in a file of their own
                  user=get_user_model().objects.get(username="researcher")).order_by("pk").first().pk,
              "variant": "full", "source": "consensus", "plot": "systems", "fmt": "svg", "username": "assessor1",
              "key": "no-such-link", "judge_id": judge.pk if judge else 0, "job_id": job.pk if job else 0,
              "unit_id": unit.pk if unit else 0, "path": ""}
    return {name: values[name] for name in names}


def _sweep(clients: dict, campaigns, roles=ROLES) -> list[str]:
    """GET every URL of the matrix, for each campaign, as each of ROLES; the URLs that answered 500 (or more)."""
    failures, seen = [], set()
    for campaign in campaigns:
        for name, kwarg_names in ALL_URLS:
            if name.startswith("admin:"):
                kwargs = {key: {"app_label": "auth"}.get(key, "1") for key in kwarg_names}
            else:
                kwargs = _kwargs(kwarg_names, campaign)
            url = reverse(name, kwargs=kwargs)
            for role in roles:
                # A URL that names no campaign: once. A visitor who has not signed in is answered before any campaign
                # is read: once a URL name.
                key = (name, role) if role == "anonymous" else (url, role)
                if key in seen:
                    continue
                seen.add(key)
                response = clients[role].get(url)
                if response.status_code >= 500:
                    error = response.exc_info[1] if response.exc_info else ""
                    failures.append(f"{role} {url}: {response.status_code} {error!r}"[:500])
    return failures


@pytest.fixture
def main_file_without_tokens():
    """After the test, the main SQLite file without the token table the old installation had there (accounts 0005
    empties it and leaves it; a new install's has none), as the rest of the suite's tests expect."""
    yield
    if TOKENS in connections and ApiToken._meta.db_table in connection.introspection.table_names():
        with connection.schema_editor() as editor:
            editor.delete_model(ApiToken)


def test_the_version_before_upgrades_with_every_page_answering(tmp_path, main_file_without_tokens):
    fixture = _fixture()
    media_root = tmp_path / "media"
    started = time.perf_counter()
    migrated = False
    with override_settings(MEDIA_ROOT=str(media_root), IMPORT_ROOT=str(tmp_path / "imports")):
        try:
            _old_installation_make(fixture, media_root)
            made = time.perf_counter()
            call_command("migrate", verbosity=0)  # what scripts/start runs on an upgraded checkout
            migrated = True
        finally:
            if not migrated:  # leave the test database as the suite expects it
                call_command("migrate", verbosity=0)
        upgrade_seconds = time.perf_counter() - made

        # Every row of every table of the old installation is still there, but the content types: the import jobs'
        # stale one (tasktypes | importjob) became interchange's, with its permissions.
        tables = {entry["table"]: len(entry["rows"]) for entry in fixture["models"].values()}
        kept = {table: count for table, count in tables.items()
                if table not in ("django_content_type", "auth_permission")}
        assert _counts(kept) == kept
        assert not ContentType.objects.filter(app_label="tasktypes").exists()
        moved = ContentType.objects.get(app_label="interchange", model="importjob")
        assert sorted(moved.permission_set.values_list("codename", flat=True)) == [
            "add_importjob", "change_importjob", "delete_importjob", "view_importjob"]
        assert set(ContentType.objects.values_list("app_label", "model")) == {
            (model._meta.app_label, model._meta.model_name) for model in apps.get_models()}  # none stale
        with connection.cursor() as cursor:  # the adjudication index (built concurrently on PostgreSQL), valid
            indexes = connection.introspection.get_constraints(cursor, "annotate_humanjudgment")
        assert indexes["judgment_adjudication_current"]["index"]
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                               "WHERE c.relname = 'judgment_adjudication_current'")
                assert cursor.fetchall() == [(True,)]

        # Every page of the matrix, every campaign, every role: no 500.
        users = {user.username: user for user in get_user_model().objects.all()}
        clients = {role: Client(raise_request_exception=False) for role in ROLES}
        for role, username in PEOPLE.items():
            clients[role].force_login(users[username])
        campaigns = list(Campaign.objects.order_by("pk"))
        assert [campaign.slug for campaign in campaigns] == [
            "health-ranking", "ais-demo", "image-demo", "passage-demo", "assist-demo", "nq301", "theirs"]
        swept = time.perf_counter()
        assert _sweep(clients, campaigns) == []
        sweep_seconds = time.perf_counter() - swept

        # The old code's reports are built again before they are shown: "Building…" first, then this code's document,
        # which names this version.
        researcher = clients["researcher"]
        for slug in REPORTS_BUILT:
            assert 'id="report-building"' in researcher.get(f"/campaigns/{slug}/report/").content.decode(), slug
            assert stored_report_rebuild(campaign_id=Campaign.objects.get(slug=slug).pk)
            page = researcher.get(f"/campaigns/{slug}/report/")
            assert page.status_code == 200 and 'id="report-built"' in page.content.decode(), slug
            assert f'id="concord-version">Concord {VERSION}<' in page.content.decode()
            api = researcher.get(f"/api/campaigns/{slug}/agreement/")
            assert api.status_code == 200 and api["X-Report-Schema"] == str(REPORT_SCHEMA), slug
            assert api.json()["software"]["Concord"].split(" (commit ")[0] == VERSION, slug
        assert _sweep(clients, [campaign for campaign in campaigns if campaign.slug in REPORTS_BUILT],
                      roles=("researcher",)) == []  # the pages that read the document: the researcher's

        # load_demo tops the upgraded demo up to a fresh one's: the AIS demo's simulated raters (three on each of
        # its 13 rated answers) and the passage demo's probes, judged by its ranker; a second load changes nothing.
        ais, passages = Campaign.objects.get(slug="ais-demo"), Campaign.objects.get(slug="passage-demo")
        assert not Membership.objects.filter(campaign=ais, user__username__in=RATERS).exists()
        assert not Probe.objects.filter(campaign=passages).exists()
        demo = ("load_demo", "--campaign", "ais-demo", "--campaign", "passage-demo", "--no-reports")
        call_command(*demo, stdout=io.StringIO())
        state = _demo_state(ais, passages)
        assert state["raters"] == {username: 13 for username in RATERS}
        assert state["ais_description"].startswith("Eight questions") and "three simulated raters" in \
            state["ais_description"]
        assert state["probes"] and set(state["probes"]) == {kind for kind, _ in state["probe_verdicts"]}
        assert all(count == state["probes"][kind] for (kind, judge), count in state["probe_verdicts"].items())
        call_command(*demo, stdout=io.StringIO())
        assert _demo_state(ais, passages) == state
    print(f"upgrade: old installation made in {made - started:.1f} s, migrated in {upgrade_seconds:.1f} s, "
          f"{len(campaigns)} campaigns x {len(ALL_URLS)} URLs x {len(ROLES)} roles in {sweep_seconds:.1f} s")


def _demo_state(ais: Campaign, passages: Campaign) -> dict:
    ais.refresh_from_db()
    return {
        "raters": {username: HumanJudgment.objects.filter(unit__campaign=ais, annotator__username=username).count()
                   for username in RATERS},
        "ais_description": ais.description,
        "judgments": HumanJudgment.objects.count(), "memberships": Membership.objects.count(),
        "users": get_user_model().objects.count(), "runs": JudgeRun.objects.count(),
        "probes": {row["kind"]: row["n"] for row in Probe.objects.filter(campaign=passages).values("kind")
                   .annotate(n=Count("pk"))},
        "probe_verdicts": {(row["probe__kind"], row["judge__name"]): row["n"] for row in
                           ProbeVerdict.objects.filter(probe__campaign=passages).values("probe__kind", "judge__name")
                           .annotate(n=Count("pk"))},
    }
