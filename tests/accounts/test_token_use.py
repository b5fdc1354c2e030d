"""Using an API token never waits for the database's write lock: on the embedded SQLite database an import holds
it for minutes, and a token request that wrote last_used_at waited 30 s and answered 503 "database is locked".
Tokens have a database file of their own there now (accounts.routers), and their use is still recorded, to the
minute, without waiting should that one be busy (accounts.authentication.token_use_record)."""

import time

import pytest
from django.db import connection
from django.test import Client

from accounts.models import ApiToken
from accounts.services import token_create
from config.databases import TOKENS
from tests.accounts.locks import sqlite_write_lock_held

pytestmark = pytest.mark.django_db(transaction=True)


def _get(key: str):
    return Client().get("/api/campaigns/", HTTP_AUTHORIZATION=f"Token {key}")


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's one write lock")
def test_a_token_request_succeeds_at_once_while_another_connection_holds_the_write_lock(researcher):
    """The import's lock is on the default database's file; the token's use is recorded in the tokens' own file
    (accounts.routers) at once."""
    token, key = token_create(user=researcher, name="script")
    with sqlite_write_lock_held():  # what an import's transaction holds while it runs
        started = time.monotonic()
        response = _get(key)
        took = time.monotonic() - started
        recorded = ApiToken.objects.get(pk=token.pk).last_used_at
    assert response.status_code == 200, response.content
    assert took < 5, f"the request waited {took:.1f} s for the lock"
    assert recorded is not None


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's one write lock")
def test_a_token_request_succeeds_at_once_while_the_tokens_database_is_locked(researcher):
    """Should the tokens' own file be locked (another token's write), the use is not recorded and the request goes
    on: the next request records it."""
    token, key = token_create(user=researcher, name="script")
    with sqlite_write_lock_held(TOKENS):
        started = time.monotonic()
        response = _get(key)
        took = time.monotonic() - started
    assert response.status_code == 200, response.content
    assert took < 5, f"the request waited {took:.1f} s for the lock"
    assert ApiToken.objects.get(pk=token.pk).last_used_at is None  # not recorded while the database was busy
    assert _get(key).status_code == 200
    assert ApiToken.objects.get(pk=token.pk).last_used_at is not None  # recorded by the next request


def test_a_tokens_use_is_written_once_a_minute(researcher):
    token, key = token_create(user=researcher, name="script")
    assert _get(key).status_code == 200
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    assert first is not None
    for _ in range(3):
        assert _get(key).status_code == 200
    assert ApiToken.objects.get(pk=token.pk).last_used_at == first


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's row locks")
def test_a_token_request_does_not_wait_for_a_lock_on_its_token_row(researcher):
    """Another transaction holds the token's row (for 10 s): the request answers at once, unrecorded."""
    import threading

    import psycopg

    token, key = token_create(user=researcher, name="script")
    settings = connection.settings_dict
    holder = psycopg.connect(host=settings["HOST"] or "127.0.0.1", port=settings["PORT"] or 5432,
                             user=settings["USER"], password=settings["PASSWORD"] or None, dbname=settings["NAME"])
    holder.execute("SELECT 1 FROM accounts_apitoken WHERE id = %s FOR UPDATE", [token.pk])
    release = threading.Timer(10, holder.rollback)
    release.start()
    try:
        started = time.monotonic()
        response = _get(key)
        took = time.monotonic() - started
    finally:
        release.cancel()
        holder.rollback()
        holder.close()
    assert response.status_code == 200, response.content
    assert took < 5, f"the request waited {took:.1f} s for the lock"
    assert ApiToken.objects.get(pk=token.pk).last_used_at is None
