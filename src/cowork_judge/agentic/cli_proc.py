"""One run of an agent CLI (``codex``, ``claude``) as a child process: new session, stdin
from /dev/null, output captured line by line, and the per-call timeout that kills the whole
process group.

The child is registered with `cowork_judge._util.procs` while it runs, so every exit path of
the judge (normal end, SIGTERM, the watchdog's backstop) kills it; a cancelled attempt
(the scheduler's time limit, the run deadline) kills it in its ``finally``. A caller may
watch each output line and stop the process early (codex's endless "Reconnecting…" loop).

A plain ``subprocess.Popen`` read by threads, not an asyncio subprocess: an asyncio
transport whose pipes were still open when the run's event loop closed (a CLI cut off at
the deadline) printed "Event loop is closed" from its ``__del__``.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from cowork_judge._util import procs

OUTPUT_CAP_BYTES = 8 * 1024 * 1024
"""Bytes of each stream kept (the tail: the final events and the result document are last)."""
LINE_CAP_CHARS = 64_000
"""A line passed to a watcher is cut to this many characters."""
REAP_SEC = 3.0
"""Seconds to wait for a killed process and its pipes to close."""
POLL_SEC = 0.05
"""How often the event loop looks at the child (exit, timeout, a watcher's stop)."""

Watcher = Callable[[str, str], "str | None"]
"""``watch(stream, line)`` → a reason to stop the process now, or None (stream: stdout/stderr)."""


ProcOutcome = procs.ProcResult
"""What one CLI run left: the process runner's one result type (`cowork_judge._util.procs.ProcResult`;
stdout and stderr are the last `OUTPUT_CAP_BYTES` of each stream)."""


class _Capture:
    """A stream read by a thread in chunks: complete lines go to the watcher; the tail is kept."""

    def __init__(self, name: str, watch: Watcher | None, stop: threading.Event, reasons: list[str]) -> None:
        self.name = name
        self.watch = watch
        self.stop = stop
        self.reasons = reasons
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.pending = b""

    def feed(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        while self.size > OUTPUT_CAP_BYTES and len(self.chunks) > 1:
            self.size -= len(self.chunks.popleft())
        if self.watch is None or self.stop.is_set():
            return
        self.pending += data
        *lines, self.pending = self.pending.split(b"\n")
        if len(self.pending) > LINE_CAP_CHARS * 4:  # an endless line: watch its head only
            lines.append(self.pending[: LINE_CAP_CHARS * 4])
            self.pending = b""
        for raw in lines:
            reason = self.watch(self.name, raw.decode("utf-8", "replace")[:LINE_CAP_CHARS])
            if reason:
                self.reasons.append(reason)
                self.stop.set()
                return

    def pump(self, pipe: IO[bytes]) -> None:
        """Read `pipe` to its end (a thread's target); never raises."""
        try:
            while data := os.read(pipe.fileno(), 65536):
                self.feed(data)
        except (OSError, ValueError):
            pass
        finally:
            pipe.close()

    def text(self) -> str:
        data = b"".join(self.chunks)[-OUTPUT_CAP_BYTES:]
        return data.decode("utf-8", "replace")


async def run_cli(argv: Sequence[str], *, env: dict[str, str], cwd: Path, timeout_sec: float,
                  watch: Watcher | None = None) -> ProcOutcome:
    """Run `argv` to completion, or kill its process group after `timeout_sec` seconds.

    The child is a plain ``subprocess.Popen`` read by two daemon threads and polled every
    `POLL_SEC` from the event loop: no asyncio transport outlives the attempt, and the
    judge's loop may be in any thread.

    Args:
        argv: the command line (``argv[0]`` an executable path).
        env: the child's whole environment (build it from `procs.child_environment`:
            never the judge's own environment).
        cwd: working directory of the child.
        timeout_sec: wall-time limit, seconds (> 0).
        watch: called with each complete output line (from a reader thread); a returned
            reason kills the process.

    Never raises for the child's failures (a missing executable comes back as ``error``);
    ``asyncio.CancelledError`` propagates after the process group is killed.
    """
    start = time.monotonic()
    proc = procs.spawn(argv, env=env, cwd=str(cwd))  # a plain Popen on purpose (module docstring)
    if isinstance(proc, str):
        return ProcOutcome(None, "", "", time.monotonic() - start, error=proc)
    stop = threading.Event()
    reasons: list[str] = []
    out, err = _Capture("stdout", watch, stop, reasons), _Capture("stderr", watch, stop, reasons)
    readers = [threading.Thread(target=c.pump, args=(pipe,), name=f"cli-{c.name}", daemon=True)
               for c, pipe in ((out, proc.stdout), (err, proc.stderr))]
    for reader in readers:
        reader.start()
    end = start + max(0.05, timeout_sec)
    timed_out = False
    try:
        while proc.poll() is None and not stop.is_set():
            if time.monotonic() >= end:
                timed_out = True
                break
            await asyncio.sleep(POLL_SEC)
    finally:
        procs.reap(proc, wait_sec=REAP_SEC)  # timed out, stopped or cancelled: never left running
        for reader in readers:
            reader.join(timeout=REAP_SEC)
    killed = timed_out or bool(reasons)
    return ProcOutcome(
        None if killed else proc.returncode, out.text(), err.text(), time.monotonic() - start,
        timed_out=timed_out and not reasons, stopped=reasons[0] if reasons else None,
    )
