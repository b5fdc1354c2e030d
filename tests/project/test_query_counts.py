"""Every page runs a bounded number of SQL queries whatever the campaign's size.

For each registered task type two campaigns are built from its sample (TaskTypeSpec.sample: its topics, items,
human verdicts, judges and their verdicts, runs where it pools them, in its package's sample.py), so that a new task
type is covered without an edit here (tests/tasktypes/test_task_type_package.py counts the test package's sentiment
type's pages): SMALL and LARGE, the second with LARGE / SMALL times the topics, and
with them the items, system outputs, units, human judgments (two annotators), model judgments (two judges) and
failed verdicts. What is not campaign size stays the same at both sizes: one researcher, two annotators, two
judges with one run each, three systems. Every GET URL of the URL configuration (enumerated from the resolver,
as tests/project/test_permissions_matrix.py does) is requested by each role that may see it, at both sizes, and its
queries counted: the larger campaign may cost no more queries than the small one (an N+1 shows up as a count
that grows), and no page may cost more than its bound (measured, plus headroom: BOUNDS, or the sample's own where a
type's page costs more), so a page that starts running more queries shows up here even when the extra queries do not
grow with the campaign. URLs that answer only for some task types are requested for those only, as the specs declare
them (only_for).

Judges and runs are held constant because they are not the campaign's size, but pages do pay for them: the judge
panel and GET api/campaigns/SLUG/judge-runs/ one query per run shown (run_progress; at most 50 and 100 runs), the
panel two per judge with failed verdicts, and GET api/campaigns/SLUG/judges/ one per LLM or VLM judge (usage).
"""

import re
import uuid
from datetime import timedelta
from importlib import import_module

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.services import invitation_create, invited_account_create, token_create
from agreement.plots import report_plot, report_plot_names
from agreement.stored import report_for_open
from annotate.models import (
    Assignment,
    AssignmentStatus,
    CampaignGuidelines,
    HumanJudgment,
    Item,
    JudgmentKind,
    Role,
    SystemOutput,
    Topic,
    Unit,
)
from annotate.services.annotation import unit_lease_next
from annotate.task_types.registry import task_type_get, task_type_modules, task_type_names, task_types
from annotate.task_types.sample import TaskTypeSample
from annotate.task_types.spec import UNIT_TOPIC
from conftest import image_write
from interchange.importers.service import ImportSummary
from interchange.models import ImportJob
from judges.identity import config_hash
from judges.models import Judge, JudgeRun, LLMSample, ModelJudgment
from tests.factories import CampaignFactory, MembershipFactory, UserFactory
from tests.project.test_permissions_matrix import ALL_URLS
from tests.report_support import report_stored

ROLES = ("researcher", "annotator")
SMALL, LARGE = 3, 12  # topics; everything that hangs off a topic scales with them
SYSTEMS = 3

# Not measured, and why:
# - admin: Django's own admin, for staff only (no campaign role is staff); its queries are Django's, not ours.
# - api-schema, api-docs: the OpenAPI document and its viewer are made from the code, never from a campaign.
# - static files are served by whitenoise's middleware, outside the URL configuration (no queries).
# - docs: the manual's built files (config.docs), the same for every campaign and visitor; no campaign is read.
SKIPPED = {"api-schema", "api-docs", "docs"}
# The Item.kind whose files annotate.views_images serves (campaign-image): a type whose items are of this kind
# (spec.item_kind) answers there.
IMAGE_KIND = "image"
# A page that fails outright for a task type cannot be counted; the test checks it still fails the same way, so
# the entry goes (and the page is counted) once it is fixed. None now.
FAILING: dict[tuple[str, str], type[Exception]] = {}
# GET is refused before any lookup for every role here (POST only, or staff only): nothing to count.
NOT_GET = {"api-campaign-archives": "POST only, and staff only: a 403 for every campaign role before the method check"}
# The same URL with a query string (and htmx's header): (label, query, headers), beside the plain GET.
HTMX = {"HTTP_HX_REQUEST": "true"}
VARIANTS = {
    "annotate": [("?undo=", {"undo": ""}, {})],  # the annotator's last verdict, to change it
    "judge-panel": [("?run= (htmx row)", {"run": "{run_id}"}, HTMX)],  # one run's progress row, polled
    "import-job": [(" (htmx)", {}, HTMX)],  # the job's progress, polled until it ends
    "api-campaign-import-job": [],
    # Two judges compared: their verdicts, the human labels, the changed items' texts.
    "agreement-judge-compare": [("?a=&b=", {"a": "{first_judge}", "b": "{judge}"}, {})],
    "api-agreement-compare": [("?a=&b=", {"a": "{first_judge}", "b": "{judge}"}, {})],
    "api-campaign-rankings": [("?shape=label-studio", {"shape": "label-studio"}, {}),
                              ("?shape=trec-run", {"shape": "trec-run", "judge": "{judge}"}, {})],
}
# Statuses that count as "the page was shown": a run row whose run is over answers 286 (htmx: stop polling).
SHOWN = {200, 286}

