"""A campaign's people (annotate.services.campaigns, the People page, /api/campaigns/SLUG/members/): adding an
existing account or a new person with a one-time link to choose a password (accounts.services, accounts.views),
removing an annotator (judgments stay, leases go back to the queue), never the last researcher; each annotator's
progress and the work left on the campaign page."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Invitation
from annotate.models import Assignment, HumanJudgment, Membership, Role
from annotate.services.annotation import judgment_submit, unit_lease_next
from annotate.services.campaigns import CampaignError, member_add, member_invitation_create, member_remove
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def _link(page: str) -> str:
    """The one-time link a page shows, as a path."""
    return re.search(r'id="invite-url" value="https?://[^/]+(/accounts/welcome/[^"]+/)"', page).group(1)


def _add(client, **data):
    return client.post("/campaigns/qa/people/", {"action": "add", "role": "annotator", **data})


def test_an_existing_account_is_added_by_its_username(client, qa_campaign, researcher):
    UserFactory(username="bea")
    client.force_login(researcher)
    response = _add(client, username="bea", role="researcher")
    assert response.status_code == 302
    assert Membership.objects.filter(campaign=qa_campaign, user__username="bea", role=Role.RESEARCHER).exists()
    assert "bea is now a researcher of this campaign." in client.get("/campaigns/qa/people/").content.decode()
    again = _add(client, username="bea", role="researcher")
    assert again.status_code == 400 and "Bea is already a researcher of this campaign." in again.content.decode()


def test_a_missing_account_is_not_made_unless_asked_for(client, qa_campaign, researcher):
    client.force_login(researcher)
    response = _add(client, username="nobody")
    assert response.status_code == 400
    assert ("&#x27;nobody&#x27; cannot be added as an existing account here: check the username the person signs in "
            "with; if they have no account yet, add them as a new person") in response.content.decode()
    assert not get_user_model().objects.filter(username="nobody").exists()
    assert _add(client, username="ann", create="on").status_code == 400  # "ann" exists: not a new person
    assert Membership.objects.filter(campaign=qa_campaign).count() == 2


def test_a_new_person_sets_a_password_with_a_one_time_link_and_lands_in_the_campaign(client, qa_campaign, researcher):
    client.force_login(researcher)
    response = _add(client, username="cleo", create="on")
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    page = response.content.decode()
    assert "An account called cleo was made." in page
    link = _link(page)
    cleo = get_user_model().objects.get(username="cleo")
    assert not cleo.has_usable_password() and Membership.objects.filter(user=cleo, role=Role.ANNOTATOR).exists()
    assert 'no password yet' in page
    client.logout()

    form = client.get(link)
    assert form.status_code == 200 and "An account called <b>cleo</b> was made for you." in form.content.decode()
    short = client.post(link, {"new_password1": "short", "new_password2": "short"})
    assert short.status_code == 400 and "This password is too short." in short.content.decode()
    done = client.post(link, {"new_password1": "a-long-passphrase", "new_password2": "a-long-passphrase"})
    assert done.status_code == 302 and done["Location"] == "/campaigns/qa/"
    landing = client.get("/campaigns/qa/").content.decode()
    assert "Welcome, cleo: your password is set and you are signed in." in landing and "Start annotating" in landing
    cleo.refresh_from_db()
    assert cleo.check_password("a-long-passphrase") and cleo.is_active
    client.logout()
    second = client.get(link)
    assert second.status_code == 410
    assert "This link has been used already or has expired." in second.content.decode()
    assert client.post(link, {"new_password1": "another-passphrase",
                              "new_password2": "another-passphrase"}).status_code == 410
    cleo.refresh_from_db()
    assert cleo.check_password("a-long-passphrase")


def test_a_link_stops_working_when_it_expires_or_a_new_one_is_made(client, qa_campaign, researcher):
    first = member_add(campaign=qa_campaign, username="dan", role=Role.ANNOTATOR, added_by=researcher, create=True)
    assert client.get(f"/accounts/welcome/{first.invite_key}/").status_code == 200
    client.force_login(researcher)
    membership = Membership.objects.get(user__username="dan")
    response = client.post("/campaigns/qa/people/", {"action": "invite", "membership": membership.pk})
    assert "A new link for dan." in response.content.decode()
    client.logout()
    assert client.get(f"/accounts/welcome/{first.invite_key}/").status_code == 410
    newer = _link(response.content.decode())
    assert client.get(newer).status_code == 200
    Invitation.objects.filter(user__username="dan", used_at__isnull=True).update(
        expires_at=timezone.now() - timedelta(seconds=1))
    assert client.get(newer).status_code == 410


def test_no_link_is_made_for_an_account_that_has_a_password(qa_campaign, researcher, annotator):
    with pytest.raises(CampaignError, match="ann has a password already"):
        member_invitation_create(campaign=qa_campaign, user=annotator, created_by=researcher)
    added = member_add(campaign=qa_campaign, username="ann", role=Role.RESEARCHER, added_by=researcher)
    assert added.invite_key is None and not added.created


def test_removing_an_annotator_keeps_their_judgments_and_frees_their_units(client, qa_campaign, researcher, annotator):
    done = judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator), annotator=annotator,
                           value={"correct": True})
    held = unit_lease_next(campaign=qa_campaign, annotator=annotator)
    colleague = UserFactory(username="col")
    MembershipFactory(campaign=qa_campaign, user=colleague, role=Role.ANNOTATOR)
    # With k = 1 the unit ann holds is not open to anyone else while the lease runs.
    assert unit_lease_next(campaign=qa_campaign, annotator=colleague).unit_id != held.unit_id
    client.force_login(researcher)
    membership = Membership.objects.get(campaign=qa_campaign, user=annotator)
    response = client.post("/campaigns/qa/people/", {"action": "remove", "membership": membership.pk})
    assert response.status_code == 302
    page = client.get("/campaigns/qa/people/").content.decode()
    assert "ann is no longer an annotator of this campaign; their judgments stay. The 1 unit they held went back " \
           "to the queue." in page
    assert not Membership.objects.filter(campaign=qa_campaign, user=annotator).exists()
    assert HumanJudgment.objects.filter(pk=done.pk, is_current=True).exists()
    assert Assignment.objects.get(pk=held.pk).status == "expired"
    # The freed unit is open again: a second colleague gets it first (it comes earliest in the queue).
    other = UserFactory(username="col2")
    MembershipFactory(campaign=qa_campaign, user=other, role=Role.ANNOTATOR)
    assert unit_lease_next(campaign=qa_campaign, annotator=other).unit_id == held.unit_id
    # The removed annotator is a stranger to the campaign now; the campaign page keeps their judgments' row.
    client.force_login(annotator)
    assert client.get("/campaigns/qa/annotate/").status_code == 404
    client.force_login(researcher)
    assert "(no longer an annotator; their judgments stay)" in client.get("/campaigns/qa/").content.decode()


def test_the_last_researcher_cannot_be_removed(client, qa_campaign, researcher):
    client.force_login(researcher)
    membership = Membership.objects.get(campaign=qa_campaign, role=Role.RESEARCHER)
    response = client.post("/campaigns/qa/people/", {"action": "remove", "membership": membership.pk}, follow=True)
    assert "Res is the last researcher of this campaign; add another researcher before removing them." in \
        response.content.decode()
    assert Membership.objects.filter(pk=membership.pk).exists()
    other = UserFactory(username="res2")
    member_add(campaign=qa_campaign, username="res2", role=Role.RESEARCHER, added_by=researcher)
    member_remove(campaign=qa_campaign, user=researcher, role=Role.RESEARCHER)
    with pytest.raises(CampaignError, match="res2 is the last researcher"):
        member_remove(campaign=qa_campaign, user=other)


def test_the_campaign_page_shows_each_annotators_progress_and_the_work_left(client, qa_campaign, researcher,
                                                                            annotator):
    for _ in range(2):
        judgment_submit(assignment=unit_lease_next(campaign=qa_campaign, annotator=annotator), annotator=annotator,
                        value={"correct": True})
    unit_lease_next(campaign=qa_campaign, annotator=annotator)
    client.force_login(researcher)
    page = client.get("/campaigns/qa/").content.decode()
    assert '<div class="stat" id="work-left"><b>4</b>human judgments still wanted</div>' in page
    row = re.search(r"<tr><td>ann</td>(.*?)</tr>", page, re.S).group(1)
    assert re.findall(r'<td class="num">(\d+)</td>', row) == ["2", "0", "1"]  # done here, imported, in progress
    assert timezone.now().strftime("%Y-%m-%d") in row
    people = client.get("/campaigns/qa/people/").content.decode()
    assert re.search(r'<td class="num">2</td><td class="num">1</td>', people)


def test_an_annotator_opening_the_people_page_is_told_what_it_is_for(client, qa_campaign, annotator):
    client.force_login(annotator)
    response = client.get("/campaigns/qa/people/")
    assert response.status_code == 403
    page = response.content.decode()
    assert "This page is for the researchers of campaign “Campaign qa”; you are an annotator here." in page
    assert 'id="forbidden"' in page and "Back to your campaigns" in page


# --- The API ---

def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_api_lists_adds_and_removes_members(qa_campaign, researcher, annotator):
    api = _api(researcher)
    listed = api.get("/api/campaigns/qa/members/").json()
    assert [(m["username"], m["role"], m["has_password"]) for m in listed] == [
        ("res", "researcher", True), ("ann", "annotator", True)]
    assert listed[1]["progress"] == {"done": 0, "web": 0, "imported": 0, "held": 0, "last_active": None}
    added = api.post("/api/campaigns/qa/members/", {"username": "eve", "create": True}, format="json")
    assert added.status_code == 201 and added["Cache-Control"] == "no-store"
    body = added.json()
    assert (body["username"], body["role"], body["created"]) == ("eve", "annotator", True)
    assert body["invite_url"].startswith("http://testserver/accounts/welcome/")
    link = body["invite_url"].removeprefix("http://testserver")
    renewed = api.post("/api/campaigns/qa/members/eve/invitation/").json()["invite_url"]
    assert APIClient().get(link).status_code == 410 and APIClient().get(
        renewed.removeprefix("http://testserver")).status_code == 200
    refused = api.post("/api/campaigns/qa/members/", {"username": "ghost"}, format="json")
    assert refused.status_code == 400 and refused.json()["detail"].startswith("'ghost' cannot be added as an existing")
    assert api.delete("/api/campaigns/qa/members/ann/?role=annotator").status_code == 204
    assert api.delete("/api/campaigns/qa/members/ann/").status_code == 404  # not a member any more
    last = api.delete("/api/campaigns/qa/members/res/")
    assert last.status_code == 400 and "last researcher" in last.json()["detail"]
    assert sorted(Membership.objects.filter(campaign=qa_campaign).values_list("user__username", "role")) == [
        ("eve", "annotator"), ("res", "researcher")]


def test_the_api_members_are_the_researchers_business(qa_campaign, annotator):
    response = _api(annotator).post("/api/campaigns/qa/members/", {"username": "ann", "role": "researcher"},
                                    format="json")
    assert response.status_code == 403
    assert response.json()["detail"] == "This page is for the researchers of campaign “Campaign qa”; you are an " \
                                        "annotator here."
    assert not Membership.objects.filter(user=annotator, role=Role.RESEARCHER).exists()
    assert _api(UserFactory(username="out")).get("/api/campaigns/qa/members/").status_code == 404
