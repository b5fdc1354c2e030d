"""A page that refreshes part of itself (an import job's progress) when the session ends: the part is never replaced
by the login page; the whole page goes to the sign-in page, and back after signing in."""

import pytest
from playwright.sync_api import expect

from interchange.models import ImportJob
from tests.sessions_support import sessions_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_polling_page_whose_session_ended_goes_to_sign_in_and_back(qa_campaign, researcher, password, login_page,
                                                                      live_server):
    job = ImportJob.objects.create(campaign=qa_campaign, created_by=researcher, format="judge-scores",
                                   status="running", files=[{"name": "scores.tsv", "size": 100}], bytes_total=100)
    page = login_page(researcher.username)
    path = f"/campaigns/{qa_campaign.slug}/imports/{job.id}/"
    page.goto(live_server.url + path)
    assert page.locator("[hx-trigger='every 1s']").count() == 1  # it polls while the job runs
    assert sessions_end() >= 1
    page.wait_for_url(f"{live_server.url}/accounts/login/?next={path}", timeout=10_000)
    assert page.locator("input[name=username]").count() == 1 and "scores.tsv" not in page.content()
    page.fill("input[name=username]", researcher.username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + path)
    expect(page.locator("body")).to_contain_text("scores.tsv")

