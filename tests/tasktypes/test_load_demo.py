"""The demo the README's first command loads: the six campaigns, the users, and the rankers judging every candidate."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db.models import F
from django.test import Client

from agreement.report import agreement_report_build
from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, Unit
from annotate.selectors.adjudication import adjudication_queue
from judges.endpoints import endpoint_for_judge
from judges.families import family_get
from judges.models import JudgeRun, ModelEndpoint, ModelJudgment
from judges.tasks import judge_batch
from tasktypes import demo_assist
from tasktypes.management.commands.load_demo import DEMO_ENDPOINT, DEMO_PASSWORD, DEMOS, demo_users_ensure

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def no_worker(monkeypatch):
    """As right after ./scripts/start's load_demo, before its worker has taken anything: the judge batches published
    are kept here, never delivered."""
    from judges import services

    published = []
    monkeypatch.setattr(services, "_batches_publish", lambda **batches: published.append(batches))
    return published


def test_load_demo_twice_builds_both_campaigns_and_ranks_with_bm25_and_minilm(no_worker, settings):
    # The judges' boundary of a fresh ./scripts/start (config.settings.local with no environment; checked in
    # tests/judges/test_judge_safe_defaults.py): the demo's judges run with the packaged models and its registered
    # endpoint.
    settings.JUDGE_ALLOWED_HOSTS, settings.JUDGE_MODEL_DIRS = [], []
    # One demo campaign alone first (as a test that needs only it loads it), then the rest beside it.
    call_command("load_demo", "--campaign", "ais-demo", "--no-reports", stdout=io.StringIO())
    assert list(Campaign.objects.values_list("slug", flat=True)) == ["ais-demo"]
    assert list(ModelEndpoint.objects.get(name=DEMO_ENDPOINT).campaigns.values_list("slug", flat=True)) == ["ais-demo"]
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    call_command("load_demo", stdout=io.StringIO())  # idempotent

    assert get_user_model().objects.get(username="researcher").has_perm("annotate.add_campaign")
    # The rankers judged in load_demo's process, before the reports were built; their queued batches, taken by a
    # worker later, find the runs finished and judge nothing.
    assert sorted(batches["run_id"] for batches in no_worker) == sorted(JudgeRun.objects.values_list("id", flat=True))
    assert all(judge_batch(batches["run_id"], batches["batches"][0]) == 0 for batches in no_worker)
    # Every demo's report was built and stored by load_demo, with the rankers' verdicts: a newcomer's first open
    # shows it, current.
    client = Client()
    client.force_login(get_user_model().objects.get(username="researcher"))
    for slug in DEMOS:
        status = client.get(f"/campaigns/{slug}/report/status.json").json()
        assert status["report_version"] is not None and status["updating"] is False, (slug, status)
        html = client.get(f"/campaigns/{slug}/report/").content.decode()
        assert 'id="report-building"' not in html and 'id="report-updating"' not in html, slug
        assert 'id="report-built"' in html, slug
        # Every demo's intervals carry their ends' Monte Carlo error (issue 53), and the page says how much.
        assert 'id="report-mc"' in html and "Monte Carlo error of the interval ends" in html, slug

    qa = Campaign.objects.get(slug="nq301")
    assert qa.topics.count() == 301 and qa.memberships.count() == 5  # researcher, 3 annotators, adjudicator
    ranking = Campaign.objects.get(slug="health-ranking")
    assert ranking.task_type == "answer_ranking" and ranking.topics.count() == 12
    assert Item.objects.filter(campaign=ranking, kind="answer").count() == 24
    assert Item.objects.filter(campaign=ranking, kind="document").count() == 36
    assert HumanJudgment.objects.filter(unit__campaign=ranking, is_current=True).count() == 6
    assert Unit.objects.filter(campaign=ranking, judgments_done=0).count() == 6  # waiting for annotators

    runs = JudgeRun.objects.filter(judge__campaign=ranking)
    assert sorted(runs.values_list("judge__name", "status")) == [("bm25", "succeeded"), ("minilm", "succeeded")]
    for name in ("bm25", "minilm"):
        scores = ModelJudgment.objects.filter(judge__campaign=ranking, judge__name=name, failed=False)
        assert scores.count() == 60 and scores.values("item").distinct().count() == 60

    # An llm judge of any demo campaign may use the endpoint the demo registered (a server on port 8080).
    llm = family_get("llm").validate_config({"backend": "openai", "endpoint": DEMO_ENDPOINT, "model": "any"})
    for slug in DEMOS:  # the one loaded first and those loaded after it
        endpoint = endpoint_for_judge(family="llm", config=llm, campaign=Campaign.objects.get(slug=slug),
                                      user=get_user_model().objects.get(username="researcher"))
        assert endpoint.base_url == "http://127.0.0.1:8080/v1" and not endpoint.show_bodies

    report = agreement_report_build(campaign=ranking)
    for name in ("bm25", "minilm"):
        mean = report["judges"][name]["topic_mean"]["kendall_tau_b"]
        assert mean["n"] == 6 and -1.0 <= mean["mean"] <= 1.0

    ais = Campaign.objects.get(slug="ais-demo")
    assert (ais.task_type, ais.overlap, ais.memberships.count()) == ("ais", 3, 8)  # and the 3 simulated raters
    assert Item.objects.filter(campaign=ais).count() == 24
    assert Unit.objects.filter(campaign=ais, judgments_needed=3, judgments_done=0).count() == 11  # waiting for 3 raters
    ais_report = agreement_report_build(campaign=ais)
    assert ais_report["humans"]["items_labelled"] == 13
    assert ais_report["judges"]["auto-ais"]["item"]["n"] == 13
    # Three simulated raters on each rated answer (tasktypes.demo_ais): the report compares people, not only a judge.
    assert (ais_report["humans"]["annotators"], ais_report["humans"]["fleiss_items"]) == (3, 13)

    images = Campaign.objects.get(slug="image-demo")
    assert images.task_type == "image_relevance" and images.topics.count() == 3
    assert Item.objects.filter(campaign=images).count() == 18  # 3 topics x 6 pooled images
    assert all("thumbnail" in data for data in Item.objects.filter(campaign=images).values_list("data", flat=True))
    assert Unit.objects.filter(campaign=images, judgments_done=0).count() == 6  # "sailing" waits for assessors
    image_report = agreement_report_build(campaign=images)
    assert image_report["humans"]["items_labelled"] == 12 and len(image_report["systems"]) == 3
    assert image_report["bias_tag"] == "clip-based"
    assert image_report["judges"]["clip-demo"]["item"]["n"] == 12

    passages = Campaign.objects.get(slug="passage-demo")
    assert passages.task_type == "passage_relevance" and passages.topics.count() == 5
    assert Item.objects.filter(campaign=passages, kind="passage").exclude(text="").count() == 25  # all with text
    assert Unit.objects.filter(campaign=passages, judgments_done=0).count() == 10  # two queries wait for assessors
    assert JudgeRun.objects.get(judge__campaign=passages, judge__name="bm25").status == "succeeded"
    passage_report = agreement_report_build(campaign=passages)
    assert passage_report["humans"]["items_labelled"] == 15 and len(passage_report["systems"]) == 3
    assert passage_report["scale"][3]["name"] == "Perfectly relevant" and passage_report["relevant_from"] == 2
    demo_judge = passage_report["judges"]["llm-demo"]
    assert demo_judge["mapping"] == {"rule": "labels"} and demo_judge["item"]["n"] == 15
    assert passage_report["judges"]["bm25"]["mapping"]["rule"] == "quantile"

    # nugget-demo: three questions frozen and marked, the fourth waiting for its nuggets (docs/demo.md's figures).
    nuggets = Campaign.objects.get(slug="nugget-demo")
    assert nuggets.task_type == "nugget_evaluation" and nuggets.topics.count() == 4
    open_units = Unit.objects.filter(campaign=nuggets, judgments_done__lt=F("judgments_needed"))
    # q4's nuggets wait for the assessors, its answers for a frozen list; q1-q3's lists are frozen and marked
    assert list(open_units.values_list("item__external_id", flat=True)) == ["q4/nuggets"]
    nugget_report = agreement_report_build(campaign=nuggets)
    assert (nugget_report["assessors"]["three"]["n"], round(nugget_report["assessors"]["three"]["cohen_kappa"], 3)) \
        == (44, 0.629)
    order = nugget_report["judges"]["auto-nuggets"]["runs"][nugget_report["headline"]]
    assert (order["n_systems"], order["kendall_tau_b"]) == (4, 1.0)

    # assist-demo: simulated annotators in two arms, and adjudications, whose known behaviour the report recovers.
    assist = Campaign.objects.get(slug="assist-demo")
    assert (assist.overlap, assist.topics.count()) == (7, 120)
    annotations = HumanJudgment.objects.filter(unit__campaign=assist, kind=JudgmentKind.ANNOTATION)
    assert annotations.count() == 6 * 120 and not annotations.filter(seconds__isnull=True).exists()
    assert annotations.filter(arm="assisted:gpt-4", suggestion__isnull=False).count() == 3 * 120
    arms = agreement_report_build(campaign=assist)["arms"]
    blind, assisted = arms["per_arm"]
    assert (blind["arm"], blind["annotators"], assisted["annotators"]) == ("blind", 3, 3)
    low, high = blind["reference"]["ci95"]
    assert low <= demo_assist.BLIND_RIGHT <= high
    low, high = assisted["suggestion"]["equal_when_wrong"]["ci95"]
    assert low <= demo_assist.COPY_WRONG <= high
    assert assisted["seconds"]["median"] < blind["seconds"]["median"]
    # Three annotators a side: the report says the test between the arms cannot reach p < 0.1 (2 of 20 splits).
    assert [row["p_value"] for row in arms["differences"]] == [0.1, 0.1]
    assert any("cannot give a p-value below 0.1," in note for note in arms["notes"])
    adjudicator = get_user_model().objects.get(username="adjudicator")
    assert len(adjudication_queue(campaign=assist, adjudicator=adjudicator).waiting) == demo_assist.LEFT_WAITING
    assert HumanJudgment.objects.filter(unit__campaign=assist, kind=JudgmentKind.ADJUDICATION).count() == \
        120 - demo_assist.LEFT_WAITING



@pytest.mark.django_db
def test_the_demo_researcher_may_make_campaigns_and_the_annotators_may_not(client):
    """The demo's researcher sees "New campaign" and its page answers 200 (it answered 403: "takes the permission
    'Can add campaign'", with no staff account in the demo to grant it); the others still get 403."""
    demo_users_ensure()
    demo_users_ensure()  # a second load changes nothing
    assert client.login(username="researcher", password=DEMO_PASSWORD)
    assert 'id="campaign-new"' in client.get("/").content.decode()
    page = client.get("/campaigns/new/")
    assert page.status_code == 200 and "<h1>New campaign</h1>" in page.content.decode()
    for username in ("assessor1", "adjudicator"):
        assert client.login(username=username, password=DEMO_PASSWORD)
        assert 'id="campaign-new"' not in client.get("/").content.decode()
        refused = client.get("/campaigns/new/")
        assert refused.status_code == 403 and "manage.py createsuperuser" in refused.content.decode()
