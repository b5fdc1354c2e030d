"""Sign-in throttling: five failures lock the account for the window, on the page and on the API token endpoint."""

import pytest
from django.core.cache import cache

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
LOCKED = "Too many failed sign-ins for this account or from this address. Wait 15 minutes and try again."


@pytest.fixture(autouse=True)
def fresh_counts():
    cache.clear()
    yield
    cache.clear()


def sign_in(client, username, password):
    return client.post("/accounts/login/", {"username": username, "password": password})


def test_five_failures_lock_the_account_even_for_the_right_password(client):
    UserFactory(username="ann")
    for _ in range(5):
        response = sign_in(client, "ann", "wrong")
        assert response.status_code == 200 and LOCKED not in response.content.decode()
    response = sign_in(client, "ann", PASSWORD)
    assert response.status_code == 200 and LOCKED in response.content.decode()
    assert "_auth_user_id" not in client.session
    # Another account from the same address is not locked (the address allows 30).
    UserFactory(username="bob")
    assert sign_in(client, "bob", PASSWORD).status_code == 302
    # The API token endpoint refuses the locked account too.
    response = client.post("/api/token/", {"username": "ann", "password": PASSWORD})
    assert response.status_code == 429 and response.json()["detail"] == LOCKED
    cache.clear()  # the window has passed
    assert sign_in(client, "ann", PASSWORD).status_code == 302


def test_a_success_clears_the_count(client, settings):
    UserFactory(username="ann")
    for _ in range(4):
        sign_in(client, "ann", "wrong")
    assert sign_in(client, "ann", PASSWORD).status_code == 302
    client.logout()
    for _ in range(4):
        sign_in(client, "ann", "wrong")
    assert sign_in(client, "ann", PASSWORD).status_code == 302  # 4 + 4 failures, but the count restarted


def test_many_accounts_from_one_address_are_throttled(client, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    for n in range(3):
        sign_in(client, f"guess{n}", "wrong")
    UserFactory(username="real")
    assert LOCKED in sign_in(client, "real", PASSWORD).content.decode()
    assert client.post("/api/token/", {"username": "real", "password": PASSWORD}).status_code == 429
