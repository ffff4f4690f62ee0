"""The retry policy: how a block or a model call is retried after a failure (the failure
table's ``retry`` and ``backoff`` columns, JUDGE_MAX_TRIES, JUDGE_RETRY_BACKOFF_MAX), and
the reading of the server's ``Retry-After``. SPEC §11.

The wait after a rate-limit refusal that gave an ask ``a`` (`RetryPolicy.wait_sec`): at
least ``a``; jittered upward with a spread that doubles per refusal when the refusal may be
one of a herd (the key's limit: every client the bucket refused got the same ask); at most
5 % above ``a`` for a RANDOM refusal, whose own rate-limit headers showed capacity left
(no herd to spread; sources in `RetryPolicy.wait_sec`).

Pure: no I/O, no clock (the wait is computed, never slept), no configuration; randomness
comes from the caller's `random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from pydantic import Field, SkipValidation
from pydantic.dataclasses import dataclass

from cowork_judge.core.consequences import CONSEQUENCES, Consequence
from cowork_judge.core.knobs import WHEN, Effect, integer, knob, number

RETRY_PAUSE_SEC = 1.0
"""Seconds before retrying after a failure that does not back off (SPEC §11)."""
RETRY_AFTER_JITTER = 0.5
"""A wait the server asked for is lengthened by up to this fraction of it (never shortened),
doubling with each refusal of the same block or call: the herd's spread (`RetryPolicy.wait_sec`)."""
RANDOM_REFUSAL_JITTER = 0.05
"""A RANDOM refusal's wait (its own rate-limit headers showed capacity left) is lengthened
by at most this fraction of the ask, never doubled: it has no herd to spread
(`RetryPolicy.wait_sec`)."""
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

    The home of those two knobs' defaults: the run's configuration nests it
    (`config.judge_config.JudgeConfig.retry`). A pydantic dataclass: validated like the config
    (a bad value raises ``pydantic.ValidationError``), ``dataclasses.replace`` works.

    Attributes:
        max_tries: attempts per block or call (≥ 1).
        backoff_max_sec: cap of one backoff wait, seconds (≥ 1).
        table: the failure table (`CONSEQUENCES`, or a modified copy in tests); not
            validated, not dumped (it is code, not configuration).
    """

    max_tries: int = knob(6, ge=1, env="JUDGE_MAX_TRIES", parse=integer(1), effect=Effect.none(WHEN),
                          cap=(20, "with backoff this is already minutes of retrying one block"),
                          doc="JUDGE_MAX_TRIES: attempts per block.")
    backoff_max_sec: float = knob(
        20.0, ge=1, env="JUDGE_RETRY_BACKOFF_MAX", parse=number(1), effect=Effect.none(WHEN),
        cap=(300.0, "one rate-limit wait longer than 5 minutes outlives most judge runs"), doc=(
        "JUDGE_RETRY_BACKOFF_MAX: rate-limit backoff cap in seconds: the server's `Retry-After`/`retry-after-ms` "
        "jittered upward (never below it, at most the cap unless the server asked for more), else `uniform(1, min(cap, "
        "2·3^(n−1)))` s; also the slowest pace of the run's request limiter (one request per cap)."))
    table: SkipValidation[Mapping[str, Consequence]] = Field(default_factory=lambda: CONSEQUENCES, exclude=True,
                                                              repr=False)

    def retries(self, kind: str) -> bool:
        """True when another attempt after a failure of `kind` may succeed."""
        return self.table[kind].retry

    def backs_off(self, kind: str) -> bool:
        """True when a failure of `kind` backs off before the next attempt."""
        return self.table[kind].backoff

    def wait_sec(self, kind: str, backoffs: int, rng: random.Random, asked_sec: float | None = None, *,
                 herd: bool = True) -> float:
        """Seconds to wait before the next attempt after a failure of `kind`.

        Args:
            kind: the failure's `ErrorKind`.
            backoffs: n, failures of backing-off kinds so far in this block or call (≥ 1).
            rng: the run's random source (seeded in tests).
            asked_sec: the server's wait (``retry-after-ms`` / ``Retry-After``, see
                `retry_after_sec`), or None when it said nothing.
            herd: False for a RANDOM refusal — a refusal at admission whose own rate-limit
                headers showed capacity left on every budget (`transport.quota`, judged by the
                run's limiter when it settled the ticket): a flaky gateway, not the key's limit.

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

            A random refusal (``herd=False``) with an ask ``a`` waits ``a + uniform(0,
            RANDOM_REFUSAL_JITTER · a)``: exactly what the server asked plus at most 5 %,
            whatever n. The upward spread above exists to decorrelate a herd — the clients an
            empty bucket refused together and gave the same ask ("Exponential Backoff And
            Jitter", M. Brooker, AWS Architecture Blog, 2015: jitter spreads contending
            clients); a random refusal refused one request of a key with capacity left, so
            there is no herd to spread, and the spread would only lengthen the wait past the
            server's own ``Retry-After`` ("how long the user agent ought to wait before making
            a follow-up request", RFC 9110 §10.2.3). Without an ask a random refusal backs off
            as above (nothing says how long the gateway needs).
        """
        if not self.backs_off(kind):
            return RETRY_PAUSE_SEC
        if asked_sec is not None and asked_sec > 0:
            if not herd:
                return asked_sec + rng.uniform(0.0, RANDOM_REFUSAL_JITTER * asked_sec)
            spread = RETRY_AFTER_JITTER * asked_sec * 2.0 ** min(max(backoffs, 1) - 1, 16)
            return min(max(asked_sec, self.backoff_max_sec), asked_sec + rng.uniform(0.0, spread))
        upper = min(self.backoff_max_sec, 2.0 * 3.0 ** (max(backoffs, 1) - 1))
        return rng.uniform(1.0, max(1.0, upper))

    def kinds_where(self, column: str) -> frozenset[str]:
        """The kinds whose boolean `column` (``resplit``, ``stops_run``…) is true."""
        return frozenset(k for k, c in self.table.items() if getattr(c, column))
