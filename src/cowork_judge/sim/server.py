"""The simulated judge's server: what an OpenAI-compatible endpoint answers, on loopback.

Routes: ``POST /v1/chat/completions`` (plain, SSE streaming, function tools,
``response_format``, image parts), ``GET /v1/models``, ``GET /_sim/log`` (the request log
as JSON), ``POST /_sim/reset`` (clear the log). The ``/v1`` prefix is optional.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from typing import Any

from .faults import (
    CONTENT_FAULTS,
    STATUS_FAULTS,
    Fault,
    FaultPlan,
    error_body,
    fault_content,
)
from .handler import SimHandler, SimHTTPServer
from .latency import LatencyModel
from .policies import DemoPolicy, VerdictPolicy
from .protocol import (
    DEFAULT_MODEL,
    RequestError,
    SimRequest,
    chunk,
    completion,
    error_doc,
    estimate_tokens,
    new_completion_id,
    parse_request,
    split_text,
    tool_call_for,
)
from .request_log import LogEntry, RequestLog

__all__ = ["SimServer"]

_REJECT_SCHEMA_MSG = "response_format json_schema is not supported by this model"


class SimServer:
    """OpenAI-compatible simulated judge on ``host:port``, served from a daemon thread.

    Args:
        policy: verdict policy (``OraclePolicy``, ``DemoPolicy``, ...); None = ``DemoPolicy()``.
        faults: fault plan; None = never inject faults.
        latency: latency model; None = answer at once.
        host: address to bind (loopback by default).
        port: TCP port; 0 picks a free one (see ``port``/``url`` after ``start``).
        tool_rounds: when tools are offered, answer this many turns with a tool call before
            the final verdicts (counted from the assistant tool-call messages so far).
        reject_json_schema: answer 400 (``param: response_format``) to requests whose
            ``response_format.type`` is ``json_schema``, like endpoints that lack it.
        api_key: when set, requests without ``Authorization: Bearer <api_key>`` get 401
            (``/_sim/*`` stays open).
        log_path: also append every log entry to this JSONL file.
        model: model id listed by ``GET /v1/models``.

    Use as a context manager, or call ``start()``/``stop()``. ``log`` is the request log.
    """

    def __init__(
        self,
        policy: VerdictPolicy | None = None,
        *,
        faults: FaultPlan | None = None,
        latency: LatencyModel | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        tool_rounds: int = 1,
        reject_json_schema: bool = False,
        api_key: str | None = None,
        log_path: str | os.PathLike[str] | None = None,
        model: str = DEFAULT_MODEL,
    ) -> None:
        if tool_rounds < 0:
            raise ValueError(f"tool_rounds must be >= 0, got {tool_rounds}")
        self.policy: VerdictPolicy = policy if policy is not None else DemoPolicy()
        self.faults = faults
        self.latency = latency
        self.host = host
        self.requested_port = port
        self.tool_rounds = tool_rounds
        self.reject_json_schema = reject_json_schema
        self.api_key = api_key
        self.model = model
        self.log = RequestLog(log_path)
        self.errors: list[str] = []
        """Tracebacks of unexpected handler exceptions (a healthy run leaves it empty)."""
        self._stop = threading.Event()
        self._httpd: SimHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._conn_lock = threading.Lock()
        self._conns: dict[socket.socket, threading.Thread] = {}
        self._in_flight = 0
        self._port: int | None = None

    # -- lifecycle -----------------------------------------------------------------
    @property
    def port(self) -> int:
        """Bound TCP port (still known after ``stop``). Raises RuntimeError before ``start``."""
        if self._port is None:
            raise RuntimeError("SimServer is not started")
        return self._port

    @property
    def url(self) -> str:
        """Base URL for ``openai.OpenAI(base_url=...)``: ``http://HOST:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> SimServer:
        """Bind and serve in a daemon thread; returns self. Raises OSError if binding fails."""
        if self._httpd is not None:
            raise RuntimeError("SimServer already started")
        self._stop.clear()
        httpd = SimHTTPServer((self.host, self.requested_port), SimHandler)
        httpd.sim = self
        self._httpd = httpd
        self._port = int(httpd.server_address[1])
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="sim-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout_sec: float = 1.5) -> None:
        """Stop serving: hanging and sleeping requests end, open connections are closed.

        Returns within about ``timeout_sec`` seconds even with requests in flight.
        Idempotent.
        """
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        deadline = time.monotonic() + timeout_sec
        self._stop.set()
        httpd.shutdown()
        with self._conn_lock:
            conns = list(self._conns.items())
        for sock, _ in conns:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for _, thread in conns:
            thread.join(max(0.0, deadline - time.monotonic()))
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(max(0.0, deadline - time.monotonic()))

    @property
    def in_flight(self) -> int:
        """Chat-completions requests being handled right now (read, not yet logged)."""
        with self._conn_lock:
            return self._in_flight

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def stopping(self) -> bool:
        """``stop()`` has begun."""
        return self._stop.is_set()

    def authorized(self, authorization: str | None) -> bool:
        """Whether an ``Authorization`` header value passes (always, without ``api_key``)."""
        return self.api_key is None or authorization == f"Bearer {self.api_key}"

    def track_connection(self, sock: socket.socket, add: bool) -> None:
        """Register (``add``) or forget a client connection so ``stop()`` can close it."""
        with self._conn_lock:
            if add:
                self._conns[sock] = threading.current_thread()
                if self._stop.is_set():  # accepted while stop() ran: do not leave it idle
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
            else:
                self._conns.pop(sock, None)

    # -- chat completions ----------------------------------------------------------
    def handle_chat(self, h: SimHandler, body: bytes, start_s: float, seq: int) -> None:
        """Answer one chat-completions request on handler ``h`` and log it."""
        rec: dict[str, Any] = {"seq": seq, "start_s": start_s, "kind": "error"}
        with self._conn_lock:
            self._in_flight += 1
        try:
            self._chat(h, body, rec)
        finally:
            rec["end_s"] = time.monotonic()
            self.log.append(LogEntry(**rec))
            with self._conn_lock:
                self._in_flight -= 1

    def _chat(self, h: SimHandler, body: bytes, rec: dict[str, Any]) -> None:
        if not self.authorized(h.headers.get("Authorization")):
            msg = "Incorrect API key provided"
            rec.update(status=401, error=msg)
            h.send_json(401, error_doc(msg, "invalid_request_error", code="invalid_api_key"))
            return
        try:
            req = parse_request(json.loads(body or b"null"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            rec.update(status=400, error="request body is not valid JSON")
            h.send_json(400, error_doc("request body is not valid JSON", "invalid_request_error"))
            return
        except RequestError as exc:
            rec.update(status=400, error=str(exc))
            h.send_json(400, error_doc(str(exc), "invalid_request_error", param=exc.param))
            return
        rec.update(
            stream=req.stream, model=req.model, row_ids=req.row_ids, prompt_chars=req.prompt_chars,
            prompt_tokens=estimate_tokens(req.prompt_chars), images=req.images,
            response_format=req.response_format,
        )
        fault = self.faults.next_fault() if self.faults is not None else None
        if fault is not None:
            rec.update(kind="fault", fault=fault.kind, status=fault.status)
            if fault.kind not in CONTENT_FAULTS:
                self._transport_fault(h, req, fault)
                return
        if self.reject_json_schema and req.response_format == "json_schema":
            rec.update(kind="error", status=400, error=_REJECT_SCHEMA_MSG)
            h.send_json(400, error_doc(_REJECT_SCHEMA_MSG, "invalid_request_error", param="response_format"))
            return
        if not req.rows:
            rec.update(kind="error", status=400, error=req.rows_error)
            h.send_json(400, error_doc(req.rows_error, "invalid_request_error", param="messages"))
            return
        tool_turn = (
            fault is None and bool(req.tool_names) and not req.tool_choice_none
            and req.tool_rounds_done < self.tool_rounds
        )
        kind = "tool" if tool_turn else "final"
        if fault is None:
            rec["kind"] = kind
        delay = self.latency.delay_sec(kind, len(req.rows)) if self.latency is not None else 0.0
        rec["delay_s"] = delay
        if delay and self._stop.wait(delay):
            rec["status"] = None
            h.close_connection = True
            return
        rec["status"] = 200
        if tool_turn:
            call = tool_call_for(req.tool_names)
            rec["tool_call"] = call["function"]["name"]
            rec["completion_tokens"] = estimate_tokens(len(call["function"]["arguments"]))
            self._answer(h, req, None, call, "tool_calls")
            return
        verdicts = self.policy.verdicts(req.rows, req.context_text)
        if fault is None:
            content, finish = json.dumps({"verdicts": verdicts}), "stop"
        else:
            content = fault_content(fault.kind, verdicts)
            finish = "length" if fault.kind == "truncated_json" else "stop"
        rec["completion_tokens"] = estimate_tokens(len(content))
        self._answer(h, req, content, None, finish)

    def _answer(
        self, h: SimHandler, req: SimRequest, content: str | None, call: dict[str, Any] | None, finish: str
    ) -> None:
        prompt_tokens = estimate_tokens(req.prompt_chars)
        done_tokens = estimate_tokens(len(content or "") + len(call["function"]["arguments"] if call else ""))
        if not req.stream:
            h.send_json(200, completion(
                req.model, content=content, tool_call=call, finish_reason=finish,
                prompt_tokens=prompt_tokens, completion_tokens=done_tokens,
            ))
            return
        cid = new_completion_id()
        h.start_sse()
        if call is not None:
            head = {"index": 0, "id": call["id"], "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": ""}}
            h.sse(chunk(cid, req.model, {"role": "assistant", "content": None, "tool_calls": [head]}))
            for piece in split_text(call["function"]["arguments"], 8):
                h.sse(chunk(cid, req.model, {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
        else:
            h.sse(chunk(cid, req.model, {"role": "assistant", "content": ""}))
            for piece in split_text(content or ""):
                h.sse(chunk(cid, req.model, {"content": piece}))
        h.sse(chunk(cid, req.model, {}, finish_reason=finish))
        if req.include_usage:
            h.sse(chunk(cid, req.model, None, usage=(prompt_tokens, done_tokens)))
        h.sse("[DONE]")
        h.end_sse()

    def _transport_fault(self, h: SimHandler, req: SimRequest, fault: Fault) -> None:
        """Carry out a fault that is not a 200 answer with verdict content."""
        if fault.kind in STATUS_FAULTS:
            headers = {"retry-after": "1"} if fault.status == 429 and fault.kind == "http_429" else {}
            h.send_json(fault.status or 500, error_body(fault, h.headers.get("Authorization")), headers)
        elif fault.kind == "hang":
            h.hang(fault.hang_seconds, self._stop)
        elif fault.kind == "reset":
            h.reset()
        elif not req.stream:
            if fault.kind == "stream_rate_limit":
                h.send_json(200, error_body(fault))
            else:  # stream_disconnect / stream_abort on a plain request: cut the body
                partial = completion(req.model, content="{\"verdicts\": [", tool_call=None,
                                     finish_reason="stop", prompt_tokens=0, completion_tokens=0)
                h.send_partial_json(partial)
        else:
            cid = new_completion_id()
            h.start_sse()
            h.sse(chunk(cid, req.model, {"role": "assistant", "content": ""}))
            h.sse(chunk(cid, req.model, {"content": "{\"verdicts\": ["}))
            if fault.kind == "stream_rate_limit":
                h.sse(error_body(fault))
                h.end_sse()
            elif fault.kind == "stream_disconnect":
                h.end_sse()  # clean end of body: no finish_reason, no [DONE]
            else:  # stream_abort: drop the connection inside the chunked body
                h.close_connection = True

    # -- other routes ---------------------------------------------------------------
    def models_doc(self) -> dict[str, Any]:
        """``GET /v1/models`` answer: one model."""
        return {"object": "list", "data": [
            {"id": self.model, "object": "model", "created": 0, "owned_by": "cowork-judge-sim"}
        ]}
