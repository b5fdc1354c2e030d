"""A task type is one package: the sentiment task type, defined only in the test package (tests/tasktype_sentiment/:
its spec, its import format, its report, its presentation and its templates), registered as every task type is, runs
a campaign end to end: made through the API, reviews imported, two annotators' verdicts through the annotation page,
an external judge's verdicts imported, the report built, shown and downloaded, the command's text; and the
project-wide query counts cover it through its sample, as they cover every registered type. No file outside its
package names it, and no migration was needed for it."""

import io
import json
import os
import shutil
import subprocess
import sys
from importlib import import_module
from pathlib import Path
from xml.etree import ElementTree

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotate.models import Campaign, HumanJudgment, Item, Role
from annotate.services.campaigns import campaign_creator_grant, campaign_get_or_create, membership_add
from annotate.task_types.formats import ImportFormat
from annotate.task_types.registry import register, task_type_get, task_type_names, unregister
from annotate.task_types.spec import TaskTypeSpec
from interchange.importers.service import import_run
from judges.errors import JudgeConfigError
from judges.models import ModelJudgment, RunStatus
from judges.services import judge_run_start
from tasktypes.checks import task_types_check
from tests.factories import UserFactory
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.project.test_query_counts import queries_counted, sample_of
from tests.report_support import report_stored
from tests.sides import sqlite_run_only

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(__file__).resolve().parents[1] / "tasktype_sentiment"
REVIEWS = [("kettle", "r1", "Boils fast and looks good."), ("kettle", "r2", "Leaks after a week."),
           ("kettle", "r3", "It is a kettle."), ("lamp", "r1", "Lovely warm light."),
           ("lamp", "r2", "Flickers, returned it."), ("lamp", "r3", "Bright enough.")]
# What the two annotators say of each review, and what the judge says.
FIRST = ["positive", "negative", "neutral", "positive", "negative", "neutral"]
SECOND = ["positive", "negative", "neutral", "positive", "negative", "positive"]
JUDGE = ["positive", "negative", "negative", "positive", "negative", "neutral"]


NAME = "sentiment"


@pytest.fixture
def sentiment():
    """The task type registered while the test runs: its spec module registers it when imported, as autodiscovery
    imports a package of tasktypes/ when Django starts (and again here, after an earlier test's teardown)."""
    spec = import_module("tests.tasktype_sentiment.spec")
    register(spec.Sentiment)
    yield task_type_get(NAME)
    unregister(NAME)


def _annotate(client, user, slug: str, verdicts: dict[str, str]) -> None:
    """USER judges every review of campaign SLUG on the annotation page, as VERDICTS {review text: sentiment} say."""
    client.force_login(user)
    for _ in range(len(verdicts)):
        page = client.get(f"/campaigns/{slug}/annotate/")
        assert page.status_code == 200 and page.templates[0].name == "sentiment/annotate.html"
        unit = page.context["unit"]
        answer = client.post(f"/campaigns/{slug}/annotate/submit/", {
            "assignment": unit["assignment_id"], "shown_version": unit["shown_version"],
            "sentiment": verdicts[unit["candidate"]]})
        assert (answer.status_code, answer["Location"]) == (302, f"/campaigns/{slug}/annotate/")  # recorded: next unit
    assert client.get(f"/campaigns/{slug}/annotate/").context["unit"] is None  # nothing left for this annotator