# Queries per (page, role) of every task type: what was measured at either size plus a few queries of headroom. A
# task type whose page costs more says so in its sample (TaskTypeSample.bounds). A page that needs more has changed
# how it reads: look at its queries first.
BOUNDS = {
    ("profile", "researcher"): 5,
    ("profile", "annotator"): 5,
    ("password-change", "researcher"): 4,
    ("password-change", "annotator"): 4,
    ("password-change-done", "researcher"): 4,
    ("password-change-done", "annotator"): 4,
    ("api-tokens", "researcher"): 5,
    ("api-token-detail", "researcher"): 5,
    ("api-tokens", "annotator"): 5,
    ("api-preferences", "researcher"): 3,
    ("api-preferences", "annotator"): 3,
    ("account-welcome", "researcher"): 5,  # a one-time link's page (the world's new person's)
    ("account-welcome", "annotator"): 5,
    ("campaign-new", "researcher"): 6,
    ("campaign-settings", "researcher"): 8,
    ("campaign-people", "researcher"): 9,
    ("api-campaign-guidelines", "researcher"): 7,
    ("api-campaign-guidelines", "annotator"): 7,
    ("api-campaign-members", "researcher"): 9,
    ("home", "researcher"): 9,
    ("home", "annotator"): 9,
    ("login", "researcher"): 7,
    ("login", "annotator"): 7,
    ("campaign-detail", "researcher"): 18,
    ("campaign-detail", "annotator"): 9,
    ("campaign-import", "researcher"): 8,
    ("campaign-options", "researcher"): 5,
    ("campaign-export", "researcher"): 24,
    ("campaign-image", "researcher"): 9,
    ("campaign-image", "annotator"): 9,
    ("annotate", "annotator"): 12,
    ("annotate?undo=", "annotator"): 12,
    # An annotator's requests as the annotation page's htmx makes them (annotation_requests_counted): the next unit
    # leased, the next unit held (a reload), and a submit with its verdict, the next lease and its fragment. On
    # SQLite with a per-process cache: the session and the user are read from the database (on PostgreSQL + Redis
    # from the shared cache, one query fewer each; config.caches, accounts.user_cache); a verdict's four writes are
    # four statements (on PostgreSQL one: annotate.writes).
    ("annotate-next-leasing", "annotator"): 8,
    ("annotate-next", "annotator"): 4,
    ("annotate-submit", "annotator"): 13,
    # The adjudication queue (annotate.selectors.adjudication: units, judgments, judges and their verdicts) and one unit
    # (the queue again, for the next unit, and what the task type's annotation page shows of it).
    ("adjudicate", "researcher"): 10,
    ("adjudicate-unit", "researcher"): 16,
    ("api-campaign-adjudication", "researcher"): 9,
    ("api-campaign-adjudication-unit", "researcher"): 11,
    # The Items page: a page of items with their topics, the count, the categories with theirs.
    ("campaign-items", "researcher"): 7,
    ("judge-panel", "researcher"): 17,
    # Without a split (the world's campaigns have none): the form only.
    ("judge-development", "researcher"): 4,
    ("api-development-split", "researcher"): 3,
    ("judge-probes", "researcher"): 7,
    ("api-probes", "researcher"): 5,
    ("import-job", "researcher"): 6,
    ("import-job (htmx)", "researcher"): 6,
    ("api-campaign-imports", "researcher"): 8,
    ("api-campaign-import-job", "researcher"): 6,
    ("judge-panel?run= (htmx row)", "researcher"): 11,
    # The report and its downloads read the stored report (agreement.stored): the data version and one row, whatever
    # the number of judgments (the world's report is built as the worker builds it: tests/report_support.py).
    ("agreement-report", "researcher"): 6,
    ("agreement-report-json", "researcher"): 5,
    # The stored report's state: the data version and the stored row, never the judgments (agreement.stored).
    ("agreement-report-status", "researcher"): 5,
    ("agreement-systems-csv", "researcher"): 5,
    ("agreement-judges-csv", "researcher"): 5,
    ("agreement-topics-csv", "researcher"): 5,
    ("agreement-ppi-csv", "researcher"): 5,
    ("agreement-plot", "researcher"): 5,
    # The items CSV reads the database as it is (human labels: annotations, adjudications, the annotators' names;
    # judges and verdicts; items), not the stored report.
    ("agreement-items-csv", "researcher"): 9,
    # The labels behind the report, read now: the human labels (three queries), the items, the judges and verdicts.
    ("agreement-labels-csv", "researcher"): 9,
    # The stored report, the judges with their configurations, and the model ids their servers reported.
    ("agreement-methods-txt", "researcher"): 7,
    # The form only (no judges chosen): the campaign's judges' names.
    ("agreement-judge-compare", "researcher"): 5,
    # The verdicts, the human labels, the two judges' configurations and reported model ids.
    ("agreement-judge-compare?a=&b=", "researcher"): 11,
    ("api-campaigns", "researcher"): 9,
    ("api-campaigns", "annotator"): 9,
    ("api-campaign", "researcher"): 15,
    ("api-campaign", "annotator"): 9,
    ("api-campaign-items", "researcher"): 11,
    ("api-campaign-options", "researcher"): 5,
    ("api-campaign-rankings", "researcher"): 11,
    ("api-campaign-rankings?shape=label-studio", "researcher"): 11,
    ("api-campaign-rankings?shape=trec-run", "researcher"): 10,
    ("api-campaign-export", "researcher"): 24,
    ("api-campaign-judges", "researcher"): 12,  # + items_not_judged: 2 (judges_new_items)
    ("api-campaign-endpoints", "researcher"): 5,
    ("api-campaign-judge-runs", "researcher"): 12,
    ("api-judge-run", "researcher"): 9,
    ("api-judge-run-failures", "researcher"): 11,
    ("api-agreement-report", "researcher"): 5,
    ("api-agreement-status", "researcher"): 5,
    ("api-agreement-methods", "researcher"): 7,
    ("api-agreement-compare", "researcher"): 4,
    ("api-agreement-compare?a=&b=", "researcher"): 9,
}

