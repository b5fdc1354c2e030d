"""Judges only where they apply: each task type declares the families that judge it, and a run that judged nothing
fails."""

import pytest
from rest_framework.test import APIClient

from annotate.services.campaigns import campaign_get_or_create
from annotate.task_types.registry import task_type_names
from judges.errors import JudgeConfigError
from judges.families import FAMILIES, families_for, family_check_task_type
from judges.models import Judge, JudgeRun, RunStatus
from judges.services import judge_run_start
from tests.judges_support import eager  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


def test_every_task_type_declares_the_families_that_judge_it():
    assert families_for("qa_correctness") == ["em", "f1", "llm"]
    assert families_for("answer_ranking") == ["bm25", "cross-encoder", "dense", "monot5"]
    assert families_for("ais") == ["autoais", "em", "f1"]  # em and f1 by the ais spec, once gold answers come in
    assert families_for("image_relevance") == ["clipscore", "vlm"]
    # Every family judges some task type.
    assert all(any(name in families_for(task_type) for task_type in task_type_names()) for name in FAMILIES)


def test_a_task_type_can_take_up_families_its_spec_names():
    # passage_relevance lists the llm family and the rankers in its spec's judge_families: the one place it is said.
    assert families_for("passage_relevance") == ["bm25", "cross-encoder", "dense", "llm", "monot5"]
    assert not any(hasattr(family, "task_types") for family in FAMILIES.values())
    family_check_task_type("llm", "passage_relevance")
    family_check_task_type("monot5", "passage_relevance")
    with pytest.raises(JudgeConfigError) as refused:
        family_check_task_type("clipscore", "passage_relevance")
    assert str(refused.value) == ("clipscore judges image_relevance campaigns, not passage_relevance; families for "
                                  "passage_relevance: bm25, cross-encoder, dense, llm, monot5")
    with pytest.raises(
        JudgeConfigError,
        match="llm judges nugget_evaluation, pairwise_preference, passage_relevance, qa_correctness campaigns, not ais",
    ):
        family_check_task_type("llm", "ais")
    # A task type no module registered has no families, and no family judges it.
    assert families_for("poll") == []
    with pytest.raises(JudgeConfigError) as unknown:
        family_check_task_type("em", "poll")
    assert str(unknown.value) == "em judges ais, qa_correctness campaigns, not poll; families for poll: none"


def test_the_page_offers_only_the_families_of_the_campaigns_task_type(client, qa_campaign, researcher):
    client.force_login(researcher)
    page = client.get("/campaigns/qa/judges/").content.decode()
    options = page[page.index('name="family"'):page.index("</select>", page.index('name="family"'))]
    assert all(f'value="{name}"' in options for name in ("em", "f1", "llm"))
    assert 'value="bm25"' not in options and 'value="clipscore"' not in options
    answer = client.post("/campaigns/qa/judges/", {"name": "lexical", "family": "bm25", "batch_size": 64})
    assert answer.status_code == 400 and "Select a valid choice" in answer.content.decode()


def test_the_page_of_a_passage_campaign_offers_the_families_its_task_type_names(client, researcher):
    campaign_get_or_create(slug="dl", task_type="passage_relevance", owner=researcher)
    client.force_login(researcher)
    page = client.get("/campaigns/dl/judges/").content.decode()
    options = page[page.index('name="family"'):page.index("</select>", page.index('name="family"'))]
    assert all(f'value="{name}"' in options for name in ("bm25", "cross-encoder", "dense", "llm", "monot5"))
    assert 'value="em"' not in options and 'value="clipscore"' not in options


def test_the_api_refuses_a_family_that_does_not_apply_and_says_which_do(qa_campaign, researcher):
    api = APIClient()
    api.force_authenticate(researcher)
    answer = api.post("/api/campaigns/qa/judge-runs/", {"judge": "lexical", "family": "bm25"}, format="json")
    assert answer.status_code == 400
    assert answer.json()["detail"] == ("bm25 judges answer_ranking, passage_relevance campaigns, not qa_correctness; "
                                       "families for qa_correctness: em, f1, llm")
    assert not Judge.objects.exists()


def test_a_run_in_which_every_item_failed_ends_failed(qa_campaign, eager, django_capture_on_commit_callbacks):  # noqa: F811
    config = {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "n": 1, "decoding": "greedy",
              "max_retries": 0, "timeout": 2}
    with django_capture_on_commit_callbacks(execute=True):
        run = judge_run_start(campaign=qa_campaign, name="unreachable", family="llm", config=config)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == "every one of the 6 items failed; the judge panel lists the reasons"
    with django_capture_on_commit_callbacks(execute=True):
        em = judge_run_start(campaign=qa_campaign, name="em", family="em", config={})
    em.refresh_from_db()
    assert em.status == RunStatus.SUCCEEDED
    assert em.batch_size == 64  # the default items per task of a family that makes no forward passes


def test_a_run_started_from_the_page_or_the_api_without_items_per_task_takes_the_familys(
        client, qa_campaign, researcher, eager, django_capture_on_commit_callbacks):
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/campaigns/qa/judges/", {"name": "exact", "family": "em", "batch_size": ""})
    assert answer.status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        api = client.post("/api/campaigns/qa/judge-runs/", {"judge": "token-f1", "family": "f1"},
                          content_type="application/json")
    assert api.status_code == 201, api.content
    assert api.json()["batch_size"] == 64
    assert JudgeRun.objects.get(judge__name="exact").batch_size == 64
