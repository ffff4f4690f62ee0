"""Fault injection for the simulated judge: which fault (if any) the next request gets.

One fault is drawn per model request (chat completions, responses, messages; requests
refused by the token bucket draw none): first from the scripted sequence (one entry per
request, ``"ok"`` = no fault), then, once the script is used up, by rate with one seeded
uniform draw per request. What each kind looks like on ``/v1/chat/completions`` is listed
in ``FAULT_KINDS``; the endpoint modules (``chat_api``, ``responses_api``,
``messages_api``) carry it out in their API's own shapes.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONTENT_FAULTS",
    "FAULT_KINDS",
    "STATUS_FAULTS",
    "STREAM_FAULTS",
    "Fault",
    "FaultPlan",
    "error_body",
    "fault_content",
    "parse_fault_rate",
    "parse_fault_script",
]

FAULT_KINDS: dict[str, str] = {
    "http_429": "HTTP 429 rate_limit_exceeded, message 'Rate limit reached for requests'",
    "http_5xx": "HTTP 502, then 503, alternating, with a JSON error body",
    "insufficient_quota": "HTTP 429 with code/type insufficient_quota (no credit: do not retry)",
    "quota_exceeded_text": "HTTP 400, then 500, alternating; message contains 'quota exceeded'",
    "rate_text": "HTTP 400, message 'Request rate increased too quickly ...' (no 429)",
    "stream_rate_limit": "HTTP 200 SSE stream that starts, then sends data: {\"error\": ...}",
    "stream_disconnect": "HTTP 200 SSE stream that ends cleanly with no finish_reason, no [DONE]",
    "stream_abort": "HTTP 200 SSE stream whose connection is dropped mid-body",
    "hang": "read the request, never answer until the client leaves or hang_seconds pass",
    "reset": "read the request, then reset the TCP connection (SO_LINGER 0)",
    "malformed_json": "HTTP 200, message content that is not JSON",
    "truncated_json": "HTTP 200, content cut in the middle of the 2nd verdict row",
    "empty": "HTTP 200, content ''",
    "unknown_ids": "HTTP 200, verdicts only for ids that are not in the request",
    "echo_key": "HTTP 500 whose error message echoes the request's Authorization header (a leaky proxy)",
}
"""Every fault kind, with what the client sees."""

STATUS_FAULTS = frozenset({"http_429", "http_5xx", "insufficient_quota", "quota_exceeded_text", "rate_text", "echo_key"})
STREAM_FAULTS = frozenset({"stream_rate_limit", "stream_disconnect", "stream_abort"})
CONTENT_FAULTS = frozenset({"malformed_json", "truncated_json", "empty", "unknown_ids"})

MSG_RATE_LIMIT = "Rate limit reached for requests"
MSG_RATE_TEXT = "Request rate increased too quickly, please slow down and retry later"
MSG_STREAM_RATE = "Request rate increased too quickly, the stream was stopped; please retry later"
MSG_INSUFFICIENT_QUOTA = (
    "You exceeded your current quota, please check your plan and billing details."
)
MSG_QUOTA_TEXT = "quota exceeded for this key: the requests-per-minute window is full"
MSG_ECHO_KEY = "upstream refused the call made with Authorization: {authorization}"
MSG_5XX = {502: "Bad gateway: upstream model server unavailable", 503: "The server is overloaded or not ready yet."}


@dataclass(frozen=True)
class Fault:
    """One drawn fault.

    Attributes:
        kind: a key of ``FAULT_KINDS``.
        status: HTTP status of the answer (200 for stream/content faults, None for
            ``hang``/``reset``, which send no status line).
        hang_seconds: how long ``hang`` waits at most, seconds.
    """

    kind: str
    status: int | None
    hang_seconds: float = 3600.0


class FaultPlan:
    """Per-request fault selection: a scripted sequence, then seeded rates.

    Args:
        rates: kind -> probability in [0, 1] per request; the sum must be <= 1. Kinds are
            tried in the mapping's order against one ``random.Random(seed).random()`` draw
            per request, so a seed reproduces the sequence.
        script: kinds or ``"ok"`` consumed one per request before rates apply.
        seed: seed of the rate draws.
        hang_seconds: upper bound of a ``hang`` fault, seconds (> 0).

    Raises:
        ValueError: unknown kind, rate out of range, rates summing above 1, bad hang_seconds.
    """

    def __init__(
        self,
        rates: Mapping[str, float] | None = None,
        script: Iterable[str] | None = None,
        *,
        seed: int = 0,
        hang_seconds: float = 3600.0,
    ) -> None:
        self.rates = dict(rates or {})
        for kind, rate in self.rates.items():
            _check_kind(kind)
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0.0 <= rate <= 1.0:
                raise ValueError(f"fault rate for {kind!r} must be a number in [0, 1], got {rate!r}")
        total = sum(self.rates.values())
        if total > 1.0 + 1e-9:
            raise ValueError(f"fault rates sum to {total:g}; the sum must be at most 1")
        self.script = [str(k) for k in (script or [])]
        for kind in self.script:
            if kind != "ok":
                _check_kind(kind)
        if not hang_seconds > 0:
            raise ValueError(f"hang_seconds must be > 0, got {hang_seconds!r}")
        self.seed = seed
        self.hang_seconds = float(hang_seconds)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._position = 0
        self._served: dict[str, int] = {}

    def next_fault(self) -> Fault | None:
        """Draw the fault of the next request; None means answer normally. Thread-safe."""
        with self._lock:
            kind = self._next_kind()
            if kind is None:
                return None
            count = self._served.get(kind, 0)
            self._served[kind] = count + 1
        return Fault(kind, _status(kind, count), self.hang_seconds)

    def _next_kind(self) -> str | None:
        if self._position < len(self.script):
            kind = self.script[self._position]
            self._position += 1
            return None if kind == "ok" else kind
        if not self.rates:
            return None
        draw = self._rng.random()
        edge = 0.0
        for kind, rate in self.rates.items():
            edge += rate
            if draw < edge:
                return kind
        return None


def _check_kind(kind: str) -> None:
    if kind not in FAULT_KINDS:
        raise ValueError(f"unknown fault kind {kind!r}; known: {', '.join(FAULT_KINDS)}")


def _status(kind: str, count: int) -> int | None:
    if kind in ("http_429", "insufficient_quota"):
        return 429
    if kind == "http_5xx":
        return (502, 503)[count % 2]
    if kind == "quota_exceeded_text":
        return (400, 500)[count % 2]
    if kind == "rate_text":
        return 400
    if kind == "echo_key":
        return 500
    if kind in ("hang", "reset"):
        return None
    return 200


def error_body(fault: Fault, authorization: str | None = None) -> dict[str, Any]:
    """The JSON error document of a status fault or of ``stream_rate_limit``.

    Args:
        fault: the drawn fault.
        authorization: the request's ``Authorization`` header, echoed by ``echo_key``.

    Returns:
        ``{"error": {"message", "type", "param", "code"}}``, shaped like OpenAI's errors.
    """
    kind = fault.kind
    err: tuple[str, str, str | None]  # message, type, code
    if kind == "http_429":
        err = (MSG_RATE_LIMIT, "requests", "rate_limit_exceeded")
    elif kind == "insufficient_quota":
        err = (MSG_INSUFFICIENT_QUOTA, "insufficient_quota", "insufficient_quota")
    elif kind == "http_5xx":
        err = (MSG_5XX.get(fault.status or 502, "server error"), "server_error", None)
    elif kind == "quota_exceeded_text":
        err = (MSG_QUOTA_TEXT, "invalid_request_error" if fault.status == 400 else "server_error", None)
    elif kind == "rate_text":
        err = (MSG_RATE_TEXT, "invalid_request_error", None)
    elif kind == "stream_rate_limit":
        err = (MSG_STREAM_RATE, "rate_limit_error", "rate_limit_exceeded")
    elif kind == "echo_key":
        err = (MSG_ECHO_KEY.format(authorization=authorization or ""), "server_error", None)
    else:
        raise ValueError(f"fault {kind!r} has no error body")
    message, err_type, code = err
    return {"error": {"message": message, "type": err_type, "param": None, "code": code}}


def fault_content(kind: str, verdicts: list[dict[str, Any]]) -> str:
    """The message content of a content fault.

    Args:
        kind: one of ``CONTENT_FAULTS``.
        verdicts: the verdicts the policy would have returned (used by ``truncated_json``
            and, for their count, by ``unknown_ids``).

    Returns:
        ``malformed_json``: text that is not JSON and holds no verdict fragment;
        ``truncated_json``: the real answer cut in the middle of the 2nd verdict (of the
        1st when there is one row); ``empty``: ``""``; ``unknown_ids``: a valid answer
        whose ids (``ZZ_UNKNOWN_<n>``) are none of the requested ones.
    """
    if kind == "malformed_json":
        return "Verdicts follow => (all rows look fine, see above) <end of verdicts"
    if kind == "empty":
        return ""
    if kind == "unknown_ids":
        fake = [
            {"id": f"ZZ_UNKNOWN_{n}", "hit": True, "reason": "simulated fault: id not in the request"}
            for n in range(1, max(1, len(verdicts)) + 1)
        ]
        return json.dumps({"verdicts": fake})
    if kind == "truncated_json":
        text = json.dumps({"verdicts": verdicts})
        if not verdicts:
            return text[: len(text) // 2]
        victim = json.dumps(verdicts[1] if len(verdicts) > 1 else verdicts[0])
        start = text.find(victim)
        return text[: start + max(1, len(victim) // 2)]
    raise ValueError(f"fault {kind!r} has no content")


def parse_fault_rate(spec: str) -> tuple[str, float]:
    """Parse ``KIND=RATE`` (command line). Raises ValueError with a readable message."""
    kind, sep, rate_text = spec.partition("=")
    kind = kind.strip()
    if not sep:
        raise ValueError(f"--fault expects KIND=RATE, got {spec!r}")
    _check_kind(kind)
    try:
        rate = float(rate_text)
    except ValueError:
        raise ValueError(f"--fault {kind}: rate {rate_text!r} is not a number") from None
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"--fault {kind}: rate must be in [0, 1], got {rate_text}")
    return kind, rate


def parse_fault_script(spec: str) -> list[str]:
    """Parse ``KIND,KIND,ok,...`` (command line). Raises ValueError on unknown kinds."""
    kinds = [part.strip() for part in spec.split(",") if part.strip()]
    if not kinds:
        raise ValueError("--fault-script is empty")
    for kind in kinds:
        if kind != "ok":
            _check_kind(kind)
    return kinds
