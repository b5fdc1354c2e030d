"""REST API: campaigns, items and import; scoped to the user (404 otherwise); token auth; OpenAPI schema."""

import io
import zipfile

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.services import token_create
from annotate.models import Role, SystemOutput
from judges.models import ModelJudgment
from tests.factories import CampaignFactory, MembershipFactory, UserFactory
from tests.import_jobs_support import api_import, imports_inline  # noqa: F401 (a fixture)


def client_for(user=None, token=False):
    client = APIClient()
    if user is not None:
        if token:
            client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user, name='api')[1]}")
        else:
            client.force_authenticate(user)
    return client


@pytest.fixture
def other_campaign(db):
    return CampaignFactory(slug="secret")


def test_campaign_list_shows_only_my_campaigns(qa_campaign, other_campaign, researcher, annotator):
    for user in (researcher, annotator):
        response = client_for(user).get("/api/campaigns/")
        assert response.status_code == 200
        assert [c["slug"] for c in response.json()["results"]] == ["qa"]


def test_anonymous_gets_401(qa_campaign):
    assert client_for().get("/api/campaigns/").status_code in (401, 403)


def test_campaign_detail_counts_for_researcher_only(qa_campaign, researcher, annotator):
    body = client_for(researcher).get("/api/campaigns/qa/").json()
    assert body["is_researcher"] is True
    assert body["counts"]["topics"] == 3 and body["counts"]["items"] == 6
    body = client_for(annotator).get("/api/campaigns/qa/").json()
    assert body["is_researcher"] is False and body["counts"] is None


def test_items_are_paginated_with_topic_and_systems(qa_campaign, researcher):
    item = qa_campaign.items.get(external_id="2-0")
    SystemOutput.objects.create(campaign=qa_campaign, system="DPR", topic=item.topic, item=item)
    SystemOutput.objects.create(campaign=qa_campaign, system="FiD", topic=item.topic, item=item)
    response = client_for(researcher, token=True).get("/api/campaigns/qa/items/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 6
    row = next(r for r in body["results"] if r["external_id"] == "2-0")
    assert row["topic"] == "2" and row["topic_text"] == "what is the capital of australia"
    assert row["text"] == "canberra" and row["systems"] == ["DPR", "FiD"]


@pytest.mark.parametrize("url", ["/api/campaigns/qa/items/", "/api/campaigns/qa/import/"])
def test_annotators_get_403_saying_why_on_items_and_import(qa_campaign, annotator, url):
    client = client_for(annotator)
    response = client.post(url, {}) if url.endswith("import/") else client.get(url)
    assert response.status_code == 403
    assert response.json()["detail"] == ("This page is for the researchers of campaign “Campaign qa”; "
                                         "you are an annotator here.")


@pytest.mark.parametrize("url", ["/api/campaigns/qa/", "/api/campaigns/qa/items/"])
def test_non_members_get_404_on_everything(qa_campaign, url):
    outsider = UserFactory(username="outsider")
    assert client_for(outsider).get(url).status_code == 404
    assert client_for(outsider).post("/api/campaigns/qa/import/", {}).status_code == 404


def test_another_researcher_cannot_see_my_campaign(qa_campaign):
    other = UserFactory(username="res2")
    MembershipFactory(campaign=CampaignFactory(slug="theirs"), user=other, role=Role.RESEARCHER)
    assert client_for(other).get("/api/campaigns/qa/items/").status_code == 404


def test_import_judge_scores_by_token(qa_campaign, researcher, imports_inline):
    upload = SimpleUploadedFile("scores.tsv", b"topic\titem\tscore\tlabel\n1\t1-0\t0.8\tyes\n")
    job = api_import(imports_inline, client_for(researcher, token=True), "/api/campaigns/qa/import/",
                     {"format": "judge-scores", "judge": "ext", "files": [upload]})
    assert job["status"] == "done" and job["files"] == [{"name": "scores.tsv", "size": 37}]
    assert job["summary"]["items_by_judge"] == {"ext": 1}
    assert ModelJudgment.objects.get().label == "yes"


def test_import_bad_input_fails_the_job_with_file_line_field(qa_campaign, researcher, imports_inline):
    upload = SimpleUploadedFile("scores.tsv", b"topic\titem\tscore\n1\t1-0\tlots\n")
    job = api_import(imports_inline, client_for(researcher), "/api/campaigns/qa/import/",
                     {"format": "judge-scores", "judge": "ext", "files": [upload]})
    assert (job["status"], job["summary"]) == ("failed", None)
    assert job["error"] == "scores.tsv:2: score: expected a number, got 'lots'"
    assert not ModelJudgment.objects.exists()


def test_import_unknown_format_is_400(qa_campaign, researcher):
    upload = SimpleUploadedFile("x.csv", b"a,b\n")
    response = client_for(researcher).post("/api/campaigns/qa/import/", {"format": "csv", "files": [upload]},
                                           format="multipart")
    assert response.status_code == 400
    assert "format" in response.json()


def _nq301_zip(prefix="nq301/") -> bytes:
    buffer = io.BytesIO()
    folder = settings.BASE_DIR / "fixtures" / "nq301"
    with zipfile.ZipFile(buffer, "w") as bundle:
        for path in folder.rglob("*"):
            if path.is_file():
                bundle.write(path, prefix + str(path.relative_to(folder)))
    return buffer.getvalue()


def test_import_nq301_zip(researcher, imports_inline):
    campaign = CampaignFactory(slug="nq", task_type="qa_correctness")
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    upload = SimpleUploadedFile("nq301.zip", _nq301_zip())
    job = api_import(imports_inline, client_for(researcher), "/api/campaigns/nq/import/",
                     {"format": "nq301", "files": [upload]})
    body = job["summary"]
    assert (body["topics"], body["items_with_human_verdict"], len(body["systems"])) == (301, 1489, 12)
    assert body["items_by_judge"] == {"gpt-4": 1489, "text-davinci-003": 1489}


@pytest.mark.parametrize("entry", ["../evil.tsv", "/etc/evil.tsv"])
def test_zip_entries_leaving_the_folder_are_refused(qa_campaign, researcher, entry, imports_inline):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr(entry, "x")
    upload = SimpleUploadedFile("nq301.zip", buffer.getvalue())
    job = api_import(imports_inline, client_for(researcher), "/api/campaigns/qa/import/",
                     {"format": "nq301", "files": [upload]})
    assert job["status"] == "failed"
    assert job["error"] == f"nq301.zip:0: {entry}: zip entry path leaves the folder (absolute or '..')"


def test_schema_is_served_and_lists_the_campaign_paths(qa_campaign, researcher):
    response = client_for(researcher).get("/api/schema/?format=json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ("/api/campaigns/", "/api/campaigns/{slug}/", "/api/campaigns/{slug}/items/",
                 "/api/campaigns/{slug}/import/"):
        assert path in paths
    assert "multipart/form-data" in paths["/api/campaigns/{slug}/import/"]["post"]["requestBody"]["content"]
