"""The OpenAI-compatible HTTP backend against a real local chat-completions server (tests/llm_server.py)."""

import logging
import re
import socket
import threading
import time
import traceback

import pytest

from judges.errors import JudgeConfigError
from judges.llm.backend import Connection, Decoding, Generation, Request, TokenCount
from judges.llm.http_backend import HttpBackend, redact
from tests.llm_server import Reply, answer, chat_server, error, raw, slow

KEY = "sk-test-SECRET-0123456789abcdef"
SAMPLE = Decoding(strategy="sample", temperature=0.8, top_k=0, top_p=0.9, max_new_tokens=32, seed=10)


@pytest.fixture
def server():
    with chat_server() as running:
        yield running


def make_config(server, **overrides) -> dict:
    """The judge's options, plus the test's own base_url, api_key and max_concurrency, which make_backend turns
    into the Connection that judges.endpoints would resolve from a registered endpoint."""
    config = {
        "model": "judge-model",
        "base_url": server.base_url,
        "api_key": KEY,
        "concurrency": 4,
        "timeout": 2.0,
        "max_retries": 3,
    }
    return config | overrides


def make_backend(config: dict, counter: TokenCount | None = None, **kwargs) -> HttpBackend:
    kwargs = {"backoff_base": 0.01, "backoff_max": 0.05, "retry_after_max": 5.0} | kwargs
    config = dict(config)
    shown = {"show_bodies": True} if config.pop("show_bodies", False) else {}  # staff's debugging switch
    connection = Connection(base_url=config.pop("base_url"), api_key=config.pop("api_key", ""),
                            max_concurrency=config.pop("max_concurrency", None),
                            endpoint=config.pop("endpoint", "test-endpoint"), **shown)
    return HttpBackend(config, counter, connection=connection, **kwargs)


def item(key: int, *indices: int) -> Request:
    messages = [{"role": "system", "content": "You judge answers."}, {"role": "user", "content": f"question {key}"}]
    return Request(key=key, messages=messages, sample_indices=indices or (0,))


def generate(backend: HttpBackend, requests: list[Request], decoding: Decoding = SAMPLE) -> dict:
    """(key, index) -> Generation, checking that every sample arrives once, on the calling thread."""
    samples: dict[tuple[int, int], Generation] = {}
    caller = threading.get_ident()

    def on_sample(key: int, index: int, generation: Generation) -> None:
        assert threading.get_ident() == caller
        assert (key, index) not in samples
        samples[(key, index)] = generation

    backend.generate(requests, decoding, on_sample)
    return samples


# --- successful generation ---


def test_every_sample_returns_to_its_item_within_the_concurrency_limit(server):
    server.script(*[answer(delay=0.05) for _ in range(12)])
    counter = TokenCount()
    config = make_config(server, concurrency=3)
    samples = generate(make_backend(config, counter), [item(key, 0, 1, 2) for key in range(1, 5)])

    assert sorted(samples) == [(key, index) for key in range(1, 5) for index in range(3)]
    for (key, index), generation in samples.items():
        assert generation.error == ""
        assert generation.text == f"echo: question {key} | seed={10 + index} | model=judge-model"
        assert generation.prompt_tokens == 5 and generation.completion_tokens == 7
        assert generation.seconds >= 0.05
    assert 2 <= server.max_in_flight <= 3
    assert counter.requests == 12 and counter.errors == []
    assert counter.prompt_tokens == 12 * 5 and counter.completion_tokens == 12 * 7


def test_the_endpoints_limit_caps_the_judges_concurrency(server):
    server.script(*[answer(delay=0.05) for _ in range(8)])
    generate(make_backend(make_config(server, concurrency=8, max_concurrency=2)), [item(key) for key in range(8)])
    assert server.max_in_flight <= 2 and len(server.requests) == 8


def test_a_redirect_is_not_followed_so_the_key_stays_with_the_endpoint(server):
    with chat_server() as elsewhere:
        redirect = Reply(status=307, body=b"", headers=(("Location", elsewhere.base_url + "/chat/completions"),))
        server.script(redirect)
        samples = generate(make_backend(make_config(server, max_retries=0)), [item(1)])
        assert samples[(1, 0)].error.startswith("HTTP 307")
        assert elsewhere.requests == []


