"""The web server's settings: gunicorn, for the default install (scripts/serve) and for production.

    .venv/bin/gunicorn -c python:config.gunicorn config.wsgi

Threaded workers (gthread): a long upload holds a thread, not a process, and the worker's heartbeat keeps going
meanwhile. The environment tunes it: PORT (the default install's port on 127.0.0.1; production passes --bind),
WEB_CONCURRENCY (worker processes, default 2), WEB_THREADS (threads per worker, default 4).

A request body is never read just to be thrown away. The app refuses a body over its URL's limit from the
Content-Length before reading a byte (config.middleware.RequestSizeLimitMiddleware), but a server that keeps the
connection open must then read the rest to find the next request: Django's development server read a refused
600 MB body to the end and into memory (issue 48). So any request whose body may be large (a Content-Length over
KEEP_ALIVE_BODY_MAX, or a chunked body) has its connection closed once it is answered: what the app did not read
is never read.
"""

import os

# gunicorn itself drains at most this much of an unread body when it closes a connection (util.close_graceful),
# so that the answer reaches the client instead of a reset.
KEEP_ALIVE_BODY_MAX = 64 * 1024

bind = [f"127.0.0.1:{os.environ.get('PORT', '8000')}"]
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("WEB_THREADS", "4"))
# A worker whose main loop stops beating this long is replaced. gthread beats while its threads serve, so an upload
# of any length is not cut by it.
timeout = 120
# scripts/serve gives its processes 5 s to stop after Ctrl-C or SIGTERM before killing them.
graceful_timeout = 3
keepalive = 5
# gunicorn's control socket defaults to one path per user ($XDG_RUNTIME_DIR or ~/.gunicorn): two servers of the
# same user (a test's and the developer's) would fight over it. Concord does not use it.
control_socket_disable = True


def body_may_be_large(headers: list[tuple[str, str]]) -> bool:
    """Whether a request with HEADERS (gunicorn's: names upper-case) has a chunked body or a Content-Length over
    KEEP_ALIVE_BODY_MAX (or one that is not a number, which the app refuses)."""
    for name, value in headers:
        if name == "TRANSFER-ENCODING":
            return True
        if name == "CONTENT-LENGTH":
            try:
                return int(value) > KEEP_ALIVE_BODY_MAX
            except ValueError:
                return True
    return False


def pre_request(worker, req):
    """Close the connection after answering a request whose body may be large (see the module's docstring)."""
    if body_may_be_large(req.headers):
        req.force_close()
