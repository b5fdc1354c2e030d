"""Every page runs a bounded number of SQL queries whatever the campaign's size.

For each task type two campaigns are built: SMALL and LARGE, the second with LARGE / SMALL times the topics, and
with them the items, system outputs, units, human judgments (two annotators), model judgments (two judges) and
failed verdicts. What is not campaign size stays the same at both sizes: one researcher, two annotators, two
judges with one run each, three systems. Every GET URL of the URL configuration (enumerated from the resolver,
as tests/project/test_permissions_matrix.py does) is requested by each role that may see it, at both sizes, and its
queries counted: the larger campaign may cost no more queries than the small one (an N+1 shows up as a count
that grows), and no page may cost more than its bound in BOUNDS (measured, plus headroom), so a page that
starts running more queries shows up here even when the extra queries do not grow with the campaign.

Judges and runs are held constant because they are not the campaign's size, but pages do pay for them: the judge
panel and GET api/campaigns/SLUG/judge-runs/ one query per run shown (run_progress; at most 50 and 100 runs), the
panel two per judge with failed verdicts, and GET api/campaigns/SLUG/judges/ one per LLM or VLM judge (usage).
"""

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.services import invitation_create, invited_account_create, token_create
from annotate.models import (
    Assignment,
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
from conftest import image_write
from interchange.importers.service import ImportSummary
from interchange.models import ImportJob
from judges.identity import config_hash
from judges.models import Judge, JudgeRun, LLMSample, ModelJudgment
from tests.factories import CampaignFactory, MembershipFactory, UserFactory
from tests.project.test_permissions_matrix import ALL_URLS
from tests.report_support import report_stored

TASK_TYPES = ("qa_correctness", "answer_ranking", "ais", "image_relevance", "passage_relevance", "pairwise_preference")
ROLES = ("researcher", "annotator")
SMALL, LARGE = 3, 12  # topics; everything that hangs off a topic scales with them
SYSTEMS = 3

# Not measured, and why:
# - admin: Django's own admin, for staff only (no campaign role is staff); its queries are Django's, not ours.
# - api-schema, api-docs: the OpenAPI document and its viewer are made from the code, never from a campaign.
# - static files are served by whitenoise's middleware, outside the URL configuration (no queries).
# - docs: the manual's built files (config.docs), the same for every campaign and visitor; no campaign is read.
SKIPPED = {"api-schema", "api-docs", "docs"}
# URLs that exist for every campaign but answer only for some task types (elsewhere a 404 or 400, by design).
ONLY_FOR = {
    "campaign-image": {"image_relevance"},  # the image files of image items
    "agreement-qrels": {"image_relevance", "passage_relevance"},  # the qrels a graded report scores runs with
    "api-agreement-qrels-list": {"image_relevance", "passage_relevance"},
    "api-agreement-qrels": {"image_relevance", "passage_relevance"},
    "agreement-leaderboard": {"image_relevance", "passage_relevance"},  # each qrels source's runs leaderboard
    "api-agreement-leaderboard": {"image_relevance", "passage_relevance"},
    "api-campaign-rankings": {"answer_ranking"},  # the human rankings, in the importers' shapes
}
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

# Queries per (page, role), one bound per task type in the order of TASK_TYPES: what was measured at either size
# plus a few queries of headroom. A page that needs more has changed how it reads: look at its queries first.
BOUNDS = {  # (qa_correctness, answer_ranking, ais, image_relevance, passage_relevance, pairwise_preference); None: not
    # a page of that type
    ("profile", "researcher"): (5, 5, 5, 5, 5, 5),
    ("profile", "annotator"): (5, 5, 5, 5, 5, 5),
    ("password-change", "researcher"): (4, 4, 4, 4, 4, 4),
    ("password-change", "annotator"): (4, 4, 4, 4, 4, 4),
    ("password-change-done", "researcher"): (4, 4, 4, 4, 4, 4),
    ("password-change-done", "annotator"): (4, 4, 4, 4, 4, 4),
    ("api-tokens", "researcher"): (5, 5, 5, 5, 5, 5),
    ("api-token-detail", "researcher"): (5, 5, 5, 5, 5, 5),
    ("api-tokens", "annotator"): (5, 5, 5, 5, 5, 5),
    ("account-welcome", "researcher"): (5, 5, 5, 5, 5, 5),  # a one-time link's page (the world's new person's)
    ("account-welcome", "annotator"): (5, 5, 5, 5, 5, 5),
    ("campaign-new", "researcher"): (6, 6, 6, 6, 6, 6),
    ("campaign-settings", "researcher"): (8, 8, 8, 8, 8, 8),
    ("campaign-people", "researcher"): (9, 9, 9, 9, 9, 9),
    ("api-campaign-guidelines", "researcher"): (7, 7, 7, 7, 7, 7),
    ("api-campaign-guidelines", "annotator"): (7, 7, 7, 7, 7, 7),
    ("api-campaign-members", "researcher"): (9, 9, 9, 9, 9, 9),
    ("home", "researcher"): (9, 9, 9, 9, 9, 9),
    ("home", "annotator"): (9, 9, 9, 9, 9, 9),
    ("login", "researcher"): (7, 7, 7, 7, 7, 7),
    ("login", "annotator"): (7, 7, 7, 7, 7, 7),
    ("campaign-detail", "researcher"): (18, 18, 18, 19, 19, 18),
    ("campaign-detail", "annotator"): (9, 9, 9, 9, 9, 9),
    ("campaign-import", "researcher"): (8, 8, 8, 8, 8, 8),
    ("campaign-options", "researcher"): (5, 5, 5, 5, 5, 5),
    ("campaign-export", "researcher"): (24, 24, 24, 24, 24, 24),
    ("campaign-image", "researcher"): (None, None, None, 9, None, None),
    ("campaign-image", "annotator"): (None, None, None, 9, None, None),
    ("annotate", "annotator"): (12, 13, 12, 14, 14, 12),
    ("annotate?undo=", "annotator"): (12, 13, 12, 13, 13, 12),
    # The adjudication queue (annotate.selectors.adjudication: units, judgments, judges and their verdicts) and one unit
    # (the queue again, for the next unit, and what the task type's annotation page shows of it).
    ("adjudicate", "researcher"): (10, 10, 10, 10, 10, 10),
    ("adjudicate-unit", "researcher"): (16, 20, 16, 18, 16, 16),
    ("api-campaign-adjudication", "researcher"): (9, 9, 9, 9, 9, 9),
    ("api-campaign-adjudication-unit", "researcher"): (11, 15, 11, 13, 11, 11),
    # The Items page: a page of items with their topics, the count, the categories with theirs.
    ("campaign-items", "researcher"): (7, 7, 7, 7, 7, 7),
    ("judge-panel", "researcher"): (17, 17, 17, 17, 17, 17),
    # Without a split (the world's campaigns have none): the form only.
    ("judge-development", "researcher"): (4, 4, 4, 4, 4, 4),
    ("api-development-split", "researcher"): (3, 3, 3, 3, 3, 3),
    ("judge-probes", "researcher"): (7, 7, 7, 7, 7, 7),
    ("api-probes", "researcher"): (5, 5, 5, 5, 5, 5),
    ("import-job", "researcher"): (6, 6, 6, 6, 6, 6),
    ("import-job (htmx)", "researcher"): (6, 6, 6, 6, 6, 6),
    ("api-campaign-imports", "researcher"): (8, 8, 8, 8, 8, 8),
    ("api-campaign-import-job", "researcher"): (6, 6, 6, 6, 6, 6),
    ("judge-panel?run= (htmx row)", "researcher"): (11, 11, 11, 11, 11, 11),
    # The report and its downloads read the stored report (agreement.stored): the data version and one row, whatever
    # the number of judgments (the world's report is built as the worker builds it: tests/report_support.py).
    ("agreement-report", "researcher"): (6, 6, 6, 6, 6, 6),
    ("agreement-report-json", "researcher"): (5, 5, 5, 5, 5, 5),
    # The stored report's state: the data version and the stored row, never the judgments (agreement.stored).
    ("agreement-report-status", "researcher"): (5, 5, 5, 5, 5, 5),
    ("agreement-systems-csv", "researcher"): (5, 5, 5, 5, 5, 5),
    ("agreement-judges-csv", "researcher"): (5, 5, 5, 5, 5, 5),
    ("agreement-topics-csv", "researcher"): (5, 5, 5, 5, 5, 5),
    ("agreement-plot", "researcher"): (5, 5, 5, 5, 5, 5),
    # The items CSV reads the database as it is (human labels: annotations, adjudications, the annotators' names;
    # judges and verdicts; items), not the stored report.
    ("agreement-items-csv", "researcher"): (9, 9, 9, 9, 9, 9),
    # The labels behind the report, read now: the human labels (three queries), the items, the judges and verdicts.
    ("agreement-labels-csv", "researcher"): (9, 9, 9, 9, 9, 9),
    # The stored report, the judges with their configurations, and the model ids their servers reported.
    ("agreement-methods-txt", "researcher"): (7, 7, 7, 7, 7, 7),
    # The form only (no judges chosen): the campaign's judges' names.
    ("agreement-judge-compare", "researcher"): (5, 5, 5, 5, 5, 5),
    # The verdicts, the human labels, the two judges' configurations and reported model ids.
    ("agreement-judge-compare?a=&b=", "researcher"): (11, 11, 11, 11, 11, 11),
    ("agreement-qrels", "researcher"): (None, None, None, 5, 5, None),
    # The stored qrels, and the runs scored under them: read from their files (campaign.options), no query.
    ("agreement-leaderboard", "researcher"): (None, None, None, 5, 5, None),
    ("api-campaigns", "researcher"): (9, 9, 9, 9, 9, 9),
    ("api-campaigns", "annotator"): (9, 9, 9, 9, 9, 9),
    ("api-campaign", "researcher"): (15, 15, 15, 15, 15, 15),
    ("api-campaign", "annotator"): (9, 9, 9, 9, 9, 9),
    ("api-campaign-items", "researcher"): (11, 11, 11, 11, 11, 11),
    ("api-campaign-options", "researcher"): (5, 5, 5, 5, 5, 5),
    ("api-campaign-rankings", "researcher"): (None, 11, None, None, None, None),
    ("api-campaign-rankings?shape=label-studio", "researcher"): (None, 11, None, None, None, None),
    ("api-campaign-rankings?shape=trec-run", "researcher"): (None, 10, None, None, None, None),
    ("api-campaign-export", "researcher"): (24, 24, 24, 24, 24, 24),
    ("api-campaign-judges", "researcher"): (13, 12, 12, 12, 12, 13),  # + items_not_judged: 2 (judges_new_items)
    ("api-campaign-endpoints", "researcher"): (5, 5, 5, 5, 5, 5),
    ("api-campaign-judge-runs", "researcher"): (12, 12, 12, 12, 12, 12),
    ("api-judge-run", "researcher"): (9, 9, 9, 9, 9, 9),
    ("api-judge-run-failures", "researcher"): (11, 11, 11, 11, 11, 11),
    ("api-agreement-report", "researcher"): (5, 5, 5, 5, 5, 5),
    ("api-agreement-status", "researcher"): (5, 5, 5, 5, 5, 5),
    ("api-agreement-methods", "researcher"): (7, 7, 7, 7, 7, 7),
    ("api-agreement-compare", "researcher"): (4, 4, 4, 4, 4, 4),
    ("api-agreement-compare?a=&b=", "researcher"): (9, 9, 9, 9, 9, 9),
    ("api-agreement-qrels-list", "researcher"): (None, None, None, 5, 5, None),
    ("api-agreement-qrels", "researcher"): (None, None, None, 5, 5, None),
    ("api-agreement-leaderboard", "researcher"): (None, None, None, 5, 5, None),
}


def _items_for(task_type, *, campaign, topic, q, media_root):
    """The candidates of topic number Q: (Item, system or None, SystemOutput extras)."""
    if task_type == "qa_correctness":
        return [(Item(campaign=campaign, topic=topic, external_id=f"{q}-{s}", text="Ada Lovelace" if s == 0 else
                      f"answer {q}-{s}"), f"system-{s}", {}) for s in range(SYSTEMS)]
    if task_type == "ais":
        return [(Item(campaign=campaign, topic=topic, external_id=f"ais-{q}-{s}", text=f"Place {q} has {s} bridges.",
                      data={"passage": f"Place {q} is a town with {q + s} bridges.", "title": f"Place {q}",
                            "section": "History", "url": f"https://en.wikipedia.org/wiki/Place_{q}",
                            "system": f"system-{s}"}), f"system-{s}", {}) for s in range(SYSTEMS)]
    if task_type == "image_relevance":
        rows = []
        for n in range(SYSTEMS + 1):
            image_id = f"img-{campaign.slug}-{q}-{n}"
            data = image_write(media_root, image_id, (24, 16), "JPEG")
            rows.append((Item(campaign=campaign, topic=topic, external_id=f"t{q}/{image_id}", kind="image", text="",
                              data=data), None, {}))
        return rows
    if task_type == "pairwise_preference":
        systems = [f"system-{s}" for s in range(SYSTEMS)]
        return [
            (
                Item(
                    campaign=campaign,
                    topic=topic,
                    external_id=f"{q}/{a}-vs-{b}",
                    kind="pair",
                    text="",
                    data={"a": {"system": a, "text": f"{a} says **{q}**"}, "b": {"system": b, "text": f"{b} on {q}"}},
                ),
                None,
                {},
            )
            for n, a in enumerate(systems)
            for b in systems[n + 1 :]
        ]
    if task_type == "passage_relevance":
        return [(Item(campaign=campaign, topic=topic, external_id=f"{q}/p{q}-{n}", kind="passage",
                      text=f"passage {n} about subject {q}", data={"docid": f"p{q}-{n}"}), None, {})
                for n in range(SYSTEMS + 1)]
    answers = [(Item(campaign=campaign, topic=topic, external_id=f"{q}/a{s}", text=f"answer {s} to query {q}",
                     data={"source_id": f"a{s}", "system": f"system-{s}", "prompt": "p1"}), f"system-{s}",
                {"data": {"prompt": "p1"}}) for s in range(SYSTEMS)]
    document = (Item(campaign=campaign, topic=topic, external_id=f"{q}/d0", kind="document", text=f"a passage on {q}",
                     data={"source_id": "d0", "docno": f"doc-{q}"}), None, {})
    return answers + [document]


def _topic_data(task_type, q):
    if task_type == "image_relevance":
        return {"page_title": f"Page {q}", "page_context": "A page. " * 20, "section_title": f"Section {q}",
                "section_context": "A section. " * 20}
    if task_type == "answer_ranking":
        return {"narrative": f"Answers about subject {q}."}
    return {"gold_answers": ["Ada Lovelace"]}


def _value(task_type, n, candidates):
    """The N-th human verdict: (value, label); CANDIDATES are the unit's item pks (answer_ranking)."""
    if task_type == "qa_correctness":
        return {"correct": n % 3 != 0}, "yes" if n % 3 != 0 else "no"
    if task_type == "ais":
        supported = n % 3 != 0
        return {"interpretable": True, "supported": supported}, "yes" if supported else "no"
    if task_type in ("image_relevance", "passage_relevance"):
        return {"grade": n % 3}, str(n % 3)
    if task_type == "pairwise_preference":
        preferred = ("a", "b", "tie")[n % 3]
        return {"preferred": preferred, "left": "ab"[n % 2]}, preferred
    order = candidates[n % len(candidates):] + candidates[:n % len(candidates)]
    return {"rankings": {"overall": [[pk] for pk in order]}}, "ranked"


JUDGES = {  # two per task type: (name, family, config); the second one fails on each topic's first item
    "qa_correctness": [("em", "em", {}), ("llm-judge", "llm", {"model": "tiny", "n": 1})],
    "answer_ranking": [("bm25", "bm25", {}), ("mono", "external", {})],
    "ais": [("autoais", "autoais", {"long_passages": "truncate"}), ("auto-ais", "external", {})],
    "image_relevance": [("clip", "clipscore", {}), ("grades", "external", {})],
    "passage_relevance": [("bm25", "bm25", {}), ("grades", "external", {})],
    "pairwise_preference": [("prefs", "external", {}), ("llm-pairs", "llm", {"model": "tiny", "n": 1})],
}


def _verdict(task_type, family, n):
    """(score, label, raw) of a judge's N-th verdict."""
    score = (n * 37 % 100) / 100
    if task_type in ("image_relevance", "passage_relevance"):
        return (None, str(n % 3), "imported") if family == "external" else (score, "", f"{score}")
    if task_type == "answer_ranking":
        return score, "", f"{score}"
    if task_type == "pairwise_preference":  # the llm's two orders, one verdict in three inconsistent
        first, second = ("a", "b", "a")[n % 3], ("a", "b", "b")[n % 3]
        label = first if first == second else "inconsistent"
        orders = {"ab": {"answer": first, "samples": ["Better: 1"]}, "ba": {"answer": second, "samples": ["Better: 1"]}}
        return None, label, json.dumps({"orders": orders, "consistent": first == second}) if family == "llm" else ""
    label = "yes" if score >= 0.5 else "no"
    raw = f"512 tokens, truncated to 256 {label}" if family == "autoais" and n % 2 else label
    return score, label, raw


def _campaign_build(task_type, *, topics, tag, media_root):
    """A campaign of TOPICS topics: its people, items, outputs, units, human and model verdicts, and runs.

    Both annotators judge every unit but those of the last topic, which only the colleague judged: that leaves
    a slot open there for the annotator, whose lease the annotation page shows.
    """
    now = timezone.now()
    researcher, annotator, colleague = (UserFactory(username=f"{who}-{tag}") for who in ("res", "ann", "ann2"))
    campaign = CampaignFactory(slug=f"{task_type.replace('_', '-')}-{tag}", task_type=task_type, overlap=2,
                               options={"dimensions": ["overall"]} if task_type == "answer_ranking" else {})
    for user, role in ((researcher, Role.RESEARCHER), (annotator, Role.ANNOTATOR), (colleague, Role.ANNOTATOR)):
        MembershipFactory(campaign=campaign, user=user, role=role)
    qid = "t{}" if task_type == "image_relevance" else "{}"
    topic_rows = Topic.objects.bulk_create([
        Topic(campaign=campaign, external_id=qid.format(q), text=f"question number {q}", data=_topic_data(task_type, q))
        for q in range(1, topics + 1)])
    specs = [(topic, spec) for q, topic in enumerate(topic_rows, start=1)
             for spec in _items_for(task_type, campaign=campaign, topic=topic, q=q, media_root=media_root)]
    items = Item.objects.bulk_create([item for _, (item, _, _) in specs])
    outputs = [SystemOutput(campaign=campaign, system=system, topic=topic, item=item, rank=1, score=0.5, **extra)
               for (topic, (_, system, extra)), item in zip(specs, items) if system]
    if task_type in ("image_relevance", "passage_relevance"):  # every run ranks every item of every topic
        outputs = [SystemOutput(campaign=campaign, system=f"run-{s}", topic_id=item.topic_id, item=item,
                                rank=n % (SYSTEMS + 1) + 1, score=1 - n % (SYSTEMS + 1) / 10)
                   for s in range(SYSTEMS) for n, item in enumerate(items)]
        campaign.options = {"runs": _runs_store(campaign, outputs, media_root)}
        campaign.save(update_fields=["options"])
    SystemOutput.objects.bulk_create(outputs)

    by_topic = {}
    for item in items:
        by_topic.setdefault(item.topic_id, []).append(item)
    if task_type == "answer_ranking":
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
            value, label = _value(task_type, n + (who == colleague and n % 3 == 0), candidates)  # mostly agreeing
            edited = first and who == annotator  # the annotator changed their verdict on each topic's first unit
            verdicts.append(HumanJudgment(unit=unit, annotator=who, kind=JudgmentKind.ANNOTATION, value=value,
                                          label=label, version=2 if edited else 1, guidelines=versions[n % 2]))
            if edited:
                value, label = _value(task_type, n + 1, candidates)
                history.append(HumanJudgment(unit=unit, annotator=who, kind=JudgmentKind.ANNOTATION, value=value,
                                             label=label, version=1, is_current=False))
        if first and unit.topic_id != last_topic:  # and the researcher settled it
            value, label = _value(task_type, n + 2, candidates)
            history.append(HumanJudgment(unit=unit, annotator=researcher, kind=JudgmentKind.ADJUDICATION, value=value,
                                         label=label))
    for lease, verdict in zip(Assignment.objects.bulk_create(leases), verdicts):
        verdict.assignment = lease
    HumanJudgment.objects.bulk_create(verdicts + history)

    runs = []
    first_items = {candidates[0].pk for candidates in by_topic.values()}
    for number, (name, family, config) in enumerate(JUDGES[task_type]):
        judge = Judge.objects.create(campaign=campaign, name=name, family=family, config=config,
                                     config_hash=config_hash(family=family, config=config))
        run = JudgeRun.objects.create(judge=judge, status="succeeded", total=len(items), created_by=researcher,
                                      started_at=now - timedelta(minutes=5), finished_at=now)
        runs.append(run)
        rows = []
        for n, item in enumerate(items):
            score, label, raw = _verdict(task_type, family, n)
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
    image_item = next((item for item in items if item.kind == "image"), None)
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
    }


