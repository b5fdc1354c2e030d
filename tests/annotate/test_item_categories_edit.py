"""Who may set an item's category, through the API, the Items page and the adjudication page (no browser)."""

import pytest

from annotate.models import CampaignDataVersion, Item, Role
from annotate.services.items import item_category_set
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(qa_campaign, researcher, annotator):
    adjudicator = UserFactory(username="adj")
    MembershipFactory(campaign=qa_campaign, user=adjudicator, role=Role.ADJUDICATOR)
    other = UserFactory(username="other-researcher")  # a researcher of another campaign only
    return {"researcher": researcher, "adjudicator": adjudicator, "annotator": annotator, "other": other}


def url(item):
    return f"/api/campaigns/qa/items/{item.pk}/"


def category_of(item):
    item.refresh_from_db()
    return item.category


def test_researcher_and_adjudicator_may_set_a_category_through_the_api(client, qa_campaign, people):
    item = Item.objects.get(external_id="1-0")
    client.force_login(people["researcher"])
    response = client.patch(url(item), {"category": "  semantic "}, content_type="application/json")
    assert response.status_code == 200 and response.json() == {"category": "semantic"}
    assert category_of(item) == "semantic"
    version = CampaignDataVersion.objects.get(campaign=qa_campaign).version
    client.force_login(people["adjudicator"])
    assert client.patch(url(item), {"category": "symbolic"}, content_type="application/json").status_code == 200
    assert category_of(item) == "symbolic"
    assert CampaignDataVersion.objects.get(campaign=qa_campaign).version == version + 1  # the report is out of date
    listed = client.get("/api/campaigns/qa/items/")
    assert listed.status_code == 403  # the items list stays the researchers'
    client.force_login(people["researcher"])
    rows = {row["external_id"]: row["category"] for row in client.get("/api/campaigns/qa/items/").json()["results"]}
    assert rows["1-0"] == "symbolic" and rows["1-1"] == ""


def test_annotators_and_strangers_may_not(client, qa_campaign, people):
    item = Item.objects.get(external_id="1-0")
    client.force_login(people["annotator"])
    refused = client.patch(url(item), {"category": "x"}, content_type="application/json")
    assert refused.status_code == 403
    assert "you are an annotator here" in refused.json()["detail"]
    client.force_login(people["other"])
    assert client.patch(url(item), {"category": "x"}, content_type="application/json").status_code == 404
    assert category_of(item) == ""
    with pytest.raises(Exception, match="Only the campaign's researchers and adjudicators"):
        item_category_set(item=item, user=people["annotator"], category="x")


def test_a_bad_category_is_refused_in_words(client, qa_campaign, people):
    item = Item.objects.get(external_id="1-0")
    client.force_login(people["researcher"])
    response = client.patch(url(item), {"category": "a\nb"}, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"detail": "a category is one line (no tab or line break)"}
    response = client.patch(url(item), {"category": "x" * 101}, content_type="application/json")
    assert response.json()["detail"] == "a category is at most 100 characters; this one has 101"
    assert client.patch("/api/campaigns/qa/items/999999/", {"category": "x"},
                        content_type="application/json").status_code == 404


def test_items_page_lists_filters_and_edits_categories(client, qa_campaign, people):
    Item.objects.filter(external_id__in=["1-0", "2-0"]).update(category="semantic")
    item = Item.objects.get(external_id="3-1")
    client.force_login(people["adjudicator"])
    page = client.get("/campaigns/qa/items/?category=semantic").content.decode()
    assert "2 items" in page and "1-0" in page and "3-1" not in page
    assert "semantic (2)" in page and "without a category (4)" in page
    response = client.post(f"/campaigns/qa/items/{item.pk}/category/",
                           {"category": "granularity", "next": "/campaigns/qa/items/?category=-"})
    assert response.status_code == 302 and response["Location"] == "/campaigns/qa/items/?category=-"
    assert category_of(item) == "granularity"
    followed = client.get(response["Location"]).content.decode()
    assert "Item 3-1: category “granularity”." in followed
    # An address elsewhere is not followed.
    response = client.post(f"/campaigns/qa/items/{item.pk}/category/",
                           {"category": "", "next": "https://evil.example/"})
    assert response["Location"] == "/campaigns/qa/items/"
    assert category_of(item) == ""
    client.force_login(people["annotator"])
    assert client.get("/campaigns/qa/items/").status_code == 403
    assert client.post(f"/campaigns/qa/items/{item.pk}/category/", {"category": "x"}).status_code == 403
    assert category_of(item) == ""


def test_the_adjudication_page_offers_the_items_category(client, qa_campaign, people):
    item = Item.objects.get(external_id="2-1")
    Item.objects.filter(pk=item.pk).update(category="symbolic")
    client.force_login(people["adjudicator"])
    page = client.get(f"/campaigns/qa/adjudicate/{item.units.get().pk}/").content.decode()
    assert f'action="/campaigns/qa/items/{item.pk}/category/"' in page
    assert 'id="category-input" value="symbolic"' in page
