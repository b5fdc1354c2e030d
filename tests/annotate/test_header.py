"""The page header: the API docs are linked for researchers, and an anonymous visitor to them is sent to sign in."""

import pytest
from django.urls import reverse

DOCS = reverse("api-docs")


def test_the_api_docs_are_linked_for_a_researcher_and_not_for_an_annotator(client, qa_campaign, researcher, annotator):
    client.force_login(researcher)
    page = client.get(reverse("home")).content.decode()
    assert f'href="{DOCS}"' in page
    client.force_login(annotator)
    page = client.get(reverse("home")).content.decode()
    assert f'href="{DOCS}"' not in page and "Campaigns" in page


def test_an_anonymous_visitor_to_the_api_docs_is_sent_to_sign_in_and_back(client, qa_campaign, researcher, password):
    answer = client.get(DOCS)
    assert answer.status_code == 302
    assert answer.url == f"{reverse('login')}?next={DOCS}"
    answer = client.post(answer.url, {"username": researcher.username, "password": password}, follow=True)
    assert answer.redirect_chain[-1][0] == DOCS and answer.status_code == 200
    assert b"swagger" in answer.content.lower()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_no_page_asks_for_a_missing_favicon(qa_campaign, researcher, login_page, live_server, caplog):
    """Chromium asks for /favicon.ico (a 404 in the log of every page) unless the page links an icon. The browser's
    own icon requests are not the page's: the server's log of requests it could not answer is what tells."""
    caplog.set_level("WARNING", logger="django.request")
    page = login_page("res")
    missing, icons = [], []
    page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
    page.on("response", lambda r: icons.append(r.status) if "favicon" in r.url else None)
    for url in ("/", f"/campaigns/{qa_campaign.slug}/", "/accounts/login/"):
        page.goto(live_server.url + url)
        page.wait_for_load_state("networkidle")
    assert missing == [] and [r.getMessage() for r in caplog.records if r.name == "django.request"] == []
    assert icons and set(icons) == {200}
    assert page.locator("link[rel=icon]").get_attribute("href").endswith("/img/favicon.svg")
