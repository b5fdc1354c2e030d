"""Login everywhere but the login page, the one-time links that let a new person choose a password (accounts.views),
the static files and the token-authenticated API."""

from django.conf import settings
from django.contrib.auth.views import redirect_to_login

OPEN_PREFIXES = ("/accounts/login/", "/accounts/welcome/", "/static/", "/api/")


class LoginRequiredMiddleware:
    """The API is left to DRF's own permission classes, which also accept tokens."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.user.is_authenticated and not request.path.startswith(OPEN_PREFIXES):
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)