def test_body_carries_model_decoding_and_seed_plus_index(server):
    decoding = Decoding(strategy="sample", temperature=0.7, top_k=40, top_p=0.95, max_new_tokens=64, seed=100)
    generate(make_backend(make_config(server)), [item(1, 2, 5)], decoding)

    bodies = sorted(server.bodies(), key=lambda body: body["seed"])
    assert [body["seed"] for body in bodies] == [102, 105]
    for body in bodies:
        assert body["model"] == "judge-model"
        assert body["n"] == 1 and body["max_tokens"] == 64
        assert body["temperature"] == 0.7 and body["top_p"] == 0.95 and body["top_k"] == 40
        assert body["messages"] == item(1).messages
    assert {r.path for r in server.requests} == {"/v1/chat/completions"}
    assert {r.headers["Authorization"] for r in server.requests} == {f"Bearer {KEY}"}


def test_greedy_sends_temperature_zero_and_no_top_k(server):
    decoding = Decoding(strategy="greedy", temperature=0.7, top_k=40, seed=3)
    generate(make_backend(make_config(server)), [item(1)], decoding)

    (body,) = server.bodies()
    assert body["temperature"] == 0 and "top_k" not in body and body["seed"] == 3


def test_beam_search_is_refused_before_any_request(server):
    with pytest.raises(JudgeConfigError, match="beam search is not part of the OpenAI chat-completions protocol"):
        generate(make_backend(make_config(server)), [item(1)], Decoding(strategy="beam"))
    assert server.requests == []


