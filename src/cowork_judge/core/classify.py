"""The one exception classifier of the judge: how an exception becomes an `ErrorKind`
(SPEC §11), and the words a reason or a log shows of it.

Pure: no I/O, no clock, no configuration. `classify` recognises the `openai` client's
exceptions (and asyncio's) without importing them: an exception of a library can only
exist once the library was imported, so the library is looked up in ``sys.modules`` (a
code-only run never loads the model client).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from cowork_judge.core.error_kinds import ErrorKind, JudgeFailure
from cowork_judge.core.judge_extras import missing_extras_module


Segment = Literal["transport", "code", "workflow", "backend"]
"""Where an exception was raised; decides the kind of an exception nothing else explains."""

_SEGMENT_DEFAULT: Mapping[str, ErrorKind] = MappingProxyType(
    {"transport": "api_error", "code": "code_error", "workflow": "workflow_error", "backend": "backend_error"})
_SEGMENT_TIMEOUT: Mapping[str, ErrorKind] = MappingProxyType(
    {"transport": "timeout", "code": "code_timeout", "workflow": "timeout", "backend": "timeout"})

RATE_LIMIT_PHRASES = (
    "rate limit",
    "rate_limit",
    "ratelimit",
    "too many requests",
    "request rate increased too quickly",
    "quota exceeded",
    "exceeded your rate",
    "throttl",
    "stream disconnected before completion",
)
"""Lower-case phrases that mean "rate limited" even without an HTTP 429 (SPEC §11)."""
INSUFFICIENT_QUOTA_PHRASES = (
    "insufficient_quota",
    "insufficient quota",
    "insufficient balance",
    "insufficient_balance",
    "exceeded your current quota",
    "billing_hard_limit",
    "billing hard limit",
)
"""Lower-case phrases that mean "the account has no credit": give up at once. (OpenAI's
``insufficient_quota`` says "You exceeded your current quota"; a per-minute window that
is full says "quota exceeded" and is rate limiting.)"""
ERROR_TEXT_CHARS = 2000
"""Characters of an error's text that classification reads (an echoed prompt further on
must not decide the kind)."""


def classify(exc: BaseException, *, segment: Segment = "transport", deadline_passed: bool = False) -> ErrorKind:
    """Map an exception to an `ErrorKind` — the one classifier of the judge.

    In order: a `JudgeFailure` names its own kind; a timeout (``TimeoutError``,
    ``asyncio.TimeoutError``, the client's ``APITimeoutError``) is ``deadline`` when the
    run's deadline has passed, else the segment's timeout kind (``code_timeout`` for code
    methods, ``timeout`` elsewhere); in the transport segment, the rules of SPEC §11:
    ``insufficient_quota`` (by code, type or message) wins over everything, also over
    HTTP 429; rate limiting is HTTP 429, an error raised INSIDE a 200 SSE stream (a base
    ``openai.APIError`` without a status code), or any status or error whose message, code
    or type says so (``Request rate increased too quickly``, ``quota exceeded``…); other
    4xx except 408/409 are ``request_rejected`` (permanent); everything else is a
    transient ``api_error``. Outside the transport an ``ImportError`` of a judge extra
    (`core.judge_extras.missing_extras_module`: lxml, python-pptx, PyMuPDF…) is
    ``extras_missing`` (the verifier's install, trial 23 P-1); any other unexplained exception
    is the segment's own error (``code_error``, ``workflow_error``, ``backend_error``).

    Args:
        exc: the exception.
        segment: where it was raised.
        deadline_passed: the run's JUDGE_DEADLINE has passed (a timeout then says ``deadline``).
    """
    if isinstance(exc, JudgeFailure):
        kind: ErrorKind = exc.kind
        if kind in ("timeout", "code_timeout") and deadline_passed:
            return "deadline"
        return kind
    if segment == "transport":
        text = error_text(exc).lower()
        if any(p in text for p in INSUFFICIENT_QUOTA_PHRASES):
            return "insufficient_quota"
    if _is_timeout(exc):
        return "deadline" if deadline_passed else _SEGMENT_TIMEOUT[segment]
    if segment != "transport":
        return "extras_missing" if missing_extras_module(exc) else _SEGMENT_DEFAULT[segment]
    status = getattr(exc, "status_code", None)
    if status == 429 or _openai_is(exc, "RateLimitError") or _in_stream_error(exc):
        return "rate_limit"
    if any(p in text for p in RATE_LIMIT_PHRASES):
        return "rate_limit"
    if isinstance(status, int) and 400 <= status < 500 and status not in (408, 409):
        return "request_rejected"
    return "api_error"


def _is_timeout(exc: BaseException) -> bool:
    if isinstance(exc, TimeoutError) or _openai_is(exc, "APITimeoutError"):
        return True
    asyncio = sys.modules.get("asyncio")  # its TimeoutError is a separate class on Python 3.10
    return asyncio is not None and isinstance(exc, asyncio.TimeoutError)


def _openai_is(exc: BaseException, *names: str) -> bool:
    """``isinstance(exc, openai.<name>)`` for any of `names`, without importing openai."""
    openai = sys.modules.get("openai")
    if openai is None:
        return False
    return any(isinstance(exc, cls) for cls in (getattr(openai, n, None) for n in names) if isinstance(cls, type))


def _in_stream_error(exc: BaseException) -> bool:
    """An error event inside a 200 SSE stream: the SDK raises a base ``APIError`` (no
    status code, not a connection or validation error)."""
    return _openai_is(exc, "APIError") and not _openai_is(
        exc, "APIStatusError", "APIConnectionError", "APIResponseValidationError")


def error_text(exc: BaseException) -> str:
    """The words that classify an error: its type name, and the message, code and type of
    its error body (an ``openai.APIError``), else its string, cut at `ERROR_TEXT_CHARS`."""
    parts = [type(exc).__name__]
    body = getattr(exc, "body", None) if _openai_is(exc, "APIError") else None
    if isinstance(body, dict):
        for key in ("message", "code", "type"):
            value = body.get(key)
            if value is not None:
                parts.append(value if isinstance(value, str) else json.dumps(value, default=str))
        if body.get("message") is None:
            parts.append(getattr(exc, "message", "") or "")
    elif isinstance(body, str):
        parts.append(body)
    else:
        parts.append(str(exc))
    for attr in ("code", "type"):
        value = getattr(exc, attr, None)
        if isinstance(value, str):
            parts.append(value)
    return " ".join(parts)[:ERROR_TEXT_CHARS]


def summary(exc: BaseException, limit: int = 300) -> str:
    """``Type: first line of the message`` (cut at `limit` characters), for reasons and logs."""
    text = str(exc).strip()
    first = text.splitlines()[0][:limit] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
