"""The `llm` and `vlm` families' backend for any OpenAI-compatible chat-completions server (vLLM, TGI, Ollama,
llama.cpp server, OpenAI): one POST {base_url}/chat/completions per (item, sample index).

Threads: requests run on a pool of `concurrency` worker threads sharing one httpx.Client (thread-safe);
`on_sample` and every update of the TokenCount happen on the thread that called `generate`, so the family
may write to the database from `on_sample` (Django connections are per thread) and needs no lock.

Failures: a sample whose retries are spent, or whose response is malformed, becomes a Generation with
`error` set; only what no retry can fix (401/403 refused key, 404 unknown model or URL, beam search asked
of a protocol that has none) raises JudgeConfigError, which stops the batch. Either names what failed, never
what the server said: a response is its status code, content type and size (`described`), a transport
error its kind. The worker reaches hosts the researcher reading the failure cannot, and a body (or the
bytes a non-HTTP service answered, which httpx quotes in its protocol errors) would carry their content to
the researcher. A registered endpoint whose staff switched show_bodies on (Connection.show_bodies) adds the
first EXCERPT_CHARS characters, for debugging.

The request URL is the base URL's path joined with chat/completions (chat_completions_url): a base URL with
a query, a fragment or user info is refused (judges.boundary.base_url_check), so no base URL can cut the
suffix off and reach another path of its host.

Where requests go and which key they carry come from a Connection (judges.llm.backend) that the task layer
resolves from a registered model endpoint, never from the judge's configuration; redirects are not followed,
so a server cannot forward the key to another host.

Secrets: the API key is sent only in the Authorization header. Every text this module builds from a
response or an exception goes through `redact`, so a server that echoes the key back (some do, in their
401 bodies) cannot carry it into a message, a log line or the run's error list.
"""

import email.utils
import json
import logging
import posixpath
import random
import re
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import httpx

from judges.boundary import base_url_check
from judges.errors import JudgeConfigError
from judges.llm.backend import (
    Connection,
    Decoding,
    Generation,
    Message,
    OnSample,
    Request,
    TokenCount,
    request_bytes,
)

logger = logging.getLogger(__name__)

EXCERPT_CHARS = 200
# Transient by nature: rate limits, a server restarting or overloaded, a request timeout on its side.
_RETRY_STATUSES = {408, 429, 500, 502, 503, 504}
_BEARER = re.compile(r"(Bearer\s+)\S+", re.IGNORECASE)
_MEDIA_TYPE = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$")
# What a failed connection is, by httpx's exception class: never the exception's text, which quotes what
# the other side sent (h11's "illegal status line: bytearray(b'-ERR ...')" for a non-HTTP service). Timeouts
# have their own message; redirects are not followed.
_TRANSPORT_ERRORS = {
    "ConnectError": "could not connect",
    "ReadError": "the connection broke while reading the answer",
    "WriteError": "the connection broke while sending the request",
    "RemoteProtocolError": "the server's answer is not valid HTTP",
    "LocalProtocolError": "the request could not be sent as HTTP",
    "ProxyError": "the proxy refused the connection",
    "UnsupportedProtocol": "the URL's protocol is not supported",
    "DecodingError": "the answer's content encoding could not be decoded",
}


def chat_completions_url(base_url: str, *, what: str = "base_url") -> str:
    """The request URL: BASE_URL's path joined with chat/completions (http://gpu1:8000/v1 ->
    http://gpu1:8000/v1/chat/completions). JudgeConfigError for a base URL base_url_check refuses."""
    parts = urlsplit(base_url_check(base_url, what=what))
    path = posixpath.join(parts.path.rstrip("/") or "/", "chat/completions")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def described(response: httpx.Response) -> str:
    """What a response was, never what it said: 'HTTP 502 (text/html, 1,234 bytes)'."""
    media_type = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if not media_type:
        media_type = "no content type"
    elif not _MEDIA_TYPE.match(media_type):
        media_type = "an unreadable content type"
    return f"HTTP {response.status_code} ({media_type}, {len(response.content):,} bytes)"


def _transport_error(exc: Exception) -> str:
    name = type(exc).__name__
    return f"{_TRANSPORT_ERRORS[name]} ({name})" if name in _TRANSPORT_ERRORS else name


def redact(text: str, secret: str) -> str:
    """TEXT with every occurrence of SECRET, and any bearer token, replaced by ***."""
    if secret:
        text = text.replace(secret, "***")
    return _BEARER.sub(r"\1***", text)


