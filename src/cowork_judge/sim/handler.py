"""HTTP plumbing of the simulated judge: routing, JSON/SSE writers, hang and reset.

The request semantics live in ``server.SimServer`` and the endpoint modules; this module
only moves bytes. Request bodies may be gzip- or deflate-encoded (``Content-Encoding``);
other encodings get 415.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import sys
import threading
import time
import traceback
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from .protocol import error_doc
from .request_log import RequestLog


class SimApp(Protocol):
    """What the HTTP layer calls on the simulator (implemented by ``server.SimServer``); a
    protocol, so this module never imports the server that imports it."""

    log: RequestLog
    errors: list[str]
    apis: dict[str, Any]
    batch_api: Any

    @property
    def stopping(self) -> bool: ...

    def authorized(self, authorization: str | None, api_key_header: str | None = None) -> bool: ...

    def track_connection(self, sock: socket.socket, add: bool) -> None: ...

    def note_other(self, method: str, path: str, status: int) -> None: ...

    def reset(self) -> None: ...

    def handle_chat(self, h: SimHandler, body: bytes, start_s: float, seq: int) -> None: ...

    def handle(self, endpoint: str, h: SimHandler, body: bytes, start_s: float, seq: int) -> None: ...

    def models_doc(self) -> dict[str, Any]: ...

__all__ = ["SimHTTPServer", "SimHandler"]

_MODEL_ROUTES = {"/chat/completions": "chat", "/responses": "responses", "/messages": "messages"}


class SimHTTPServer(ThreadingHTTPServer):
    """Threaded HTTP server bound to one ``SimServer`` (``sim``); one thread per connection."""

    daemon_threads = True
    block_on_close = False  # SimServer.stop joins handler threads with a deadline
    sim: SimApp

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)) or self.sim.stopping:
            return
        text = traceback.format_exc()
        self.sim.errors.append(text)
        sys.stderr.write(f"cowork-judge sim: handler error\n{text}")


MAX_BODY_BYTES = 128 * 1024 * 1024
"""Largest request body read, and largest a gzip/deflate body may inflate to (bytes): a
deck's page images as base64 are a few MB; past this the answer is 413."""


class BodyTooLarge(Exception):
    """The request body (as sent or inflated) is over `MAX_BODY_BYTES`."""


