"""The run's one model-call path: every model request of a run — an agentic block's turn,
a workflow call, an agent-CLI attempt — is admitted, settled, classified, counted,
audited, redacted and retried here and in the one retry loop beside it
(`transport.retrying`), and nowhere else.

Two parts, one concern (how a model call is made and what its failure means):

- `ModelCalls` — one per run (`run.context.RunContext.calls`). It owns the run's ONE HTTP
  client (`transport.chat.Transport`, the only ``AsyncOpenAI`` of the run) on ONE private
  event-loop thread, opened on the first call and closed when the outermost `opened`
  scope ends (the run's, or a segment's when a test runs the segment alone). Agentic
  blocks (their own asyncio loop) and workflow calls (worker threads) both send through
  it (`chat`, `run_blocking`). The API key lives only inside it: the run context's
  configuration carries none, no attribute of the path holds it (two closures do: the
  client's maker, and `child_credentials` for an agent CLI's environment), only the client
  made on the first call.
- `Held` — one limiter ticket as a context manager (`ModelCalls.admit`,
  `ModelCalls.admit_blocking`). Leaving the ``with`` block settles the ticket exactly once:
  answered; refused AT ADMISSION (an HTTP status that classifies as ``rate_limit``, with
  the server's ask); or failed otherwise (an error inside a 200 stream included: the
  request had been admitted). A CLI attempt (ONE ticket for all the requests the CLI makes)
  settles it itself (`Held.refused` with ``whole_attempt=True``, `Held.failed`). A refusal
  whose own headers show capacity left is judged random by the limiter here, and the
  failure's reading says so (`Failure.random`: its retry waits the ask without the herd's spread).

The retries around these calls are `transport.retrying` (the one retry loop: `Tries`, which
reads a failure through `failure_of` here, so the ticket's settlement and the retry decision
read the same kind and the same ``Retry-After``).

Seams (issues 28, 29): a fleet-wide limiter (`transport.fleet.FleetLimiter`, a shared
store) replaces `Limiter` behind `RequestLimiter` — the one object `ModelCalls` admits
through and settles with; the endpoint's rate-limit headers (`transport.quota`) reach it
where a ticket is settled, nowhere else: `Held.__exit__` for a refusal
(``exc.response.headers``), `Held.answered` for an answer (the reply's ``quota``).

Importing this module loads no model client and no asyncio (a code-only run's start-up):
`transport.chat` (and ``openai`` with it) is imported on the first call.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from cowork_judge.core.classify import classify
from cowork_judge.core.error_kinds import ErrorKind, JudgeFailure
from cowork_judge.core.retry import retry_after_sec
from cowork_judge.transport.limiter import GateClosed, Ticket
from cowork_judge.transport.quota import Quota, quota_of
from cowork_judge.transport.stats import CallStats

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

CLOSE_WAIT_SEC = 2.0
"""Seconds `ModelCalls.close` waits for the client to close and the loop thread to end."""
_FAILURE_ATTR = "_cowork_judge_failure"
"""Attribute under which `failure_of` memoises its reading on the exception."""


class RequestLimiter(Protocol):
    """What the call path needs of the run's request limiter (`transport.limiter.Limiter`
    today; a fleet-wide limiter over a shared store plugs in here). Times are monotonic
    seconds on `clock`."""

    def clock(self) -> float: ...

    async def acquire(self, give_up_at: float = math.inf) -> Ticket | None: ...

    def acquire_blocking(self, cancel: threading.Event, give_up_at: float = math.inf) -> Ticket | None: ...

    def held_past(self, when: float) -> bool: ...

    def answered(self, ticket: Ticket, quota: Quota | None = None, *, tokens: int = 0) -> None: ...

    def failed(self, ticket: Ticket) -> None: ...

    def rate_limited(self, ticket: Ticket, asked_sec: float | None, *, whole_attempt: bool = False,
                     quota: Quota | None = None) -> bool: ...

    def capacity_left(self, quota: Quota | None) -> bool: ...


class NoCredential(JudgeFailure):
    """A model call was asked for and the run has no judge credentials (``no_credential``)."""

    kind: ErrorKind = "no_credential"


# --------------------------------------------------------------------------- reading a failure once

@dataclass(frozen=True)
class Failure:
    """What a failed call said, read once (`failure_of`).

    Attributes:
        base_kind: `core.classify.classify` of the exception before the run's deadline is
            applied (`kind` applies it).
        asked_sec: the server's wait, seconds (``retry-after-ms``, else ``Retry-After``;
            `core.retry.retry_after_sec`), None when it said nothing.
        at_admission: the endpoint refused the request before serving it (an HTTP status
            that classifies as ``rate_limit``): only this drives the limiter.
        random: a refusal at admission whose own rate-limit headers showed capacity left on
            every budget (a random refusal, not the key's limit): the run's limiter judges
            it when it settles the ticket (`Held.__exit__`, `RequestLimiter.capacity_left`)
            and the judgement joins this reading; the retry waits the server's ask without
            the herd's spread (`core.retry.RetryPolicy.wait_sec`).
    """

    base_kind: ErrorKind
    asked_sec: float | None
    at_admission: bool
    random: bool = False

    def kind(self, *, deadline_passed: bool) -> ErrorKind:
        """The failure's kind: `base_kind`, a timeout read as ``deadline`` once the run's
        deadline has passed (the failure table's rule, `core.classify.classify`)."""
        return classify(JudgeFailure(kind=self.base_kind), deadline_passed=deadline_passed)


def failure_of(exc: BaseException) -> Failure:
    """The `Failure` of `exc`: classified and its ``Retry-After`` read on first sight, then
    memoised on the exception (a ticket's settlement and the retry loop read one reading)."""
    memo = getattr(exc, _FAILURE_ATTR, None)
    if isinstance(memo, Failure):
        return memo
    kind = classify(exc)
    failure = Failure(base_kind=kind, asked_sec=retry_after_sec(exc),
                      at_admission=isinstance(getattr(exc, "status_code", None), int) and kind == "rate_limit")
    _remember(exc, failure)
    return failure


def _remember(exc: BaseException, failure: Failure) -> None:
    try:
        setattr(exc, _FAILURE_ATTR, failure)
    except (AttributeError, TypeError):  # an exception type with __slots__: read again next time
        pass


# --------------------------------------------------------------------------- the ticket

class Held:
    """One admitted request (or CLI attempt) holding a limiter ticket; a context manager
    that settles the ticket exactly once when the block is left (see the module docstring).

    Inside the block, `answered`, `refused` or `failed` settle it early (a CLI attempt
    does, from the CLI's words); otherwise a clean exit is `answered` and an exception is
    read by `failure_of` (refused at admission → `rate_limited` with the server's ask;
    anything else, cancellation included → `failed`).
    """

    def __init__(self, limiter: RequestLimiter | None, ticket: Ticket | None) -> None:
        self._limiter = limiter
        self._ticket = ticket
        self._settled = limiter is None or ticket is None

    def answered(self, reply: Any = None) -> None:
        """The request got an answer; `reply` (a `transport.chat.ChatReply`, or None) brings
        its rate-limit headers (``quota``) and the tokens it used to the limiter."""
        held = self._settle()
        if held is not None:
            limiter, ticket = held
            quota = getattr(reply, "quota", None)  # None: the endpoint sent no rate-limit headers
            tokens = int(getattr(reply, "prompt_tokens", 0) or 0) + int(getattr(reply, "completion_tokens", 0) or 0)
            # the tokens count without headers too: JUDGE_FLEET_TPM paces by the mean per request
            limiter.answered(ticket, quota, tokens=tokens)

    def refused(self, asked_sec: float | None, *, whole_attempt: bool = False, quota: Quota | None = None) -> None:
        """The endpoint refused the request at admission; `asked_sec` is its ask (seconds or
        None); `whole_attempt`: the ticket stood for a whole CLI attempt; `quota`: the
        refusal's own rate-limit headers (``exc.response.headers``, `transport.quota`)."""
        held = self._settle()
        if held is not None:
            limiter, ticket = held
            if quota is None:
                limiter.rate_limited(ticket, asked_sec, whole_attempt=whole_attempt)
            else:
                limiter.rate_limited(ticket, asked_sec, whole_attempt=whole_attempt, quota=quota)

    def failed(self) -> None:
        """The request failed for another reason than a refusal at admission."""
        held = self._settle()
        if held is not None:
            limiter, ticket = held
            limiter.failed(ticket)

    def _settle(self) -> tuple[RequestLimiter, Ticket] | None:
        """The limiter and ticket to settle, the first time only; None after that, or without them."""
        if self._settled or self._limiter is None or self._ticket is None:
            return None
        self._settled = True
        return self._limiter, self._ticket

    def __enter__(self) -> Held:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc is None:
            self.answered()
        elif isinstance(exc, Exception) and failure_of(exc).at_admission:
            failure, quota = failure_of(exc), quota_of(exc)
            if (not self._settled and self._limiter is not None and quota is not None
                    and self._limiter.capacity_left(quota)):
                _remember(exc, dataclasses.replace(failure, random=True))  # the retry's wait reads it
            self.refused(failure.asked_sec, quota=quota)
        else:
            self.failed()


# --------------------------------------------------------------------------- the run's path

class ModelCalls:
    """The run's one model-call path (see the module docstring).

    Args:
        api_key, base_url, model: the judge endpoint (a missing key or URL: every call
            raises `NoCredential`). The key is kept in a closure that makes the client,
            never in an attribute.
        stats: the run's call/token counters (``judge_calls``, ``judge_tokens``).
        limiter: the run's request limiter; None: no limiting (tests of one transport).
        headers: extra HTTP headers of every call (`config.judge_config.JudgeConfig.request_headers`).
        temperature: sent with every request when set (JUDGE_SAMPLE_TEMPERATURE when
            JUDGE_SAMPLES > 1, issue 28); None sends none.

    Attributes:
        child_credentials: ``() -> (key, base_url)`` for an agent CLI's child environment
            (the key's one way out of the path; raises `NoCredential` without one).
    """

    def __init__(self, *, api_key: str | None, base_url: str | None, model: str, stats: CallStats,
                 limiter: RequestLimiter | None, headers: Mapping[str, str] | None = None,
                 temperature: float | None = None) -> None:
        self.model = model
        self.stats = stats
        self.limiter = limiter
        self.has_credentials = bool(api_key) and bool(base_url)
        self._connect, self.child_credentials = _connector(api_key, base_url, model, stats, dict(headers or {}), temperature)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._transport: Any = None
        self._depth = 0
        self.clients_opened = 0
        """HTTP clients this path made so far (one per run; tests read it)."""

    def __repr__(self) -> str:
        return f"ModelCalls(model={self.model!r}, open={self._loop is not None})"

    # ------------------------------------------------------------------ admission

    async def admit(self, *, give_up_at: float, refused: str) -> Held:
        """Wait (asyncio) until the limiter lets a request start; the ticket as `Held`.

        Args:
            give_up_at: monotonic seconds past which the request would be useless.
            refused: what the limiter held it past and what was not done, for the
                `GateClosed` message (`refusal`): ``this call's 150 s timeout; no request was sent``.

        Raises:
            GateClosed: the gate or the pace holds every request past `give_up_at` (``rate_limit``).
        """
        if self.limiter is None:
            return Held(None, None)
        ticket = await self.limiter.acquire(give_up_at=give_up_at)
        if ticket is None:
            raise GateClosed(self.refusal(refused))
        return Held(self.limiter, ticket)

    def refusal(self, past: str) -> str:
        """The message of a request the limiter held past `past` (``this call's budget``):
        the shared store's limiter says what holds the fleet and until when
        (`transport.fleet.FleetLimiter.holding`: the endpoint may never have refused
        anyone); the run's own limiter holds requests only for what the endpoint said (a
        ``Retry-After``, a pace from its refusals or rate-limit headers)."""
        holding = getattr(self.limiter, "holding", None)
        said = holding() if callable(holding) else None
        return f"rate limit: {said}, past {past}" if said else f"rate limit: the endpoint asked the run to wait past {past}"

    def admit_blocking(self, cancel: threading.Event, give_up_at: float) -> Held | None:
        """Wait (a thread) until the limiter lets a request start; None when `cancel` is set
        or `give_up_at` (monotonic seconds) would pass first (`held_past` tells which)."""
        if self.limiter is None:
            return Held(None, None)
        ticket = self.limiter.acquire_blocking(cancel, give_up_at)
        return None if ticket is None else Held(self.limiter, ticket)

    def held_past(self, when: float) -> bool:
        """True when the limiter holds every new request until after `when` (monotonic s)."""
        return self.limiter is not None and self.limiter.held_past(when)

    # ------------------------------------------------------------------ calls

    async def chat(self, messages: list[dict[str, Any]], *, timeout_sec: float, tools: list[dict[str, Any]] | None = None,
                   tool_choice: str | None = None, response_format: dict[str, Any] | None = None,
                   model: str | None = None) -> Any:
        """One request under its own ticket (an agentic turn); a `transport.chat.ChatReply`.
        Waits for the limiter at most `timeout_sec` seconds, then the call has `timeout_sec`.
        `model` overrides the path's model (a panel judge on a shared endpoint).

        Raises:
            GateClosed: the limiter would hold the request past `timeout_sec` (``rate_limit``).
            NoCredential: the run has no credentials.
            What `transport.chat.Transport.chat` raises.
        """
        give_up_at = (self.limiter.clock() if self.limiter is not None else time.monotonic()) + timeout_sec
        held = await self.admit(give_up_at=give_up_at, refused=f"this call's {timeout_sec:g} s timeout; no request was sent")
        with held:
            reply = await self.send(messages, timeout_sec=timeout_sec, tools=tools, tool_choice=tool_choice,
                                    response_format=response_format, **({"model": model} if model else {}))
            held.answered(reply)  # its rate-limit headers reach the limiter
            return reply

    async def send(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        """The request itself, on the run's client (the caller holds the ticket); keyword
        arguments as `transport.chat.Transport.chat`. Runs on the path's loop thread and
        is awaited from the caller's loop (cancelling the caller cancels the request)."""
        import asyncio

        loop = self._start()
        transport = self._transport
        future = asyncio.run_coroutine_threadsafe(transport.chat(messages, **kwargs), loop)
        return await asyncio.wrap_future(future)

    def run_blocking(self, coro_factory: Callable[[Any], Coroutine[Any, Any, T]], timeout_sec: float) -> T:
        """Run ``coro_factory(transport)`` on the path's loop thread from a worker thread; at
        most `timeout_sec` seconds.

        Raises:
            NoCredential: the run has no credentials.
            TimeoutError: it took longer (the coroutine is cancelled).
            Whatever the coroutine raised.
        """
        import asyncio
        import concurrent.futures

        loop = self._start()
        transport = self._transport
        future = asyncio.run_coroutine_threadsafe(coro_factory(transport), loop)
        try:
            return future.result(timeout=max(0.01, timeout_sec))
        except concurrent.futures.TimeoutError:  # not the builtin TimeoutError on Python 3.10
            future.cancel()
            raise TimeoutError(f"the model call ran past {timeout_sec:.1f} s") from None

    # ------------------------------------------------------------------ the client's life

    def _start(self) -> asyncio.AbstractEventLoop:
        import asyncio

        with self._lock:
            if self._loop is not None:
                return self._loop
            if not self.has_credentials:
                raise NoCredential("no judge credentials: a model call needs JUDGE_API_KEY and JUDGE_BASE_URL")
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="model-calls", daemon=True)
            thread.start()
            self._transport = self._connect()
            self.clients_opened += 1
            self._loop, self._thread = loop, thread
            return loop

    @contextmanager
    def opened(self) -> Iterator[ModelCalls]:
        """A scope of the path's use: the client (made on the first call inside it) is
        closed when the outermost scope ends — the run's, so that the workflow and agentic
        segments share one client; the router's, or a test's, when a segment runs alone."""
        with self._lock:
            self._depth += 1
        try:
            yield self
        finally:
            with self._lock:
                self._depth -= 1
                last = self._depth == 0
            if last:
                self.close()

    def close(self) -> None:
        """Close the client and stop the loop thread (idempotent, never raises; a later call
        opens a new client)."""
        close_store = getattr(self.limiter, "close", None)  # a shared store's connections (`transport.fleet`)
        if close_store is not None:
            close_store()
        with self._lock:
            loop, thread, transport = self._loop, self._thread, self._transport
            self._loop = self._thread = self._transport = None
        if loop is None:
            return
        import asyncio

        try:
            asyncio.run_coroutine_threadsafe(transport.close(), loop).result(timeout=CLOSE_WAIT_SEC)
        except Exception:  # noqa: BLE001 - closing must never cost the run its verdicts
            pass
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=CLOSE_WAIT_SEC)
        if not loop.is_running():
            loop.close()


def _connector(api_key: str | None, base_url: str | None, model: str, stats: CallStats, headers: dict[str, str],
               temperature: float | None = None) -> tuple[Callable[[], Any], Callable[[], tuple[str, str]]]:
    """The two functions that hold the key (in their closure, never in an attribute): the
    one that makes the run's client, and the one an agent CLI's launch reads the key and
    the base URL from for the child's environment (`agentic.cli_base`)."""

    def connect() -> Any:
        from cowork_judge.transport.batch_api import batched
        from cowork_judge.transport.chat import Transport, plain_completion  # the model client loads on first use

        # `cowork-judge batch --batch-api` runs: the one-round-trip requests go through the batch (`transport.batch_api`)
        return batched(Transport(api_key=api_key or "", base_url=base_url or "", model=model, stats=stats, headers=headers,
                                 temperature=temperature), plain_completion)

    def child_credentials() -> tuple[str, str]:
        """``(key, base_url)`` for an agent CLI's environment (its only way out of the path).

        Raises:
            NoCredential: the run has none.
        """
        if not api_key or not base_url:
            raise NoCredential("no judge credentials: an agent CLI needs JUDGE_API_KEY and JUDGE_BASE_URL")
        return api_key, base_url

    return connect, child_credentials
