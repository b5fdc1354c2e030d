"""API tokens a user names, rotates and revokes, stored as hashes; the flag staff set to force a new password; one-time
links to choose a first password, the accounts they may be made for, and the record of every link issued and used."""

import hashlib

from django.conf import settings
from django.db import models
from django.db.models import Q


def token_digest(key: str) -> str:
    """The stored form of a key: a random 256-bit key needs no slow hash, only one that cannot be reversed."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A key for `Authorization: Token <key>`. Only its SHA-256 digest is stored: the key is shown once, when made.
    On SQLite the rows live in a database of their own (accounts.routers): never join them to another table."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.DO_NOTHING, db_constraint=False, related_name="api_tokens",
        help_text="No database constraint: on SQLite tokens live in a database file of their own (accounts.routers). "
                  "A user's tokens are deleted with the user (accounts.services.tokens_delete).",
    )
    name = models.CharField(max_length=100, help_text="What the user calls it (the script or machine that uses it).")
    digest = models.CharField(max_length=64, unique=True, help_text="sha256 of the key, hex.")
    prefix = models.CharField(max_length=12, help_text="The key's first characters, to tell tokens apart.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, help_text="To the minute: not written on every request.")
    revoked_at = models.DateTimeField(null=True, blank=True, help_text="Set: the key no longer signs anyone in.")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "revoked_at"], name="api_token_user_live")]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="api_token_named"),
        ]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_live(self) -> bool:
        return self.revoked_at is None


class AccountState(models.Model):
    """What staff decided about an account beyond Django's user row."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_state")
    must_change_password = models.BooleanField(
        default=False, help_text="Set by staff: every page leads to the password change until it is changed.",
    )
    updated_at = models.DateTimeField(auto_now=True)


class Invitation(models.Model):
    """A one-time link that lets a person choose the password of an account made for them (a researcher added them
    to a campaign before they had one). Only the key's SHA-256 digest is stored: the link is shown once, to the
    person who made it, to pass on. It works until it is used or until `expires_at`, whichever comes first."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    digest = models.CharField(max_length=64, unique=True, help_text="sha256 of the link's key, hex.")
    scope = models.CharField(
        max_length=100, blank=True, default="",
        help_text="Who made the link, as its account's InvitedAccount.scope; it works only while the two match. Empty "
                  "on links made before scopes existed: they no longer work.",
    )
    next_path = models.CharField(max_length=300, help_text="Where the person lands once signed in (their campaign).")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True, help_text="Set: the link no longer works.")

    class Meta:
        indexes = [models.Index(fields=["user", "used_at"], name="invitation_user_open")]

    def __str__(self):
        return f"invitation for {self.user_id}"


class InvitedAccount(models.Model):
    """An account made by an invitation: the only kind of account a one-time link is ever made for. Its SCOPE (the
    campaign whose invitation made it, as annotate names it) is the only one that may make its links, and only until
    the account is claimed (its person chose a password with a link) or closed (it joined a campaign outside its scope,
    or staff closed it). Staff, imported and self-made accounts have no such row, so no link is ever made for them."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                related_name="invited_account")
    scope = models.CharField(max_length=100, help_text="Who may make this account's links: 'campaign:<id>'.")
    scope_name = models.CharField(max_length=200, blank=True, help_text="The scope as people knew it then (a slug).")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True,
                                      help_text="Set when its person chose a password with a link: no more links.")
    closed_at = models.DateTimeField(null=True, blank=True,
                                     help_text="Set when it joined a campaign outside its scope: no more links; staff "
                                               "set its password.")

    class Meta:
        constraints = [models.CheckConstraint(condition=~Q(scope=""), name="invited_account_scoped")]

    def __str__(self):
        return f"account {self.user_id} invited by {self.scope_name or self.scope}"


class InvitationEvent(models.Model):
    """What happened to one-time links, for staff: each link issued, re-issued and used, each one refused (asked for
    an account it may not be made for, or opened once it no longer may be used) and each account closed to them.
    Names are copied, so the record reads the same after an account or campaign is gone."""

    class Kind(models.TextChoices):
        ISSUED = "issued", "issued"
        REISSUED = "reissued", "re-issued"
        USED = "used", "used"
        REFUSED = "refused", "refused"
        CLOSED = "closed", "account closed to links"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    at = models.DateTimeField(auto_now_add=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+", help_text="Who did it (empty: the person who opened the link).")
    actor_name = models.CharField(max_length=150, blank=True)
    account = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+", help_text="The account the link is for.")
    account_name = models.CharField(max_length=150)
    scope = models.CharField(max_length=100, blank=True, help_text="Where it was done from: 'campaign:<id>'.")
    scope_name = models.CharField(max_length=200, blank=True, help_text="The campaign's slug then.")
    invitation = models.ForeignKey(Invitation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    detail = models.TextField(blank=True, help_text="Why it was refused, or why the account was closed.")

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["account", "at"], name="invitation_event_account")]

    def __str__(self):
        return f"{self.get_kind_display()}: {self.account_name} ({self.scope_name})"


class Preferences(models.Model):
    """What a person chose for themselves, kept with their account (so it holds on every device and after signing in
    again)."""

    class Shortcuts(models.TextChoices):
        KEYS = "keys", "Single keys: y, n, 1, ? work the annotation pages"
        ALT = "alt", "With Alt held: Alt+y, Alt+n (Option on a Mac); a key alone does nothing"
        OFF = "off", "Off: no letter, digit or sign works a control (Enter, Tab and the arrows still do)"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences")
    shortcuts = models.CharField(
        max_length=8, choices=Shortcuts.choices, default=Shortcuts.KEYS,
        help_text="How character keys work the annotation pages (static/js/keys.js; WCAG 2.1.4).",
    )
    updated_at = models.DateTimeField(auto_now=True)
