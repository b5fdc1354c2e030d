"""An annotator over real HTTP, as the annotation page's htmx calls are made: sign in, ask for the next unit, submit.

Standard library only (urllib with a cookie jar), for tests against a server in another process.
"""

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

ASSIGNMENT = re.compile(r'name="assignment" value="(\d+)"')


@dataclass(frozen=True)
class Reply:
    status: int  # 0: no HTTP answer at all (connection refused or reset)
    body: str
    headers: dict

    @property
    def assignment(self) -> int | None:
        """The assignment of the unit in this page or fragment, if it shows one."""
        found = ASSIGNMENT.search(self.body)
        return int(found.group(1)) if found else None


class HttpAnnotator:
    def __init__(self, base_url: str, *, timeout: float = 30):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def _csrf(self) -> str:
        return next((cookie.value for cookie in self.cookies if cookie.name == "csrftoken"), "")

    def request(self, path: str, data: dict | None = None, *, htmx: bool = True) -> Reply:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.base_url + path, data=body)
        request.add_header("X-CSRFToken", self._csrf())
        request.add_header("Referer", self.base_url + path)
        if htmx:
            request.add_header("HX-Request", "true")
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return Reply(response.status, response.read().decode(errors="replace"), dict(response.headers))
        except urllib.error.HTTPError as exc:
            return Reply(exc.code, exc.read().decode(errors="replace"), dict(exc.headers))
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            return Reply(0, str(exc), {})

    def login(self, username: str, password: str) -> Reply:
        self.request("/accounts/login/", htmx=False)
        reply = self.request("/accounts/login/", {"username": username, "password": password,
                                                  "csrfmiddlewaretoken": self._csrf()}, htmx=False)
        if not any(cookie.name == "sessionid" for cookie in self.cookies):
            raise AssertionError(f"could not sign in as {username}: {reply.status} {reply.body[:300]}")
        return reply

    def next_unit(self, slug: str) -> Reply:
        return self.request(f"/campaigns/{slug}/annotate/")

    def submit(self, slug: str, assignment: int, answer: dict) -> Reply:
        return self.request(f"/campaigns/{slug}/annotate/submit/", {"assignment": assignment, **answer})
