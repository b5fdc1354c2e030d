"""Staff required a new password (accounts.services.password_change_require): every page leads to the change."""

from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from accounts.selectors import password_change_required
from config.middleware import made_by_page_script

# The welcome link too: it sets the first password of an account made for its person (accounts.views); and the
# documentation, which is public anyway (config.docs).
ALLOWED = ("/accounts/password/", "/accounts/logout/", "/accounts/welcome/", "/static/", "/docs/")


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
            if made_by_page_script(request):
                # Part of a page asked (htmx): the whole page goes to the change, never into the part (HX-Redirect).
                answer = HttpResponse("Staff require a new password for this account.", status=403,
                                      content_type="text/plain; charset=utf-8")
                answer["HX-Redirect"] = reverse("password-change")
                return answer
            return redirect(reverse("password-change"))
        return self.get_response(request)
