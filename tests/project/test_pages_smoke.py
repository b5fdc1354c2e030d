"""The login page and the campaign list, in a real browser."""

import pytest


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_researcher_logs_in_and_sees_their_campaign(login_page, qa_campaign, tmp_path):
    page = login_page("res")
    assert page.locator("h1").inner_text() == "Campaigns"
    assert page.locator("table").get_by_text("Campaign qa").is_visible()
    page.screenshot(path=str(tmp_path / "home.png"))


@pytest.mark.django_db
def test_anonymous_is_sent_to_login(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
