"""LLM judge runs through the task layer: samples cached in the database, a crashed run continues, keys stay secret.

The model is an OpenAI-compatible server on 127.0.0.1 (tests/llm_server.py) scripted to answer like a judge:
an explanation, then the verdict alone on the last line.
"""

import json

import pytest
from rest_framework.test import APIClient

from annotate.models import Role
from judges.endpoints import endpoint_register
from judges.models import JudgeRun, LLMSample, ModelJudgment, RunStatus
from judges.selectors import ServedModels, judges_served_models
from judges.services import judge_run_resume, judge_run_start
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory
from tests.judges_support import eager  # noqa: F401 - fixture
from tests.llm_server import chat_server, error, raw
from tests.report_support import report_stored

KEY = "sk-test-4f9a1c77e2"


def said(verdict: str, *, words: int = 12, model: str | None = None) -> object:
    """A chat completion that explains in WORDS words, then says VERDICT on its own line; the server names MODEL as
    the one that answered when given."""
    content = " ".join(["because"] * words) + f"\n{verdict}"
    return raw(json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                           "usage": {"prompt_tokens": 100, "completion_tokens": words + 1},
                           **({"model": model} if model else {})}))


@pytest.fixture
def campaign(db, researcher):
    campaign = CampaignFactory(slug="llm-qa", task_type="qa_correctness")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    topic = TopicFactory(campaign=campaign, external_id="1", text="which planet is the largest",
                         data={"gold_answers": ["Jupiter"]})
    for name in ("alpha", "beta", "gamma", "delta"):
        ItemFactory(campaign=campaign, topic=topic, external_id=name, text=f"candidate {name}")
    return campaign


def config(server, **extra) -> dict:
    """A judge on the server, registered as staff would: a model endpoint with a stored key and prices."""
    endpoint_register(name="test-llm", base_url=server.base_url, model_ids=["judge-model"], key=KEY,
                      price_per_1k_prompt_tokens=0.5, price_per_1k_completion_tokens=1.5, all_campaigns=True)
    return {"backend": "openai", "model": "judge-model", "endpoint": "test-llm", "concurrency": 1, "timeout": 5.0,
            "max_retries": 0, **extra}


@pytest.mark.django_db
def test_run_votes_caches_samples_and_counts_tokens(campaign, researcher, eager, client,  # noqa: F811
                                                    django_capture_on_commit_callbacks):
    with chat_server() as server:
        server.script(said("yes"), said("no"), said("yes"), when="candidate alpha")
        server.script(said("no"), said("no"), said("yes"), when="candidate beta")
        server.script(said("yes"), said("no"), raw(json.dumps({"choices": [{"message": {"content": "hmm"}}]})),
                      when="candidate gamma")  # one vote each and one unreadable sample: a tie
        server.script(*(raw(json.dumps({"choices": [{"message": {"content": "no idea"}}]})) for _ in range(3)),
                      when="candidate delta")
        with django_capture_on_commit_callbacks(execute=True):
            run = judge_run_start(campaign=campaign, name="llm-api", family="llm", config=config(server), batch_size=2)
        requests = len(server.requests)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and requests == 12
    assert all(r.headers.get("Authorization") == f"Bearer {KEY}" for r in server.requests)
    verdicts = {
        j.item.external_id: j for j in ModelJudgment.objects.filter(judge__name="llm-api").select_related("item")
    }
    assert (verdicts["alpha"].label, verdicts["alpha"].score) == ("yes", pytest.approx(2 / 3))
    assert (verdicts["beta"].label, verdicts["beta"].score) == ("no", pytest.approx(2 / 3))
    alpha = json.loads(verdicts["alpha"].raw)
    assert alpha["votes"] == {"yes": 2, "no": 1} and len(alpha["samples"]) == 3
    assert verdicts["gamma"].failed and "tie" in verdicts["gamma"].raw
    assert verdicts["delta"].failed and json.loads(verdicts["delta"].raw)["samples"] == ["no idea"] * 3
    assert LLMSample.objects.filter(judge__name="llm-api").count() == 12

    # The judge's usage in the API (and its key nowhere).
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get("/api/campaigns/llm-qa/judges/").json()
    judge = next(row for row in (body["results"] if isinstance(body, dict) else body) if row["name"] == "llm-api")
    assert judge["config"]["endpoint"] == "test-llm" and "api_key" not in judge["config"]
    # 8 of the 12 replies report usage (100 prompt tokens, 13 completion tokens each); 4 send none.
    usage = judge["usage"]
    assert (usage["samples"], usage["prompt_tokens"], usage["completion_tokens"]) == (12, 800, 104)
    assert usage["cost"] == pytest.approx((800 * 0.5 + 104 * 1.5) / 1000) and usage["seconds"] > 0
    client.force_login(researcher)
    report_stored("llm-qa")
    for url in ("/api/campaigns/llm-qa/judges/", f"/api/judge-runs/{run.id}/", "/campaigns/llm-qa/judges/",
                "/campaigns/llm-qa/report/", "/campaigns/llm-qa/report/report.json"):
        page = client.get(url)
        assert page.status_code == 200 and KEY not in page.content.decode(), url
    assert "12 samples" in client.get("/campaigns/llm-qa/judges/").content.decode()


