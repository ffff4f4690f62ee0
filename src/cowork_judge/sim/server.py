"""The simulated judge's server: one request pipeline behind three wire APIs, on loopback.

Model routes (``/v1`` prefix optional): ``POST /v1/chat/completions`` (``chat_api``),
``POST /v1/responses`` (``responses_api``), ``POST /v1/messages`` (``messages_api``).
Every model request goes through the same steps: authorization, decoding (400 on a bad
body), the token buckets (429 ``rpm_limit`` / ``tpm_limit``; every later reply carries their
state as rate-limit headers: OpenAI's ``x-ratelimit-*`` on chat and responses, Anthropic's
``anthropic-ratelimit-*`` on messages, unless ``ratelimit_headers`` is off), the fault plan, the tool turn or the final
answer (policy verdicts, or the generic mode), the prefix cache, the latency model, and
one ``RequestLog`` entry. Other routes: ``GET /v1/models``, ``POST
/v1/messages/count_tokens``, ``HEAD`` on any path (200, empty: claude's connectivity
probe), ``GET /_sim/log`` (the request log as JSON), ``POST /_sim/reset`` (clear the log
and the prefix cache); they are not logged as model requests but listed in
``SimServer.other_requests``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from .batch_api import BatchAPI, oracle_names
from .bucket import TokenBucket, anthropic_headers, openai_headers, retry_headers
from .chat_api import ChatAPI
from .conform import conform_verdicts, in_schema_order
from .quotes import Fabricate, add_quotes
from .faults import CONTENT_FAULTS, Fault, FaultPlan, fault_content
from . import original
from .generic import grade_generic
from .handler import SimHandler, SimHTTPServer
from .latency import LatencyModel
from .messages_api import MessagesAPI
from .pages import NA_UNREAD, mark_na, na_level, na_unread
from .policies import INSTANCE_HEADER, DemoPolicy, OracleDirPolicy, RequestFlip, VerdictPolicy, resolve
from .prefix_cache import PrefixCache
from .protocol import completion, error_doc
from .request_log import LogEntry, RequestLog
from .responses_api import ResponsesAPI
from .turn import (
    DEFAULT_MODEL,
    UNREADABLE,
    Reply,
    RequestError,
    SimRequest,
    ToolCall,
    estimate_tokens,
    new_call_id,
    read_only_call,
)

__all__ = ["SimServer", "WireAPI"]

_REJECT_SCHEMA_MSG = "response_format json_schema is not supported by this model"

OWNED_BY = "cowork-judge-sim"
"""The ``owned_by`` of the model ``GET /v1/models`` lists: how a client tells this simulator from a real endpoint
(`cowork_judge.commands._endpoint.simulator_model`)."""


class WireAPI(Protocol):
    """What an endpoint module offers the pipeline (``ChatAPI``, ``ResponsesAPI``, ``MessagesAPI``)."""

    endpoint: str
    """``chat``, ``responses`` or ``messages``: the log's name for the endpoint."""

    def parse(self, body: object) -> SimRequest:
        """Decode a JSON body. Raises RequestError (answered with 400)."""
        ...

    def error(self, h: SimHandler, status: int, message: str, err_type: str, *,
              param: str | None = None, code: str | None = None, headers: dict[str, str] | None = None) -> None:
        """Send this API's error document with ``status``."""
        ...

    def answer(self, h: SimHandler, req: SimRequest, reply: Reply) -> None:
        """Send a 200 answer, streamed when ``req.stream``."""
        ...

    def fault(self, h: SimHandler, req: SimRequest, fault: Fault) -> None:
        """Carry out a status fault or a ``stream_*`` fault (not hang/reset/content faults)."""
        ...

    def status_of(self, fault: Fault) -> int | None:
        """The HTTP status this API sends for ``fault`` (None: no status line)."""
        ...

    def rate_limited(self, h: SimHandler, message: str, headers: dict[str, str]) -> None:
        """Send the token bucket's 429 with ``headers`` (``retry-after``, ``retry-after-ms``)."""
        ...