@dataclass(frozen=True)
class _Outcome:
    key: int
    index: int
    generation: Generation
    attempts: int  # HTTP requests sent for this sample, retries included


class _Stopped(Exception):
    """The batch is being abandoned (another sample raised); this sample is not delivered."""


# The most request bodies one batch holds at once, estimated before they are encoded: 6 bytes of JSON for each byte of
# the prompt's UTF-8 (a control character is written \u0001). Up to `concurrency` requests are in flight while their
# bodies fit; a body larger than this goes alone. 64 prompts of 400,000 control characters (2.4 MB of JSON each), n 3,
# concurrency 32 took a fresh worker process from 101 MB to 278 MB; with this bound, to 178 MB.
IN_FLIGHT_BYTES = 16_000_000
JSON_PER_UTF8_BYTE = 6


class _BodiesInFlight:
    """The bytes of request bodies the threads of one batch hold, at most LIMIT (a body larger than LIMIT alone)."""

    def __init__(self, limit: int):
        self.limit, self.used = limit, 0
        self._changed = threading.Condition()

    @contextmanager
    def held(self, size: int, stop: threading.Event):
        with self._changed:
            while self.used and self.used + size > self.limit:
                if stop.is_set():
                    raise _Stopped()
                self._changed.wait(0.1)
            self.used += size
        try:
            yield
        finally:
            with self._changed:
                self.used -= size
                self._changed.notify_all()