def test_a_task_type_package_runs_a_campaign_end_to_end(sentiment, db, client, tmp_path, eager,
                                                         django_capture_on_commit_callbacks):
    assert NAME in task_type_names()
    call_command("check", stdout=io.StringIO())  # the system check validates its spec like any other
    researcher, first, second = (UserFactory(username=name) for name in ("res", "ann1", "ann2"))
    campaign_creator_grant(user=researcher)
    api = APIClient()
    api.force_authenticate(researcher)
    made = api.post("/api/campaigns/", {"task_type": NAME, "name": "Reviews", "overlap": 2}, format="json")
    assert made.status_code == 201, made.json()
    campaign = Campaign.objects.get(slug="reviews")
    assert campaign.task_type_label == "Review sentiment"
    for user in (first, second):
        membership_add(campaign=campaign, user=user, role=Role.ANNOTATOR)

    reviews = tmp_path / "reviews.jsonl"
    reviews.write_text("".join(json.dumps({"product": p, "review": r, "text": t}) + "\n" for p, r, t in REVIEWS))
    summary = import_run(campaign=campaign, fmt="reviews-jsonl", paths=[reviews])
    assert (summary.topics_created, summary.items_created, summary.units_created) == (2, 6, 6)
    assert "created: 2 topics, 6 items" in "\n".join(summary.lines())  # worded by the spec's default import_lines

    texts = [text for _, _, text in REVIEWS]
    _annotate(client, first, "reviews", dict(zip(texts, FIRST, strict=True)))
    _annotate(client, second, "reviews", dict(zip(texts, SECOND, strict=True)))
    assert HumanJudgment.objects.filter(unit__campaign=campaign).count() == 12

    scores = tmp_path / "judge.tsv"
    scores.write_text("topic\titem\tscore\tlabel\n" + "".join(
        f"{p}\t{p}/{r}\t1\t{label}\n" for (p, r, _), label in zip(REVIEWS, JUDGE, strict=True)))
    assert import_run(campaign=campaign, fmt="judge-scores", paths=[scores], judge="lexicon").model_judgments_created \
        == {"lexicon": 6}
    # A judge family its spec names runs on its items as on any type's (a Celery task, run inline here).
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=campaign, name="bm25", family="bm25", config={}, created_by=researcher)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, run.error
    scored = ModelJudgment.objects.filter(judge__name="bm25", judge__campaign=campaign, failed=False)
    assert scored.count() == 6 and all(score is not None for score in scored.values_list("score", flat=True))
    with pytest.raises(JudgeConfigError, match="families for sentiment: bm25"):
        judge_run_start(campaign=campaign, name="clip", family="clipscore", config={})

    report_stored(campaign)
    client.force_login(researcher)
    page = client.get("/campaigns/reviews/report/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="sentiment-judges"' in html and "lexicon" in html and "Review sentiment" in html
    report = page.context["report"]
    # Five reviews have a human label (the annotators split on the sixth); the judge agrees on four of them.
    lexicon = report["judges"]["lexicon"]["item"]
    assert (lexicon["n"], lexicon["accuracy"]) == (5, 0.8) and report["judges"]["bm25"]["item"]["n"] == 0
    assert lexicon["cohen_kappa_ci95"] is not None and report["humans"]["fleiss_items"] == 6
    assert report["layout"] == "sentiment" and report["adjudication"]["units_labelled"] == 5
    judges_csv = client.get("/campaigns/reviews/report/judges.csv").content.decode().splitlines()
    assert judges_csv[0] == "judge,n,cohen_kappa,cohen_kappa_ci95_low,cohen_kappa_ci95_high,accuracy"
    assert judges_csv[1:] == ["bm25,0,,,,", f"lexicon,5,{lexicon['cohen_kappa']},{lexicon['cohen_kappa_ci95'][0]},"
                              f"{lexicon['cohen_kappa_ci95'][1]},0.8"]
    out = io.StringIO()
    call_command("agreement_report", "--campaign", "reviews", stdout=out)
    assert out.getvalue().startswith("Sentiment report: reviews") and "lexicon: kappa" in out.getvalue()


def test_the_project_wide_tests_cover_it_through_its_sample(sentiment, db, settings, tmp_path):
    """tests/project/test_query_counts.py counts the queries of every page of every registered task type on campaigns
    built from the type's sample (its spec's sample(), tests/tasktype_sentiment/sample.py here), with no list of types
    to edit: registered, a seventh type's pages are counted like the six's, within the same bounds."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.LEASE_EXPIRY_INTERVAL = 60  # as installed (test_every_page_runs_a_bounded_number_of_queries)
    counted, problems = queries_counted(NAME, media_root=settings.MEDIA_ROOT)
    assert not problems, "\n\n".join(problems)
    assert {("annotate", "annotator"), ("annotate?undo=", "annotator"), ("annotate-submit", "annotator"),
            ("adjudicate-unit", "researcher"),
            ("campaign-detail", "researcher"), ("agreement-report", "researcher"),
            ("api-campaign-judges", "researcher"), ("judge-panel", "researcher")} <= set(counted)
    # The URLs other types declare (graded's qrels, answer_ranking's rankings, the image files) are not its; nor is a
    # plot's, since its report draws none.
    assert not [page for page, _ in counted if page.startswith(("agreement-qrels", "api-agreement-qrels",
                                                                 "api-campaign-rankings", "campaign-image",
                                                                 "agreement-plot"))]


def test_a_task_type_without_a_sample_fails_the_project_wide_tests(sentiment, monkeypatch):
    monkeypatch.setattr(type(sentiment), "sample", TaskTypeSpec.sample)
    with pytest.raises(AssertionError, match=r"task type sentiment has no sample\(\): the project-wide tests need one"):
        sample_of(NAME)


SHOP_REVIEWS = [("kettle", "r1", "Boils fast."), ("kettle", "r2", "Meh."), ("lamp", "r1", "Lovely warm light.")]


def _shop_reviews() -> bytes:
    return "".join(json.dumps({"product": p, "review": r, "text": t}) + "\n" for p, r, t in SHOP_REVIEWS).encode()


def _shop_campaign(slug: str, researcher) -> Campaign:
    campaign = campaign_get_or_create(slug=slug, task_type=NAME, overlap=1)
    membership_add(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    return campaign


def _shop_import_worked(slug: str) -> None:
    """Both parameters reached the format: the products are named after the shop, the short review is left out."""
    assert sorted(Item.objects.filter(campaign__slug=slug).values_list("external_id", flat=True)) == [
        "acme:kettle/r1", "acme:lamp/r1"]


def test_a_format_with_parameters_of_its_own_is_imported_by_the_command_the_api_and_the_page(
        sentiment, db, client, tmp_path, imports_inline):
    """shop-reviews, declared in the task type's package only (tests/tasktype_sentiment/formats.py) with two
    parameters of its own (shop, min_chars), a count and a summary line: `import_data` takes them as options, the
    API as fields, the import page as form fields, and each gives them to the format."""
    researcher = UserFactory(username="res")
    path = tmp_path / "shop.jsonl"
    path.write_bytes(_shop_reviews())
    out = io.StringIO()
    call_command("import_data", "--campaign", "cli", "--task-type", NAME, "--format", "shop-reviews", "--shop", "acme",
                 "--min-chars", "5", str(path), stdout=out)
    _shop_import_worked("cli")
    lines = out.getvalue().splitlines()
    assert "reviews too short to import: 1" in lines and "lines read and not used: 1" in lines
    with pytest.raises(CommandError, match="--min-chars must be 1 or more, not 0"):
        call_command("import_data", "--campaign", "cli", "--task-type", NAME, "--format", "shop-reviews",
                     "--min-chars", "0", str(path), stdout=io.StringIO())
    with pytest.raises(CommandError, match="--shop names the shop of a shop-reviews file; format reviews-jsonl has "
                                           "none"):
        call_command("import_data", "--campaign", "cli", "--task-type", NAME, "--format", "reviews-jsonl",
                     "--shop", "acme", str(path), stdout=io.StringIO())

    _shop_campaign("api", researcher)
    api = APIClient()
    api.force_authenticate(researcher)
    job = api_import(imports_inline, api, "/api/campaigns/api/import/", {
        "format": "shop-reviews", "shop": "acme", "min_chars": 5,
        "files": [SimpleUploadedFile("shop.jsonl", _shop_reviews())]})
    assert job["status"] == "done" and job["parameters"] == {"shop": "acme", "min_chars": 5}
    assert job["summary"]["reviews_too_short"] == 1 and job["summary"]["items_created"] == 2
    _shop_import_worked("api")
    schema = api.get("/api/schema/")
    assert schema.status_code == 200 and b"min_chars" in schema.content and b"reviews_too_short" in schema.content

    _shop_campaign("page", researcher)
    client.force_login(researcher)
    url = reverse("campaign-import", args=["page"])
    page = client.get(url).content.decode()
    assert 'name="shop"' in page and 'name="min_chars"' in page and 'name="depth"' not in page
    assert "Shortest review <span class=\"muted\">(optional, shop-reviews: reviews shorter than" in page
    response = imports_inline(client.post, url, {"format": "shop-reviews", "shop": "acme", "min_chars": "5",
                                                 "files": SimpleUploadedFile("shop.jsonl", _shop_reviews())},
                              follow=True)
    assert response.status_code == 200 and "reviews too short to import: 1" in response.content.decode()
    _shop_import_worked("page")


# The project-wide tests that read the registry, each with the tests of it that must meet the seventh type (and run).
PROJECT_WIDE = {
    "tests/project/test_docs.py": ("test_the_site_builds_with_no_warning",
                                   "test_every_promised_page_is_in_the_navigation"),
    "tests/project/test_query_counts.py": (f"test_every_page_runs_a_bounded_number_of_queries[{NAME}]",),
    "tests/project/test_permissions_matrix.py": ("test_every_url_has_a_row_in_the_matrix",
                                                 "test_get_every_url[researcher-sentiment-disagreements]",
                                                 "test_get_every_url[annotator-api-sentiment-disagreements]"),
    "tests/project/test_browser_injection.py": (f"test_no_payload_runs_and_every_page_shows_it_as_text[{NAME}]",),
    "tests/project/test_task_type_registry.py": ("test_every_task_type_is_registered_with_its_hooks",),
}


def _checkout_with_the_type(folder: Path) -> Path:
    """A copy of the checkout's files (git's, tracked and untracked, ignored ones left out) in FOLDER, with the
    package copied to tasktypes/sentiment/ and its page (docs.md) to docs/task-types/sentiment.md: what adding a
    seventh task type to the project is."""
    root = folder / "concord"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, root / name)
    shutil.copytree(PACKAGE, root / "tasktypes" / NAME, ignore=shutil.ignore_patterns("__pycache__", "docs.md"))
    shutil.copy2(PACKAGE / "docs.md", root / "docs" / "task-types" / f"{NAME}.md")
    if (ROOT.parent / "shared").is_dir():
        (folder / "shared").symlink_to(ROOT.parent / "shared")
    return root


@pytest.mark.browser
@sqlite_run_only("the copy's tests run on SQLite in a process of their own whichever run starts them")
def test_a_seventh_task_type_is_a_folder_and_a_page_and_every_project_wide_test_meets_it(tmp_path):
    """The project with the seventh type added as a folder and a docs page, and no other file changed: the
    project-wide tests (docs, query counts, URL matrix, browser injection, registry) run on it, in a process of their
    own (its own SQLite test database), pass, and each has met the type: its own parameter of the query counts and
    the injection journey, its download's row in the URL matrix, its page in the docs' navigation."""
    root = _checkout_with_the_type(tmp_path)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTEST_", "DATABASE_URL", "CELERY_", "CACHE_URL", "CONCORD_TEST", "REDIS"))}
    report = tmp_path / "report.xml"
    # Its tests of those files, and the others named (a few seconds each, not the files' whole minutes).
    chosen = " or ".join([NAME, *(test for tests in PROJECT_WIDE.values() for test in tests if "[" not in test)])
    ran = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q",
                          f"--junitxml={report}", "-k", chosen, *PROJECT_WIDE], cwd=root, env=env,
                         capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stdout[-6000:] + ran.stderr[-3000:]
    passed = {f"{case.get('classname').replace('.', '/')}.py::{case.get('name')}"
              for case in ElementTree.parse(report).iter("testcase") if not len(case)}
    assert sorted(f"{path}::{test}" for path, tests in PROJECT_WIDE.items() for test in tests
                  if f"{path}::{test}" not in passed) == []


def test_nothing_outside_its_package_names_it():
    # The code and templates (the documentation may point at it as the example it is).
    named = [str(path.relative_to(ROOT)) for path in sorted(ROOT.rglob("*"))
             if path.is_file() and path.suffix in (".py", ".html", ".js", ".css", ".txt", ".ini", ".toml")
             and ".venv" not in path.parts and "var" not in path.parts and PACKAGE not in path.parents
             and path != Path(__file__).resolve() and "tasktype_sentiment" in path.read_text(errors="ignore")]
    assert named == []
    assert not any(NAME in path.read_text() for path in (ROOT / "annotate" / "migrations").glob("*.py"))


def test_the_system_check_refuses_an_incomplete_task_type(db):
    class Broken(TaskTypeSpec):
        name = "broken"
        page = ("broken/annotate.html",)
        formats = (ImportFormat(name="mystery"),)
        judge_families = ("bm25", "oracle")

    register(Broken)
    try:
        errors = [error for error in task_types_check() if "'broken'" in error.msg]
    finally:
        unregister("broken")
    assert {error.id for error in errors} == {"tasktypes.E001"}
    assert [error.msg.removeprefix("task type 'broken': ") for error in errors] == [
        "it has no label (what the pages call it)",
        *(f"it does not implement {hook}" for hook in ("value_check", "value_from_post", "unit_context",
                                                       "adjudication_questions", "report_build",
                                                       "report_presentation")),
        "its page is not (the annotation page, the unit fragment) templates",
        "its page template broken/annotate.html does not exist",
        "its options_form is not a CampaignOptionsForm",
        "the import page has no help for its formats mystery (their help)",
        "its formats mystery do not implement run",
        "its judge_families name no judge family: oracle (known: autoais, bm25, clipscore, cross-encoder, dense, em, "
        "f1, llm, monot5, vlm)",
    ]
    assert not [error for error in task_types_check() if "'broken'" in error.msg]  # gone with its registration
