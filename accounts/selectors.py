"""Reads for accounts."""

from django.core.cache import cache
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import AccountState, ApiToken, Invitation, InvitedAccount, Preferences, token_digest


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
    """The unused, unexpired one-time link KEY with its account, while it may still be used (invitation_problem says
    nothing against it); None for any other key."""
    invitation = (Invitation.objects.select_related("user")
                  .filter(digest=token_digest(key or ""), used_at__isnull=True, expires_at__gt=timezone.now()).first())
    if invitation is None or invitation_problem(user=invitation.user, scope=invitation.scope) is not None:
        return None
    return invitation


def invitation_of_an_earlier_version(*, key: str) -> bool:
    """Whether KEY is a link made before links belonged to a campaign (no scope), never used and not expired: the
    welcome page says what happened to it rather than that it was used."""
    return Invitation.objects.filter(digest=token_digest(key or ""), scope="", used_at__isnull=True,
                                     expires_at__gt=timezone.now()).exists()


def invitation_problem(*, user, scope: str) -> str | None:
    """Why no one-time link may be made (or used) for USER from SCOPE; None when one may. A link is only for an
    account that SCOPE's invitation made (InvitedAccount) and that nobody has claimed: never signed in, no usable
    password, never chose one with a link, not closed, not staff. Anything else would hand the account to whoever
    holds the link. Read it again at use: a link made under other rules, or before the account changed, dies."""
    name = user.get_username()
    if user.has_usable_password() or user.last_login is not None:
        return f"{name} has a password already; they sign in with it"
    if user.is_staff or user.is_superuser:
        return f"{name} is a staff account, which never gets a link"
    invited = InvitedAccount.objects.filter(user=user).first()
    if invited is None or not scope or invited.scope != scope:
        return f"{name}'s account was not made by this campaign's invitation"
    if invited.claimed_at is not None:
        return f"{name} has chosen a password with a link already"
    if invited.closed_at is not None:
        return f"{name}'s account has joined another campaign since it was made, so its links are closed"
    return None


def invited_elsewhere(*, user, scope: str) -> bool:
    """Whether USER is an account another scope than SCOPE invited, still unclaimed and open to that scope's links."""
    return InvitedAccount.objects.filter(user=user, claimed_at__isnull=True, closed_at__isnull=True).exclude(
        scope=scope).exists()


def shortcuts_mode(*, user) -> str:
    """How character keys work the annotation pages for USER (Preferences.Shortcuts): "keys" for anyone who chose
    nothing, and for a visitor not signed in."""
    if not getattr(user, "is_authenticated", False):
        return Preferences.Shortcuts.KEYS
    chosen = Preferences.objects.filter(user=user).values_list("shortcuts", flat=True).first()
    return chosen or Preferences.Shortcuts.KEYS
