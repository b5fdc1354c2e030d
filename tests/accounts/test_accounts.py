"""Accounts: API tokens a user makes, names, rotates and revokes (stored hashed, shown once); the password change;
staff forcing a new password; sign-in throttling behind a proxy."""

import importlib

import pytest
from django.apps import apps as django_apps
from django.core.cache import cache
from rest_framework.authtoken.models import Token

from accounts.models import ApiToken, token_digest
from accounts.services import token_create
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
LOCKED = "Too many failed sign-ins for this account or from this address."


def _api_status(client, key: str, path: str = "/api/campaigns/") -> int:
    return client.get(path, HTTP_AUTHORIZATION=f"Token {key}").status_code


def test_a_token_made_on_the_profile_page_is_shown_once_and_stored_only_as_a_hash(client, researcher):
    client.force_login(researcher)
    page = client.post("/accounts/profile/", {"action": "create", "name": "nightly export"})
    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    token = ApiToken.objects.get(user=researcher)
    key = page.context["new_key"]
    assert key.startswith("cnc_") and len(key) > 40 and key in page.content.decode()
    assert token.name == "nightly export" and token.digest == token_digest(key) and key not in token.digest
    assert key not in client.get("/accounts/profile/").content.decode()  # never shown again
    assert "nightly export" in client.get("/accounts/profile/").content.decode()
    # Signing out of the browser does not touch the token.
    client.logout()
    assert _api_status(client, key) == 200
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=None)
    assert _api_status(client, key) == 200 and ApiToken.objects.get(pk=token.pk).last_used_at is not None


def test_revoking_refuses_the_token_at_once_and_rotating_replaces_it(client, researcher):
    _, first = token_create(user=researcher, name="laptop")
    _, second = token_create(user=researcher, name="server")
    client.force_login(researcher)
    laptop = ApiToken.objects.get(name="laptop")
    answer = client.post("/accounts/profile/", {"action": "revoke", "token": laptop.pk})
    assert answer.status_code == 302
    assert _api_status(client.__class__(), first) == 401
    page = client.post("/accounts/profile/", {"action": "rotate", "token": ApiToken.objects.get(name="server").pk})
    rotated = page.context["new_key"]
    anonymous = client.__class__()
    assert _api_status(anonymous, second) == 401 and _api_status(anonymous, rotated) == 200
    assert ApiToken.objects.filter(user=researcher, name="server", revoked_at__isnull=True).count() == 1
    # Someone else's token cannot be revoked from one's own page.
    other_token, other_key = token_create(user=UserFactory(username="other"), name="theirs")
    assert client.post("/accounts/profile/", {"action": "revoke", "token": other_token.pk}).status_code == 404
    assert _api_status(anonymous, other_key) == 200


def test_the_api_signs_in_lists_rotates_and_revokes_tokens(client, researcher):
    answer = client.post("/api/token/", {"username": researcher.username, "password": PASSWORD, "name": "script"})
    assert answer.status_code == 200
    key = answer.json()["token"]
    assert answer.json()["name"] == "script" and _api_status(client, key) == 200
    assert client.post("/api/token/", {"username": researcher.username, "password": "wrong"}).status_code == 400
    auth = {"HTTP_AUTHORIZATION": f"Token {key}"}
    listed = client.get("/api/tokens/", **auth).json()
    assert [t["name"] for t in listed] == ["script"] and key not in str(listed) and listed[0]["prefix"] == key[:10]
    made = client.post("/api/tokens/", {"name": "ci"}, **auth).json()
    rotated = client.post(f"/api/tokens/{made['id']}/rotate/", **auth).json()
    assert _api_status(client, made["token"]) == 401 and _api_status(client, rotated["token"]) == 200
    assert client.delete(f"/api/tokens/{rotated['id']}/", **auth).json()["live"] is False
    assert _api_status(client, rotated["token"]) == 401
    # DELETE /api/token/ signs the script out: the token it carries is revoked.
    assert client.delete("/api/token/", **auth).status_code == 204
    assert _api_status(client, key) == 401
    assert client.delete("/api/token/").status_code == 401


