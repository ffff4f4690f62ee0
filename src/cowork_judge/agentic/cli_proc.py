"""One run of an agent CLI (``codex``, ``claude``) as a child process: new session, stdin
from /dev/null, output captured line by line, and the per-call timeout that kills the whole
process group.

The child is registered with `cowork_judge.procs` while it runs, so every exit path of
the judge (normal end, SIGTERM, the watchdog's backstop) kills it; a cancelled attempt
(the scheduler's time limit, the run deadline) kills it in its ``finally``. A caller may
watch each output line and stop the process early (codex's endless "Reconnecting…" loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cowork_judge import procs

OUTPUT_CAP_BYTES = 8 * 1024 * 1024
"""Bytes of each stream kept (the tail: the final events and the result document are last)."""
LINE_CAP_CHARS = 64_000
"""A line passed to a watcher is cut to this many characters."""
REAP_SEC = 3.0
"""Seconds to wait for a killed process and its pipes to close."""

Watcher = Callable[[str, str], "str | None"]
"""``watch(stream, line)`` → a reason to stop the process now, or None (stream: stdout/stderr)."""


@dataclass
class ProcOutcome:
    """What one CLI run left.

    Attributes:
        returncode: the exit status; None when the process was killed or never started.
        stdout: captured standard output (the last `OUTPUT_CAP_BYTES`, decoded leniently).
        stderr: captured standard error (same cap).
        seconds: wall time from launch to the end of reaping.
        timed_out: the per-call timeout killed it.
        stopped: why a watcher stopped it (it was killed), else None.
        error: why it could not be started (``FileNotFoundError: …``), else None.
    """

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    stopped: str | None = None
    error: str | None = None

    @property
    def killed(self) -> bool:
        """True when the judge killed the process (timeout or watcher)."""
        return self.timed_out or self.stopped is not None


class _Capture:
    """A stream read in chunks: complete lines go to the watcher; the tail is kept."""

    def __init__(self, name: str, watch: Watcher | None, stop: asyncio.Event, reasons: list[str]) -> None:
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

    def text(self) -> str:
        data = b"".join(self.chunks)[-OUTPUT_CAP_BYTES:]
        return data.decode("utf-8", "replace")


async def _pump(reader: asyncio.StreamReader | None, capture: _Capture) -> None:
    if reader is None:
        return
    while True:
        data = await reader.read(65536)
        if not data:
            return
        capture.feed(data)


async def run_cli(argv: Sequence[str], *, env: dict[str, str], cwd: Path, timeout_sec: float,
                  watch: Watcher | None = None) -> ProcOutcome:
    """Run `argv` to completion, or kill its process group after `timeout_sec` seconds.

    Args:
        argv: the command line (``argv[0]`` an executable path).
        env: the child's whole environment (build it from `procs.child_environment`:
            never the judge's own environment).
        cwd: working directory of the child.
        timeout_sec: wall-time limit, seconds (> 0).
        watch: called with each complete output line; a returned reason kills the process.

    Never raises for the child's failures (a missing executable comes back as ``error``);
    ``asyncio.CancelledError`` propagates after the process group is killed.
    """
    start = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=env, cwd=str(cwd), start_new_session=True)
    except OSError as exc:
        return ProcOutcome(None, "", "", time.monotonic() - start, error=f"{type(exc).__name__}: {exc}")
    procs.register(proc.pid)
    stop = asyncio.Event()
    reasons: list[str] = []
    out, err = _Capture("stdout", watch, stop, reasons), _Capture("stderr", watch, stop, reasons)
    pumps = [asyncio.ensure_future(_pump(proc.stdout, out)), asyncio.ensure_future(_pump(proc.stderr, err))]
    exited = asyncio.ensure_future(proc.wait())
    stopping = asyncio.ensure_future(stop.wait())
    timed_out = False
    try:
        done, _ = await asyncio.wait({exited, stopping}, timeout=max(0.05, timeout_sec),
                                     return_when=asyncio.FIRST_COMPLETED)
        if exited not in done:
            timed_out = not reasons
            procs.kill_tree(proc.pid)
        await asyncio.wait({exited, *pumps}, timeout=REAP_SEC)
    finally:
        if proc.returncode is None:  # cancelled, or not reaped yet: never leave it running
            procs.kill_tree(proc.pid)
            with contextlib.suppress(asyncio.CancelledError):  # reap it; a cancel still propagates
                await asyncio.wait({exited, *pumps}, timeout=REAP_SEC)
        procs.kill_group(proc.pid)  # helpers left in the group after a normal exit
        procs.unregister(proc.pid)
        for task in (*pumps, exited, stopping):
            if not task.done():
                task.cancel()
    killed = timed_out or bool(reasons)
    return ProcOutcome(
        None if killed else proc.returncode, out.text(), err.text(), time.monotonic() - start,
        timed_out=timed_out, stopped=reasons[0] if reasons else None,
    )
