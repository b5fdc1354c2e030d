"""Writes for accounts: API tokens made, revoked and rotated; a new password required by staff; accounts made by an
invitation and the one-time links that let their person choose a first password, each step recorded for staff."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.db import transaction
from django.utils import timezone

from accounts.models import (
    AccountState,
    ApiToken,
    Invitation,
    InvitationEvent,
    InvitedAccount,
    Preferences,
    token_digest,
)
from accounts.routers import tokens_database
from accounts.selectors import invitation_problem, password_change_flag_set

KEY_PREFIX = "cnc_"
PREFIX_SHOWN = 10  # "cnc_" and six characters of the random part


def shortcuts_set(*, user, mode: str) -> Preferences:
    """USER's choice of keyboard shortcuts (Preferences.Shortcuts), kept with their account."""
    if mode not in Preferences.Shortcuts.values:
        raise ValueError(f"Unknown shortcuts setting {mode!r}: one of {', '.join(Preferences.Shortcuts.values)}.")
    preferences, _ = Preferences.objects.update_or_create(user=user, defaults={"shortcuts": mode})
    return preferences


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


def token_rotate(*, token: ApiToken) -> tuple[ApiToken, str]:
    """Revoke TOKEN and make a new one of the same name for the same user; returns it and its key."""
    with transaction.atomic(using=tokens_database()):  # the tokens' own database on SQLite (accounts.routers)
        token_revoke(token=token)
        return token_create(user=token.user, name=token.name)


def tokens_delete(*, user_id: int) -> int:
    """Delete the tokens of the user USER_ID, which is being deleted; returns how many. Called by the user's
    post_delete (accounts.apps): on SQLite the tokens are in a database of their own, out of the cascade's reach."""
    return ApiToken.objects.filter(user_id=user_id).delete()[0]


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
    """A one-time link that cannot be made or used; the message is for the person who asked or opened it."""


INVITATION_UNUSABLE = ("This link has been used already or has expired. Ask the researcher who sent it for a new "
                       "one.")
# A link made before links belonged to the campaign that made them, which the upgrade could not carry over (accounts
# migration 0006 says which it carries): not used, not expired, but no longer a way in.
INVITATION_EARLIER_VERSION = ("This link was made by an earlier version of Concord, before each link belonged to the "
                              "campaign that made it, and this installation's upgrade could not carry it over. Ask the "
                              "researcher who added you to a campaign for a new link; if they cannot make one, staff "
                              "can set your password.")


def invitation_event_record(*, kind: str, account, actor=None, scope: str = "", scope_name: str = "",
                            invitation: Invitation | None = None, detail: str = "") -> InvitationEvent:
    """Record KIND (InvitationEvent.Kind) about ACCOUNT's links for staff. Call outside any transaction that is about
    to be rolled back (a refusal is recorded after its transaction ends), or it is lost with it."""
    return InvitationEvent.objects.create(
        kind=kind, account=account, account_name=account.get_username(), actor=actor,
        actor_name=actor.get_username() if actor is not None else "", scope=scope, scope_name=scope_name,
        invitation=invitation, detail=detail,
    )


def invited_account_create(*, username: str, scope: str, scope_name: str, created_by):
    """A new account USERNAME made by SCOPE's invitation: inactive, with no usable password, until its person chooses
    one with a link that SCOPE makes (invitation_create). Call inside the transaction that gives it its place (the
    membership), so that neither is left without the other."""
    user = get_user_model().objects.create_user(username=username, password=None, is_active=False)
    InvitedAccount.objects.create(user=user, scope=scope, scope_name=scope_name, created_by=created_by)
    return user


