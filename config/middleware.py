"""Login everywhere but the login page, the one-time links that let a new person choose a password (accounts.views),
the static files, the documentation site (config.docs) and the token-authenticated API."""

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import resolve_url

OPEN_PREFIXES = ("/accounts/login/", "/accounts/welcome/", "/static/", "/docs/", "/api/")
SIGNED_OUT = "Your session has ended: sign in again. Nothing was carried out."


def made_by_page_script(request) -> bool:
    """Whether REQUEST comes from a page's own script (htmx, or fetch saying so) rather than from the browser
    navigating: its answer goes into part of a page, where a login page would be nonsense."""
    return bool(request.headers.get("HX-Request")) or request.headers.get("X-Requested-With") in (
        "XMLHttpRequest", "fetch")


class LoginRequiredMiddleware:
    """The API is left to DRF's own permission classes, which also accept tokens.

    A signed-out browser is sent to the login page; a page's script (htmx, fetch) gets 401 with a line of text
    instead, so the page keeps what the annotator was doing and asks them to sign in (static/js/unit.js), rather
    than putting the login page inside the answer card.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.user.is_authenticated and not request.path.startswith(OPEN_PREFIXES):
            if made_by_page_script(request):
                response = HttpResponse(SIGNED_OUT, status=401, content_type="text/plain; charset=utf-8")
                # 401 must name a scheme (RFC 9110 §15.5.2): this one is the login form's, not HTTP's own.
                response["WWW-Authenticate"] = f'Session realm="Concord", login="{resolve_url(settings.LOGIN_URL)}"'
                return response
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)


class RequestSizeLimitMiddleware:
    """Refuse a request body over settings.REQUEST_MAX_BYTES with 413 before a byte of it is read, from its
    Content-Length: nothing of the app (the CSRF check, the upload handlers, a view) gets to write it to disk.

    A body sent chunked, without a Content-Length, is refused with 411: Django under WSGI reads a request body only
    up to its Content-Length, so such a body would reach the view empty; a proxy in front (nginx buffers a chunked
    body and forwards it with a Content-Length) is where such clients are served, within its own
    client_max_body_size (docs/production.md)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.REQUEST_MAX_BYTES
        declared = request.META.get("CONTENT_LENGTH") or ""
        try:
            size = int(declared) if declared else None
        except ValueError:
            return HttpResponse(f"Content-Length {declared[:40]!r} is not a number of bytes.\n", status=400,
                                content_type="text/plain; charset=utf-8")
        if size is not None and size > limit:
            return HttpResponse(
                f"The request body is {size:,} bytes; this server takes at most {limit:,} bytes a request "
                f"(setting REQUEST_MAX_BYTES; each imported file at most {settings.IMPORT_MAX_BYTES:,}, "
                f"IMPORT_MAX_BYTES). Send large imports as several uploads, or ask the operator to raise the limit.\n",
                status=413, content_type="text/plain; charset=utf-8")
        if size is None and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            return HttpResponse("A request body must come with its Content-Length (this server does not read "
                                "chunked bodies): send it with Content-Length.\n", status=411,
                                content_type="text/plain; charset=utf-8")
        return self.get_response(request)
