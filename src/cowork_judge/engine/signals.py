"""Early signal capture for ``cowork-judge run``.

A supervisor may send SIGTERM (or a user Ctrl-C) before the run has armed its watchdog —
while Python imports the judge, checks the verifier folder, starts logging. `capture`
(called first thing by the command line) records such a signal instead of dying on it;
`judge.main_run` then routes it to the watchdog as soon as one is armed, so the documents
are still written and the process still exits ``128 + signum``.
"""

from __future__ import annotations

import signal

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
"""Signals that end a command-line run with its documents written (a supervisor's time
limit, Ctrl-C); the process then exits with ``128 + signum`` (143, 130)."""

_pending: list[int] = []


def _record(signum: int, _frame: object) -> None:
    _pending.append(signum)


def record(signum: int) -> None:
    """Record `signum` as `capture` would (a batch worker's handler, `batch.worker`): the next
    run that arms its watchdog takes it over and writes the documents of a cut run."""
    _pending.append(signum)


def capture() -> None:
    """Record `STOP_SIGNALS` from now on (main thread only) until a run takes them over."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, _record)


def pending() -> int | None:
    """The first signal recorded by `capture`, if any (consumed)."""
    return _pending.pop(0) if _pending else None