# The files a task type's report serves beside it (its spec's extra_downloads: graded's qrels and leaderboards), served
# by one view (agreement.views_extras) from the stored report: the session, the user, the campaign, its data version,
# the stored report; what the type writes from it reads no more (graded's runs are files named in campaign.options).
EXTRA_DOWNLOAD_QUERIES = 5


def _extra_download_bounds() -> dict[tuple[str, str], int]:
    return {(name, "researcher"): EXTRA_DOWNLOAD_QUERIES for spec in task_types()
            for download in spec.extra_downloads for name in (download.url_name, download.api_url_name) if name}


def sample_of(task_type: str) -> TaskTypeSample:
    """The sample of TASK_TYPE (its spec's sample()), from which its campaigns are built."""
    sample = task_type_get(task_type).sample()
    assert sample is not None, f"task type {task_type} has no sample(): the project-wide tests need one"
    return sample


def only_for() -> dict[str, set[str]]:
    """{URL name: the task types it answers for} of the URLs that exist for every campaign but answer only for some
    task types (elsewhere a 404 or 400, by design), as the registered specs declare them: the files a type's report
    serves beside it (extra_downloads: graded's qrels and leaderboards), the pages and endpoints of a type's own URL
    modules (registry.task_type_modules: answer_ranking's rankings), and the image files of a type whose items are
    images."""
    answers: dict[str, set[str]] = {"campaign-image": set()}
    for spec in task_types():
        names = {name for download in spec.extra_downloads for name in (download.url_name, download.api_url_name)
                 if name}
        package = type(spec).__module__.rpartition(".")[0]
        for module in (*task_type_modules("urls"), *task_type_modules("api_urls")):
            if module.rpartition(".")[0] == package:
                names |= {pattern.name for pattern in import_module(module).urlpatterns if pattern.name}
        if spec.item_kind == IMAGE_KIND:
            names.add("campaign-image")
        for name in names:
            answers.setdefault(name, set()).add(spec.name)
    return answers