def _runs_store(campaign, outputs, media_root) -> dict:
    """Write each image run as the trec-run import stores it; the campaign's options["runs"]."""
    runs = {}
    for output in outputs:
        runs.setdefault(output.system, []).append(output)
    meta = {}
    folder = media_root / "runs" / str(campaign.pk)
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in runs.items():
        path = folder / f"{name}.run"
        lines = [f"{row.item.external_id.split('/')[0]} Q0 {row.item.external_id.split('/')[1]} {row.rank} "
                 f"{row.score} {name}\n" for row in rows]
        path.write_text("".join(lines), encoding="utf-8")
        meta[name] = {"depth": 10, "tags": ["clip-based"] if name == "run-0" else [], "lines": len(rows),
                      "sha256": "", "source": path.name, "file": str(path.relative_to(media_root))}
    return meta


def _url_kwargs(names, world) -> dict:
    values = {"slug": world["campaign"].slug, "run_id": world["run"].id, "variant": "full", "source": "consensus",
              "item_id": world["image_item"].id if world["image_item"] else 0, "token_id": world["token"].id,
              # the report's main plot (the first of agreement.plots.report_plots), as the PNG: the heavier download
              "plot": {"answer_ranking": "nrp", "image_relevance": "runs", "passage_relevance": "runs",
                       "pairwise_preference": "scores"}.get(
                  world["campaign"].task_type, "systems"),
              "fmt": "png", "username": world["users"]["annotator"].username, "key": world["welcome_key"],
              "job_id": world["job"].id, "judge_id": world["judge_id"], "unit_id": world["unit_id"]}
    return {name: values[name] for name in names}


