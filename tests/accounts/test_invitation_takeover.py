"""One-time links only where they belong (issue 29, item 1): a researcher of campaign B never obtains a usable link
for an account that B's own invitation did not make and that someone has claimed or could claim. Each test plays
the attack as the researcher "mal" of campaign "b" would, through the People page or the API, then checks that no
link came out (or that it no longer works) and that the rightful person's own link still does."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from annotate.models import Membership, Role
from annotate.services.campaigns import CampaignError, member_add, member_remove, user_get_or_create_imported
from tests.factories import CampaignFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase"


@pytest.fixture
def mal(db):
    """The researcher of campaign "b", who tries to take accounts of other campaigns."""
    user = UserFactory(username="mal")
    MembershipFactory(campaign=CampaignFactory(slug="b", task_type="qa_correctness", overlap=1), user=user,
                      role=Role.RESEARCHER)
    return user


@pytest.fixture
def cleo_link(qa_campaign, researcher):
    """cleo, a new person researcher "res" added to campaign "qa", and the link res passed on to her (unused)."""
    added = member_add(campaign=qa_campaign, username="cleo", role=Role.ANNOTATOR, added_by=researcher, create=True)
    return f"/accounts/welcome/{added.invite_key}/"


def _links(page: str) -> list[str]:
    return re.findall(r'id="invite-url" value="https?://[^/]+(/accounts/welcome/[^"]+/)"', page)


def _page_add(client, username: str, *, create: bool = False):
    data = {"action": "add", "role": "annotator", "username": username, **({"create": "on"} if create else {})}
    return client.post("/campaigns/b/people/", data, follow=True)


def _claim(link: str) -> APIClient | None:
    """Open LINK and choose a password as its holder would: the signed-in client, or None when the link is refused."""
    client = APIClient()
    if client.get(link).status_code != 200:
        return None
    done = client.post(link, {"new_password1": PASSWORD, "new_password2": PASSWORD})
    return client if done.status_code == 302 else None


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_researcher_cannot_take_the_account_of_a_person_invited_to_another_campaign(client, mal, cleo_link):
    client.force_login(mal)
    page = _page_add(client, "cleo")
    assert _links(page.content.decode()) == []
    # The answer is the one a missing account gets: it does not tell mal that cleo was invited elsewhere.
    missing = _api(mal).post("/api/campaigns/b/members/", {"username": "nobody"}, format="json").json()["detail"]
    assert "&#x27;cleo&#x27; cannot be added as an existing account here" in page.content.decode()
    api = _api(mal).post("/api/campaigns/b/members/", {"username": "cleo"}, format="json")
    assert api.status_code == 400 and api.json()["detail"] == missing.replace("nobody", "cleo")
    assert _api(mal).post("/api/campaigns/b/members/cleo/invitation/").status_code == 404
    assert not Membership.objects.filter(campaign__slug="b", user__username="cleo").exists()
    # cleo's own link, from her campaign, still works and brings her there.
    cleo = _claim(cleo_link)
    assert cleo is not None and cleo.get("/campaigns/qa/annotate/").status_code == 200


def test_a_staff_account_joins_a_campaign_only_by_staff_and_gets_no_link(client, mal, monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_PASSWORD", raising=False)
    call_command("createsuperuser", "--noinput", username="root", email="root@example.org", verbosity=0)
    root = get_user_model().objects.get(username="root")
    assert root.is_superuser and not root.has_usable_password()
    # A researcher may not add it, and the answer is a missing account's: it does not say the account is staff.
    refused = _api(mal).post("/api/campaigns/b/members/", {"username": "root"}, format="json")
    assert refused.status_code == 400 and refused.json()["detail"].startswith("'root' cannot be added as an existing")
    assert not Membership.objects.filter(campaign__slug="b", user=root).exists()
    from accounts.models import InvitationEvent

    assert InvitationEvent.objects.filter(kind="refused", account=root, detail__contains="a staff account").exists()
    operator = UserFactory(username="operator", is_staff=True)
    Membership.objects.create(campaign=Membership.objects.get(user=mal).campaign, user=operator,
                              role=Role.RESEARCHER)
    client.force_login(operator)  # staff may
    page = _page_add(client, "root").content.decode()
    assert _links(page) == []
    assert "Root has no password yet and gets no link from here (root is a staff account, which never gets a link): " \
           "staff can set their password and make the account active in the admin" in page
    refused = _api(mal).post("/api/campaigns/b/members/root/invitation/")
    assert refused.status_code == 400 and "root is a staff account, which never gets a link" in \
        refused.json()["detail"]
    membership = Membership.objects.get(campaign__slug="b", user=root)
    again = client.post("/campaigns/b/people/", {"action": "invite", "membership": membership.pk}, follow=True)
    assert _links(again.content.decode()) == [] and "Root is a staff account" in again.content.decode()
    root.refresh_from_db()
    assert not root.has_usable_password() and root.last_login is None


def test_an_imported_account_stays_inactive_and_gets_no_link(client, mal):
    imported = user_get_or_create_imported(username="nq301-annotator1")  # as the nq301 importer makes its raters
    assert not imported.is_active and not imported.has_usable_password()
    client.force_login(mal)
    added = _api(mal).post("/api/campaigns/b/members/", {"username": "nq301-annotator1"}, format="json").json()
    assert added["invite_url"] is None
    assert "nq301-annotator1's account was not made by this campaign's invitation" in added["no_link"]
    people = client.get("/campaigns/b/people/").content.decode()
    assert "nq301-annotator1" in people and 'value="invite"' not in people  # no New link offered
    asked = client.post("/campaigns/b/people/", {"action": "invite", "membership": Membership.objects.get(
        user=imported).pk}, follow=True)
    assert _links(asked.content.decode()) == []
    imported.refresh_from_db()
    assert not imported.is_active and not imported.has_usable_password()


def test_a_username_differing_by_case_or_unicode_form_reaches_no_other_account(client, qa_campaign, researcher, mal):
    # alice, fiona and fiöna: invited to "qa", unclaimed. "Alice" would be a second account that looks like alice's.
    for name in ("alice", "fiona", "fiöna"):
        member_add(campaign=qa_campaign, username=name, role=Role.ANNOTATOR, added_by=researcher, create=True)
    b = mal.memberships.get().campaign
    with pytest.raises(CampaignError, match="the username 'Alice' is taken, or differs only in case from one that is"):
        member_add(campaign=b, username="Alice", role=Role.ANNOTATOR, added_by=mal, create=True)
    with pytest.raises(CampaignError, match="'ALICE' cannot be added as an existing account here"):
        member_add(campaign=b, username="ALICE", role=Role.ANNOTATOR, added_by=mal)
    # "\ufb01ona" (the fi ligature) and "fio\u0308na" (o and a combining diaeresis) are "fiona" and "fiöna" as Django
    # stores them and signs them in (NFKC): they reach those accounts, which another campaign invited.
    client.force_login(mal)
    for typed, stored in (("\ufb01ona", "fiona"), ("fio\u0308na", "fiöna")):
        for create in (False, True):
            response = _page_add(client, typed, create=create)
            page = response.content.decode()
            assert response.status_code == 400 and _links(page) == []
            assert (f"The username &#x27;{stored}&#x27; is taken" if create else
                    f"&#x27;{stored}&#x27; cannot be added as an existing account here") in page
    assert sorted(get_user_model().objects.filter(username__startswith="fi").values_list("username", flat=True)) == [
        "fiona", "fiöna"]
    assert not Membership.objects.filter(campaign__slug="b", role=Role.ANNOTATOR).exists()


def test_an_account_removed_from_its_campaign_is_not_taken_elsewhere(client, qa_campaign, researcher, mal,
                                                                     cleo_link):
    cleo = get_user_model().objects.get(username="cleo")
    member_remove(campaign=qa_campaign, user=cleo)
    client.force_login(mal)
    assert _links(_page_add(client, "cleo").content.decode()) == []
    assert not Membership.objects.filter(campaign__slug="b", user=cleo).exists()
    # Her own campaign may take her back and send her a new link, which works.
    again = member_add(campaign=qa_campaign, username="cleo", role=Role.ANNOTATOR, added_by=researcher)
    assert again.invite_key is not None and _claim(cleo_link) is None
    assert _claim(f"/accounts/welcome/{again.invite_key}/") is not None


def test_no_link_is_reissued_from_another_campaign_on_the_page_or_the_api(client, mal, cleo_link):
    # cleo is a member of "b" already (an archive restored there named her, or data from before these rules).
    cleo = get_user_model().objects.get(username="cleo")
    membership = MembershipFactory(campaign=mal.memberships.get().campaign, user=cleo, role=Role.ANNOTATOR)
    client.force_login(mal)
    page = client.post("/campaigns/b/people/", {"action": "invite", "membership": membership.pk}, follow=True)
    assert _links(page.content.decode()) == []
    assert "Cleo is a member of another campaign too; no link is made for them here." in page.content.decode()
    api = _api(mal).post("/api/campaigns/b/members/cleo/invitation/")
    assert api.status_code == 400 and api.json()["detail"] == ("cleo is a member of another campaign too; no link is "
                                                               "made for them here")
    assert _claim(cleo_link) is not None  # her own link was not replaced


def test_a_link_made_under_the_old_rules_dies(client, mal):
    """A link the earlier code made (no scope) for an account it did not make: it is refused when opened and used,
    and the account is neither given a password nor activated."""
    from accounts.models import Invitation, token_digest
    from accounts.services import invitation_accept

    imported = user_get_or_create_imported(username="nq301-annotator2")
    root = get_user_model().objects.create_superuser("root", "root@example.org", None)
    for account, key in ((imported, "old-imported-key"), (root, "old-root-key")):
        Invitation.objects.create(user=account, digest=token_digest(key), next_path="/",
                                  expires_at="2100-01-01T00:00:00Z")
        assert client.get(f"/accounts/welcome/{key}/").status_code == 410
        assert _claim(f"/accounts/welcome/{key}/") is None
        with pytest.raises(Exception, match="This link has been used already or has expired"):
            invitation_accept(key=key, password=PASSWORD)
        account.refresh_from_db()
        assert not account.has_usable_password()
    assert not imported.is_active
    from accounts.models import InvitationEvent

    assert InvitationEvent.objects.filter(kind="refused", account=root).exists()


def test_a_link_is_checked_again_when_it_is_used(cleo_link):
    """A live link dies once its account is no longer unclaimed: made staff, or given a password by staff."""
    cleo = get_user_model().objects.get(username="cleo")
    cleo.is_staff = True
    cleo.save(update_fields=["is_staff"])
    assert APIClient().get(cleo_link).status_code == 410 and _claim(cleo_link) is None
    cleo.is_staff = False
    cleo.set_password("set-by-staff-1")
    cleo.save(update_fields=["is_staff", "password"])
    assert _claim(cleo_link) is None
    cleo.refresh_from_db()
    assert cleo.check_password("set-by-staff-1")


def test_links_issued_and_used_are_recorded_for_staff_to_read(client, qa_campaign, researcher, mal, cleo_link):
    from accounts.models import InvitationEvent

    client.force_login(researcher)
    membership = Membership.objects.get(campaign=qa_campaign, user__username="cleo")
    newer = _links(client.post("/campaigns/qa/people/", {"action": "invite", "membership": membership.pk})
                   .content.decode())[0]
    assert _claim(newer) is not None
    client.force_login(mal)
    _page_add(client, "cleo")  # claimed now: she is added, with no link (she has a password)
    events = list(InvitationEvent.objects.order_by("id").values_list("kind", "actor_name", "account_name",
                                                                    "scope_name"))
    assert events == [("issued", "res", "cleo", "qa"), ("reissued", "res", "cleo", "qa"), ("used", "", "cleo", "qa")]
    staff = UserFactory(username="operator", is_staff=True, is_superuser=True)
    client.force_login(staff)
    listing = client.get("/admin/accounts/invitationevent/")
    assert listing.status_code == 200 and "re-issued" in listing.content.decode()
    assert client.get("/admin/accounts/invitationevent/add/").status_code == 403
    event = InvitationEvent.objects.first()
    assert client.post(f"/admin/accounts/invitationevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403


def test_archive_accounts_get_no_link_and_an_invitee_an_archive_names_is_closed(client, qa_campaign, mal, cleo_link,
                                                                              tmp_path, settings):
    """An archive restore (staff) makes the accounts it lacks inactive, with no link to be had for them; an unclaimed
    invitee of another campaign that its memberships name now belongs to two campaigns: her links die."""
    from interchange.archive import campaign_export, campaign_import

    settings.MEDIA_ROOT = str(tmp_path / "media")
    colleague = UserFactory(username="colleague")
    MembershipFactory(campaign=qa_campaign, user=colleague, role=Role.ANNOTATOR)
    campaign_export(qa_campaign, tmp_path / "qa.zip")
    get_user_model().objects.filter(username="colleague").delete()
    summary = campaign_import(tmp_path / "qa.zip", slug="qa-copy")
    assert summary.users_created == ["colleague"]
    assert _claim(cleo_link) is None
    client.force_login(mal)
    for name in ("colleague", "cleo"):
        added = _api(mal).post("/api/campaigns/b/members/", {"username": name}, format="json").json()
        assert added["invite_url"] is None and "gets no link from here" in added["no_link"]
        assert _api(mal).post(f"/api/campaigns/b/members/{name}/invitation/").status_code == 400
    assert not get_user_model().objects.get(username="colleague").is_active


def test_a_pending_link_of_an_earlier_version_is_carried_over_where_it_is_safe(client, qa_campaign, researcher, mal):
    """Found after an upgrade in place: a pending link made before links had a campaign answered 410 "used already or
    expired", and the researcher could not make another. accounts migration 0006 carries such a link over where the
    rules would have let its campaign make it (an account with no password, a member of that one campaign only);
    the others stay dead, and their page says what happened and whom to ask."""
    import importlib
    from datetime import timedelta
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection
    from django.utils import timezone

    from accounts.models import Invitation, InvitationEvent, InvitedAccount, token_digest
    from accounts.services import INVITATION_EARLIER_VERSION

    def old_link(username: str, *, campaigns) -> str:
        user = get_user_model().objects.create_user(username=username, password=None)  # as the old code made them
        for campaign in campaigns:
            Membership.objects.create(campaign=campaign, user=user, role=Role.ANNOTATOR)
        Invitation.objects.create(user=user, digest=token_digest(f"old-{username}"), scope="", created_by=researcher,
                                  next_path=f"/campaigns/{campaigns[0].slug}/",
                                  expires_at=timezone.now() + timedelta(days=3))
        return f"/accounts/welcome/old-{username}/"

    olga = old_link("olga", campaigns=[qa_campaign])
    pat = old_link("pat", campaigns=[qa_campaign, Membership.objects.get(user=mal).campaign])  # two campaigns
    for link in (olga, pat):
        page = client.get(link)
        assert page.status_code == 410 and "made by an earlier version of Concord" in page.content.decode()
    migration = importlib.import_module("accounts.migrations.0006_invitations_carried_over")
    migration.carry_over(apps, SimpleNamespace(connection=connection))  # what the migration reads of its editor
    assert InvitedAccount.objects.get(user__username="olga").scope == f"campaign:{qa_campaign.pk}"
    assert InvitationEvent.objects.filter(account__username="olga", kind="reissued").exists()
    signed_in = _claim(olga)
    assert signed_in is not None and signed_in.get("/campaigns/qa/annotate/").status_code == 200
    # pat's account belongs to two campaigns: a link from either would hand it over. It stays dead, and says why.
    assert not InvitedAccount.objects.filter(user__username="pat").exists() and _claim(pat) is None
    assert INVITATION_EARLIER_VERSION.split(",")[0] in client.get(pat).content.decode()
