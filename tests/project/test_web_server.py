"""The web server and the request bodies it takes (issue 48, items 3 and 4), measured on a real gunicorn.

One gunicorn process per module, started as scripts/serve starts it (config/gunicorn.py, config.wsgi) with one
worker, on the test database. Each request is sent raw, its body a megabyte at a time by a client that keeps sending
after the answer; the worker's peak resident memory is read from /proc before and after (tests/web_memory.py).

Before issue 48, Django's development server read a refused 600 MB body to its end, into memory (+599.8 MB), and a
10 MB sign-in form took Python +866.9 MB to parse (urllib's unquote keeps a list entry for every %XX).
"""

import re
import signal
import subprocess
import sys
import urllib.request

import pytest
from django.urls import resolve, reverse

import tests.project.test_permissions_matrix as matrix
from config.middleware import view_body_limit_setting
from tests.judges_support import ROOT, child_pids, subprocess_env, wait_until
from tests.pg_private import free_port
from tests.web_memory import MB, peak_growth, peak_reset, post

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
UPLOADS = {"campaign-import", "api-campaign-import", "api-campaign-archives"}
# A urlencoded body at its worst: every byte of the value an escape that Python's parser keeps as an object.
ESCAPES = b"%41" * (MB // 3)


def _open_before_sign_in() -> set[str]:
    """The URL names that answer an anonymous visitor with something other than the sign-in page or 401: the
    permission matrix's anonymous column (its statuses for every URL of the URL configuration)."""
    anonymous = {name: statuses[0] for name, statuses in {**matrix.EXPECTED, **matrix.ADMIN_OPEN}.items()}
    return {name for name, _ in matrix.ALL_URLS
            if anonymous.get(name, matrix.ADMIN_EXPECTED[0]) not in (matrix.LOGIN, 401)}


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory):
    """A gunicorn of config/gunicorn.py serving config.wsgi with one worker: (port, the worker's pid)."""
    tmp_path = tmp_path_factory.mktemp("web")
    port = free_port()
    with django_db_blocker.unblock():
        env = subprocess_env(tmp_path, WEB_CONCURRENCY=1, WEB_THREADS=2)
    log = open(tmp_path / "gunicorn.log", "w+")
    process = subprocess.Popen([GUNICORN, "-c", "python:config.gunicorn", "--bind", f"127.0.0.1:{port}",
                                "config.wsgi"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        def answers():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=2) as answer:
                    return answer.status == 200
            except OSError:
                assert process.poll() is None, "gunicorn ended: " + (tmp_path / "gunicorn.log").read_text()[-3000:]
                return False

        wait_until(answers, timeout=60, what="gunicorn to answer")
        workers = child_pids(process.pid)
        assert len(workers) == 1, workers
        yield port, workers[0]
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _csrf_cookie(port: int) -> str:
    """A CSRF cookie, as anyone gets one from the sign-in page: with it, a form body is parsed, not refused unread."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/") as answer:
        return re.search(r"csrftoken=([^;]+)", answer.headers["Set-Cookie"]).group(1)


def _measured(worker: int, port: int, path: str, **request):
    baseline = peak_reset([worker])
    answer = post(port, path, **request)
    return answer, peak_growth(baseline)


@pytest.mark.parametrize("path, status", [
    ("/accounts/login/", 413),  # anonymous
    ("/api/token/", 413),  # anonymous
    ("/api/campaigns/qa/import/", 413),  # an upload URL: its own limit is 513 MiB
])
def test_a_600_mb_post_costs_the_web_process_nothing_and_its_connection_is_closed(server, path, status):
    port, worker = server
    answer, growth = _measured(worker, port, path, size=600 * MB, close_wait=5)
    assert answer.status == status, answer.head
    assert answer.closed, "the connection was kept open: the rest of the body would be read"
    assert "Connection: close" in answer.head
    # What the client got to send before the close is what socket buffers hold, not what the server read.
    assert answer.sent < 64 * MB, f"{answer.sent:,} bytes were taken"
    assert growth < 20 * MB, f"the worker grew by {growth / MB:.1f} MB"


def test_an_upload_under_the_limit_from_someone_who_may_not_upload_is_not_read(server):
    """500 MB (under the upload limit) to the import API without a token: 401 from the headers, the body unread."""
    port, worker = server
    answer, growth = _measured(worker, port, "/api/campaigns/qa/import/", size=500 * MB, close_wait=5,
                               content_type="multipart/form-data; boundary=x")
    assert answer.status == 401 and answer.closed and answer.sent < 64 * MB
    assert growth < 20 * MB, f"the worker grew by {growth / MB:.1f} MB"


def test_every_url_takes_a_forms_limit_unless_it_says_otherwise():
    """Uploads take REQUEST_MAX_BYTES, the URLs open before sign-in REQUEST_SIGN_IN_MAX_BYTES, every other URL of
    the URL configuration Django's default for a form (REQUEST_FORM_MAX_BYTES)."""
    open_urls = _open_before_sign_in()
    assert open_urls == {"login", "docs", "api-token", "account-welcome"}
    for name, kwarg_names in matrix.ALL_URLS:
        url = reverse(name, kwargs={key: {"app_label": "auth"}.get(key, "1") for key in kwarg_names})
        setting = view_body_limit_setting(resolve(url).func)
        expected = ("REQUEST_MAX_BYTES" if name in UPLOADS else
                    "REQUEST_SIGN_IN_MAX_BYTES" if name in open_urls else "REQUEST_FORM_MAX_BYTES")
        assert setting == expected, name


def test_form_limits_are_djangos_default_or_less(settings):
    assert settings.REQUEST_FORM_MAX_BYTES == settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 2_621_440
    assert settings.REQUEST_SIGN_IN_MAX_BYTES == 64 * 1024


def _open_urls() -> list[str]:
    return [reverse(name, kwargs={"path": ""} if name == "docs" else {"key": "no-such-link"}
                    if name == "account-welcome" else None) for name in sorted(_open_before_sign_in())]


@pytest.mark.parametrize("path", [*_open_urls(), "/api/campaigns/", "/campaigns/qa/", "/no/such/page/",
                                  "/admin/login/"])
def test_every_url_open_before_sign_in_takes_a_10_mb_body_for_under_50_mb(server, path):
    """Anonymous, with a CSRF cookie and its token (so a form is parsed where it would be): a 10 MB form of
    escapes with its length, the same sent chunked, and the largest body the URL takes, at its worst."""
    port, worker = server
    cookie = _csrf_cookie(port)
    form = f"csrfmiddlewaretoken={cookie}&password=x&username=".encode()
    headers = {"Cookie": f"csrftoken={cookie}"}
    limit = {"REQUEST_SIGN_IN_MAX_BYTES": 64 * 1024,
             "REQUEST_FORM_MAX_BYTES": 2_621_440}[view_body_limit_setting(resolve(path).func)] \
        if path != "/no/such/page/" else 2_621_440
    for size, close_wait in ((10 * MB, 5), (None, 5), (limit, 0)):
        answer, growth = _measured(worker, port, path, size=size, chunk=ESCAPES, prefix=form, headers=headers,
                                   close_wait=close_wait)
        said = f"{path} with {size or 'a chunked'} body: {answer.status}"
        assert growth < 50 * MB, f"{said}: the worker grew by {growth / MB:.1f} MB"
        if size == 10 * MB:
            assert answer.status in (302, 413) and answer.closed, said
        elif size is None:
            assert answer.status == 411 and answer.closed, said
        else:
            assert answer.status not in (411, 413, 500), said