class SimServer:
    """Simulated judge endpoint on ``host:port``, served from a daemon thread.

    Args:
        policy: verdict policy (``OraclePolicy``, ``DemoPolicy``, ...); None = ``DemoPolicy()``.
        faults: fault plan, one draw per model request of any endpoint; None = no faults.
        latency: latency model; None = answer at once.
        host: address to bind (loopback by default).
        port: TCP port; 0 picks a free one (see ``port``/``url`` after ``start``).
        tool_rounds: when tools are offered, answer this many turns with a read-only tool
            call (``turn.READ_ONLY_CALLS``) before the final answer (counted from the
            earlier tool-calling assistant turns in the request).
        reject_json_schema: answer 400 (``param: response_format``) to chat requests whose
            ``response_format.type`` is ``json_schema``, like endpoints that lack it.
        api_key: when set, model requests without that key (``Authorization: Bearer KEY``,
            or ``x-api-key: KEY`` on ``/v1/messages``) get 401 (``/_sim/*`` stays open).
        log_path: also append every log entry to this JSONL file.
        model: model id listed by ``GET /v1/models``.
        rpm: requests per minute of the shared token bucket; None = no limit.
        burst: bucket capacity, requests; None = ``bucket.default_burst(rpm)``.
        clock: monotonic clock of the bucket, seconds (tests inject a fake one).
        tpm: tokens per minute of a second shared bucket (a request takes its prompt's
            estimated tokens; capacity one minute's worth); None = no token limit.
        ratelimit_headers: send the buckets' state with every model reply (``x-ratelimit-*``
            / ``anthropic-ratelimit-*``; only when a bucket exists); False = send none, as
            endpoints that do not (``--no-ratelimit-headers``).
        json_streams: answer a streamed request (``stream: true``) with the one plain JSON
            document (``Content-Type: application/json``) a request without ``stream`` gets,
            faults included, as an endpoint or a gateway that does not stream
            (``--json-streams``); the log still records ``stream=True``.
        generic: answer requests without rubric rows in the generic mode (``generic.py``);
            False = HTTP 400 "no rubric rows found" instead.
        flip: a noisy judge (``--flip``): each row's answer flipped per request
            (`policies.RequestFlip`); None = answers as the policy gives them.
        fabricate: a judge that invents hits (``--fabricate``): with its probability per
            request, rows the oracle says are missed become hits with a quote in no text
            (`quotes.Fabricate`); requests whose schema asks for a quote get honest ones
            otherwise (`quotes.add_quotes`).
        batch_delay: seconds a Batch API batch stays ``in_progress`` (``--batch-delay``; `batch_api`).
        batch_fail, batch_expire: shares of batched requests that fail / expire, drawn per
            ``custom_id`` (``--batch-fail``, ``--batch-expire``).
        seed: seed of the batch failure draw.
        on_unshown_quote: called ``(row id, the oracle's quote, page or None)`` for each verdict whose oracle quote
            the request did not show, answered with a line it showed (`quotes.add_quotes`; trial 33 P-1: the
            console says so); None = only the request log's ``unshown_quotes``.
        on_na_unread: called ``(row id)`` for each verdict whose oracle entry says ``"na": true`` where the request
            has no N/A answer (`pages.na_unread`: an agentic row; trial 39 P-5); the reason says so either way.

    Use as a context manager, or call ``start()``/``stop()``. ``log`` is the request log.

    Raises:
        ValueError: ``tool_rounds`` < 0, or a bad ``rpm``/``burst``.
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
        rpm: float | None = None,
        burst: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        generic: bool = True,
        flip: RequestFlip | None = None,
        tpm: float | None = None,
        ratelimit_headers: bool = True,
        json_streams: bool = False,
        fabricate: Fabricate | None = None,
        batch_delay: float = 0.0,
        batch_fail: float = 0.0,
        batch_expire: float = 0.0,
        seed: int = 0,
        on_unshown_quote: Callable[[str, str, int | None], None] | None = None,
        on_na_unread: Callable[[str], None] | None = None,
    ) -> None:
        if tool_rounds < 0:
            raise ValueError(f"tool_rounds must be >= 0, got {tool_rounds}")
        if burst is not None and rpm is None:
            raise ValueError("burst needs rpm")
        self.policy: VerdictPolicy = policy if policy is not None else DemoPolicy()
        self.faults = faults
        self.latency = latency
        self.host = host
        self.requested_port = port
        self.tool_rounds = tool_rounds
        self.reject_json_schema = reject_json_schema
        self.api_key = api_key
        self.model = model
        self.bucket = TokenBucket(rpm, burst, clock=clock) if rpm is not None else None
        self.token_bucket = TokenBucket(tpm, max(1, int(tpm)), clock=clock) if tpm is not None else None
        self.ratelimit_headers = ratelimit_headers
        self.json_streams = json_streams
        self.generic = generic
        self.flip = flip
        self.fabricate = fabricate
        self.on_unshown_quote = on_unshown_quote
        self.on_na_unread = on_na_unread
        self.prefix_cache = PrefixCache()
        self.log = RequestLog(log_path)
        self.errors: list[str] = []
        """Tracebacks of unexpected handler exceptions (a healthy run leaves it empty)."""
        self.other_requests: list[tuple[str, str, int]] = []
        """``(method, path, status)`` of every request that is not a model request, in order."""
        self.apis: dict[str, WireAPI] = {api.endpoint: api for api in (ChatAPI(), ResponsesAPI(), MessagesAPI())}
        self.batch_api = BatchAPI(self, delay_sec=batch_delay, fail=batch_fail, expire=batch_expire, seed=seed)
        """OpenAI's Batch API (``/v1/files``, ``/v1/batches``: `batch_api`)."""
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

    @property
    def root_url(self) -> str:
        """``http://HOST:PORT`` (``ANTHROPIC_BASE_URL`` takes this form: the SDK adds ``/v1``)."""
        return f"http://{self.host}:{self.port}"

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
        """Model requests being handled right now (read, not yet logged)."""
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

    def authorized(self, authorization: str | None, api_key_header: str | None = None) -> bool:
        """Whether the request's key passes (always, without ``api_key``).

        Args:
            authorization: the ``Authorization`` header value.
            api_key_header: the ``x-api-key`` header value (Anthropic clients).
        """
        if self.api_key is None:
            return True
        return authorization == f"Bearer {self.api_key}" or api_key_header == self.api_key

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

    def note_other(self, method: str, path: str, status: int) -> None:
        """Record a request that is not a model request (see ``other_requests``)."""
        with self._conn_lock:
            self.other_requests.append((method, path, status))

    def reset(self) -> None:
        """Clear the request log, the prefix cache and ``other_requests``."""
        self.log.clear()
        self.prefix_cache.clear()
        with self._conn_lock:
            self.other_requests.clear()

    # -- model requests ------------------------------------------------------------
    def handle_chat(self, h: SimHandler, body: bytes, start_s: float, seq: int) -> None:
        """Answer one chat-completions request (``handle("chat", ...)``; a seam subclasses override)."""
        self.handle("chat", h, body, start_s, seq)

    def handle(self, endpoint: str, h: SimHandler, body: bytes, start_s: float, seq: int) -> None:
        """Answer one model request of ``endpoint`` (``chat``/``responses``/``messages``) and log it."""
        rec: dict[str, Any] = {"seq": seq, "start_s": start_s, "kind": "error", "endpoint": endpoint, "status": None}
        h.final_write_s = None
        h.answer_seq = seq
        h.rate_headers = {}
        with self._conn_lock:
            self._in_flight += 1
        try:
            self._serve(self.apis[endpoint], h, body, rec)
        finally:
            # stamped before the answer's last write, so a client that waits for its answer
            # before sending the next request never sees two of its requests overlap here
            rec["end_s"] = h.final_write_s if h.final_write_s is not None else time.monotonic()
            h.answer_seq = None
            h.rate_headers = {}
            self.log.append(LogEntry(**rec))
            with self._conn_lock:
                self._in_flight -= 1

    def _refuse(self, api: WireAPI, h: SimHandler, rec: dict[str, Any], status: int, message: str,
                err_type: str, param: str | None = None, code: str | None = None) -> None:
        rec.update(kind="error", status=status, error=message)
        api.error(h, status, message, err_type, param=param, code=code)

    def _serve(self, api: WireAPI, h: SimHandler, body: bytes, rec: dict[str, Any]) -> None:
        if not self.authorized(h.headers.get("Authorization"), h.headers.get("x-api-key")):
            auth_type = "authentication_error" if api.endpoint == "messages" else "invalid_request_error"
            self._refuse(api, h, rec, 401, "Incorrect API key provided", auth_type, code="invalid_api_key")
            return
        try:
            req = api.parse(json.loads(body or b"null"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            self._refuse(api, h, rec, 400, "request body is not valid JSON", "invalid_request_error")
            return
        except RequestError as exc:
            self._refuse(api, h, rec, 400, str(exc), "invalid_request_error", param=exc.param)
            return
        except UNREADABLE as exc:  # nesting past the recursion limit, a 5000-digit integer, a schema of odd types
            self._refuse(api, h, rec, 400, f"request cannot be read: {type(exc).__name__}: {str(exc)[:200]}",
                         "invalid_request_error")
            return
        req.instance = h.headers.get(INSTANCE_HEADER)
        try:  # one policy for the whole request: --oracle-dir's instance, --oracle's file as it stands now
            policy = resolve(self.policy, req.instance)
        except (LookupError, ValueError) as exc:
            self._refuse(api, h, rec, 400, str(exc), "invalid_request_error")
            return
        rec.update(
            instance=req.instance,
            stream=req.stream, model=req.model, row_ids=req.row_ids, prompt_chars=req.prompt_chars,
            prompt_tokens=estimate_tokens(req.prompt_chars), images=req.images,
            response_format=req.response_format, page=req.page, temperature=req.temperature,
            answer_schema=req.answer_schema,
        )
        if self.json_streams and req.stream:  # answered as a request without `stream` (the log keeps stream=True)
            req = dataclasses.replace(req, stream=False, include_usage=False)
        if self._over_limit(api, h, rec, req):
            return
        fault = self.faults.next_fault() if self.faults is not None else None
        if fault is not None:
            rec.update(kind="fault", fault=fault.kind, status=api.status_of(fault))
            if fault.kind == "hang":
                h.hang(fault.hang_seconds, self._stop)
                return
            if fault.kind == "reset":
                h.reset()
                return
            if fault.kind not in CONTENT_FAULTS:
                api.fault(h, req, fault)
                return
        if self.reject_json_schema and api.endpoint == "chat" and req.response_format == "json_schema":
            self._refuse(api, h, rec, 400, _REJECT_SCHEMA_MSG, "invalid_request_error", param="response_format")
            return
        if not req.rows and not self.generic and original.kind_of(req) is None:
            self._refuse(api, h, rec, 400, req.rows_error, "invalid_request_error",
                         param="messages" if api.endpoint != "responses" else "input")
            return
        try:
            reply, kind = self._reply(req, fault, rec, policy)
        except UNREADABLE as exc:  # the rows or the schema hold values no answer can be made of
            self._refuse(api, h, rec, 400, f"request cannot be answered: {type(exc).__name__}: {str(exc)[:200]}",
                         "invalid_request_error")
            return
        if fault is None:
            rec["kind"] = kind
        reply.prompt_tokens = estimate_tokens(req.prompt_chars)
        reply.cached_tokens = self.prefix_cache.lookup_and_store(req.prompt_text)
        reply.completion_tokens = estimate_tokens(len(reply.text or "") + len(reply.call.arguments if reply.call else ""))
        rec.update(cached_tokens=reply.cached_tokens, completion_tokens=reply.completion_tokens,
                   tool_call=reply.call.name if kind == "tool" and reply.call else None)
        rows = len(rec.get("row_ids") or ())
        delay = self.latency.delay_sec("tool" if kind == "tool" else "final", rows) if self.latency is not None else 0.0
        rec["delay_s"] = delay
        if delay and self._stop.wait(delay):
            rec["status"] = None
            h.close_connection = True
            return
        rec["status"] = 200
        api.answer(h, req, reply)

    def _over_limit(self, api: WireAPI, h: SimHandler, rec: dict[str, Any], req: SimRequest) -> bool:
        """Take one request and the prompt's tokens from the buckets; True when one refused
        (its 429 sent, logged ``rpm_limit`` / ``tpm_limit``). Sets the reply's rate-limit
        headers either way."""
        cost = float(estimate_tokens(req.prompt_chars))
        refused: tuple[str, float, str] | None = None
        if self.bucket is not None:
            wait_s = self.bucket.take()
            if wait_s > 0:
                refused = ("rpm_limit", wait_s, f"Rate limit reached for requests per min (RPM): Limit {self.bucket.rpm:g}, "
                                                f"burst {self.bucket.burst}. Please try again in {wait_s:.3f}s.")
        if refused is None and self.token_bucket is not None:
            wait_s = self.token_bucket.take(cost)
            if wait_s > 0:
                if self.bucket is not None:
                    self.bucket.give_back()
                refused = ("tpm_limit", wait_s, f"Rate limit reached for tokens per min (TPM): Limit "
                                                f"{self.token_bucket.rpm:g}, Requested {cost:g}. Please try again in {wait_s:.3f}s.")
        if self.ratelimit_headers and (self.bucket is not None or self.token_bucket is not None):
            render = anthropic_headers if api.endpoint == "messages" else openai_headers
            h.rate_headers = render(self.bucket, self.token_bucket)
        if refused is None:
            return False
        fault, wait_s, message = refused
        headers = retry_headers(wait_s)
        rec.update(kind="fault", fault=fault, status=429, retry_after_ms=int(headers["retry-after-ms"]))
        api.rate_limited(h, message, headers)
        return True

    def _reply(self, req: SimRequest, fault: Fault | None, rec: dict[str, Any],
               policy: VerdictPolicy) -> tuple[Reply, str]:
        """The reply of an answered request and its log kind (``tool``/``final``/``generic``/``original``).

        A request in one of the original cowork-judge 1.3.x's shapes (``original.kind_of``)
        is answered by ``original.answer`` from the same policy (log field ``original``: its kind).

        A request with a page marker gets the policy's answers for that page; rows the
        policy calls N/A get the schema's string level (``pages.mark_na``). Rows with an
        answer schema that has no ``verdicts`` property (claude's session-title side
        request, say) are answered in that schema's shape by the generic mode. Verdicts sent
        through an answer tool follow its schema (``conform``: claude validates them). `policy` is
        the request's (`policies.resolve`).
        """
        original_kind = original.kind_of(req)
        if original_kind is not None:  # the original 1.3.x's request shapes (sim/original.py)
            text, call, verdicts, row_ids = original.answer(original_kind, req, policy)
            rec.update(row_ids=row_ids, original=original_kind)
            if call is not None:
                return Reply(None, call, "tool_calls"), "tool"
            if fault is not None:
                text = (text or "")[: max(1, len(text or "") // 2)] if fault.kind == "truncated_json" \
                    else fault_content(fault.kind, verdicts)
                return Reply(text, None, "length" if fault.kind == "truncated_json" else "stop"), "original"
            return Reply(text, None, "stop"), "original"
        if fault is None and not req.tool_choice_none and not req.answer_tool_forced \
                and req.tool_rounds_done < self.tool_rounds:
            call = read_only_call(req.tool_names, exclude=req.answer_tool)
            if call is not None:
                return Reply(None, call, "tool_calls"), "tool"
        if req.rows and (req.answer_schema is None or "verdicts" in (req.answer_schema.get("properties") or {})):
            if req.page is None:
                verdicts = policy.verdicts(req.rows, req.context_text)
            else:  # a per-page workflow request: "<row id>@<page>" oracle entries apply
                verdicts = policy.verdicts(req.rows, req.context_text, page=req.page)
            if self.flip is not None and fault is None:
                verdicts, rec["flipped"] = self.flip.apply(req.rows, verdicts, instance=req.instance, page=req.page)
            labelled = {str(v.get("id")): v.get("quote") for v in verdicts}
            verdicts, fabricated, unshown = add_quotes(req.rows, verdicts, schema=req.answer_schema, context_text=req.context_text,
                                              fabricate=self.fabricate if fault is None else None,
                                              instance=req.instance, seq=int(rec.get("seq", 0)),
                                              prompt_text=req.prompt_text)
            if fabricated:
                rec["fabricated"] = fabricated
            if unshown:
                rec["unshown_quotes"] = unshown
                self._tell_unshown(unshown, labelled, req.page)
            verdicts = in_schema_order(mark_na(self._na_unread(verdicts, req.answer_schema), na_level(req.answer_schema)),
                                       req.answer_schema)
            text, kind = json.dumps({"verdicts": verdicts}), "final"
        else:
            graded = grade_generic(req, policy)
            verdicts, text, kind = graded.verdicts, graded.text, "generic"
            rec.update(row_ids=graded.row_ids, generic_shape=graded.shape)
        if fault is not None:
            if fault.kind == "truncated_json" and kind == "generic":
                text = text[: max(1, len(text) // 2)]
            else:
                text = fault_content(fault.kind, verdicts)
            return Reply(text, None, "length" if fault.kind == "truncated_json" else "stop"), kind
        if req.answer_tool is not None:
            if kind == "final":  # a client that validates tool input (claude) gets a valid answer
                text = json.dumps({"verdicts": conform_verdicts(verdicts, req.answer_schema)})
            return Reply(None, ToolCall(new_call_id(), req.answer_tool, text), "tool_calls"), kind
        return Reply(text, None, "stop"), kind

    def _na_unread(self, verdicts: list[dict[str, Any]], schema: Any) -> list[dict[str, Any]]:
        """`verdicts` with `pages.NA_UNREAD` added to the reason of each one marked N/A that the request cannot carry
        (`pages.na_unread`), each said once through `on_na_unread` (trial 39 P-5); the others unchanged."""
        unread = set(na_unread(verdicts, schema))
        for row_id in sorted(unread):
            try:
                if self.on_na_unread is not None:
                    self.on_na_unread(row_id)
            except Exception:  # noqa: BLE001 - telling is a courtesy; the request is answered either way
                pass
        return [{**v, "reason": f"{v.get('reason', '')}{NA_UNREAD}"} if str(v.get("id")) in unread else v
                for v in verdicts]

    def _tell_unshown(self, row_ids: list[str], labelled: dict[str, Any], page: int | None) -> None:
        """Call `on_unshown_quote` once per row id of `row_ids` (its labelled quote from `labelled`); never raises."""
        if self.on_unshown_quote is None:
            return
        for row_id in row_ids:
            try:
                self.on_unshown_quote(row_id, str(labelled.get(row_id)), page)
            except Exception:  # noqa: BLE001 - telling is a courtesy; the request is answered either way
                pass

    # -- the Batch API ----------------------------------------------------------------
    def instance_names(self) -> list[str]:
        """The instances ``--oracle-dir`` serves (a batched request's instance is found among
        them from its ``custom_id``: `batch_api`); empty for another policy."""
        return oracle_names(self.policy.root) if isinstance(self.policy, OracleDirPolicy) else []

    def answer_batched(self, body: object, instance: str | None, custom_id: str) -> tuple[int, dict[str, Any]]:
        """Answer one line of a Batch API batch (a Chat Completions body) as a live request of
        `instance` would be answered, without faults, latency or buckets; logged with
        ``endpoint = "batch"`` and its ``custom_id``. Returns ``(status, body)``."""
        rec: dict[str, Any] = {"seq": self.log.next_seq(), "start_s": time.monotonic(), "kind": "error",
                               "endpoint": "batch", "status": None, "custom_id": custom_id, "instance": instance}
        api = self.apis["chat"]
        try:
            try:
                req = dataclasses.replace(api.parse(body), stream=False, include_usage=False)
                req.instance = instance
                reply, kind = self._reply(req, None, rec, resolve(self.policy, instance))
            except (RequestError, LookupError, ValueError, *UNREADABLE) as exc:
                rec.update(status=400, error=str(exc)[:300])
                return 400, error_doc(str(exc)[:300], "invalid_request_error")
            reply.prompt_tokens = estimate_tokens(req.prompt_chars)
            reply.completion_tokens = estimate_tokens(len(reply.text or "") + len(reply.call.arguments if reply.call else ""))
            rec.update(kind=kind, status=200, model=req.model, row_ids=rec.get("row_ids") or req.row_ids,
                       prompt_chars=req.prompt_chars, prompt_tokens=reply.prompt_tokens,
                       completion_tokens=reply.completion_tokens, response_format=req.response_format,
                       page=req.page, temperature=req.temperature, answer_schema=req.answer_schema)
            return 200, completion(req.model, reply)
        finally:
            rec["end_s"] = time.monotonic()
            self.log.append(LogEntry(**rec))

    # -- other routes ---------------------------------------------------------------
    def models_doc(self) -> dict[str, Any]:
        """``GET /v1/models`` answer: one model, with the fields of OpenAI's and Anthropic's lists."""
        return {
            "object": "list",
            "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": OWNED_BY,
                      "type": "model", "display_name": self.model, "created_at": "1970-01-01T00:00:00Z"}],
            "has_more": False, "first_id": self.model, "last_id": self.model,
        }
