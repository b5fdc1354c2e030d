"""The page header: the API docs are linked for researchers, and an anonymous visitor to them is sent to sign in."""

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