class HttpBackend:
    """Backend (judges.llm.backend) over an OpenAI-compatible chat-completions endpoint.

    CONFIG is the judge's validated config (model, concurrency, timeout, max_retries); CONNECTION says where
    to send and with which key (concurrency is capped at its max_concurrency); COUNTER, when given, receives
    the tokens the server reports and one request per HTTP request sent (retries included). Waits between retries are
    BACKOFF_BASE * 2**attempt seconds,
    capped at BACKOFF_MAX, times a random factor in [0.5, 1]; a Retry-After header is honoured up to
    RETRY_AFTER_MAX seconds. FAMILY is the judge family its messages and log lines name.
    """

    def __init__(
        self,
        config: dict,
        counter: TokenCount | None = None,
        *,
        connection: Connection | None,
        backoff_base: float = 1.0,
        backoff_max: float = 30.0,
        retry_after_max: float = 60.0,
        family: str = "llm",
    ) -> None:
        self.family = family  # the judge family its messages name
        if connection is None:
            raise JudgeConfigError(
                f"{self.family}: the openai backend needs a model endpoint (the endpoint option) or an allowed base_url"
            )
        self.model = str(config.get("model") or "").strip()
        self.base_url = connection.base_url.strip().rstrip("/")
        self.endpoint = connection.endpoint
        self.show_bodies = connection.show_bodies and bool(connection.endpoint)  # never a free-form URL's
        self.concurrency = int(config.get("concurrency", 4))
        if connection.max_concurrency:
            self.concurrency = min(self.concurrency, connection.max_concurrency)
        self.timeout = float(config.get("timeout", 60.0))
        self.max_retries = int(config.get("max_retries", 5))
        self.counter = counter if counter is not None else TokenCount()
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        # Kept private and out of __repr__.
        self._api_key = connection.api_key
        if not self.model:
            raise JudgeConfigError(
                f"{self.family}: model must name the model the server serves (e.g. its /v1/models id)"
            )
        self.url = chat_completions_url(self.base_url, what=f"{self.family}: base_url")
        if self.concurrency < 1:
            raise JudgeConfigError(f"{self.family}: concurrency must be at least 1, not {self.concurrency}")
        if self.timeout <= 0:
            raise JudgeConfigError(
                f"{self.family}: timeout must be a positive number of seconds, not {self.timeout}"
            )
        if self.max_retries < 0:
            raise JudgeConfigError(f"{self.family}: max_retries must be 0 or more, not {self.max_retries}")

    def __repr__(self) -> str:
        return f"HttpBackend(model={self.model!r}, url={self._redact(self.url)!r})"

    def generate(self, requests: list[Request], decoding: Decoding, on_sample: OnSample) -> None:
        """Generate every missing sample of REQUESTS, calling ON_SAMPLE on this thread as each one finishes.

        Samples arrive in completion order, not request order. Raises JudgeConfigError for a refused key,
        an unknown model or URL, or beam search; an exception raised by ON_SAMPLE stops the batch (pending
        requests are dropped) and propagates unchanged.
        """
        self._check_decoding(decoding)
        jobs = [(request, index) for request in requests for index in request.sample_indices]
        if not jobs:
            return
        headers = {"User-Agent": "concord-llm-judge"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        stop = threading.Event()
        in_flight = _BodiesInFlight(IN_FLIGHT_BYTES)
        client = httpx.Client(
            headers=headers,
            follow_redirects=False,  # a redirect must not carry the key (or the worker) to another host
            timeout=httpx.Timeout(self.timeout),
            limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
        )
        executor = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="llm-http")
        try:
            pending = {
                executor.submit(self._sample, client, stop, request, index, decoding, in_flight)
                for request, index in jobs
            }
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                refused = None
                for future in done:
                    try:
                        outcome = future.result()  # re-raises a worker's JudgeConfigError here
                    except _Stopped:  # a job a worker's JudgeConfigError stopped: that error's own future raises it
                        continue
                    except JudgeConfigError as exc:
                        # Raised once every sample that came back with it is kept: a refusal finishing beside an
                        # answer (one wait can return both, in either order) must not cost that answer again.
                        refused = refused or exc
                        continue
                    self._count(outcome)
                    on_sample(outcome.key, outcome.index, outcome.generation)
                if refused is not None:
                    raise refused
        finally:
            # On the way out after an exception: wake the workers from their backoff sleeps, drop what
            # has not started, and let in-flight requests end (each bounded by the timeout).
            stop.set()
            executor.shutdown(wait=True, cancel_futures=True)
            client.close()

    # --- one sample ---

    def _sample(
        self, client: httpx.Client, stop: threading.Event, request: Request, index: int, decoding: Decoding,
        in_flight: _BodiesInFlight,
    ) -> _Outcome:
        try:
            with in_flight.held(request_bytes(request) * JSON_PER_UTF8_BYTE, stop):
                return self._sample_attempts(client, stop, request, index, decoding)
        except JudgeConfigError:
            stop.set()  # what no retry can fix ends the batch: no worker sends another request, whatever its timing
            raise

    def _sample_attempts(
        self, client: httpx.Client, stop: threading.Event, request: Request, index: int, decoding: Decoding
    ) -> _Outcome:
        # Encoded once for every attempt, as UTF-8 (not \uXXXX escapes, up to 3 times the size). Each attempt sends it
        # from an iterator: httpx's request and response refer to each other, so a body handed over as bytes stays
        # alive with them until the garbage collector runs (tracemalloc: 75 MB of bodies still alive after a batch of
        # 64 prompts of 400 KB, n 3).
        payload = json.dumps(self._body(request.messages, decoding, index), ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Content-Length": str(len(payload))}
        started = time.monotonic()
        reason = ""
        for attempt in range(self.max_retries + 1):
            if stop.is_set():
                raise _Stopped()
            retry_after = None
            try:
                response = client.post(self.url, content=iter((payload,)), headers=headers)
            except httpx.TimeoutException:
                reason = f"no answer within the timeout of {self.timeout:g} s"
            except httpx.TransportError as exc:
                reason = f"connection error: {self._exception(exc)}"
            except httpx.RequestError as exc:  # an undecodable response, a redirect loop: no retry mends them
                error = f"request failed: {self._exception(exc)}"
                return self._failed(request, index, started, error, attempts=attempt + 1)
            else:
                status = response.status_code
                if 200 <= status < 300:
                    generation = self._parse(response, time.monotonic() - started)
                    return _Outcome(request.key, index, generation, attempt + 1)
                if status in (401, 403):
                    where = (
                        f"model endpoint {self.endpoint!r}"
                        if self.endpoint
                        else "this free-form base_url (sent no key)"
                    )
                    raise JudgeConfigError(
                        f"{self.family}: {self._redact(self.url)} refused the request ({self._described(response)}); "
                        f"the key of {where} is missing or wrong: staff set it in the endpoint's registration"
                    )
                if status == 404:
                    raise JudgeConfigError(
                        f"{self.family}: {self._redact(self.url)} answered {self._described(response)}: the model "
                        f"{self.model!r} or the URL does not exist there (base_url usually ends in /v1)"
                    )
                if status not in _RETRY_STATUSES:
                    error = self._described(response)
                    return self._failed(request, index, started, error, attempts=attempt + 1)
                reason = self._described(response)
                retry_after = self._retry_after(response.headers.get("Retry-After"))
            if attempt == self.max_retries:
                break
            delay = self._delay(attempt, retry_after)
            logger.info(
                "%s: %s for item %s sample %s (attempt %d of %d); retrying in %.2f s",
                self.family, reason, request.key, index, attempt + 1, self.max_retries + 1, delay,
            )
            stop.wait(delay)
        error = f"gave up after {self.max_retries + 1} attempt(s): {reason}"
        logger.warning("%s: item %s sample %s %s", self.family, request.key, index, error)
        return self._failed(request, index, started, error, attempts=self.max_retries + 1)

    def _body(self, messages: list[Message], decoding: Decoding, index: int) -> dict:
        # Messages go out as they came: image_url parts from the VLM grader pass through untouched.
        body = {
            "model": self.model,
            "messages": messages,
            "max_tokens": decoding.max_new_tokens,
            "n": 1,
            "seed": decoding.seed + index,
        }
        if decoding.strategy == "greedy":
            body.update(temperature=0.0, top_p=1.0)
        else:
            body.update(temperature=decoding.temperature, top_p=decoding.top_p)
            if decoding.top_k > 0:
                body["top_k"] = decoding.top_k  # not OpenAI's, but vLLM, llama.cpp and TGI accept it
        return body

    def _parse(self, response: httpx.Response, seconds: float) -> Generation:
        def malformed(what: str) -> Generation:
            error = f"malformed response ({what}): {self._described(response)}"
            return Generation(text="", seconds=seconds, error=error)

        try:
            data = response.json()
        except ValueError:
            return malformed("not JSON")
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return malformed("no choices")
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            return malformed("message content is not a string")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        served = data.get("model")  # what the server says answered: a judge's version records it per sample
        return Generation(
            text=content,
            prompt_tokens=_count_or_none(usage.get("prompt_tokens")),
            completion_tokens=_count_or_none(usage.get("completion_tokens")),
            seconds=seconds,
            model=served.strip() if isinstance(served, str) else "",
        )

    def _failed(self, request: Request, index: int, started: float, error: str, attempts: int) -> _Outcome:
        generation = Generation(text="", seconds=time.monotonic() - started, error=error)
        return _Outcome(request.key, index, generation, attempts)

    # --- helpers ---

    def _check_decoding(self, decoding: Decoding) -> None:
        if decoding.strategy == "beam":
            raise JudgeConfigError(
                f"{self.family}: beam search is not part of the OpenAI chat-completions protocol; use strategy "
                "'greedy' or 'sample' with this backend, or the transformers backend for beam search"
            )
        if decoding.strategy not in ("greedy", "sample"):
            raise JudgeConfigError(
                f"{self.family}: unknown decoding strategy {decoding.strategy!r}; use 'greedy' or 'sample'"
            )

    def _count(self, outcome: _Outcome) -> None:
        generation = outcome.generation
        self.counter.requests += outcome.attempts
        self.counter.prompt_tokens += generation.prompt_tokens or 0
        self.counter.completion_tokens += generation.completion_tokens or 0
        if generation.error:
            self.counter.errors.append(generation.error)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.retry_after_max)
        # Jitter spreads the retries of concurrent workers that failed together (a shared rate limit).
        return min(self.backoff_max, self.backoff_base * 2**attempt) * random.uniform(0.5, 1.0)

    @staticmethod
    def _retry_after(value: str | None) -> float | None:
        """Seconds from a Retry-After header: delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())

    def _described(self, response: httpx.Response) -> str:
        """described(RESPONSE), and the start of its body where staff let this endpoint show bodies."""
        if not self.show_bodies:
            return described(response)
        return f"{described(response)}; the server said: {self._excerpt(response.text)}"

    def _exception(self, exc: Exception) -> str:
        """What kind of transport error EXC is; its text too where staff let this endpoint show bodies."""
        if not self.show_bodies:
            return _transport_error(exc)
        return f"{_transport_error(exc)}: {self._excerpt(str(exc))}"

    def _excerpt(self, text: str) -> str:
        # Redact before cutting: a cut through the key would leave its first characters behind.
        text = " ".join(self._redact(text).split())
        if len(text) > EXCERPT_CHARS:
            text = text[:EXCERPT_CHARS] + "…"
        return repr(text) if text else "(empty body)"

    def _redact(self, text: str) -> str:
        return redact(text, self._api_key)


def _count_or_none(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