class SimHandler(BaseHTTPRequestHandler):
    """One HTTP/1.1 connection: routes requests and offers the writers ``SimServer`` uses.

    ``timeout`` (seconds) bounds every read and write of the socket: a client that stalls
    in the middle of a request, or keeps an idle connection, loses it after that long
    (``hang`` polls with ``select`` and is not affected)."""

    protocol_version = "HTTP/1.1"
    timeout = 300.0
    server: SimHTTPServer
    server_version = "cowork-judge-sim"
    final_write_s: float | None = None
    """``time.monotonic()`` just before the last write of the current answer (None before it)."""
    answer_seq: int | None = None
    """Log number of the model request being answered (None for other requests)."""
    rate_headers: dict[str, str] = {}
    """Rate-limit headers of the model request being answered (the buckets' state), sent
    with its status line whatever the answer is (200, 429, another error, a stream)."""

    def _final_write(self) -> None:
        """Stamp ``final_write_s`` and tell the request log an answer is going out."""
        self.final_write_s = time.monotonic()
        if self.answer_seq is not None:
            self.server.sim.log.answered(self.answer_seq)

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no Nagle stalls
        self.server.sim.track_connection(self.connection, True)

    def finish(self) -> None:
        self.server.sim.track_connection(self.connection, False)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def _read_body(self) -> bytes | None:
        """The request body, decoded from gzip/deflate; None for another ``Content-Encoding``.

        A body that does not decompress is returned as is (it then fails as JSON: 400).

        Raises:
            BodyTooLarge: ``Content-Length`` or the inflated body is over `MAX_BODY_BYTES`
                (a declared length over it is not read: the connection is then closed).
        """
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            raise BodyTooLarge(f"Content-Length {length} is over {MAX_BODY_BYTES} bytes")
        data = self.rfile.read(length) if length > 0 else b""
        encoding = (self.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding in ("identity", ""):
            return data
        if encoding not in ("gzip", "deflate"):
            return None
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS)
        try:
            out = inflater.decompress(data, MAX_BODY_BYTES + 1)
        except zlib.error:
            return data
        if len(out) > MAX_BODY_BYTES or inflater.unconsumed_tail:
            raise BodyTooLarge(f"the {encoding} body inflates to more than {MAX_BODY_BYTES} bytes")
        return out

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path[3:] if path.startswith("/v1/") else path

    def do_HEAD(self) -> None:  # noqa: N802 - stdlib name
        """Any path: 200 with an empty body (claude's connectivity probe is ``HEAD /``)."""
        self.server.sim.note_other("HEAD", self.path, 200)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        route, sim = self._route(), self.server.sim
        if route == "/models":
            if not sim.authorized(self.headers.get("Authorization"), self.headers.get("x-api-key")):
                doc = error_doc("Incorrect API key provided", "invalid_request_error", code="invalid_api_key")
                self._other(401, doc)
                return
            self._other(200, sim.models_doc())
        elif route == "/_sim/log":
            self.send_json(200, {"entries": sim.log.to_json(),
                                 "batch_submitted": [list(pair) for pair in sim.batch_api.submitted]})
        elif route.startswith(("/files/", "/batches")):
            self._batch_get(route)
        else:
            self._other(404, error_doc(f"no route GET {self.path}", "invalid_request_error"))

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        start_s = time.monotonic()
        sim = self.server.sim
        route = self._route()
        try:
            body = self._read_body()
        except BodyTooLarge as exc:
            self._other(413, error_doc(f"request body too large: {exc}", "invalid_request_error"))
            return
        endpoint = _MODEL_ROUTES.get(route)
        if endpoint == "chat" and body is not None:
            sim.handle_chat(self, body, start_s, sim.log.next_seq())
        elif endpoint is not None and body is not None:
            sim.handle(endpoint, self, body, start_s, sim.log.next_seq())
        elif body is None:
            self._other(415, error_doc(
                f"Content-Encoding {self.headers.get('Content-Encoding')!r} is not supported (use identity, gzip "
                "or deflate)", "invalid_request_error"))
        elif route == "/messages/count_tokens":
            self._other(*sim.apis["messages"].count_tokens(body))
        elif route == "/files" or route.startswith("/batches"):
            self._batch_post(route, body)
        elif route == "/_sim/reset":
            sim.reset()
            self.send_json(200, {"ok": True})
        else:
            self._other(404, error_doc(f"no route POST {self.path}", "invalid_request_error"))

    def _batch_get(self, route: str) -> None:
        """``GET /files/{id}/content``, ``GET /batches/{id}``, ``GET /batches`` (`batch_api`)."""
        sim = self.server.sim
        if not sim.authorized(self.headers.get("Authorization"), self.headers.get("x-api-key")):
            self._other(401, error_doc("Incorrect API key provided", "invalid_request_error", code="invalid_api_key"))
            return
        parts = route.strip("/").split("/")
        if parts[0] == "files" and len(parts) == 3 and parts[2] == "content":
            data = sim.batch_api.file_content(parts[1])
            if data is None:
                self._other(404, error_doc(f"no file {parts[1]!r}", "invalid_request_error"))
                return
            sim.note_other("GET", self.path, 200)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif parts == ["batches"]:
            self._other(200, sim.batch_api.list_doc())
        elif parts[0] == "batches" and len(parts) == 2:
            self._other(*sim.batch_api.retrieve(parts[1]))
        else:
            self._other(404, error_doc(f"no route GET {self.path}", "invalid_request_error"))

    def _batch_post(self, route: str, body: bytes) -> None:
        """``POST /files``, ``POST /batches``, ``POST /batches/{id}/cancel`` (`batch_api`)."""
        sim = self.server.sim
        if not sim.authorized(self.headers.get("Authorization"), self.headers.get("x-api-key")):
            self._other(401, error_doc("Incorrect API key provided", "invalid_request_error", code="invalid_api_key"))
            return
        parts = route.strip("/").split("/")
        if parts == ["files"]:
            self._other(*sim.batch_api.create_file(self.headers.get("Content-Type") or "", body))
        elif parts == ["batches"]:
            self._other(*sim.batch_api.create_batch(body))
        elif len(parts) == 3 and parts[0] == "batches" and parts[2] == "cancel":
            self._other(*sim.batch_api.cancel(parts[1]))
        else:
            self._other(404, error_doc(f"no route POST {self.path}", "invalid_request_error"))

    def _other(self, status: int, doc: dict[str, Any]) -> None:
        self.server.sim.note_other(self.command, self.path, status)
        self.send_json(status, doc)

    # -- writers used by SimServer ----------------------------------------------------
    def send_json(self, status: int, doc: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        """Send one complete JSON answer with ``x-request-id`` and extra ``headers``."""
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_sim_{id(self):x}_{time.monotonic_ns():x}")
        for key, value in {**self.rate_headers, **(headers or {})}.items():
            self.send_header(key, value)
        self._final_write()
        self.end_headers()
        self.wfile.write(data)

    def send_partial_json(self, doc: dict[str, Any]) -> None:
        """Announce the full length, send half the body, then close."""
        data = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in self.rate_headers.items():
            self.send_header(key, value)
        self._final_write()
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.close_connection = True

    def start_sse(self) -> None:
        """Send the head of a 200 ``text/event-stream`` answer (chunked body follows)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for key, value in self.rate_headers.items():
            self.send_header(key, value)
        self.end_headers()

    def sse(self, data: dict[str, Any] | str, event: str | None = None) -> None:
        """Send one ``[event: NAME]\\ndata: ...`` event (a dict is JSON-encoded) as one HTTP chunk."""
        text = data if isinstance(data, str) else json.dumps(data)
        head = f"event: {event}\n" if event else ""
        payload = f"{head}data: {text}\n\n".encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))

    def end_sse(self) -> None:
        """End the chunked body cleanly (the connection stays usable)."""
        self._final_write()
        self.wfile.write(b"0\r\n\r\n")

    def hang(self, seconds: float, stop: threading.Event) -> None:
        """Send nothing until the client disconnects, ``seconds`` pass or ``stop`` is set."""
        deadline = time.monotonic() + seconds
        sock = self.connection
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                readable, _, _ = select.select([sock], [], [], 0.05)
                if readable and not sock.recv(1, socket.MSG_PEEK):
                    break  # client closed its side
            except (OSError, ValueError):
                break
            if readable:
                stop.wait(0.05)  # client sent more bytes; keep hanging without spinning
        self.close_connection = True

    def reset(self) -> None:
        """Abort the connection with a TCP RST (SO_LINGER on, timeout 0)."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()
        self.connection.close()
        self.close_connection = True