@pytest.mark.django_db
def test_a_run_that_dies_mid_batch_continues_without_asking_twice(campaign, eager,  # noqa: F811
                                                                 django_capture_on_commit_callbacks):
    with chat_server() as server:
        # Five samples come back, then the server refuses the key: the batch stops as a worker crash would.
        server.script(*([said("yes", model="judge-model-0101")] * 5), error(401), when=None)
        with django_capture_on_commit_callbacks(execute=True):
            run = judge_run_start(campaign=campaign, name="llm-api", family="llm", config=config(server), batch_size=4)
        run.refresh_from_db()
        assert run.status == RunStatus.FAILED and "401" in run.error and KEY not in run.error
        assert LLMSample.objects.count() == 5 and ModelJudgment.objects.count() == 0
        stored = {(sample.item.text, sample.index) for sample in LLMSample.objects.select_related("item")}
        # 5 answered and the refused one: the refusal stops every worker before its next request (one with more
        # workers could have one in flight).
        first_run = len(server.requests)
        server.script(*([said("yes", model="judge-model-0315")] * 7), when=None)  # the server's model was updated

        with django_capture_on_commit_callbacks(execute=True):
            run = judge_run_resume(run=JudgeRun.objects.get(pk=run.pk))
        run.refresh_from_db()
        after = [(r.body["messages"][-1]["content"], r.body["seed"]) for r in server.requests[first_run:]]
    assert run.status == RunStatus.SUCCEEDED and first_run == 6
    # 4 items x 3 samples (seed = index): the 5 stored ones are never asked again, the 7 others once each.
    asked_again = {(candidate, seed) for content, seed in after
                   for candidate in [content.split("Candidate answer: ")[1].splitlines()[0]]}
    assert len(after) == 12 - 5 and len(asked_again) == 7 and not stored & asked_again
    assert LLMSample.objects.count() == 12 and ModelJudgment.objects.filter(label="yes").count() == 4
    # Each sample keeps the run that asked for it and the model id the server reported: the judge's verdicts are not
    # one model's, and the run (resumed, the same run) changed model on the way.
    served = judges_served_models(campaign=campaign)[run.judge_id]
    assert served.samples == {"judge-model-0101": 5, "judge-model-0315": 7} and served.changed
    assert served.runs_mixed == (run.pk,)
    assert set(LLMSample.objects.values_list("run_id", flat=True)) == {run.pk}


