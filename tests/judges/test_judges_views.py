"""The judge panel: researchers only, start EM/F1, the live progress row, cancel and resume."""

import re

import pytest

from annotate.models import Role
from judges.models import Judge, JudgeRun, ModelJudgment, RunStatus
from tests.factories import CampaignFactory, MembershipFactory, UserFactory
from tests.judges_support import eager  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db
URL = "/campaigns/qa/judges/"


def _login(client, username, password):
    client.login(username=username, password=password)
    return client


def test_only_researchers_of_the_campaign_see_the_panel(client, qa_campaign, password):
    outsider = UserFactory(username="other-res")
    MembershipFactory(user=outsider, role=Role.RESEARCHER)  # researcher of another campaign
    assert client.get(URL).status_code == 302  # login first
    for username, status in (("ann", 403), ("other-res", 404)):  # the campaign's annotator is told why
        _login(client, username, password)
        assert client.get(URL).status_code == status
        assert client.post(URL, {"name": "em", "family": "em", "batch_size": 8}).status_code == status
    assert JudgeRun.objects.count() == 0


def test_researcher_starts_em_and_f1_and_sees_judges_and_runs(
    client, qa_campaign, password, eager, django_capture_on_commit_callbacks
):
    _login(client, "res", password)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(URL, {"name": "em", "family": "em", "batch_size": 4})
    assert response.status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        client.post(URL, {"name": "f1-strict", "family": "f1", "threshold": "0.8", "batch_size": 4})
    assert Judge.objects.get(name="f1-strict").config == {"threshold": 0.8}
    Judge.objects.create(campaign=qa_campaign, name="gpt-4", family="external", config={}, config_hash="ext")
    page = client.get(URL).content.decode()
    assert "gpt-4" in page and "(imported)" in page
    assert "6/6 judged" in page
    assert "Succeeded" in page
    assert 'name="cancel"' not in page  # nothing active to cancel


def test_bad_form_input_is_shown(client, qa_campaign, password, eager, django_capture_on_commit_callbacks):
    _login(client, "res", password)
    response = client.post(URL, {"name": "f1", "family": "f1", "threshold": "2", "batch_size": 4})
    assert response.status_code == 400
    assert "less than or equal to 1" in response.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(URL, {"name": "f1", "family": "f1", "threshold": "0.5", "batch_size": 4})
    response = client.post(URL, {"name": "f1", "family": "f1", "threshold": "0.9", "batch_size": 4})
    assert "already exists in campaign &#x27;qa&#x27; with another configuration" in response.content.decode()


def test_progress_row_polls_while_active_and_stops_after(
    client, qa_campaign, password, django_capture_on_commit_callbacks
):
    _login(client, "res", password)
    with django_capture_on_commit_callbacks(execute=False):  # queued, no worker yet
        client.post(URL, {"name": "em", "family": "em", "batch_size": 4})
    run = JudgeRun.objects.get()
    page = client.get(URL).content.decode()
    assert f'hx-get="{URL}?run={run.id}"' in page and 'hx-trigger="every 1s"' in page
    assert "0/6 judged" in page and 'name="cancel"' in page

    from judges.tasks import judge_batch
    ids = list(qa_campaign.items.order_by("id").values_list("id", flat=True))
    judge_batch(run.id, ids[:4])
    fragment = client.get(URL, {"run": run.id}, headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    body = fragment.content.decode()
    assert body.lstrip().startswith("<tr") and "4/6 judged" in body and "width: 67%" in body

    judge_batch(run.id, ids[4:])
    fragment = client.get(URL, {"run": run.id}, headers={"HX-Request": "true"})
    assert fragment.status_code == 286  # htmx: stop polling
    body = fragment.content.decode()
    assert "6/6 judged" in body and "Succeeded" in body and "hx-trigger" not in body
    # The Judges table no longer says the run is under way: its judge's cells come along, swapped in by their ids.
    oob = body[body.index(f'id="new-items-{run.judge_id}"'):]
    assert oob.startswith(f'id="new-items-{run.judge_id}" hx-swap-oob="true">') and "under way" not in body
    assert f'<td class="num" id="judgments-{run.judge_id}" hx-swap-oob="true">6</td>' in body


def test_cancel_and_resume_buttons(client, qa_campaign, password, eager, django_capture_on_commit_callbacks):
    _login(client, "res", password)
    with django_capture_on_commit_callbacks(execute=False):
        client.post(URL, {"name": "em", "family": "em", "batch_size": 4})
    run = JudgeRun.objects.get()
    response = client.post(f"{URL}runs/{run.id}/cancel/", follow=True)
    assert "cancelled" in response.content.decode()
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"{URL}runs/{run.id}/resume/")
    response = client.get(URL)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert ModelJudgment.objects.filter(judge=run.judge).count() == 6
    assert "6/6 judged" in response.content.decode()
    assert client.get(f"{URL}runs/{run.id}/cancel/").status_code == 405  # POST only


def test_csrf_is_enforced_on_buttons(qa_campaign, password, django_capture_on_commit_callbacks):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.login(username="res", password=password)
    assert client.post(URL, {"name": "em", "family": "em", "batch_size": 4}).status_code == 403
    assert JudgeRun.objects.count() == 0


def test_the_start_form_shows_only_the_fields_and_help_of_the_families_that_apply(client, researcher, password):
    """A passage campaign is judged by rankers and llm: no F1 threshold, no EM/F1 help; a QA campaign keeps them."""
    for slug, task_type in (("pas", "passage_relevance"), ("qa2", "qa_correctness")):
        MembershipFactory(campaign=CampaignFactory(slug=slug, task_type=task_type), user=researcher,
                          role=Role.RESEARCHER)
    _login(client, "res", password)
    page = client.get("/campaigns/pas/judges/").content.decode()
    # The word F1, not the letters inside the page's random CSRF token ("...Tw7F1ZDco...").
    assert 'name="threshold"' not in page and not re.search(r"\bF1\b", page) and "exact match" not in page.lower()
    help_ = page[page.index('id="family-help"'):page.index("</dl>", page.index('id="family-help"'))]
    assert "<b>bm25</b>" in help_ and "<b>llm</b>" in help_ and "<b>em</b>" not in help_
    assert 'name="endpoint"' in page and "llm: the OpenAI-compatible server" in page
    page = client.get("/campaigns/qa2/judges/").content.decode()
    assert 'name="threshold"' in page and "Threshold (f1)" in page and "<b>em</b>" in page
