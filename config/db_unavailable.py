"""A database that cannot be reached answers 503 with a plain message and Retry-After, never a stack trace.

PostgreSQL restarting or failing over, SQLite locked past its timeout: every write is one transaction, so
the request either committed whole or changed nothing, and sending it again is safe (an annotator's
answer sent twice is recorded once: judgment_submit keeps the current verdict when the value is the same).
The middleware catches what a view raises; `server_error` (handler500) catches what the middleware around
the views raise (loading the session or the user). Neither reads the database.
"""

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.views.defaults import server_error as django_server_error

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
MESSAGE = ("Concord cannot reach its database for the moment, so this request was not carried out. "
           "Try again in a few seconds: an answer sent twice is recorded once.")
_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Try again in a moment</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto">
<h1>Try again in a moment</h1><p role="alert">{message}</p></body></html>"""


def database_unavailable(exc: BaseException | None) -> bool:
    return isinstance(exc, (OperationalError, InterfaceError))


def database_unavailable_response(request) -> HttpResponse:
    """503 for REQUEST: JSON for the API, the bare message for htmx, a short page for browsers."""
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": MESSAGE, "retryable": True}, status=503)
    elif request.headers.get("HX-Request"):
        response = HttpResponse(MESSAGE, status=503, content_type="text/plain; charset=utf-8")
    else:
        response = HttpResponse(_PAGE.format(message=MESSAGE), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _answer(request, exc: BaseException | None) -> HttpResponse | None:
    """The 503 for REQUEST when EXC says the database is unavailable (logged once); None for anything else."""
    if not database_unavailable(exc):
        return None
    logger.warning("database unavailable on %s %s: %s", request.method, request.path, exc)
    return database_unavailable_response(request)


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exc):
        return _answer(request, exc)


def server_error(request, *args, **kwargs):
    """handler500: a database error raised outside the views is a 503 too; anything else Django's 500."""
    return _answer(request, sys.exc_info()[1]) or django_server_error(request, *args, **kwargs)