def test_drf_tokens_of_earlier_versions_become_hashed_tokens_that_still_work(client, researcher):
    old = Token.objects.create(user=researcher)
    migration = importlib.import_module("accounts.migrations.0002_plain_tokens_hashed")
    migration.forwards(django_apps, None)
    assert not Token.objects.exists()
    assert ApiToken.objects.get(user=researcher).digest == token_digest(old.key)
    assert _api_status(client, old.key) == 200


def test_a_user_changes_their_password_and_other_sessions_end(client, researcher):
    other_browser = client.__class__()
    other_browser.force_login(researcher)
    _, key = token_create(user=researcher, name="script")
    client.force_login(researcher)
    assert client.get("/accounts/password/").status_code == 200
    answer = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": "a-new-long-password-1",
                                                 "new_password2": "a-new-long-password-1"})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/password/done/"
    assert client.get("/").status_code == 200  # this session stays
    assert other_browser.get("/")["Location"].startswith("/accounts/login/")  # the other one ends
    assert _api_status(client.__class__(), key) == 200  # scripts keep working
    wrong = client.post("/accounts/password/", {"old_password": "nope", "new_password1": "x", "new_password2": "y"})
    assert wrong.status_code == 200 and "old password was entered incorrectly" in wrong.content.decode()


def test_staff_force_a_new_password_which_revokes_tokens_until_it_is_changed(client, researcher,
                                                                           django_capture_on_commit_callbacks):
    _, key = token_create(user=researcher, name="script")
    staff = UserFactory(username="operator", is_staff=True, is_superuser=True)
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/admin/auth/user/", {"action": "require_password_change",
                                                   "_selected_action": [researcher.pk]})
    assert answer.status_code == 302
    assert _api_status(client.__class__(), key) == 401
    client.force_login(researcher)
    assert client.get("/")["Location"] == "/accounts/password/"
    assert client.get("/api/campaigns/").status_code == 403
    # A part of a page asking (htmx) is not given the change page to swap in: the whole page is sent there.
    part = client.get("/", HTTP_HX_REQUEST="true")
    assert (part.status_code, part["HX-Redirect"]) == (403, "/accounts/password/")
    page = client.get("/accounts/password/").content.decode()
    assert "Staff require a new password" in page
    client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": "a-new-long-password-2",
                                        "new_password2": "a-new-long-password-2"})
    assert client.get("/").status_code == 200


def test_behind_a_proxy_each_client_address_is_counted_apart(client, settings):
    settings.TRUSTED_PROXY_HEADER = "HTTP_X_FORWARDED_FOR"
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    UserFactory(username="real")
    attacker = {"HTTP_X_FORWARDED_FOR": "203.0.113.5"}
    for n in range(3):
        client.post("/accounts/login/", {"username": f"guess{n}", "password": "x"}, **attacker)
    assert LOCKED in client.post("/accounts/login/", {"username": "real", "password": PASSWORD},
                                 **attacker).content.decode()
    # Everyone reaches Concord from the proxy's REMOTE_ADDR; another client is not locked out.
    answer = client.post("/accounts/login/", {"username": "real", "password": PASSWORD},
                         HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert answer.status_code == 302
    # Entries left of the proxy's own are the client's to write: a forged one does not dodge the count.
    client.logout()
    forged = {"HTTP_X_FORWARDED_FOR": "10.9.9.9, 203.0.113.5"}
    assert LOCKED in client.post("/accounts/login/", {"username": "real", "password": PASSWORD},
                                 **forged).content.decode()


def test_an_account_limit_locks_that_account_only(client, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 1000
    UserFactory(username="victim")
    UserFactory(username="bystander")
    for _ in range(5):
        client.post("/accounts/login/", {"username": "victim", "password": "wrong"})
    assert LOCKED in client.post("/accounts/login/", {"username": "victim", "password": PASSWORD}).content.decode()
    assert client.post("/accounts/login/", {"username": "bystander", "password": PASSWORD}).status_code == 302
    cache.clear()
