"""Reads for accounts."""

from django.core.cache import cache
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import AccountState, ApiToken, Invitation


def tokens_for_user(*, user) -> QuerySet[ApiToken]:
    """USER's tokens, live and revoked, newest first (never their keys: only digests are stored)."""
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at", "-id")


def _flag_key(user_id: int) -> str:
    return f"accounts:must-change-password:{user_id}"


FLAG_SECONDS = 300


def password_change_required(*, user) -> bool:
    """Whether staff require a new password of USER. Asked on every page, so the answer is kept in the cache
    (shared by the web processes in production) for FLAG_SECONDS; accounts.services writes it through."""
    required = cache.get(_flag_key(user.pk))
    if required is None:
        required = AccountState.objects.filter(user=user, must_change_password=True).exists()
        cache.set(_flag_key(user.pk), required, FLAG_SECONDS)
    return required


def password_change_flag_set(*, user, required: bool) -> None:
    cache.set(_flag_key(user.pk), required, FLAG_SECONDS)


def invitation_live(*, key: str) -> Invitation | None:
    """The unused, unexpired one-time link KEY with its account; None for any other key."""
    from accounts.services import token_digest

    return (Invitation.objects.select_related("user")
            .filter(digest=token_digest(key or ""), used_at__isnull=True, expires_at__gt=timezone.now()).first())
