"""Moving a campaign (interchange.archive): export it, empty the database, import it, and the agreement report and the
rows are the same; a damaged archive, a taken slug and outsiders are refused and change nothing."""

import hashlib
import io
import json
import shutil
import threading
import zipfile
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from accounts.services import token_create
from agreement.report import agreement_report_build
from annotate.images import image_file, image_stored
from annotate.models import Assignment, Campaign, CampaignDataVersion, HumanJudgment, Item, Role, Topic
from annotate.services.annotation import (
    assignment_draft_save,
    judgment_edit,
    judgment_submit,
    judgment_value_check,
    unit_lease_next,
)
from annotate.services.campaigns import CampaignError, campaign_options_set
from interchange.archive import campaign_export, campaign_import
from interchange.archive.media import media_files
from interchange.archive.tables import TABLES
from interchange.importers.common import ImportDataError
from judges.identity import judge_get_or_create
from judges.models import Judge, JudgeRun, Leaderboard, LeaderboardValue, LLMSample, ModelEndpoint, ModelJudgment
from reports.selectors import label_plan_get
from tasktypes.answer_ranking.options import ranking_dimensions
from tests.factories import MembershipFactory, UserFactory
from tests.judges_support import eager  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db

DEMO_SLUGS = {
    "qa_correctness": "nq301",
    "answer_ranking": "health-ranking",
    "ais": "ais-demo",
    "image_relevance": "image-demo",
    "passage_relevance": "passage-demo",
}
SCHEMA_APPS = ("annotate", "judges", "agreement")


# --- Helpers: what the tests compare, and the campaigns they move ---

def _report(campaign) -> str:
    """The report document as the report.json download and the API serve it, but for the item ids it names (the
    AIS disagreements point at their items by id): those are given as the items' external ids, since ids belong
    to one database and an import makes new ones. Numbers are compared to 12 significant digits: PostgreSQL may hand
    the imported rows back in another order, and a mean summed in another order can differ in its last bit."""
    external = dict(Item.objects.filter(campaign=campaign).values_list("pk", "external_id"))

    def ids_named(value):
        if isinstance(value, dict):
            return {key: external[inner] if key == "item" and type(inner) is int else ids_named(inner)
                    for key, inner in value.items()}
        if isinstance(value, list):
            return [ids_named(inner) for inner in value]
        if type(value) is float:
            return float(f"{value:.12g}")
        return value
    return json.dumps(ids_named(agreement_report_build(campaign=campaign)), sort_keys=True, ensure_ascii=False)


def _counts(campaign) -> dict[str, int]:
    return {table.name: table.rows(campaign).count() for table in TABLES}


def _database_state() -> dict[str, int]:
    """Rows of every table of every app: what a refused import must leave as it was."""
    return {model._meta.db_table: model._base_manager.count() for model in apps.get_models()}