def _requests(task_type, world):
    """(page, url, query, headers) of every GET this test makes: each URL pattern, then its VARIANTS."""
    for name, kwarg_names in ALL_URLS:
        if (name.startswith("admin:") or name in SKIPPED or task_type not in ONLY_FOR.get(name, {task_type})
                or (name, task_type) in FAILING):
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


def _sql(queries) -> str:
    return "\n".join(f"  {n}. {query['sql']}" for n, query in enumerate(queries, start=1))


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_every_page_runs_a_bounded_number_of_queries(task_type, db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    small = _campaign_build(task_type, topics=SMALL, tag="s", media_root=settings.MEDIA_ROOT)
    large = _campaign_build(task_type, topics=LARGE, tag="l", media_root=settings.MEDIA_ROOT)
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

    column = TASK_TYPES.index(task_type)
    for key, queries in large_shown.items():
        page, role = key
        n_small, n_large = len(small_shown[key]), len(queries)
        bound = BOUNDS.get(key, (None,) * len(TASK_TYPES))[column]
        reasons = []
        if n_large > n_small:
            reasons.append(f"it grows with the campaign: {n_small} queries on {SMALL} topics, {n_large} on {LARGE}")
        if bound is None:
            reasons.append(f"no bound in BOUNDS for {task_type} (measured {n_small} and {n_large})")
        elif max(n_small, n_large) > bound:
            reasons.append(f"{max(n_small, n_large)} queries, over its bound of {bound}")
        if reasons:
            worst = queries if n_large >= n_small else small_shown[key]
            problems.append(f"{page} as {role}: {'; '.join(reasons)}. Its queries:\n{_sql(worst)}")
    assert not problems, "\n\n".join(problems)
