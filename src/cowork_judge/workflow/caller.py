"""The model transport of the workflow segment: every workflow model call goes through here.

One `WorkflowCalls` per run holds what is the workflow segment's own: ONE in-flight limit
(``JUDGE_WORKFLOW_CONCURRENCY``; a workflow that fans out over nested thread pools still
never has more requests open than that) and the start jitter of the first wave
(``JUDGE_WORKFLOW_START_JITTER``: each of the first `limit` calls waits ``uniform(0,
jitter)`` seconds while holding its slot, so later calls queue behind). Everything else
is the run's one model-call path (`transport.attempts`): the limiter ticket (`Held`,
shared with the agentic blocks: a rate limit a workflow call meets slows the agentic
calls to the same endpoint and vice versa), the failure read once, counted, audited and
redacted, one jittered wait per failure and the give-up decisions (the run's one retry loop,
`transport.retrying.retry_blocking` with `Tries`: the failure table's retry policy, a rate
limit waits at least what the server asked), and the run's one HTTP client on the path's
event-loop thread (`ModelCalls.run_blocking`).
Each workflow gets a `WorkflowCaller` (the `ModelCaller` of its context) bound to its
audit folder, its budget and its cancel event.

The model client (``openai``) is imported on the first call, never at import time.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from cowork_judge.transport.calls import AuditSink, ModelCallFailed, ModelReply
from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.transport.attempts import Held, ModelCalls, NoCredential
from cowork_judge.transport.audit_view import audit_view
from cowork_judge.transport.limiter import Limiter
from cowork_judge.transport.retrying import Again, Answered, Result, Tries, retry_blocking
from cowork_judge.transport.stats import CallStats

SLOT_POLL_SEC = 0.05
"""How often a call waiting for a slot (or sleeping) checks its cancel event, seconds."""


class WorkflowCalls:
    """What all workflow calls of one run share (see the module docstring).

    Args:
        api_key, base_url, model: the judge endpoint (None key: every call fails ``no_credential``).
        limit: JUDGE_WORKFLOW_CONCURRENCY, requests in flight at most (≥ 1).
        jitter_sec: JUDGE_WORKFLOW_START_JITTER, seconds.
        per_timeout_sec: JUDGE_PER_TIMEOUT, the longest one attempt may take.
        retry: the retry policy (failure table, max tries, backoff cap).
        stats: the run's call/token counters.
        deadline_at: monotonic time of JUDGE_DEADLINE.
        redact: removes secrets from outgoing and audited text.
        rng: randomness for jitter and backoff.
        log: the run's logger.
        limiter: the run's request limiter (None: a private one, as in tests of this class alone).
        calls: the run's model-call path (`SegmentContext.calls`; its client is the run's and
            `close` leaves it open). None: a private path over `limiter` made from the
            endpoint arguments, closed by `close` (tests and benches of this class alone).
        judge_model: the model every call names instead of the path's (a panel judge that
            shares an endpoint's path with another model, issue 28); None: the path's.
    """

    def __init__(self, *, api_key: str | None = None, base_url: str | None = None, model: str = "", limit: int,
                 jitter_sec: float, per_timeout_sec: float, retry: RetryPolicy, stats: CallStats, deadline_at: float,
                 redact: Callable[[str], str], rng: random.Random, log: logging.Logger,
                 limiter: Limiter | None = None, calls: ModelCalls | None = None,
                 headers: Mapping[str, str] | None = None, judge_model: str | None = None) -> None:
        self.limit = limit
        self.judge_model = judge_model
        self.jitter_sec = jitter_sec
        self.per_timeout_sec = per_timeout_sec
        self.retry = retry
        self.stats = stats
        self.deadline_at = deadline_at
        self.redact = redact
        self.rng = rng
        self.log = log
        if calls is None:
            limiter = limiter if limiter is not None else Limiter(backoff_max_sec=retry.backoff_max_sec, rng=rng)
            calls = ModelCalls(api_key=api_key, base_url=base_url, model=model, stats=stats, limiter=limiter,
                               headers=headers)
            self._owns_path = True
        else:
            self._owns_path = False
        self.path = calls
        self.limiter = calls.limiter
        self._slots = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self._first_wave = limit  # calls still to wait for the start jitter
        self.structured = True

    def caller(self, name: str, audit: AuditSink, *, cancel: threading.Event, budget_end: float) -> WorkflowCaller:
        """The `ModelCaller` of workflow `name` (audit under its folder, bounded by its budget)."""
        return WorkflowCaller(self, name, audit, cancel=cancel, budget_end=budget_end)

    def close(self) -> None:
        """Close the client of a private call path (idempotent; never raises). The run's
        path (`calls`) is left open: the run closes it (one client per run)."""
        if self._owns_path:
            self.path.close()

    # ------------------------------------------------------------------ slots and jitter

    def acquire(self, cancel: threading.Event, give_up_at: float) -> bool:
        """Take an in-flight slot (False when `cancel` is set or `give_up_at` passes first);
        the first wave then waits its start jitter while holding the slot."""
        while not self._slots.acquire(timeout=SLOT_POLL_SEC):
            if cancel.is_set() or time.monotonic() >= give_up_at:
                return False
        with self._lock:
            first = self._first_wave > 0
            self._first_wave -= 1 if first else 0
        if first and self.jitter_sec > 0:
            delay = min(self.rng.uniform(0.0, self.jitter_sec), max(0.0, give_up_at - time.monotonic()))
            self.log.info("start jitter: a first-wave workflow call waits %.1f s (JUDGE_WORKFLOW_START_JITTER=%g)",
                          delay, self.jitter_sec)
            if cancel.wait(delay):
                self._slots.release()
                return False
        return True

    def release(self) -> None:
        """Give a slot back."""
        self._slots.release()


class WorkflowCaller:
    """One workflow's `ModelCaller`: retries, time limits, audit and cancel around `WorkflowCalls`."""

    def __init__(self, shared: WorkflowCalls, name: str, audit: AuditSink, *, cancel: threading.Event, budget_end: float) -> None:
        self.shared = shared
        self.limit = shared.limit
        self.name = name
        self.audit = audit
        self.cancel = cancel
        self.budget_end = budget_end

    def complete(self, messages: list[dict[str, Any]], *, label: str, response_format: dict[str, Any] | None = None,
                 timeout_sec: float | None = None) -> ModelReply:
        """One model call with the run's retry policy (see `cowork_judge.workflow._contract.ModelCaller`).

        Raises:
            ModelCallFailed: the policy gave up (kind of the last failure), the run's
                deadline (``deadline``) or the workflow's budget (``timeout``) came first,
                or ``cancel`` was set.
        """
        shared = self.shared
        path = shared.path
        messages = _redacted(messages, shared.redact)
        tries = Tries(f"workflow {self.name} call {label}", policy=shared.retry, rng=shared.rng, stats=shared.stats,
                      redact=shared.redact, log=shared.log, audit=lambda n, entry: self.audit.append("calls", entry))
        end = min(self.budget_end, shared.deadline_at)
        admitted: list[Held] = []

        def ready() -> bool:
            """A slot (and the first wave's start jitter), then the limiter's admission; raises
            `ModelCallFailed` when the call is cut off first."""
            if self.cancel.is_set() or time.monotonic() >= end:
                raise self._cut_off(label, tries.attempts)
            if not shared.acquire(self.cancel, end):
                raise self._cut_off(label, tries.attempts)
            held = path.admit_blocking(self.cancel, end)
            if held is None:
                shared.release()
                if not self.cancel.is_set() and path.held_past(end):
                    refused = path.refusal(f"this call's budget (after {tries.attempts} attempt(s)); no request was sent")
                    raise ModelCallFailed(f"call {label}: {refused}", kind="rate_limit")
                raise self._cut_off(label, tries.attempts)
            admitted[:] = [held]
            return True

        def attempt(no: int) -> Result[ModelReply]:
            t0 = time.monotonic()
            limit = min(timeout_sec or shared.per_timeout_sec, shared.per_timeout_sec, max(0.01, end - t0))
            fmt = response_format if shared.structured else None
            named = {"model": shared.judge_model} if shared.judge_model else {}
            try:
                with admitted.pop() as held:
                    reply = path.run_blocking(lambda transport: transport.chat(
                        messages, timeout_sec=limit, response_format=fmt, **named), limit + 1.0)
                    held.answered(reply)  # its rate-limit headers reach the limiter
            except NoCredential:  # no request went out
                raise ModelCallFailed("no judge credentials: a workflow needs JUDGE_API_KEY and JUDGE_BASE_URL",
                                      kind="no_credential") from None
            except Exception as exc:
                from cowork_judge.transport.chat import ResponseFormatRejected

                if not isinstance(exc, ResponseFormatRejected):
                    raise  # a failure: classified (once) by the retry loop
                shared.structured = False
                shared.log.warning("workflow %s: the endpoint rejected response_format; plain JSON from now on", self.name)
                return Again()  # not a failure of the call: the same attempt again without the format
            finally:
                shared.release()
            self.audit.append("calls", {"label": label, "attempt": no, "request": audit_view(messages),
                                        "reply": reply.content, "seconds": round(time.monotonic() - t0, 3)})
            return Answered(ModelReply(text=reply.content, prompt_tokens=reply.prompt_tokens,
                                       completion_tokens=reply.completion_tokens, attempts=no))

        ended = retry_blocking(tries, attempt, ready=ready, time_left=lambda: end - time.monotonic(),
                               deadline_passed=lambda: time.monotonic() >= shared.deadline_at, cancel=self.cancel,
                               entry=lambda no: {"label": label, "attempt": no}, raises=(ModelCallFailed,))
        if ended.why == "answered":
            assert ended.value is not None
            return ended.value
        if ended.why == "cancelled" or ended.last is None:
            raise self._cut_off(label, ended.attempts)
        kind, reason = ended.last.kind, ended.last.said
        if ended.why == "no_time":
            raise ModelCallFailed(f"{kind} after {ended.attempts} attempt(s), no time left for another: {reason}", kind=kind)
        raise ModelCallFailed(f"{kind} after {ended.attempts} attempt(s): {reason}", kind=kind)

    def _cut_off(self, label: str, attempts: int) -> ModelCallFailed:
        deadline = time.monotonic() >= self.shared.deadline_at
        kind: ErrorKind = "deadline" if deadline else "timeout"
        why = "JUDGE_DEADLINE passed" if deadline else ("the workflow was cancelled" if self.cancel.is_set() else "the workflow's budget is spent")
        return ModelCallFailed(f"call {label} not made: {why} (after {attempts} attempt(s))", kind=kind)


def _redacted(messages: list[dict[str, Any]], redact: Callable[[str], str]) -> list[dict[str, Any]]:
    """The messages with every text part redacted (image data is left as is)."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            content = redact(content)
        elif isinstance(content, list):
            content = [{**p, "text": redact(p["text"])} if isinstance(p, dict) and isinstance(p.get("text"), str) else p
                       for p in content]
        out.append({**m, "content": content})
    return out