def _media_state(media_root: Path) -> dict[str, str]:
    return {path.relative_to(media_root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(media_root.rglob("*")) if path.is_file()}


def _campaign_media(campaign, media_root: Path) -> dict[str, str]:
    """The campaign's own stored files by their path inside its folders, with their checksums (the image store's
    manifest left out: it names the files by path, so its bytes change with the campaign's id)."""
    files = {}
    for folder in ("images", "thumbs", "runs"):
        base = media_root / folder / str(campaign.pk)
        for path in sorted(base.rglob("*")) if base.is_dir() else ():
            if path.is_file() and path.name != "manifest.json":
                files[f"{folder}/{path.relative_to(base).as_posix()}"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def _item_images(campaign) -> dict[str, str]:
    """{item external id: checksum of its image file} for every image item that has its file."""
    digests = {}
    for external_id, data in Item.objects.filter(campaign=campaign, kind="image").values_list("external_id", "data"):
        if "image" in data:
            digests[external_id] = hashlib.sha256(image_file(data).read_bytes()).hexdigest()
    return digests


def _database_emptied(media_root: Path) -> None:
    """Every row of every table gone, accounts included, and every stored file: a fresh installation."""
    with connection.cursor() as cursor:
        for table in connection.introspection.django_table_names(only_existing=True, include_views=False):
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(table)}")
    shutil.rmtree(media_root, ignore_errors=True)
    media_root.mkdir(parents=True)
    assert not any(_database_state().values())


def _value(campaign, unit, *, flip: bool) -> dict:
    """A verdict of the campaign's task type on UNIT; FLIP gives another one."""
    n = unit.pk + flip
    if campaign.task_type == "qa_correctness":
        return {"correct": n % 2 == 0}
    if campaign.task_type == "ais":
        return {"interpretable": True, "supported": n % 2 == 0}
    if campaign.task_type in ("image_relevance", "passage_relevance"):
        return {"grade": n % 3}
    candidates = list(Item.objects.filter(topic=unit.topic).order_by("pk").values_list("pk", flat=True))
    order = candidates[::-1] if flip else candidates
    return {"rankings": {dimension: [[pk] for pk in order] for dimension in ranking_dimensions(campaign)}}


def _human_judgments_add(campaign, usernames: list[str], *, per_annotator: int) -> int:
    """The annotators judge units in the browser's way (lease, submit); the first also edits a verdict (a second
    version). Returns how many verdicts were made."""
    made = 0
    for n, username in enumerate(usernames):
        annotator = get_user_model().objects.get(username=username)
        for _ in range(per_annotator):
            assignment = unit_lease_next(campaign=campaign, annotator=annotator)
            if assignment is None:
                break
            judgment = judgment_submit(assignment=assignment, annotator=annotator,
                                       value=_value(campaign, assignment.unit, flip=n % 2 == 1))
            made += 1
        if n == 0 and made:
            judgment_edit(judgment=judgment, annotator=annotator, value=_value(campaign, judgment.unit, flip=True))
    return made


def _external_judge_add(campaign, name: str) -> Judge:
    """Verdicts produced elsewhere on every item (one of them failed), as an imported external judge."""
    judge = judge_get_or_create(campaign=campaign, name=name, family="external", config={"source": f"{name}.tsv"})
    binary = campaign.task_type in ("qa_correctness", "ais")
    rows = []
    for n, item in enumerate(Item.objects.filter(campaign=campaign).order_by("pk")):
        score = ((n * 7) % 10) / 10
        failed = n == 3
        rows.append(ModelJudgment(judge=judge, item=item, score=None if failed else score, failed=failed,
                                  label="" if failed or not binary else ("yes" if score >= 0.5 else "no"),
                                  raw="Maybe, it depends" if failed else f"score {score}"))
    ModelJudgment.objects.bulk_create(rows)
    return judge


def _llm_judge_add(campaign) -> Judge:
    """An LLM judge that judged a sample of six items with two samples each, in a finished run on that sample."""
    judge = judge_get_or_create(campaign=campaign, name="llm-small", family="llm",
                                config={"model": "tiny-local", "n": 2, "temperature": 0.7})
    items = list(Item.objects.filter(campaign=campaign).order_by("-pk")[:6])
    now = timezone.now()
    run = JudgeRun.objects.create(judge=judge, status="succeeded", total=len(items), batch_size=4,
                                  sample_item_ids=[item.pk for item in items], started_at=now, finished_at=now)
    for n, item in enumerate(items):
        verdict = "yes" if n % 2 else "no"
        ModelJudgment.objects.create(judge=judge, item=item, run=run, score=0.5 + n / 20, label=verdict,
                                     raw=f"Reasoning...\nFinal: {verdict}")
        for index in range(2):
            LLMSample.objects.create(judge=judge, item=item, index=index, text=f"Reasoning {index}. Final: {verdict}",
                                     prompt_tokens=120 + n, completion_tokens=30 + index, seconds=0.25 * (index + 1))
    return judge


@pytest.fixture
def media_root(settings, tmp_path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.MEDIA_ROOT.mkdir(exist_ok=True)
    return settings.MEDIA_ROOT


@pytest.fixture
def demo(eager, media_root, django_capture_on_commit_callbacks, task_type):
    """The demo campaign of TASK_TYPE, its rankers' runs judged (Celery eager, after the commit they wait for)."""
    with django_capture_on_commit_callbacks(execute=True):
        # The test builds the reports it compares.
        call_command("load_demo", "--no-reports", "--campaign", DEMO_SLUGS[task_type], stdout=io.StringIO())


def _demo_enriched(task_type: str) -> Campaign:
    """The demo campaign of TASK_TYPE with verdicts of two more annotators (one edited), a ranking in progress
    (answer_ranking), a second judge where the demo has one, and an LLM judge with its samples."""
    campaign = Campaign.objects.get(slug=DEMO_SLUGS[task_type])
    if task_type == "answer_ranking":
        annotator = get_user_model().objects.get(username="assessor3")
        assignment = unit_lease_next(campaign=campaign, annotator=annotator)
        assignment_draft_save(assignment=assignment, annotator=annotator,
                              draft=_value(campaign, assignment.unit, flip=False))
    assert _human_judgments_add(campaign, ["assessor1", "assessor2"], per_annotator=3) >= 4
    if Judge.objects.filter(campaign=campaign).count() < 2:
        _external_judge_add(campaign, "second-opinion")
    _llm_judge_add(campaign)
    # The queue follows a sample drawn by the active plan: its label plan comes along, topics named by external id.
    campaign = campaign_options_set(campaign=campaign, values={"queue_order": "sample"})
    runs = sorted((campaign.options or {}).get("runs") or {})
    if runs:  # graded campaigns: an automatic judge's leaderboard (format trec-leaderboard) comes along too
        board = Leaderboard.objects.create(campaign=campaign, name="autojudge", source="board.txt")
        LeaderboardValue.objects.bulk_create([LeaderboardValue(leaderboard=board, run=run, measure="ndcg_cut_10",
                                                               topic="all", value=0.1 * n)
                                              for n, run in enumerate(runs)])
    return campaign


# --- The round trip, for each task type ---

@pytest.mark.parametrize("task_type", list(DEMO_SLUGS), ids=list(DEMO_SLUGS))
def test_export_empty_database_import_gives_the_same_report_and_rows(demo, media_root, tmp_path, task_type):
    campaign = _demo_enriched(task_type)
    report, counts = _report(campaign), _counts(campaign)
    annotators = set(HumanJudgment.objects.filter(unit__campaign=campaign)
                     .values_list("annotator__username", flat=True))
    assert len(annotators) >= 2 and counts["judges"] >= 2 and counts["llm_samples"] == 12
    assert HumanJudgment.objects.filter(unit__campaign=campaign, version=2).exists()
    usernames = set(get_user_model().objects.filter(memberships__campaign=campaign).values_list("username", flat=True))
    media, images = _campaign_media(campaign, media_root), _item_images(campaign)
    old_item_ids = set(Item.objects.filter(campaign=campaign).values_list("pk", flat=True))
    draft_before = Assignment.objects.filter(unit__campaign=campaign, draft__isnull=False).count()

    plan = [(external, weight, key) for _, external, weight, key in label_plan_get(campaign=campaign)[1]]
    archive = tmp_path / "campaign.zip"
    exported = campaign_export(campaign, archive)
    assert exported.counts == counts and exported.bytes == archive.stat().st_size
    _database_emptied(media_root)
    summary = campaign_import(archive)

    imported = Campaign.objects.get(slug=DEMO_SLUGS[task_type])
    assert _report(imported) == report
    moved = label_plan_get(campaign=imported)
    assert [(external, weight, key) for _, external, weight, key in moved[1]] == plan and len(plan) >= 2
    topics = set(Topic.objects.filter(campaign=imported).values_list("id", flat=True))
    assert {topic for topic, *_ in moved[1]} == topics
    assert _counts(imported) == counts == summary.counts
    # Every row has a new id: the references were mapped, not copied.
    new_item_ids = set(Item.objects.filter(campaign=imported).values_list("pk", flat=True))
    assert len(new_item_ids) == len(old_item_ids) and not new_item_ids & old_item_ids
    # The accounts come back by name, inactive and unable to sign in until someone lets them.
    assert set(summary.users_created) >= usernames | annotators
    for user in get_user_model().objects.all():
        assert not user.is_active and not user.has_usable_password()
    # Current annotations are still valid verdicts of their units (rankings name the topic's new items).
    for judgment in HumanJudgment.objects.filter(unit__campaign=imported, is_current=True,
                                                 kind="annotation").select_related("unit"):
        assert judgment_value_check(task_type=task_type, value=judgment.value, unit=judgment.unit) == judgment.label
    assert Assignment.objects.filter(unit__campaign=imported, draft__isnull=False).count() == draft_before
    run = JudgeRun.objects.get(judge__campaign=imported, judge__name="llm-small")
    assert set(run.sample_item_ids) <= new_item_ids
    # The stored files came along into the new campaign's folders, and the items find theirs.
    assert _campaign_media(imported, media_root) == media and _item_images(imported) == images
    if task_type == "image_relevance":
        assert images and summary.media_files > len(images)
        for meta in imported.options["runs"].values():
            assert meta["file"].startswith(f"runs/{imported.pk}/") and (media_root / meta["file"]).is_file()
        for fields in image_stored(campaign_id=imported.pk).values():  # the store's manifest, rewritten
            assert image_file(fields).parent == media_root.resolve() / "images" / str(imported.pk)


def test_every_table_that_hangs_off_a_campaign_is_archived():
    """A model added to Concord's apps is either the campaign, one of the archive's tables, the installation's own
    registry of model endpoints (staff's, with their keys: never carried from one installation to another), what
    is derived from the archived rows (the data version and the stored report, rebuilt on the first open), or a
    worker's own bookkeeping (TaskStart: how often a queued message has started, gone when it ends)."""
    from agreement.models import StoredReport
    from annotate.models import TaskStart

    archived = {table.model for table in TABLES}
    models = {model for app in SCHEMA_APPS for model in apps.get_app_config(app).get_models()}
    assert models - archived == {Campaign, ModelEndpoint, CampaignDataVersion, StoredReport, TaskStart}


# --- A small campaign for the refusals ---

@pytest.fixture
def qa_moved(qa_campaign, annotator, media_root):
    """The QA fixture campaign with verdicts of two annotators, a judge whose configuration holds an API key (as
    configurations of older Concords did), and a judge run still running."""
    colleague = UserFactory(username="colleague")
    MembershipFactory(campaign=qa_campaign, user=colleague, role=Role.ANNOTATOR)
    _human_judgments_add(qa_campaign, ["ann", "colleague"], per_annotator=2)
    judge = judge_get_or_create(campaign=qa_campaign, name="gpt", family="llm",
                                config={"model": "gpt-x", "api_key": "sk-secret-key", "base_url": "http://llm"})
    run = JudgeRun.objects.create(judge=judge, status="running", total=6, started_at=timezone.now())
    for item in Item.objects.filter(campaign=qa_campaign)[:2]:
        ModelJudgment.objects.create(judge=judge, item=item, run=run, score=1.0, label="yes", raw="Yes")
    return qa_campaign


@pytest.fixture
def qa_archive(qa_moved, tmp_path) -> Path:
    path = tmp_path / "qa.zip"
    campaign_export(qa_moved, path)
    return path


def _rewritten(archive: Path, target: Path, *, replace: dict | None = None, add: dict | None = None) -> Path:
    """A copy of ARCHIVE with entries replaced (name -> bytes, or a function of the old bytes) or added."""
    replace, add = replace or {}, add or {}
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(target, "w") as sink:
        for entry in source.infolist():
            data = source.read(entry)
            change = replace.get(entry.filename)
            sink.writestr(entry.filename, change(data) if callable(change) else data if change is None else change)
        for name, data in add.items():
            sink.writestr(name, data)
    return target


def _manifest_changed(**changes):
    def change(data: bytes) -> bytes:
        return json.dumps({**json.loads(data), **changes}).encode()
    return change


def _last_line_cut(data: bytes) -> bytes:
    return data.rstrip(b"\n")[:-10]


def _last_line_dropped(data: bytes) -> bytes:
    return b"\n".join(data.rstrip(b"\n").split(b"\n")[:-1]) + b"\n"


def _unit_made_up(data: bytes) -> bytes:
    lines = data.rstrip(b"\n").split(b"\n")
    lines[1] = json.dumps({**json.loads(lines[1]), "unit": 987654321}).encode()
    return b"\n".join(lines) + b"\n"


DAMAGED = {
    "not a zip": (lambda archive, target: target.write_bytes(b"PK? no, just text\n") and target,
                  "not a zip archive"),
    "zip cut short": (lambda archive, target: target.write_bytes(archive.read_bytes()[:2000]) and target,
                      "not a zip archive"),
    "manifest not JSON": (lambda a, t: _rewritten(a, t, replace={"manifest.json": b"{not json"}),
                          "qa.zip:manifest.json:0: json: malformed JSON"),
    "manifest nested 5,000 deep": (lambda a, t: _rewritten(a, t, replace={"manifest.json": b"[" * 5000 + b"]" * 5000}),
                                   "qa.zip:manifest.json:0: json: JSON nested too deeply"),
    "another format": (lambda a, t: _rewritten(a, t, replace={"manifest.json": _manifest_changed(format="zip")}),
                       "manifest.json:0: format: expected 'concord-archive'"),
    "a newer version": (lambda a, t: _rewritten(a, t, replace={"manifest.json": _manifest_changed(version=2)}),
                        "manifest.json:0: version: archive version 2; this Concord reads version 1"),
    "a newer schema": (lambda a, t: _rewritten(a, t, replace={"manifest.json": _manifest_changed(
        migrations={"annotate": ["0001_initial", "0099_from_the_future"]})}),
        "migration annotate.0099_from_the_future is unknown here"),
    "entry leaving the folder": (lambda a, t: _rewritten(a, t, add={"../../escaped.txt": b"boo"}),
                                 "zip entry path leaves the folder"),
    "an entry no archive has": (lambda a, t: _rewritten(a, t, add={"run_me.sh": b"rm -rf /"}),
                                "run_me.sh: not part of a campaign archive"),
    "jsonl cut mid-line": (lambda a, t: _rewritten(a, t, replace={"items.jsonl": _last_line_cut}),
                           "qa.zip:items.jsonl:6: json: malformed JSON"),
    "jsonl short of a line": (lambda a, t: _rewritten(a, t, replace={"units.jsonl": _last_line_dropped}),
                              "units.jsonl:0: rows: 5 rows, but the manifest says 6"),
    "reference to nothing": (lambda a, t: _rewritten(a, t, replace={"human_judgments.jsonl": _unit_made_up}),
                             "human_judgments.jsonl:2: unit: no unit with id 987654321 in units.jsonl"),
    "a field of the wrong type": (lambda a, t: _rewritten(a, t, replace={"topics.jsonl": lambda data: data.replace(
        b'"external_id":"2"', b'"external_id":2', 1)}), "topics.jsonl:2: external_id: expected a string, got int"),
    "media that is not an image": (lambda a, t: _rewritten(a, t, add={"media/images/evil.png": b"<script>"}),
                                   "media/images/evil.png:0: file: not an image"),
}


@pytest.mark.parametrize("damage", list(DAMAGED), ids=list(DAMAGED))
def test_a_damaged_archive_is_refused_with_what_is_wrong_and_changes_nothing(qa_archive, media_root, tmp_path, damage):
    make, message = DAMAGED[damage]
    (tmp_path / "damaged").mkdir()
    name = "x.zip" if damage in ("not a zip", "zip cut short") else "qa.zip"
    damaged = make(qa_archive, tmp_path / "damaged" / name)
    before, files = _database_state(), _media_state(media_root)
    with pytest.raises(ImportDataError) as refused:
        campaign_import(damaged, slug="qa-copy")
    assert message in str(refused.value)
    assert _database_state() == before and _media_state(media_root) == files


def test_a_failure_after_the_files_are_copied_removes_them(image_campaign, media_root, tmp_path):
    archive = tmp_path / "img.zip"
    campaign_export(image_campaign, archive)
    bad_store = json.dumps({"Q243-tall": {"image": "../../outside.png"}}).encode()
    damaged = _rewritten(archive, tmp_path / "damaged.zip", add={"media/images/manifest.json": bad_store})
    before, files = _database_state(), _media_state(media_root)
    with pytest.raises(ImportDataError, match="Q243-tall.image: path '../../outside.png' leaves the media folder"):
        campaign_import(damaged, slug="img-copy")
    assert _database_state() == before and _media_state(media_root) == files
    assert not any(path.is_dir() for folder in ("images", "thumbs", "runs") for path in (media_root / folder).glob("*"))


def test_a_taken_slug_is_refused_and_another_one_is_taken(qa_moved, qa_archive):
    before = _database_state()
    with pytest.raises(CampaignError, match="campaign 'qa' already exists; import the archive under another slug"):
        campaign_import(qa_archive)
    with pytest.raises(CampaignError, match="not a valid campaign slug"):
        campaign_import(qa_archive, slug="no spaces/here")
    assert _database_state() == before

    summary = campaign_import(qa_archive, slug="qa-copy")
    copy = Campaign.objects.get(slug="qa-copy")
    assert (summary.campaign, summary.archived_as, summary.users_created) == ("qa-copy", "qa", [])
    assert _counts(copy) == _counts(qa_moved)
    # The running run has no worker on the importing side: it comes back cancelled, ready to resume.
    assert summary.runs_stopped == 1
    assert JudgeRun.objects.get(judge__campaign=copy).status == "cancelled"


@pytest.mark.django_db(transaction=True)
def test_annotators_keep_writing_while_a_campaign_is_exported(qa_moved, tmp_path, monkeypatch):
    """The export reads one snapshot without holding the write lock: a topic added meanwhile, from another
    connection, is written at once and is not in the archive (which agrees with itself)."""
    from interchange.archive import writer

    written = []

    def write_elsewhere():
        try:
            Topic.objects.create(campaign_id=qa_moved.pk, external_id="added-meanwhile", text="a new question")
            written.append(True)
        finally:
            connection.close()

    def media_files_after_a_write(refs):
        thread = threading.Thread(target=write_elsewhere)
        thread.start()
        thread.join(timeout=15)
        return media_files(refs)

    monkeypatch.setattr(writer, "media_files", media_files_after_a_write)
    summary = campaign_export(qa_moved, tmp_path / "qa.zip")
    assert written == [True]
    assert summary.counts["topics"] == 3 and Topic.objects.filter(campaign=qa_moved).count() == 4


def test_api_keys_stay_behind(qa_moved, qa_archive):
    with zipfile.ZipFile(qa_archive) as bundle:
        assert b"sk-secret-key" not in b"".join(bundle.read(name) for name in bundle.namelist())
    campaign_import(qa_archive, slug="qa-copy")
    original, copy = Judge.objects.get(campaign=qa_moved), Judge.objects.get(campaign__slug="qa-copy")
    assert "api_key" not in copy.config and copy.config_hash == original.config_hash


def test_the_commands_export_and_import_with_a_summary(qa_moved, tmp_path):
    out = io.StringIO()
    call_command("export_campaign", "--campaign", "qa", "--out", str(tmp_path / "qa.zip"), stdout=out)
    assert "campaign qa: memberships 3, topics 3, items 6" in out.getvalue()
    assert not list(tmp_path.glob(".*.part"))
    out = io.StringIO()
    call_command("import_campaign", str(tmp_path / "qa.zip"), "--slug", "qa-2", "--owner", "res", stdout=out)
    assert "campaign qa-2 (qa_correctness, archived as qa): memberships 3, topics 3, items 6" in out.getvalue()
    assert "judge runs that were queued or running when exported, now cancelled" in out.getvalue()
    with pytest.raises(CommandError, match="already exists"):
        call_command("import_campaign", str(tmp_path / "qa.zip"), stdout=io.StringIO())
    with pytest.raises(CommandError, match="no campaign 'nope'"):
        call_command("export_campaign", "--campaign", "nope", "--out", str(tmp_path / "x.zip"))


def test_missing_accounts_are_created_inactive_and_named_in_the_summary(qa_moved, qa_archive):
    HumanJudgment.objects.filter(annotator__username="colleague").delete()
    Assignment.objects.filter(annotator__username="colleague").delete()
    get_user_model().objects.filter(username="colleague").delete()
    summary = campaign_import(qa_archive, slug="qa-copy")
    assert summary.users_created == ["colleague"]
    assert any("accounts created inactive, with no usable password (1): colleague" in line for line in summary.lines())
    colleague = get_user_model().objects.get(username="colleague")
    assert not colleague.is_active and not colleague.has_usable_password()
    assert HumanJudgment.objects.filter(unit__campaign__slug="qa-copy", annotator=colleague).count() == 2


# --- The download and the API: researchers of the campaign export; staff import ---

@pytest.fixture
def outsiders(qa_moved):
    other = UserFactory(username="res-elsewhere")
    MembershipFactory(campaign__slug="elsewhere", user=other, role=Role.RESEARCHER)
    return {"annotator": "ann", "other_researcher": "res-elsewhere"}


def test_the_campaign_page_links_the_download_for_researchers_only(client, qa_moved, researcher, annotator):
    url = reverse("campaign-export", kwargs={"slug": "qa"})
    client.force_login(researcher)
    assert url in client.get(reverse("campaign-detail", kwargs={"slug": "qa"})).content.decode()
    client.force_login(annotator)
    assert url not in client.get(reverse("campaign-detail", kwargs={"slug": "qa"})).content.decode()


def test_the_download_is_the_researchers_alone(client, qa_moved, outsiders, tmp_path):
    url = reverse("campaign-export", kwargs={"slug": "qa"})
    assert client.get(url)["Location"].startswith("/accounts/login/")
    # The campaign's annotator is told the download is for its researchers (403); another campaign's researcher
    # is not told it exists (404).
    for (who, username), status in zip(outsiders.items(), (403, 404)):
        client.force_login(get_user_model().objects.get(username=username))
        assert client.get(url).status_code == status, who
    client.force_login(get_user_model().objects.get(username="res"))
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert 'filename="qa-archive.zip"' in response["Content-Disposition"]
    archive = tmp_path / "download.zip"
    archive.write_bytes(b"".join(response.streaming_content))
    Campaign.objects.filter(slug="qa").update(slug="qa-old")
    assert campaign_import(archive).counts == _counts(Campaign.objects.get(slug="qa-old"))


def _token(username: str) -> str:
    return "Token " + token_create(user=get_user_model().objects.get(username=username), name="archive")[1]


def test_the_api_export_is_the_researchers_alone(client, qa_moved, outsiders):
    url = reverse("api-campaign-export", kwargs={"slug": "qa"})
    assert url == "/api/campaigns/qa/export/"
    assert client.get(url).status_code == 401
    for (who, username), status in zip(outsiders.items(), (403, 404)):
        assert client.get(url, HTTP_AUTHORIZATION=_token(username)).status_code == status, who
    response = client.get(url, HTTP_AUTHORIZATION=_token("res"))
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as bundle:
        manifest = json.loads(bundle.read("manifest.json"))
    assert (manifest["format"], manifest["version"], manifest["campaign"]["slug"]) == ("concord-archive", 1, "qa")
    assert manifest["counts"]["human_judgments"] == 5 and manifest["migrations"]["annotate"]


def test_the_api_import_is_for_staff(client, qa_moved, qa_archive, outsiders):
    url = reverse("api-campaign-archives")
    assert url == "/api/campaign-archives/"
    before = _database_state()

    def post(username=None, **extra):
        headers = {"HTTP_AUTHORIZATION": _token(username)} if username else {}
        with qa_archive.open("rb") as handle:
            return client.post(url, {"archive": handle, **extra}, **headers)

    assert post().status_code == 401
    for username in (*outsiders.values(), "res"):  # researchers of campaigns do not make campaigns
        assert post(username, slug="qa-copy").status_code == 403
    assert _database_state() == {**before, "accounts_apitoken": 3}

    UserFactory(username="operator", is_staff=True)
    response = post("operator")
    assert response.status_code == 400 and "campaign 'qa' already exists" in response.json()["detail"]
    response = post("operator", slug="qa-copy")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["campaign"], body["archived_as"], body["counts"]["items"]) == ("qa-copy", "qa", 6)
    copy = Campaign.objects.get(slug="qa-copy")
    assert copy.memberships.filter(user__username="operator", role=Role.RESEARCHER).exists()

    with qa_archive.open("rb") as handle:
        damaged = io.BytesIO(handle.read()[:3000])
    damaged.name = "broken.zip"
    response = client.post(url, {"archive": damaged, "slug": "qa-3"}, HTTP_AUTHORIZATION=_token("operator"))
    assert response.status_code == 400 and response.json()["detail"].startswith("broken.zip:0: file: not a zip")
    assert not Campaign.objects.filter(slug="qa-3").exists()


def test_an_archive_written_before_fallback_labels_still_reads():
    """Campaign archives made before ModelJudgment.fallback_label existed lack the key: it takes its default."""
    from interchange.archive.tables import RowReader
    from judges.models import ModelJudgment

    reader = RowReader(ModelJudgment, resolver=lambda field: (lambda value: value))
    row = {"id": 7, "judge": 1, "item": 2, "run": None, "score": None, "label": "", "raw": "Unsure.", "failed": True,
           "created_at": "2026-11-20T10:00:00+00:00"}
    old_id, values = reader.read(row)
    assert old_id == 7 and dict(zip(reader.columns, values))["fallback_label"] == ""


def test_guidelines_and_the_version_each_judgment_was_made_under_travel(qa_campaign, researcher, annotator, tmp_path,
                                                                        media_root):
    from annotate.models import CampaignGuidelines
    from annotate.services.campaigns import campaign_update

    campaign_update(campaign=qa_campaign, editor=researcher, guidelines="Be **strict**.")
    judged = {}
    for text in ("Be lenient.", None):
        assignment = unit_lease_next(campaign=qa_campaign, annotator=annotator)
        judgment = judgment_submit(assignment=assignment, annotator=annotator, value={"correct": True})
        judged[assignment.unit.item.external_id] = judgment.guidelines.version
        if text:
            campaign_update(campaign=qa_campaign, editor=researcher, guidelines=text)
    assert sorted(judged.values()) == [1, 2]
    archive = tmp_path / "qa.zip"
    campaign_export(qa_campaign, archive)
    summary = campaign_import(archive, slug="qa-copy")
    assert summary.counts["guidelines"] == 2
    copy = Campaign.objects.get(slug="qa-copy")
    assert list(CampaignGuidelines.objects.filter(campaign=copy).order_by("version")
                .values_list("version", "text", "created_by__username")) == [
        (1, "Be **strict**.", "res"), (2, "Be lenient.", "res")]
    moved = {j.unit.item.external_id: j.guidelines.version
             for j in HumanJudgment.objects.filter(unit__campaign=copy).select_related("unit__item", "guidelines")}
    assert moved == judged
    assert not set(CampaignGuidelines.objects.filter(campaign=copy).values_list("pk", flat=True)) & set(
        CampaignGuidelines.objects.filter(campaign=qa_campaign).values_list("pk", flat=True))


def test_an_archive_written_before_guidelines_existed_still_imports(qa_archive, tmp_path):
    """Its manifest counts no guidelines and it has no guidelines.jsonl: the campaign comes with none."""
    older = tmp_path / "older.zip"
    with zipfile.ZipFile(qa_archive) as source, zipfile.ZipFile(older, "w") as sink:
        for entry in source.infolist():
            if entry.filename == "guidelines.jsonl":
                continue
            data = source.read(entry)
            if entry.filename == "manifest.json":
                manifest = json.loads(data)
                del manifest["counts"]["guidelines"]
                data = json.dumps(manifest).encode()
            sink.writestr(entry.filename, data)
    summary = campaign_import(older, slug="qa-older")
    assert summary.counts["guidelines"] == 0
    assert HumanJudgment.objects.filter(unit__campaign__slug="qa-older").count() == \
        HumanJudgment.objects.filter(unit__campaign__slug="qa").count() == 5
    assert not HumanJudgment.objects.filter(unit__campaign__slug="qa-older", guidelines__isnull=False).exists()