def test_image_parts_pass_through_unchanged(server):
    content = [
        {"type": "text", "text": "Is this caption right?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}},
    ]
    request = Request(key=7, messages=[{"role": "user", "content": content}], sample_indices=(0,))
    samples = generate(make_backend(make_config(server)), [request])

    assert server.bodies()[0]["messages"] == [{"role": "user", "content": content}]
    assert samples[(7, 0)].text.startswith("echo: Is this caption right?")


# --- retries ---


def test_429_and_500_are_retried_then_succeed_honouring_retry_after(server, caplog):
    caplog.set_level(logging.INFO, logger="judges.llm.http_backend")
    server.script(error(429, retry_after="1"), error(500), when="question 1")
    counter = TokenCount()
    started = time.monotonic()
    samples = generate(make_backend(make_config(server), counter), [item(1), item(2)])

    assert time.monotonic() - started >= 0.9  # the backoff alone is 0.05 s at most: Retry-After was waited
    assert samples[(1, 0)].text == "echo: question 1 | seed=10 | model=judge-model"
    assert samples[(1, 0)].error == "" and samples[(2, 0)].error == ""
    assert counter.requests == 4 and counter.errors == []
    retries = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert len(retries) == 2 and "HTTP 429" in retries[0] and "HTTP 500" in retries[1]


def test_exhausted_retries_become_a_sample_error_not_an_exception(server, caplog):
    caplog.set_level(logging.INFO, logger="judges.llm.http_backend")
    server.script(*[error(503, retry_after="3600") for _ in range(3)], when="question 1")
    counter = TokenCount()
    started = time.monotonic()
    backend = make_backend(make_config(server, max_retries=2), counter, retry_after_max=0.05)
    samples = generate(backend, [item(1), item(2)])

    assert time.monotonic() - started < 2  # Retry-After: 3600 was capped
    failed = samples[(1, 0)]
    assert failed.text == "" and failed.prompt_tokens is None
    assert failed.error.startswith("gave up after 3 attempt(s): HTTP 503 (application/json, ")
    assert "scripted 503" not in failed.error  # the body is the server's, not the researcher's to read
    assert samples[(2, 0)].error == ""
    assert counter.requests == 4 and counter.errors == [failed.error]
    assert any(r.levelno == logging.WARNING and "gave up" in r.getMessage() for r in caplog.records)


def test_timeout_is_retried_then_reported(server):
    server.script(slow(1.0), when="question 1")
    server.script(slow(1.0), slow(1.0), when="question 2")
    config = make_config(server, timeout=0.3, max_retries=1)
    samples = generate(make_backend(config), [item(1), item(2)])

    assert samples[(1, 0)].text == "echo: question 1 | seed=10 | model=judge-model"
    assert samples[(2, 0)].error == "gave up after 2 attempt(s): no answer within the timeout of 0.3 s"
    assert len(server.requests) == 4


def test_connection_refused_is_retried_then_reported():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = {"model": "m", "base_url": f"http://127.0.0.1:{port}/v1", "api_key": KEY, "max_retries": 2}
    counter = TokenCount()
    samples = generate(make_backend(config, counter), [item(1)])

    assert samples[(1, 0)].error.startswith("gave up after 3 attempt(s): connection error:")
    assert counter.requests == 3


# --- malformed and refused responses: what failed, never what the server said ---

INTERNAL = "INTERNAL-ONLY admin console of 10.0.0.7"


@pytest.mark.parametrize(
    "reply, expected",
    [
        (raw(f"<html>{INTERNAL}</html>", content_type="text/html; charset=utf-8"),
         "malformed response (not JSON): HTTP 200 (text/html, {n} bytes)"),
        (raw(f'{{"id": "chatcmpl-1", "note": "{INTERNAL}"}}'),
         "malformed response (no choices): HTTP 200 (application/json, {n} bytes)"),
        (raw(f'{{"choices": [{{"message": {{"content": null}}}}], "x": "{INTERNAL}"}}'),
         "malformed response (message content is not a string): HTTP 200 (application/json, {n} bytes)"),
        (error(400, body=f"maximum context length is 2048 tokens; {INTERNAL}"),
         "HTTP 400 (application/json, {n} bytes)"),
        (raw(f"<p>{INTERNAL}</p>", status=302, content_type="text/html",
             headers=(("Location", "http://10.0.0.7/admin"),)), "HTTP 302 (text/html, {n} bytes)"),
        (raw(INTERNAL, status=418, content_type=""), "HTTP 418 (no content type, {n} bytes)"),
        (raw(INTERNAL, status=409, content_type=f"text/plain; {INTERNAL}"), "HTTP 409 (text/plain, {n} bytes)"),
        (raw(INTERNAL, status=409, content_type=INTERNAL), "HTTP 409 (an unreadable content type, {n} bytes)"),
    ],
)
def test_a_failed_reply_names_its_status_type_and_size_never_its_body(server, reply, expected):
    server.script(reply)
    samples = generate(make_backend(make_config(server)), [item(1)])

    assert samples[(1, 0)].text == ""
    assert samples[(1, 0)].error == expected.format(n=len(reply.body))  # the body's size, in bytes
    assert len(server.requests) == 1  # none of these is retried


def test_a_service_that_does_not_speak_http_is_named_never_quoted():
    """A worker pointed at Redis, PostgreSQL or SMTP gets their banner back as httpx's protocol error text."""
    banner = b"-ERR INTERNAL-BANNER redis_version:7.2.4 role:master\r\n"
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()

        def answer_once():
            peer, _ = listener.accept()
            with peer:
                peer.recv(65536)
                peer.sendall(banner)
                # Read what is left of the request (its body may come apart from its head) before closing: closing
                # with it unread resets the connection, and the client would see a reset (ReadError), not the banner.
                peer.settimeout(0.5)
                try:
                    while peer.recv(65536):
                        pass
                except OSError:
                    pass

        thread = threading.Thread(target=answer_once, daemon=True)
        thread.start()
        config = {"model": "m", "base_url": f"http://127.0.0.1:{listener.getsockname()[1]}/v1", "max_retries": 0}
        samples = generate(make_backend(config), [item(1)])
        thread.join(timeout=5)

    assert samples[(1, 0)].error == ("gave up after 1 attempt(s): connection error: the server's answer is not valid "
                                     "HTTP (RemoteProtocolError)")


def test_bodies_show_only_where_staff_switched_them_on_for_a_registered_endpoint(server):
    server.script(raw("x" * 5000), raw("x" * 5000))
    shown = generate(make_backend(make_config(server, show_bodies=True)), [item(1)])[(1, 0)].error
    assert shown.startswith("malformed response (not JSON): HTTP 200 (application/json, 5,000 bytes); the server "
                            "said: 'xxxx") and len(shown) < 300  # cut to a short excerpt
    # A free-form URL (no endpoint) never shows one, whatever its connection says.
    free = generate(make_backend(make_config(server, show_bodies=True, endpoint="")), [item(2)])[(2, 0)].error
    assert free == "malformed response (not JSON): HTTP 200 (application/json, 5,000 bytes)"


# --- the request URL ---


@pytest.mark.parametrize("base, path", [("{v1}", "/v1/chat/completions"), ("{v1}/", "/v1/chat/completions"),
                                        ("{v1}//", "/v1/chat/completions"), ("{root}", "/chat/completions")])
def test_the_request_path_is_the_base_path_joined_with_chat_completions(server, base, path):
    base_url = base.format(v1=server.base_url, root=server.base_url.removesuffix("/v1"))
    try:
        generate(make_backend(make_config(server, base_url=base_url)), [item(1)])
    except JudgeConfigError:
        pass  # the root has no chat route on this server: 404
    assert [request.path for request in server.requests] == [path]


@pytest.mark.parametrize("suffix, refusal", [
    ("?", "must not have a query"), ("?x=1", "must not have a query"), ("/admin?", "must not have a query"),
    ("#", "must not have a query (?...) or a fragment"), ("/admin#", "or a fragment (#...)"),
])
def test_a_base_url_that_would_cut_the_suffix_off_is_refused_before_anything_is_sent(server, suffix, refusal):
    # An endpoint row registered before base URLs were checked holds such a URL: the backend refuses it too.
    with pytest.raises(JudgeConfigError, match=re.escape(refusal)):
        generate(make_backend(make_config(server, base_url=server.base_url + suffix)), [item(1)])
    assert server.requests == []


def test_a_base_url_with_user_info_is_refused_without_echoing_it(server):
    url = server.base_url.replace("http://", "http://admin:hunter2-password@")
    with pytest.raises(JudgeConfigError, match="must not carry user info") as refused:
        make_backend(make_config(server, base_url=url))
    assert "hunter2" not in str(refused.value)


def test_missing_usage_leaves_tokens_unknown(server):
    server.script(answer(usage=False))
    counter = TokenCount()
    samples = generate(make_backend(make_config(server), counter), [item(1)])

    assert samples[(1, 0)].text.startswith("echo: question 1")
    assert samples[(1, 0)].prompt_tokens is None and samples[(1, 0)].completion_tokens is None
    assert (counter.prompt_tokens, counter.completion_tokens, counter.requests) == (0, 0, 1)


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_raises_a_config_error_without_the_key(server, caplog, status):
    caplog.set_level(logging.DEBUG)
    # OpenAI-style servers quote the key they refused: the message must not carry it on, not even where staff
    # let the endpoint show bodies.
    server.script(*[error(status, body=f"Incorrect API key provided: {KEY}") for _ in range(6)])
    with pytest.raises(JudgeConfigError) as raised:
        generate(make_backend(make_config(server)), [item(1), item(2), item(3)])
    message = str(raised.value)
    assert f"refused the request (HTTP {status} (application/json, 59 bytes))" in message
    assert "model endpoint 'test-endpoint'" in message and "Incorrect API key" not in message

    with pytest.raises(JudgeConfigError) as raised:
        generate(make_backend(make_config(server, show_bodies=True)), [item(1), item(2), item(3)])
    message = str(raised.value)
    assert "Incorrect API key provided: ***" in message
    assert KEY not in "".join(traceback.format_exception(raised.value))
    assert KEY not in caplog.text


def test_an_answer_that_comes_back_beside_a_refusal_is_kept(server, monkeypatch):
    """One wait may return a refused request and an answered one together, in either order (a set): the answer is
    handed over before the refusal is raised, so a resumed run does not ask for it again. Every wait here returns
    both (ALL_COMPLETED), so the old order-dependent loss would show on about every other run. The refusal comes
    half a second late, so that the other request is sent before it (a refusal stops the requests not sent yet)."""
    import concurrent.futures
    import dataclasses

    from judges.llm import http_backend

    monkeypatch.setattr(http_backend, "wait", lambda pending, return_when: concurrent.futures.wait(
        pending, return_when=concurrent.futures.ALL_COMPLETED))
    samples: dict[int, Generation] = {}
    sent_both = 0
    for _ in range(6):  # the set's order differs from run to run: the answer must arrive every time
        samples.clear()
        before = len(server.requests)
        server.script(dataclasses.replace(error(401), delay=0.5), when="question 1")
        server.script(answer(), when="question 2")
        with pytest.raises(JudgeConfigError, match="refused the request"):
            make_backend(make_config(server, concurrency=2)).generate(
                [item(1), item(2)], SAMPLE, lambda key, index, generation: samples.__setitem__(key, generation))
        sent = any("question 2" in str(request.body) for request in server.requests[before:])
        sent_both += sent
        assert list(samples) == ([2] if sent else []) and all("question 2" in g.text for g in samples.values())
    assert sent_both  # on a machine too busy to send the second request within half a second, once at least


def test_unknown_url_or_model_raises_a_config_error(server):
    with pytest.raises(JudgeConfigError, match=r"answered HTTP 404 \(application/json, 39 bytes\): the model "
                                               "'judge-model' or the URL"):
        generate(make_backend(make_config(server, base_url=server.base_url + "/wrong")), [item(1)])


def test_on_sample_exception_stops_the_batch(server):
    server.script(*[answer(delay=0.02) for _ in range(20)])

    def on_sample(key, index, generation):
        raise RuntimeError("run cancelled")

    backend = make_backend(make_config(server, concurrency=1))
    with pytest.raises(RuntimeError, match="run cancelled"):
        backend.generate([item(key) for key in range(20)], SAMPLE, on_sample)
    assert len(server.requests) <= 3


def test_invalid_config_is_refused():
    with pytest.raises(JudgeConfigError, match="base_url must be an http"):
        HttpBackend({"model": "m"}, connection=Connection(base_url="127.0.0.1:8000/v1"))
    with pytest.raises(JudgeConfigError, match="names no host"):
        HttpBackend({"model": "m"}, connection=Connection(base_url="http://:8000/v1"))
    with pytest.raises(JudgeConfigError, match="concurrency must be at least 1"):
        HttpBackend({"model": "m", "concurrency": 0}, connection=Connection(base_url="http://127.0.0.1:8000/v1"))
    with pytest.raises(JudgeConfigError, match="needs a model endpoint"):
        HttpBackend({"model": "m"}, connection=None)


# --- the key ---


def test_only_the_connections_key_is_sent_never_one_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-of-the-worker-environment")
    generate(make_backend(make_config(server)), [item(1)])
    generate(make_backend(make_config(server, api_key="")), [item(2)])  # a free-form URL: no key at all

    headers = [r.headers for r in server.requests]
    assert headers[0]["Authorization"] == f"Bearer {KEY}"
    assert "Authorization" not in headers[1]


def test_key_never_leaks_into_errors_logs_or_repr(server, caplog):
    caplog.set_level(logging.DEBUG)  # httpx and httpcore debug logging included
    config = make_config(server, max_retries=1, show_bodies=True)  # bodies shown: the echoed key must not be
    # A server that echoes the Authorization header back in every kind of failure body.
    server.script(*[error(500, echo_authorization=True) for _ in range(2)], when="question 1")
    server.script(raw("not json", echo_authorization=True), when="question 2")
    server.script(raw('{"choices": []}', echo_authorization=True), when="question 3")
    server.script(error(400, body=f"bad key {KEY}"), when="question 4")
    counter = TokenCount()
    backend = make_backend(config, counter)
    samples = generate(backend, [item(1), item(2), item(3), item(4)])

    assert server.requests[0].headers["Authorization"] == f"Bearer {KEY}"
    errors = [generation.error for generation in samples.values()]
    assert all(errors) and all("***" in e for e in errors)
    texts = errors + counter.errors + [repr(backend), caplog.text] + [r.getMessage() for r in caplog.records]
    assert not [text for text in texts if KEY in text]


def test_redact_replaces_the_key_and_bearer_tokens():
    assert redact(f"key={KEY}; again {KEY}", KEY) == "key=***; again ***"
    assert redact("Authorization: Bearer sk-other-token", KEY) == "Authorization: Bearer ***"
    assert redact("nothing secret", "") == "nothing secret"