def campaign_from_sample(task_type, *, topics, tag, media_root):
    """A campaign of TOPICS topics, made from the task type's sample: its people, items, outputs, units, human and
    model verdicts, and runs.

    Both annotators judge every unit but those of the last topic, which only the colleague judged: that leaves
    a slot open there for the annotator, whose lease the annotation page shows.
    """
    spec, sample = task_type_get(task_type), sample_of(task_type)
    now = timezone.now()
    researcher, annotator, colleague = (UserFactory(username=f"{who}-{tag}") for who in ("res", "ann", "ann2"))
    campaign = CampaignFactory(slug=f"{task_type.replace('_', '-')}-{tag}", task_type=task_type, overlap=2,
                               options=dict(sample.options))
    for user, role in ((researcher, Role.RESEARCHER), (annotator, Role.ANNOTATOR), (colleague, Role.ANNOTATOR)):
        MembershipFactory(campaign=campaign, user=user, role=role)
    topic_rows = Topic.objects.bulk_create([
        Topic(campaign=campaign, external_id=sample.topic_id.format(q), text=f"question number {q}",
              data=sample.topic_data(q))
        for q in range(1, topics + 1)])

    def image(image_id: str) -> dict:
        return image_write(media_root, image_id, (24, 16), "JPEG")

    made = [(topic, candidate) for q, topic in enumerate(topic_rows, start=1)
            for candidate in sample.items(campaign=campaign, topic=topic, q=q, systems=SYSTEMS, image=image)]
    items = Item.objects.bulk_create([candidate.item for _, candidate in made])
    outputs = [SystemOutput(campaign=campaign, system=candidate.system, topic=topic, item=item, rank=1, score=0.5,
                            **candidate.output)
               for (topic, candidate), item in zip(made, items) if candidate.system]
    if spec.pools_runs:
        runs, options = sample.runs(campaign=campaign, items=items, systems=SYSTEMS, media_root=media_root)
        outputs += runs
        campaign.options = {**campaign.options, **options}
        campaign.save(update_fields=["options"])
    SystemOutput.objects.bulk_create(outputs)

    by_topic = {}
    for item in items:
        by_topic.setdefault(item.topic_id, []).append(item)
    if spec.unit == UNIT_TOPIC:
        units = [Unit(campaign=campaign, topic=topic, item=None, judgments_needed=2, position=n)
                 for n, topic in enumerate(topic_rows)]
    else:
        units = [Unit(campaign=campaign, topic_id=item.topic_id, item=item, judgments_needed=2, position=n)
                 for n, item in enumerate(items)]
    last_topic = topic_rows[-1].pk
    for unit in units:
        unit.judgments_done = 1 if unit.topic_id == last_topic else 2
    units = Unit.objects.bulk_create(units)
    # Guidelines in two versions; the human judgments were made under one or the other (the Settings page counts them).
    versions = [CampaignGuidelines.objects.create(campaign=campaign, version=v, created_by=researcher,
                                                  text=f"Version {v}: judge **carefully**.") for v in (1, 2)]
    leases, verdicts, history = [], [], []
    first_units = set()
    for n, unit in enumerate(units):
        candidates = [item.pk for item in by_topic[unit.topic_id]]
        first = unit.topic_id not in first_units
        first_units.add(unit.topic_id)
        for who in ((colleague,) if unit.topic_id == last_topic else (annotator, colleague)):
            submitted = now - timedelta(minutes=len(units) - n)
            leases.append(Assignment(unit=unit, annotator=who, status="submitted", leased_at=submitted,
                                     expires_at=submitted + timedelta(minutes=30), submitted_at=submitted))
            value, label = sample.value(n + (who == colleague and n % 3 == 0), candidates)  # mostly agreeing
            edited = first and who == annotator  # the annotator changed their verdict on each topic's first unit
            verdicts.append(HumanJudgment(unit=unit, annotator=who, kind=JudgmentKind.ANNOTATION, value=value,
                                          label=label, version=2 if edited else 1, guidelines=versions[n % 2]))
            if edited:
                value, label = sample.value(n + 1, candidates)
                history.append(HumanJudgment(unit=unit, annotator=who, kind=JudgmentKind.ANNOTATION, value=value,
                                             label=label, version=1, is_current=False))
        if first and unit.topic_id != last_topic:  # and the researcher settled it
            value, label = sample.value(n + 2, candidates)
            history.append(HumanJudgment(unit=unit, annotator=researcher, kind=JudgmentKind.ADJUDICATION, value=value,
                                         label=label))
    for lease, verdict in zip(Assignment.objects.bulk_create(leases), verdicts):
        verdict.assignment = lease
    HumanJudgment.objects.bulk_create(verdicts + history)

    runs = []
    first_items = {candidates[0].pk for candidates in by_topic.values()}
    for number, (name, family, config) in enumerate(sample.judges):
        judge = Judge.objects.create(campaign=campaign, name=name, family=family, config=config,
                                     config_hash=config_hash(family=family, config=config))
        run = JudgeRun.objects.create(judge=judge, status="succeeded", total=len(items), created_by=researcher,
                                      started_at=now - timedelta(minutes=5), finished_at=now)
        runs.append(run)
        rows = []
        for n, item in enumerate(items):
            score, label, raw = sample.verdict(number, n)
            if number == 1 and item.pk in first_items:
                score, label, raw = None, "", '{"reason": "%s"}' % ("timeout" if n % 2 else "no verdict in the output")
            rows.append(ModelJudgment(judge=judge, item=item, run=run, score=score, label=label, raw=raw,
                                      failed=not label and score is None))
        ModelJudgment.objects.bulk_create(rows)
        if family == "llm":
            LLMSample.objects.bulk_create([LLMSample(judge=judge, item=item, index=0, text="yes", prompt_tokens=40,
                                                     completion_tokens=3, seconds=0.2) for item in items])
    lease = unit_lease_next(campaign=campaign, annotator=annotator)
    assert lease is not None and lease.unit.topic_id == last_topic
    # The researcher may make campaigns (the New campaign page); a new person's one-time link (its page, for anyone).
    researcher.user_permissions.add(Permission.objects.get(codename="add_campaign", content_type__app_label="annotate"))
    invitee = invited_account_create(username=f"new-{tag}", scope=f"campaign:{campaign.pk}", scope_name=campaign.slug,
                                     created_by=researcher)
    _, welcome_key = invitation_create(user=invitee, created_by=researcher, next_path=f"/campaigns/{campaign.slug}/",
                                       scope=f"campaign:{campaign.pk}")
    image_item = next((item for item in items if item.kind == IMAGE_KIND), None)
    token, _ = token_create(user=researcher, name="script")  # the researcher's: the annotator gets a 404
    # Two import jobs, whatever the size (jobs are not the campaign's size): one done, one failed.
    summary = ImportSummary(campaign=campaign.slug, format="judge-scores", files=["scores.tsv"], task_type=task_type,
                            items_created=len(items), items_by_judge={runs[0].judge.name: len(items)})
    job = ImportJob.objects.create(campaign=campaign, created_by=researcher, format="judge-scores", status="done",
                                   files=[{"name": "scores.tsv", "size": 100}], bytes_total=100, bytes_read=100,
                                   rows_read=len(items), summary=summary.as_dict(), finished_at=now)
    ImportJob.objects.create(campaign=campaign, created_by=researcher, format="judge-scores", status="failed",
                             files=[{"name": "bad.tsv", "size": 10}], bytes_total=10, error="bad.tsv:2: score: x")
    report_stored(campaign)  # as the worker leaves it: the report pages read the stored report
    # The report's main plot: the first of agreement.plots.report_plots it has data for; None when it draws none (the
    # plot's URL is then not requested).
    document = report_for_open(campaign=campaign).document
    plot = next((name for name in report_plot_names(report=document) if report_plot(report=document, name=name)),
                None)
    return {
        "campaign": campaign,
        "users": {"researcher": researcher, "annotator": annotator},
        "run": runs[1],
        "judge": runs[1].judge.name,
        "first_judge": runs[0].judge.name,
        "image_item": image_item,
        "token": token,
        "job": job,
        "judge_id": runs[0].judge.id,
        "welcome_key": welcome_key,
        "unit_id": units[1].pk,
        "plot": plot,
    }


