"""Writes for accounts: API tokens made, revoked and rotated; a new password required by staff; one-time links
that let a person choose their first password."""

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.db import transaction
from django.utils import timezone

from accounts.models import AccountState, ApiToken, Invitation
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


class InvitationError(Exception):
    """A one-time link that cannot be used; the message is for the person who opened it."""


INVITATION_UNUSABLE = ("This link has been used already or has expired. Ask the researcher who sent it for a new "
                       "one.")


def invitation_create(*, user, created_by, next_path: str) -> tuple[Invitation, str]:
    """A one-time link for USER to choose a password, landing on NEXT_PATH; returns it and its key (not stored, shown
    once). It expires after settings.PASSWORD_RESET_TIMEOUT seconds, as Django's own reset links do; USER's earlier
    unused links stop working, so only the newest one passed on is live."""
    now = timezone.now()
    key = secrets.token_urlsafe(32)
    with transaction.atomic():
        Invitation.objects.filter(user=user, used_at__isnull=True).update(used_at=now)
        invitation = Invitation.objects.create(
            user=user, digest=token_digest(key), next_path=next_path, created_by=created_by,
            expires_at=now + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT),
        )
    return invitation, key


def invitation_accept(*, key: str, password: str) -> Invitation:
    """Use the link KEY: set its account's PASSWORD (checked by the password validators first: ValidationError) and
    activate the account; the link stops working. InvitationError when it is unknown, used or expired. The row is
    locked, so two tabs submitting the same link set one password."""
    with transaction.atomic():
        invitation = (Invitation.objects.select_for_update().select_related("user")
                      .filter(digest=token_digest(key or "")).first())
        if invitation is None or invitation.used_at is not None or invitation.expires_at <= timezone.now():
            raise InvitationError(INVITATION_UNUSABLE)
        user = invitation.user
        validate_password(password, user=user)
        user.set_password(password)
        user.is_active = True
        user.save(update_fields=["password", "is_active"])
        invitation.used_at = timezone.now()
        invitation.save(update_fields=["used_at"])
    return invitation