@pytest.mark.django_db
def test_a_model_that_changes_mid_run_is_flagged_on_the_judges_row(campaign, researcher, client, eager,  # noqa: F811
                                                                    django_capture_on_commit_callbacks):
    with chat_server() as server:
        for name, model in (("alpha", "m-v1"), ("beta", "m-v1"), ("gamma", "m-v2"), ("delta", "m-v2")):
            server.script(*([said("yes", model=model)] * 3), when=f"candidate {name}")
        with django_capture_on_commit_callbacks(execute=True):
            run = judge_run_start(campaign=campaign, name="llm-api", family="llm", config=config(server), batch_size=2)
    served = judges_served_models(campaign=campaign)[run.judge_id]
    assert served.samples == {"m-v1": 6, "m-v2": 6} and served.runs_mixed == (run.pk,)
    client.force_login(researcher)
    html = client.get("/campaigns/llm-qa/judges/").content.decode()
    assert f'id="served-{run.judge_id}"' in html
    assert f"2 model ids: m-v1 (6 samples), m-v2 (6 samples); run {run.pk} changed model mid-run" in html
    # Two runs each answered by one model, another each: the judge changed model between them.
    between = ServedModels({"m-v1": 1, "m-v2": 2})
    assert between.text() == "2 model ids: m-v2 (2 samples), m-v1 (1 sample); the model changed between runs"
    assert ServedModels({"m-v1": 3}).text() == "m-v1 (3 samples)" and not ServedModels({"m-v1": 3}).changed


@pytest.mark.django_db
def test_runs_on_a_sample_cover_the_same_items_for_every_judge(eager, django_capture_on_commit_callbacks,  # noqa: F811
                                                               researcher, tmp_path):
    from django.core.management import call_command

    from judges.selectors import campaign_item_sample, run_progress
    from tests.judges_support import campaign_with_items

    campaign = campaign_with_items(n_items=30, slug="pilot", researcher=researcher)
    with django_capture_on_commit_callbacks(execute=True):
        em = judge_run_start(campaign=campaign, name="em-pilot", family="em", config={}, batch_size=4, sample=10)
    em.refresh_from_db()
    assert em.status == RunStatus.SUCCEEDED and em.total == 10 and len(em.sample_item_ids) == 10
    assert set(ModelJudgment.objects.filter(judge__name="em-pilot").values_list("item_id", flat=True)) == set(
        em.sample_item_ids
    )
    assert run_progress(run=em).judged == 10
    # Another judge, from the command line: the same ten items; a larger sample holds the smaller one.
    with django_capture_on_commit_callbacks(execute=True):
        call_command("run_judge", "--campaign", "pilot", "--judge", "f1-pilot", "--family", "f1", "--sample", "10",
                     stdout=open(tmp_path / "out.txt", "w"))
    f1_items = set(ModelJudgment.objects.filter(judge__name="f1-pilot").values_list("item_id", flat=True))
    assert f1_items == set(em.sample_item_ids)
    assert set(em.sample_item_ids) < set(campaign_item_sample(campaign_id=campaign.id, size=20))
    # The whole campaign afterwards judges only the other twenty.
    with django_capture_on_commit_callbacks(execute=True):
        full = judge_run_start(campaign=campaign, name="em-pilot", family="em", config={}, batch_size=8)
    full.refresh_from_db()
    assert (full.status, full.total, run_progress(run=full).by_run) == (RunStatus.SUCCEEDED, 30, 20)
    # API and form refuse a sample below 1.
    api = APIClient()
    api.force_authenticate(researcher)
    response = api.post("/api/campaigns/pilot/judge-runs/", {"judge": "x", "family": "em", "sample": 0}, format="json")
    assert response.status_code == 400 and "sample" in response.json()
    response = api.post(
        "/api/campaigns/pilot/judge-runs/",
        {"judge": "f1-low", "family": "f1", "config": {"threshold": 0.3}, "sample": 5},
        format="json",
    )
    assert response.status_code == 201 and response.json()["sampled"] is True and response.json()["total"] == 5