def _url_kwargs(names, world) -> dict:
    values = {"slug": world["campaign"].slug, "run_id": world["run"].id, "variant": "full", "source": "consensus",
              "item_id": world["image_item"].id if world["image_item"] else 0, "token_id": world["token"].id,
              "plot": world["plot"],  # the report's main plot, as the PNG: the heavier download
              "fmt": "png", "username": world["users"]["annotator"].username, "key": world["welcome_key"],
              "job_id": world["job"].id, "judge_id": world["judge_id"], "unit_id": world["unit_id"]}
    return {name: values[name] for name in names}


def _requests(task_type, world):
    """(page, url, query, headers) of every GET this test makes: each URL pattern, then its VARIANTS."""
    answers = only_for()
    for name, kwarg_names in ALL_URLS:
        if (name.startswith("admin:") or name in SKIPPED or task_type not in answers.get(name, {task_type})
                or (name, task_type) in FAILING or ("plot" in kwarg_names and world["plot"] is None)):
            continue
        url = reverse(name, kwargs=_url_kwargs(kwarg_names, world))
        yield name, url, {}, {}
        for label, query, headers in VARIANTS.get(name, []):
            query = {key: value.format(run_id=world["run"].id, judge=world["judge"],
                                       first_judge=world["first_judge"]) for key, value in query.items()}
            yield name + label, url, query, headers


