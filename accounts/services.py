"""Writes for accounts: API tokens made, revoked and rotated; a new password required by staff."""

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from accounts.models import AccountState, ApiToken
from accounts.selectors import password_change_flag_set

KEY_PREFIX = "cnc_"
PREFIX_SHOWN = 10  # "cnc_" and six characters of the random part


def token_digest(key: str) -> str:
    """The stored form of a key: a random 256-bit key needs no slow hash, only one that cannot be reversed."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """A new token NAME for USER and its key, which is not stored and cannot be shown again."""
    name = (name or "").strip()[:100] or "api"
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, digest=token_digest(key), prefix=key[:PREFIX_SHOWN])
    return token, key


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke TOKEN now: the next request that carries it is refused. Revoking twice changes nothing."""
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db()
    return token


@transaction.atomic
def token_rotate(*, token: ApiToken) -> tuple[ApiToken, str]:
    """Revoke TOKEN and make a new one of the same name for the same user; returns it and its key."""
    token_revoke(token=token)
    return token_create(user=token.user, name=token.name)


def tokens_revoke_all(*, user) -> int:
    """Revoke every live token of USER; returns how many."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())


@transaction.atomic
def password_change_require(*, user) -> int:
    """Staff: USER must choose a new password at their next page; their API tokens are revoked (a reset usually
    means the account may be in other hands). Returns how many tokens were revoked."""
    AccountState.objects.update_or_create(user=user, defaults={"must_change_password": True})
    transaction.on_commit(lambda: password_change_flag_set(user=user, required=True))
    return tokens_revoke_all(user=user)


def password_changed(*, user) -> None:
    """USER chose a new password: the requirement, if any, is met."""
    AccountState.objects.filter(user=user).update(must_change_password=False)
    password_change_flag_set(user=user, required=False)
