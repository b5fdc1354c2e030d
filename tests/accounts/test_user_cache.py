"""The signed-in user is read from a shared cache (accounts.user_cache), never served once the account changed; sessions
are read from it too (config.caches)."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.backends import password_hash_upgrade
from config.caches import cache_shared, session_engine
from tests.factories import UserFactory


def _user_queries(client) -> tuple[int, int]:
    """(the status of the profile page, the queries it ran on the user table)."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("profile"))
    return response.status_code, sum('FROM "auth_user"' in query["sql"] for query in captured.captured_queries)


def _signed_in(password):
    """A new user, and a client signed in as them."""
    user = UserFactory()
    client = Client()
    assert client.login(username=user.username, password=password)
    return user, client


@pytest.mark.django_db
def test_a_shared_cache_serves_the_user_until_the_account_changes(settings, password):
    settings.CACHE_SHARED = True
    user, client = _signed_in(password)
    _user_queries(client)  # the first request after sign-in reads the row and keeps it
    assert _user_queries(client) == (200, 0)

    user.first_name = "Renamed"
    user.save()  # dropped: the next request reads the row again
    assert _user_queries(client) == (200, 1)
    assert _user_queries(client) == (200, 0)

    user.is_active = False  # closed: not served again, from the cache or otherwise
    user.save(update_fields=["is_active"])
    assert client.get(reverse("profile")).status_code == 302

    other, other_client = _signed_in(password)
    _user_queries(other_client)
    # A password hash rewritten with update() (no post_save): the kept copy goes too, and the session, signed in
    # under the old hash, ends, as it would have without the cache.
    password_hash_upgrade(user=get_user_model().objects.get(pk=other.pk), password="another password entirely")
    assert other_client.get(reverse("profile")).status_code == 302


@pytest.mark.django_db
def test_a_per_process_cache_keeps_no_user(settings, password):
    settings.CACHE_SHARED = False
    user, client = _signed_in(password)
    _user_queries(client)
    assert _user_queries(client) == (200, 1)


def test_sessions_are_read_from_the_cache_only_when_every_process_shares_it():
    def caches(backend):
        return {"default": {"BACKEND": f"django.core.cache.backends.{backend}"}}

    assert not cache_shared(caches("locmem.LocMemCache")) and not cache_shared(caches("dummy.DummyCache"))
    assert session_engine(caches("locmem.LocMemCache")) == "django.contrib.sessions.backends.db"
    assert session_engine(caches("redis.RedisCache")) == "django.contrib.sessions.backends.cached_db"
    assert session_engine(caches("filebased.FileBasedCache")) == "django.contrib.sessions.backends.cached_db"