def _get(client, url, query, headers):
    """Status and captured queries of the page's second GET: the first fills per-process caches (content types,
    ...), which a page would otherwise pay for once, at whichever size happens to be measured first."""
    client.get(url, query, **headers)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, query, **headers)
        if response.streaming:  # a file is read while streaming; whatever it queries counts
            b"".join(response.streaming_content)
    return response.status_code, captured.captured_queries


def _measure(task_type, world) -> tuple[dict, dict]:
    """{(page, role): queries} of the pages each role is shown, and {page: {role: status}} of every GET."""
    clients = {}
    for role in ROLES:
        clients[role] = Client()
        clients[role].force_login(world["users"][role])
    shown, statuses = {}, {}
    for page, url, query, headers in _requests(task_type, world):
        for role in ROLES:
            status, queries = _get(clients[role], url, query, headers)
            statuses.setdefault(page, {})[role] = status
            if status in SHOWN:
                shown[(page, role)] = queries
    return shown, statuses


# Statements of a transaction's bounds, not queries of the request's own (SQLite's BEGIN IMMEDIATE is one the driver
# does not issue itself).
_TRANSACTION = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def annotation_requests_counted(task_type, world) -> dict[tuple[str, str], list]:
    """The queries of an annotator's requests as the annotation page's htmx makes them, in WORLD's campaign, for a new
    annotator to whom every unit is open: {("annotate-next-leasing", "annotator"): the next unit that leases it,
    ("annotate-next", ...): the same again (the lease held), ("annotate-submit", ...): a valid verdict (the sample's
    form_answer), the next lease and its fragment}. Each after one of its kind (per-process caches, the queries
    built once)."""
    campaign = world["campaign"]
    newcomer = UserFactory(username=f"newcomer-{campaign.slug}")
    MembershipFactory(campaign=campaign, user=newcomer, role=Role.ANNOTATOR)
    Unit.objects.filter(campaign=campaign).update(judgments_needed=F("judgments_needed") + 1)
    client = Client()
    client.force_login(newcomer)
    url = reverse("annotate", kwargs={"slug": campaign.slug})
    htmx = {"HTTP_HX_REQUEST": "true"}
    sample = sample_of(task_type)

    def submit(page: str):
        form = {"assignment": re.search(r'name="assignment" value="(\d+)"', page)[1],
                "shown_version": re.search(r'name="shown_version" value="(\d*)"', page)[1],
                "submission": uuid.uuid4().hex, **sample.form_answer(page)}
        return client.post(url + "submit/", form, **htmx)

    def counted(request) -> tuple[list, str]:
        with CaptureQueriesContext(connection) as captured:
            response = request()
        assert response.status_code == 200 and 'id="annotate-error"' not in response.content.decode()
        return ([query for query in captured.captured_queries if not query["sql"].startswith(_TRANSACTION)],
                response.content.decode())

    page = submit(client.get(url).content.decode()).content.decode()  # one of each first
    Assignment.objects.filter(unit__campaign=campaign, annotator=newcomer, status=AssignmentStatus.ACTIVE).delete()
    leasing, page = counted(lambda: client.get(url, **htmx))
    held, page = counted(lambda: client.get(url, **htmx))
    submitted, _ = counted(lambda: submit(page))
    assert HumanJudgment.objects.filter(unit__campaign=campaign, annotator=newcomer).count() == 2
    return {("annotate-next-leasing", "annotator"): leasing, ("annotate-next", "annotator"): held,
            ("annotate-submit", "annotator"): submitted}


