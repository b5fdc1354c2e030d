"""Staff required a new password (accounts.services.password_change_require): every page leads to the change."""

from django.shortcuts import redirect
from django.urls import reverse

from accounts.selectors import password_change_required

ALLOWED = ("/accounts/password/", "/accounts/logout/", "/static/")


class PasswordChangeRequiredMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if (user is not None and user.is_authenticated and not request.path.startswith(ALLOWED)
                and password_change_required(user=user)):
            if request.path.startswith("/api/"):
                from django.http import JsonResponse

                return JsonResponse({"detail": "Staff require a new password for this account: change it at "
                                               "/accounts/password/ first."}, status=403)
            return redirect(reverse("password-change"))
        return self.get_response(request)
