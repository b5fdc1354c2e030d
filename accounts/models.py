"""API tokens a user names, rotates and revokes, stored as hashes; and the flag staff set to force a new password."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class ApiToken(models.Model):
    """A key for `Authorization: Token <key>`. Only its SHA-256 digest is stored: the key is shown once, when made."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
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
