"""`Authorization: Token <key>` against the hashed API tokens (accounts.models.ApiToken).

The scheme is DRF's token scheme, so scripts written for it keep working; what differs is that the key is
looked up by its digest, a revoked token is refused at once, and signing out of the browser touches no token.
"""

import logging
from contextlib import contextmanager
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import DatabaseError, connections, router, transaction
from django.utils import timezone
from drf_spectacular.authentication import SessionScheme
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication, TokenAuthentication

from accounts.models import ApiToken, token_digest

logger = logging.getLogger(__name__)

LAST_USED_RESOLUTION = timedelta(minutes=1)
# How long recording a token's use may wait for a lock, in milliseconds (PostgreSQL; SQLite does not wait at all).
LAST_USED_LOCK_WAIT_MS = 200


class ApiTokenAuthentication(TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key):
        # No select_related("user"): on SQLite the token and its user are in two databases (accounts.routers).
        token = ApiToken.objects.filter(digest=token_digest(key)).first()
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        user = get_user_model()._default_manager.filter(pk=token.user_id).first()
        if user is None or not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        token.user = user
        token_use_record(token=token)
        return user, token


def token_use_record(*, token: ApiToken) -> None:
    """Record that TOKEN was just used, to the minute, best-effort: the request never waits for, nor fails on, the
    database's locks. On the embedded SQLite database an import holds the one write lock for minutes; writing
    last_used_at on every request made each token request wait 30 s for it and answer 503 "database is locked".

    Written only when the stored time is a minute old (so at most once a minute per token), by the one request
    that claims it in the shared cache while it writes (requests that read the same old time meanwhile write
    nothing), without waiting for a lock; when the database is busy the write is skipped and a later request
    tries again."""
    now = timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < LAST_USED_RESOLUTION:
        return
    seen = token.last_used_at.timestamp() if token.last_used_at else 0
    claim = f"api-token-use:{token.pk}:{seen}"
    if not cache.add(claim, True, timeout=int(LAST_USED_RESOLUTION.total_seconds())):
        return
    try:
        with lock_wait_none(using=router.db_for_write(ApiToken)):
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    except DatabaseError as exc:
        logger.info("token %s: use not recorded, the database is busy (%s)", token.pk, exc)
    finally:
        cache.delete(claim)


@contextmanager
def lock_wait_none(*, using: str):
    """Run the body's writes to database USING without waiting for locks: SQLite's busy timeout at 0 (restored
    after), PostgreSQL's lock_timeout at LAST_USED_LOCK_WAIT_MS for one transaction. A lock held elsewhere raises
    DatabaseError."""
    connection = connections[using]
    if connection.vendor == "sqlite":
        wait = int(float(connection.settings_dict.get("OPTIONS", {}).get("timeout", 5)) * 1000)
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA busy_timeout = 0")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute(f"PRAGMA busy_timeout = {wait}")
    elif connection.vendor == "postgresql":
        with transaction.atomic(using=using):
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = {LAST_USED_LOCK_WAIT_MS}")
            yield
    else:
        yield


class SessionAuthenticationCsrfLater(SessionAuthentication):
    """The browser session, its CSRF check left to the view (`csrf_check`): the check parses a form body, so a view
    that takes uploads checks who may send one first, from the headers, and only then lets the body be read."""

    def enforce_csrf(self, request):
        return None

    def csrf_check(self, request) -> None:
        """The CSRF check SessionAuthentication makes (PermissionDenied when it fails); it reads the body."""
        super().enforce_csrf(request)


class SessionCsrfLaterScheme(SessionScheme):
    """In the OpenAPI schema: the same session cookie as SessionAuthentication's, under a name of its own (the
    schema keeps one class per name)."""

    target_class = "accounts.authentication.SessionAuthenticationCsrfLater"
    name = "cookieAuthUpload"
