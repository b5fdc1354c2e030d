"""What a request body costs a web server's processes: raw HTTP requests whose body is sent a megabyte at a time
(so the client never holds it), and the peak resident memory of the server's processes from /proc (Linux).

The peak (VmHWM) is reset through /proc/PID/clear_refs before a request, so what is read after it is the highest the
process went while it was served, however briefly, not what it holds once it is done.
"""

import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024


def _status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def peak_reset(pids: list[int]) -> dict[int, int]:
    """Reset the peak resident memory of PIDS; their resident bytes now."""
    now = {}
    for pid in pids:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        now[pid] = _status_kb(pid, "VmRSS") * 1024
    return now


def peak_growth(baseline: dict[int, int]) -> int:
    """The most any of the processes of BASELINE (peak_reset's answer) grew above it since, in bytes."""
    return max(_status_kb(pid, "VmHWM") * 1024 - before for pid, before in baseline.items())


@dataclass
class Answer:
    status: int
    head: str  # the status line and the headers
    body: bytes
    sent: int  # bytes of the request body the client got to send before the server closed or answered
    closed: bool  # the server closed the connection after answering (asked with close_wait)


def post(port: int, path: str, *, size: int | None, chunk: bytes = b"A" * MB, content_type: str =
         "application/x-www-form-urlencoded", headers: dict | None = None, prefix: bytes = b"",
         method: str = "POST", timeout: float = 20, close_wait: float = 0) -> Answer:
    """Send METHOD PATH with a body of SIZE bytes (PREFIX, then CHUNK repeated and cut to size) and read the answer.
    SIZE None sends the body chunked, without a Content-Length, until the server answers (1 GiB at most). The body
    is sent from a thread while this one waits for the answer, as a client that does not wait for the server does.
    With CLOSE_WAIT (seconds) the answer says whether the server closed the connection within that time."""
    head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Type: {content_type}"]
    head += [f"Content-Length: {size}"] if size is not None else ["Transfer-Encoding: chunked"]
    head += [f"{name}: {value}" for name, value in (headers or {}).items()]
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
    sent = 0
    answered = threading.Event()

    def send_body():
        nonlocal sent
        limit = size if size is not None else 1024 * MB
        pieces = [prefix] if prefix else []
        try:
            # A client that keeps sending after the answer, as an attacker does: only a closed connection stops it.
            while sent < limit and (size is not None or not answered.is_set()):
                piece = pieces.pop() if pieces else chunk
                piece = piece[: limit - sent]
                sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if size is None else piece)
                sent += len(piece)
            if size is None:
                sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server closed the connection: what it did not read was never sent
            pass

    sender = threading.Thread(target=send_body, daemon=True)
    sender.start()
    received = b""
    try:
        while b"\r\n\r\n" not in received:
            data = sock.recv(65536)
            if not data:
                break
            received += data
        answered.set()
        head_bytes, _, body = received.partition(b"\r\n\r\n")
        head_text = head_bytes.decode("latin-1")
        length = next((int(line.split(":", 1)[1]) for line in head_text.split("\r\n")
                       if line.lower().startswith("content-length:")), None)
        while length is not None and len(body) < length:
            data = sock.recv(65536)
            if not data:
                break
            body += data
        closed = _closed_by_server(sock, close_wait) if close_wait else False
    finally:
        sender.join(timeout)
        sock.close()
    status = int(head_text.split(" ", 2)[1]) if head_text.startswith("HTTP/") else 0
    return Answer(status=status, head=head_text, body=body, sent=sent, closed=closed)


def _closed_by_server(sock: socket.socket, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        sock.settimeout(max(deadline - time.monotonic(), 0.01))
        try:
            if not sock.recv(65536):
                return True
        except TimeoutError:
            return False
        except OSError:  # reset: closed too
            return True
    return False