def _sql(queries) -> str:
    return "\n".join(f"  {n}. {query['sql']}" for n, query in enumerate(queries, start=1))


def queries_counted(task_type: str, *, media_root) -> tuple[dict[tuple[str, str], int], list[str]]:
    """Build TASK_TYPE's two campaigns under MEDIA_ROOT and count the queries of every page each role is shown:
    {(page, role): the most queries at either size}, and the problems found (a page that grows with the campaign,
    one over its bound, one shown to no role, a bound of the type's sample for a page it does not have)."""
    small = campaign_from_sample(task_type, topics=SMALL, tag="s", media_root=media_root)
    large = campaign_from_sample(task_type, topics=LARGE, tag="l", media_root=media_root)
    small_shown, small_statuses = _measure(task_type, small)
    large_shown, large_statuses = _measure(task_type, large)

    for (name, broken_for), error in FAILING.items():
        if broken_for == task_type:
            client = Client()
            client.force_login(large["users"]["researcher"])
            with pytest.raises(error):
                client.get(reverse(name, kwargs=_url_kwargs(dict(ALL_URLS)[name], large)))

    problems = []
    # Every GET URL was shown to someone, or refuses GET to everyone (POST only) or is listed in NOT_GET.
    for page, by_role in large_statuses.items():
        if not SHOWN & set(by_role.values()) and set(by_role.values()) != {405} and page not in NOT_GET:
            problems.append(f"{page}: shown to no role ({by_role}); give it a world it can show, or say why not")
    assert small_statuses == large_statuses, f"the two sizes answer differently: {small_statuses} {large_statuses}"

    bounds = {**BOUNDS, **_extra_download_bounds(), **sample_of(task_type).bounds}
    for key, queries in annotation_requests_counted(task_type, small).items():  # the same at any size
        small_shown[key] = large_shown[key] = queries
    counted = {}
    for key, queries in large_shown.items():
        page, role = key
        n_small, n_large = len(small_shown[key]), len(queries)
        counted[key] = max(n_small, n_large)
        bound = bounds.get(key)
        reasons = []
        if n_large > n_small:
            reasons.append(f"it grows with the campaign: {n_small} queries on {SMALL} topics, {n_large} on {LARGE}")
        if bound is None:
            reasons.append(f"no bound in BOUNDS nor in the sample of {task_type} (measured {n_small} and {n_large})")
        elif max(n_small, n_large) > bound:
            reasons.append(f"{max(n_small, n_large)} queries, over its bound of {bound}")
        if reasons:
            worst = queries if n_large >= n_small else small_shown[key]
            problems.append(f"{page} as {role}: {'; '.join(reasons)}. Its queries:\n{_sql(worst)}")
    problems += [f"{page} as {role}: the sample of {task_type} bounds a page it does not show"
                 for page, role in sorted(set(sample_of(task_type).bounds) - set(large_shown))]
    return counted, problems


@pytest.mark.parametrize("task_type", task_type_names())
def test_every_page_runs_a_bounded_number_of_queries(task_type, db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.LEASE_EXPIRY_INTERVAL = 60  # as installed: leases that ran out are marked now and then, not each time
    _, problems = queries_counted(task_type, media_root=settings.MEDIA_ROOT)
    assert not problems, "\n\n".join(problems)
