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


def request_body_limit(setting: str):
    """Declare that a view takes request bodies up to settings.SETTING bytes instead of the default,
    REQUEST_FORM_MAX_BYTES (RequestSizeLimitMiddleware). On a function view, as a decorator; a class-based view
    (Django's or DRF's) sets the class attribute `request_max_bytes_setting` instead."""
    def decorate(view):
        view.request_max_bytes_setting = setting
        return view
    return decorate


def view_body_limit_setting(view) -> str:
    """The name of the setting that holds the largest request body VIEW takes (see request_body_limit)."""
    for holder in (view, getattr(view, "view_class", None), getattr(view, "cls", None)):
        setting = getattr(holder, "request_max_bytes_setting", None)
        if setting:
            return setting
    return "REQUEST_FORM_MAX_BYTES"


def _plain(text: str, status: int) -> HttpResponse:
    """A refusal in plain text, with its length: it is answered before CommonMiddleware, which would set it."""
    response = HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")
    response["Content-Length"] = str(len(response.content))
    return response


def _refused(size: int, limit: int, setting: str) -> HttpResponse:
    if setting == "REQUEST_MAX_BYTES":
        advice = (f"each imported file at most {settings.IMPORT_MAX_BYTES:,}, IMPORT_MAX_BYTES). Send large imports "
                  f"as several uploads, or ask the operator to raise the limit.")
    else:
        advice = "a form or JSON body; files go to the import page or the import API)."
    return _plain(f"The request body is {size:,} bytes; this URL takes at most {limit:,} bytes a request "
                  f"(setting {setting}; {advice}\n", 413)


class RequestSizeLimitMiddleware:
    """Refuse a request body over its limit with 413 before a byte of it is read, from its Content-Length: nothing
    of the app (the CSRF check, the upload handlers, a view) gets to parse it or write it to disk.

    Two steps. Before the URL is resolved, the largest body any URL takes (settings.REQUEST_MAX_BYTES: one import
    and its form). Once it is resolved (process_view, before every other middleware's and the view), the view's
    own limit: REQUEST_FORM_MAX_BYTES (Django's default for a form, 2.5 MiB) unless the view says otherwise
    (request_body_limit): the uploads take REQUEST_MAX_BYTES, the pages and endpoints open before sign-in
    REQUEST_SIGN_IN_MAX_BYTES. A form body costs Python many times its size while it is parsed (urllib's unquote
    keeps a list entry for every %XX: 80 times), so a small limit is what keeps a form small in memory.

    A body sent chunked, without a Content-Length, is refused with 411: Django under WSGI reads a request body only
    up to its Content-Length, so such a body would reach the view empty; a proxy in front (nginx buffers a chunked
    body and forwards it with a Content-Length) is where such clients are served, within its own
    client_max_body_size (docs/production.md). The web server closes the connection after such a refusal without
    reading the rest (config.gunicorn)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        declared = request.META.get("CONTENT_LENGTH") or ""
        try:
            size = int(declared) if declared else None
        except ValueError:
            return _plain(f"Content-Length {declared[:40]!r} is not a number of bytes.\n", 400)
        if size is not None and size > settings.REQUEST_MAX_BYTES:
            return _refused(size, settings.REQUEST_MAX_BYTES, "REQUEST_MAX_BYTES")
        if size is None and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            return _plain("A request body must come with its Content-Length (this server does not read chunked "
                          "bodies): send it with Content-Length.\n", 411)
        request.declared_body_bytes = size or 0
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        setting = view_body_limit_setting(view_func)
        limit = getattr(settings, setting)
        size = getattr(request, "declared_body_bytes", 0)
        if size > limit:
            return _refused(size, limit, setting)
        return None
