"""`Authorization: Token <key>` against the hashed API tokens (accounts.models.ApiToken).

The scheme is DRF's token scheme, so scripts written for it keep working; what differs is that the key is
looked up by its digest, a revoked token is refused at once, and signing out of the browser touches no token.
"""

from datetime import timedelta

from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication, TokenAuthentication

from accounts.models import ApiToken
from accounts.services import token_digest

LAST_USED_RESOLUTION = timedelta(minutes=1)


class ApiTokenAuthentication(TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key):
        token = ApiToken.objects.select_related("user").filter(digest=token_digest(key)).first()
        if token is None or token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token


class SessionAuthenticationCsrfLater(SessionAuthentication):
    """The browser session, its CSRF check left to the view (`csrf_check`): the check parses a form body, so a view
    that takes uploads checks who may send one first, from the headers, and only then lets the body be read."""

    def enforce_csrf(self, request):
        return None

    def csrf_check(self, request) -> None:
        """The CSRF check SessionAuthentication makes (PermissionDenied when it fails); it reads the body."""
        super().enforce_csrf(request)
