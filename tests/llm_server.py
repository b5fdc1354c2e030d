"""A scriptable OpenAI-compatible chat-completions server for tests, on 127.0.0.1 and an ephemeral port.

    with chat_server() as server:
        server.script(error(429, retry_after="1"), error(500), when="item 7")
        backend = HttpBackend({"model": "m", "base_url": server.base_url, ...})

Every request is answered by the next scripted reply whose `when` text occurs in its prompt (`when=None`
matches any prompt); once a script is used up, or when none matches, it gets the normal `answer()`.
Scripts are keyed by prompt text because concurrent requests arrive in no fixed order.

The normal answer echoes the last user message, the seed and the model ("echo: <text> | seed=3 | model=m"),
so tests can check that each sample went back to its own item, with usage counted in words.
"""

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """What the server does with one request. body None means the normal echoing answer."""

    status: int = 200
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0  # seconds to wait before answering
    usage: bool = True  # the normal answer includes usage counts
    echo_authorization: bool = False  # put the request's Authorization header into the body
    content_type: str = "application/json"


def answer(*, delay: float = 0.0, usage: bool = True) -> Reply:
    return Reply(delay=delay, usage=usage)


def error(status: int, *, retry_after: str | None = None, body: str = "", echo_authorization: bool = False) -> Reply:
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    text = body or json.dumps({"error": {"message": f"scripted {status}", "code": status}})
    return Reply(status=status, body=text.encode(), headers=headers, echo_authorization=echo_authorization)


def slow(seconds: float) -> Reply:
    """The normal answer, SECONDS late: past a client timeout shorter than that."""
    return Reply(delay=seconds)


def raw(text: str, *, status: int = 200, echo_authorization: bool = False, content_type: str = "application/json",
        headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    """A 200 (or STATUS) whose body is TEXT, verbatim: for malformed responses and internal pages."""
    return Reply(status=status, body=text.encode(), echo_authorization=echo_authorization, content_type=content_type,
                 headers=headers)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict | None  # None when the request body was not JSON


@dataclass
class ChatServer:
    base_url: str = ""
    requests: list[Recorded] = field(default_factory=list)
    max_in_flight: int = 0
    _scripts: list[tuple[str | None, list[Reply]]] = field(default_factory=list)
    _rule: object = None  # prompt -> Reply or None, asked before the scripts (answer_by)
    _in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closing: threading.Event = field(default_factory=threading.Event)

    def script(self, *replies: Reply, when: str | None = None) -> None:
        """Answer the next requests whose prompt contains WHEN (any prompt if None) with REPLIES, in order."""
        with self._lock:
            self._scripts.append((when, list(replies)))

    def answer_by(self, rule) -> None:
        """Answer every request whose prompt RULE(prompt) gives a Reply for with that reply (the scripts otherwise):
        for a model whose answer depends on both the instruction and the item, which no one `when` text can name."""
        with self._lock:
            self._rule = rule

    def bodies(self) -> list[dict]:
        with self._lock:
            return [r.body for r in self.requests if r.body is not None]

    def _next_reply(self, prompt: str) -> Reply:
        with self._lock:
            reply = self._rule(prompt) if self._rule is not None else None
            if reply is not None:
                return reply
            for when, replies in self._scripts:
                if replies and (when is None or when in prompt):
                    return replies.pop(0)
        return answer()

    def _enter(self, recorded: Recorded) -> None:
        with self._lock:
            self.requests.append(recorded)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


def _texts(messages: list) -> list[str]:
    texts = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [part.get("text", "") for part in content if isinstance(part, dict)]
    return texts


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real servers do: the client's pool is exercised

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw_body = self.rfile.read(length)
            try:
                body = json.loads(raw_body)
            except ValueError:
                body = None
            recorded = Recorded(self.path, dict(self.headers.items()), body)
            server._enter(recorded)
            try:
                self._answer(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout): what a real server sees too
            finally:
                server._leave()

        def _answer(self, body: dict | None) -> None:
            if self.path != PATH:
                self._send(404, b'{"error": {"message": "no such route"}}')
                return
            if not isinstance(body, dict):
                self._send(400, b'{"error": {"message": "body is not a JSON object"}}')
                return
            messages = body.get("messages", [])
            texts = _texts(messages)
            reply = server._next_reply("\n".join(texts))
            if reply.delay and server._closing.wait(reply.delay):
                return
            if reply.body is not None:
                payload = reply.body
                if reply.echo_authorization:
                    payload += b" auth=" + self.headers.get("Authorization", "").encode()
                self._send(reply.status, payload, reply.headers, reply.content_type)
                return
            last_user = next((m for m in reversed(messages) if m.get("role") == "user"), {})
            text = f"echo: {' '.join(_texts([last_user]))} | seed={body.get('seed')} | model={body.get('model')}"
            data = {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            }
            if reply.usage:
                data["usage"] = {
                    "prompt_tokens": sum(len(t.split()) for t in texts),
                    "completion_tokens": len(text.split()),
                }
            self._send(200, json.dumps(data).encode(), reply.headers)

        def _send(self, status: int, payload: bytes, headers=(), content_type: str = "application/json") -> None:
            self.send_response(status)
            if content_type:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@contextmanager
def chat_server() -> Iterator[ChatServer]:
    """A running ChatServer; stopped, and its slow replies cut short, on exit."""
    server = ChatServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    httpd.daemon_threads = True
    server.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server._closing.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
