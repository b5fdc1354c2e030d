"""The judge-run REST API: start, read, cancel, resume; researchers of the campaign only."""

import pytest
from rest_framework.test import APIClient

from annotate.models import Role
from judges.models import JudgeRun, ModelJudgment, RunStatus
from tests.factories import MembershipFactory, UserFactory
from tests.judges_support import eager  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


def _client(user=None):
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_researcher_starts_reads_and_lists(qa_campaign, researcher, eager, django_capture_on_commit_callbacks):
    api = _client(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/api/campaigns/qa/judge-runs/",
            {"judge": "f1", "family": "f1", "config": {"threshold": 0.6}, "batch_size": 4},
            format="json",
        )
    assert response.status_code == 201, response.content
    run_id = response.json()["id"]
    body = api.get(f"/api/judge-runs/{run_id}/").json()
    assert (body["status"], body["judged"], body["total"], body["judge"], body["family"]) == (
        "succeeded",
        6,
        6,
        "f1",
        "f1",
    )
    runs = api.get("/api/campaigns/qa/judge-runs/").json()
    assert [r["id"] for r in runs["results"]] == [run_id]
    judges = api.get("/api/campaigns/qa/judges/").json()["results"]
    assert judges[0]["name"] == "f1" and judges[0]["judgments"] == 6 and judges[0]["config"] == {"threshold": 0.6}


def test_errors_are_400_and_409_with_a_message(qa_campaign, researcher, django_capture_on_commit_callbacks):
    api = _client(researcher)
    bad = api.post(
        "/api/campaigns/qa/judge-runs/", {"judge": "f1", "family": "f1", "config": {"threshold": "x"}}, format="json"
    )
    assert bad.status_code == 400 and "threshold must be a number" in bad.json()["detail"]
    unknown = api.post("/api/campaigns/qa/judge-runs/", {"judge": "z", "family": "nope"}, format="json")
    assert unknown.status_code == 400 and "family" in unknown.json()
    with django_capture_on_commit_callbacks(execute=False):
        first = api.post("/api/campaigns/qa/judge-runs/", {"judge": "em", "family": "em"}, format="json")
    assert first.status_code == 201 and first.json()["status"] == "queued"
    again = api.post("/api/campaigns/qa/judge-runs/", {"judge": "em", "family": "em"}, format="json")
    assert again.status_code == 409 and "already has run" in again.json()["detail"]


def test_cancel_then_resume(qa_campaign, researcher, eager, django_capture_on_commit_callbacks):
    api = _client(researcher)
    with django_capture_on_commit_callbacks(execute=False):
        run_id = api.post("/api/campaigns/qa/judge-runs/", {"judge": "em", "family": "em"}, format="json").json()["id"]
    assert api.post(f"/api/judge-runs/{run_id}/cancel/").json()["status"] == "cancelled"
    assert api.post(f"/api/judge-runs/{run_id}/cancel/").status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        resumed = api.post(f"/api/judge-runs/{run_id}/resume/")
    assert resumed.status_code == 200
    assert api.get(f"/api/judge-runs/{run_id}/").json()["status"] == "succeeded"
    assert ModelJudgment.objects.count() == 6


@pytest.mark.parametrize("who", ["anonymous", "annotator", "other-researcher"])
def test_nobody_else_reaches_judges_or_runs(
    qa_campaign, researcher, annotator, who, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        run_id = _client(researcher).post("/api/campaigns/qa/judge-runs/", {"judge": "em", "family": "em"},
                                          format="json").json()["id"]
    user = {"anonymous": None, "annotator": annotator}.get(who)
    if who == "other-researcher":
        user = UserFactory(username="res2")
        MembershipFactory(user=user, role=Role.RESEARCHER)
    api = _client(user)
    # Anonymous: DRF asks for credentials. The campaign's annotator: told its endpoints are for its researchers (403),
    # but a run reached by id alone is a 404, as for a researcher of another campaign: as if it did not exist.
    for method, url in [
        ("get", "/api/campaigns/qa/judges/"), ("get", "/api/campaigns/qa/judge-runs/"),
        ("post", "/api/campaigns/qa/judge-runs/"), ("get", f"/api/judge-runs/{run_id}/"),
        ("post", f"/api/judge-runs/{run_id}/cancel/"), ("post", f"/api/judge-runs/{run_id}/resume/"),
    ]:
        response = getattr(api, method)(
            url, {"judge": "x", "family": "em"} if method == "post" else None, format="json"
        )
        expected = 403 if user is None or (who == "annotator" and "/campaigns/" in url) else 404
        assert response.status_code in (expected, 401), (who, url, response.status_code)
        assert b"judged" not in response.content
    assert JudgeRun.objects.get().status == RunStatus.QUEUED
    assert JudgeRun.objects.count() == 1


def test_schema_documents_the_judge_run_endpoints(client, researcher, password):
    client.login(username="res", password=password)
    schema = client.get("/api/schema/").content.decode()
    for path in (
        "/api/campaigns/{slug}/judge-runs/",
        "/api/judge-runs/{run_id}/cancel/",
        "/api/campaigns/{slug}/judges/",
    ):
        assert path in schema
