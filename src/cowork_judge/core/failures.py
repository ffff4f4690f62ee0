"""The failure taxonomy: every way a row can end up unjudged, what each way implies, and
how an exception becomes a kind.

One vocabulary (`ErrorKind`), one read-only table from kind to consequence
(`CONSEQUENCES`: retried? backed off? re-judged row by row? stops the run? which
`exit_code` when systemic?), one classifier from exception to kind (`classify`), the
retry policy that reads the table (`RetryPolicy`), and the table of process exit
statuses (`EXIT_STATUS`). SPEC §7.5, §11, §12; house style item 7.

Pure: no I/O, no clock, no configuration. `classify` recognises the `openai` client's
exceptions (and asyncio's) without importing them: an exception of a library can only
exist once the library was imported, so the library is looked up in ``sys.modules`` (a
code-only run never loads the model client).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, get_args

ErrorKind = Literal[
    # transport / model (agentic backends, workflow model calls)
    "rate_limit",  # HTTP 429, "rate limit", "quota exceeded", errors inside a 200 stream
    "insufficient_quota",  # the account has no credit: gives up at once
    "timeout",  # a call or block ran past its time limit
    "api_error",  # other transient transport failures (5xx, connection reset, broken stream)
    "request_rejected",  # a permanent 4xx (bad request, auth, not found): retrying cannot help
    "parse_error",  # the reply held no usable verdict for the row
    "deadline",  # the run's JUDGE_DEADLINE was reached before the row was judged
    "interrupted",  # the process was stopped by a signal (SIGTERM, SIGINT) before the row was judged
    "over_limit",  # no longer produced (0.2.0): read limits are judged against the deliverable; kept for 0.1.0 documents
    "no_credential",  # a model was needed and no credentials were configured
    "delivery_unreadable",  # the agent's final message exists but could not be read: nothing was scored
    "backend_missing",  # the configured agentic backend cannot run here
    "backend_error",  # the agentic backend crashed outside a model call (e.g. workspace I/O)
    # router / segments (SPEC §7.5)
    "code_error",  # a code method raised
    "code_timeout",  # a code method ran past JUDGE_CODE_TIMEOUT
    "code_missing",  # code_method_name is not registered in CODE_METHODS
    "workflow_missing",  # workflow not found, failed to import, ABI mismatch, no router
    "workflow_error",  # a workflow raised, overran its budget, or returned no verdict for the row
    "vlm_error",  # a workflow's vision-model call failed
    "render_env",  # the image lacks a renderer (LibreOffice/Chromium): not the deck's fault
    "asset_broken",  # a per-instance workflow asset is missing or unreadable
    "dep_unjudged",  # a dependency was not judged, so this row was not judged either
    "not_applicable",  # a workflow judged every page N/A and the row's na_policy is "unjudged"
    "no_verdict",  # a segment returned without any verdict for the row (an engine bug, never a transport failure)
]
"""Closed vocabulary of `error_kind` values on unjudged verdict rows."""

ERROR_KINDS: tuple[str, ...] = get_args(ErrorKind)

ExitCode = Literal[
    "judge:no_credential",
    "judge:scorer_error",
    "judge:api_error",
    "judge:timeout",
]
"""The only `exit_code` values a result document may carry (SPEC §12: invent no others)."""

EXIT_CODES: tuple[str, ...] = get_args(ExitCode)


@dataclass(frozen=True)
class Consequence:
    """What a failure of one kind implies.

    Attributes:
        retry: another attempt of the same block (or model call) may succeed.
        backoff: wait ``uniform(1, min(backoff_max, 2·3^(n−1)))`` seconds before the
            next attempt, n = failures of backing-off kinds so far (rate limiting, SPEC
            §11); otherwise a retry waits `RETRY_PAUSE_SEC`.
        systemic_exit_code: the `exit_code` written when this kind dominates a systemic
            failure; None when the kind never sets one by itself.
        resplit: a block that failed with this kind after its tries is worth re-judging
            row by row (``JUDGE_RESPLIT``): the block may be too big or too slow.
        stops_run: no further model call of the run can succeed (the account has no
            credit): every block gives up without calling.
    """

    retry: bool
    backoff: bool
    systemic_exit_code: ExitCode | None
    resplit: bool = False
    stops_run: bool = False


def _table(entries: dict[str, Consequence]) -> Mapping[str, Consequence]:
    missing = set(ERROR_KINDS) - set(entries)
    if missing:  # pragma: no cover - a developer error, caught by the import of this module
        raise AssertionError(f"failure table lacks {sorted(missing)}")
    return MappingProxyType(entries)


_NO_RETRY_SCORER = Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error")

CONSEQUENCES: Mapping[str, Consequence] = _table({
    "rate_limit": Consequence(retry=True, backoff=True, systemic_exit_code="judge:api_error", resplit=True),
    "insufficient_quota": Consequence(retry=False, backoff=False, systemic_exit_code="judge:api_error", stops_run=True),
    "timeout": Consequence(retry=True, backoff=False, systemic_exit_code="judge:timeout", resplit=True),
    "api_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", resplit=True),
    "request_rejected": Consequence(retry=False, backoff=False, systemic_exit_code="judge:api_error"),
    "parse_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", resplit=True),
    "deadline": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    # a supervisor's SIGTERM is almost always its own time limit
    "interrupted": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "over_limit": _NO_RETRY_SCORER,
    "delivery_unreadable": _NO_RETRY_SCORER,
    "no_credential": Consequence(retry=False, backoff=False, systemic_exit_code="judge:no_credential"),
    "backend_missing": _NO_RETRY_SCORER,
    "backend_error": _NO_RETRY_SCORER,
    "code_error": _NO_RETRY_SCORER,
    "code_timeout": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "code_missing": _NO_RETRY_SCORER,
    "workflow_missing": _NO_RETRY_SCORER,
    "workflow_error": _NO_RETRY_SCORER,
    "vlm_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error"),
    "render_env": _NO_RETRY_SCORER,
    "asset_broken": _NO_RETRY_SCORER,
    "dep_unjudged": Consequence(retry=False, backoff=False, systemic_exit_code=None),
    "not_applicable": Consequence(retry=False, backoff=False, systemic_exit_code=None),
    "no_verdict": _NO_RETRY_SCORER,
})
"""Kind → consequence, read-only. Every `ErrorKind` has exactly one entry. The retry
loops (`RetryPolicy`) and the systemic exit-code choice (`core.coverage.account`) read
these columns; pass a modified copy to either to change behaviour."""


def consequence(kind: str, table: Mapping[str, Consequence] = CONSEQUENCES) -> Consequence:
    """Return the consequence of an error kind.

    Raises:
        KeyError: for a string that is not an `ErrorKind`.
    """
    return table[kind]


# --------------------------------------------------------------------------- process exit statuses

EXIT_STATUS: Mapping[str, int] = MappingProxyType({
    "clean": 0,  # the result is a success (or skipped): reward written, no exit_code
    "not_clean": 1,  # reward written, but the result carries an exit_code (or only the fallback could be written)
    "usage": 2,  # bad command line or nothing to run; no judging happened
    "SIGINT": 130,  # stopped by Ctrl-C: documents written first (128 + 2)
    "SIGTERM": 143,  # stopped by a supervisor: documents written first (128 + 15)
})
"""Process exit statuses of the command line, in one table (a `test.sh` need not read
them: the reward file is written on every path)."""


def exit_status(doc_status: str | None) -> int:
    """The process exit status for a run whose result document has `doc_status`
    (``success``/``skipped`` ⇒ clean; ``error`` or no document ⇒ not clean)."""
    return EXIT_STATUS["clean"] if doc_status in ("success", "skipped") else EXIT_STATUS["not_clean"]


def signal_exit_status(signum: int) -> int:
    """``128 + signum``: the shell convention for a process ended by a signal (130, 143)."""
    return 128 + int(signum)


# --------------------------------------------------------------------------- classification

class JudgeFailure(Exception):
    """An exception that knows its `ErrorKind`.

    Code methods, workflows and transports raise subclasses (`kind` as a class attribute
    or per instance), so that `classify` needs no list of every module's exceptions.
    """

    kind: ErrorKind = "api_error"

    def __init__(self, message: str = "", *, kind: ErrorKind | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind


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
    transient ``api_error``. Outside the transport an unexplained exception is the
    segment's own error (``code_error``, ``workflow_error``, ``backend_error``).

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
        return _SEGMENT_DEFAULT[segment]
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


# --------------------------------------------------------------------------- retry policy

RETRY_PAUSE_SEC = 1.0
"""Seconds before retrying after a failure that does not back off (SPEC §11)."""
RETRY_AFTER_JITTER = 0.5
"""A wait the server asked for is lengthened by up to this fraction of it (never shortened)."""
RETRY_AFTER_MAX_SEC = 3600.0
"""A ``Retry-After`` above this is read as this (a wait past any deadline either way)."""


def retry_after_sec(exc: BaseException) -> float | None:
    """The wait a rate-limit reply asked for, seconds, or None when it said nothing.

    Reads the HTTP headers of the reply the exception carries (``exc.response.headers``,
    as the ``openai`` client's status errors do): ``retry-after-ms`` (milliseconds, what
    OpenAI sends) first, else ``Retry-After`` as seconds (an HTTP date is not read). An
    error inside a 200 stream has no such header. Values are clamped to
    [0, `RETRY_AFTER_MAX_SEC`]; unreadable ones are None.
    """
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None or not hasattr(headers, "get"):
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(str(raw).strip()) * scale
        except ValueError:
            continue
        if value == value and value >= 0:  # not NaN
            return min(value, RETRY_AFTER_MAX_SEC)
    return None


@dataclass(frozen=True)
class RetryPolicy:
    """How a block or a model call is retried: the failure table's ``retry`` and
    ``backoff`` columns, ``JUDGE_MAX_TRIES`` and ``JUDGE_RETRY_BACKOFF_MAX``.

    Attributes:
        max_tries: attempts per block or call (≥ 1).
        backoff_max_sec: cap of one backoff wait, seconds (≥ 1).
        table: the failure table (`CONSEQUENCES`, or a modified copy in tests).
    """

    max_tries: int = 6
    backoff_max_sec: float = 20.0
    table: Mapping[str, Consequence] = field(default_factory=lambda: CONSEQUENCES)

    def retries(self, kind: str) -> bool:
        """True when another attempt after a failure of `kind` may succeed."""
        return self.table[kind].retry

    def backs_off(self, kind: str) -> bool:
        """True when a failure of `kind` backs off before the next attempt."""
        return self.table[kind].backoff

    def wait_sec(self, kind: str, backoffs: int, rng: random.Random, asked_sec: float | None = None) -> float:
        """Seconds to wait before the next attempt after a failure of `kind`.

        Args:
            kind: the failure's `ErrorKind`.
            backoffs: n, failures of backing-off kinds so far in this block or call (≥ 1).
            rng: the run's random source (seeded in tests).
            asked_sec: the server's wait (``retry-after-ms`` / ``Retry-After``, see
                `retry_after_sec`), or None when it said nothing.

        Returns:
            Backing-off kinds when the server asked for ``a`` seconds: ``a + uniform(0,
            RETRY_AFTER_JITTER · a · 2^(n−1))``, at most ``max(a, backoff_max)`` — never
            below what the server asked, jittered upward so that the requests it refused
            do not come back in step (the spread doubles with each refusal of the same
            block or call: a server that computes its ask from an empty bucket gives every
            refused client the same ask, and a fleet that keeps coming back together keeps
            being refused together — "decorrelated" backoff), bounded by
            JUDGE_RETRY_BACKOFF_MAX unless the server asked for more. Without an ask: ``uniform(1, min(backoff_max, 2·3^(n−1)))`` — upper
            bounds 2, 6, 18, then `backoff_max_sec` (SPEC §11). Others: `RETRY_PAUSE_SEC`.
        """
        if not self.backs_off(kind):
            return RETRY_PAUSE_SEC
        if asked_sec is not None and asked_sec > 0:
            spread = RETRY_AFTER_JITTER * asked_sec * 2.0 ** min(max(backoffs, 1) - 1, 16)
            return min(max(asked_sec, self.backoff_max_sec), asked_sec + rng.uniform(0.0, spread))
        upper = min(self.backoff_max_sec, 2.0 * 3.0 ** (max(backoffs, 1) - 1))
        return rng.uniform(1.0, max(1.0, upper))

    def kinds_where(self, column: str) -> frozenset[str]:
        """The kinds whose boolean `column` (``resplit``, ``stops_run``…) is true."""
        return frozenset(k for k, c in self.table.items() if getattr(c, column))