def invitation_create(*, user, created_by, next_path: str, scope: str, scope_name: str = "") -> tuple[Invitation, str]:
    """A one-time link for USER to choose a password, landing on NEXT_PATH, made from SCOPE; returns it and its key
    (not stored, shown once). InvitationError, recorded as refused, when invitation_problem says no link may be made
    for USER from SCOPE. It expires after settings.PASSWORD_RESET_TIMEOUT seconds, as Django's own reset links do;
    USER's earlier unused links stop working, so only the newest one passed on is live. The account's InvitedAccount
    row is locked, so a link and the account's claim or closing cannot cross."""
    now = timezone.now()
    key = secrets.token_urlsafe(32)
    with transaction.atomic():
        InvitedAccount.objects.select_for_update().filter(user=user).first()
        user.refresh_from_db(fields=["password", "last_login", "is_staff", "is_superuser"])
        problem = invitation_problem(user=user, scope=scope)
        if problem is None:
            earlier = Invitation.objects.filter(user=user).exists()
            Invitation.objects.filter(user=user, used_at__isnull=True).update(used_at=now)
            invitation = Invitation.objects.create(
                user=user, digest=token_digest(key), next_path=next_path, created_by=created_by, scope=scope,
                expires_at=now + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT),
            )
            invitation_event_record(kind=InvitationEvent.Kind.REISSUED if earlier else InvitationEvent.Kind.ISSUED,
                                    account=user, actor=created_by, scope=scope, scope_name=scope_name,
                                    invitation=invitation)
    if problem is not None:
        invitation_event_record(kind=InvitationEvent.Kind.REFUSED, account=user, actor=created_by, scope=scope,
                                scope_name=scope_name, detail=f"a link was asked for: {problem}")
        raise InvitationError(problem)
    return invitation, key


def invited_account_close(*, user, actor, scope: str, scope_name: str, reason: str) -> bool:
    """Close USER to links for good, if it is an unclaimed account made by another scope's invitation than SCOPE
    (it is joining SCOPE, which did not make it): its live links stop working and no scope may make new ones; staff
    set its password. Returns whether it was closed. Call inside the transaction that adds it to SCOPE."""
    now = timezone.now()
    closed = InvitedAccount.objects.filter(user=user, claimed_at__isnull=True, closed_at__isnull=True).exclude(
        scope=scope).update(closed_at=now)
    if closed:
        Invitation.objects.filter(user=user, used_at__isnull=True).update(used_at=now)
        invitation_event_record(kind=InvitationEvent.Kind.CLOSED, account=user, actor=actor, scope=scope,
                                scope_name=scope_name, detail=reason)
    return bool(closed)


def invitation_accept(*, key: str, password: str) -> Invitation:
    """Use the link KEY: set its account's PASSWORD (checked by the password validators first: ValidationError) and
    activate the account, which the link's scope's invitation made; the link stops working and the account is
    claimed, so no link is made for it again. InvitationError when it is unknown, used or expired, or may no longer
    be used (invitation_problem, asked again now: the account signed in, got a password, became staff or joined
    another campaign since, or the link was made under earlier rules); such a refusal is recorded. The rows are
    locked, so two tabs submitting the same link set one password."""
    problem = None
    digest = token_digest(key or "")
    with transaction.atomic():
        # The account's row first, then the link's: the order invitation_create and invited_account_close take them
        # in, so a re-issue or a closing racing this use waits instead of deadlocking.
        user_id = Invitation.objects.filter(digest=digest).values_list("user_id", flat=True).first()
        # No such link: user_id is None, which Django reads as user_id IS NULL (no row); django-stubs types the
        # lookup without None.
        invited = InvitedAccount.objects.select_for_update().filter(user_id=user_id).first()  # type: ignore[misc]
        invitation = Invitation.objects.select_for_update().select_related("user").filter(digest=digest).first()
        if invitation is None or invitation.used_at is not None or invitation.expires_at <= timezone.now():
            raise InvitationError(INVITATION_UNUSABLE)
        user = invitation.user
        problem = invitation_problem(user=user, scope=invitation.scope)
        if problem is None:
            assert invited is not None  # invitation_problem found the account's InvitedAccount
            validate_password(password, user=user)
            user.set_password(password)
            user.is_active = True
            user.save(update_fields=["password", "is_active"])
            invitation.used_at = invited.claimed_at = timezone.now()
            invitation.save(update_fields=["used_at"])
            invited.save(update_fields=["claimed_at"])
            invitation_event_record(kind=InvitationEvent.Kind.USED, account=user, scope=invitation.scope,
                                    scope_name=invited.scope_name, invitation=invitation)
        else:
            invitation.used_at = timezone.now()  # it is dead: say so on the row as well
            invitation.save(update_fields=["used_at"])
    if problem is not None:
        invitation_event_record(kind=InvitationEvent.Kind.REFUSED, account=user, scope=invitation.scope,
                                invitation=invitation, detail=f"the link was used: {problem}")
        raise InvitationError(INVITATION_UNUSABLE)
    return invitation
