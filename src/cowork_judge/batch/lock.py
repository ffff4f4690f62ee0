"""One batch per output folder: an advisory lock on ``<out>/.batch.lock`` (SPEC §19).

The lock is a ``flock(2)`` on the file, held by the batch and — the descriptor is passed to
every worker it starts — by its running judges too, so it is released exactly when the last
process that may still write into the folder is gone: a batch killed with SIGKILL keeps the
folder locked until the workers it started (which the kernel sends SIGTERM, see
`batch.pool`) have written their documents and exited. The file's text names the
holder (pid, host, start time, command) for the refusal message; a file left by a dead
holder is not a lock (nobody holds the ``flock``) and is taken over, saying so. A batch that
ends normally marks its record ``"released": true`` (kept, so that judges still holding the
lock can be named), so the next batch takes it silently: only a holder that did not release
(a crash, SIGKILL) is reported as stale. When the
recorded batch is dead but its judges still hold the lock, a new batch waits for them (at
most `ORPHAN_WAIT_SEC`) instead of refusing.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import Any

from cowork_judge._util.fsutil import lock_holder_record, pid_alive, read_lock_holder, write_lock_holder

LOCK_NAME = ".batch.lock"
ORPHAN_WAIT_SEC = 90.0
"""Seconds a new batch waits for the judges of a dead batch (they hold the lock while they write
their documents after the kernel's SIGTERM; a judge's backstop ends it within ~10-20 s)."""


def is_held(out: Path) -> bool:
    """True when a batch (or a judge it started) holds the lock of the folder `out` now: its
    documents may still be missing or change (``summarize`` says so). Never raises."""
    try:
        fd = os.open(out / LOCK_NAME, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)  # closing releases a shared lock this call took


class BatchLocked(RuntimeError):
    """Another batch (or a judge it started) is writing into the folder; the message names it."""


class BatchLock:
    """The lock of one output folder (use as a context manager, or `acquire` / `release`).

    Attributes:
        fd: the locked descriptor (pass it to children that must hold the lock too).
        took_over: the holder recorded in a stale lock file that was taken over (None: none).
    """

    def __init__(self, out: Path, *, orphan_wait_sec: float | None = None) -> None:
        self.orphan_wait_sec = ORPHAN_WAIT_SEC if orphan_wait_sec is None else orphan_wait_sec
        self.path = out / LOCK_NAME
        self.fd: int | None = None
        self.took_over: dict[str, Any] | None = None

    def acquire(self) -> BatchLock:
        """Take the lock or refuse.

        Raises:
            BatchLocked: the folder is locked (the message names the holder).
            OSError: the lock file cannot be created, or it is a symbolic link (never followed:
                its target would be truncated).
        """
        if os.path.islink(self.path):  # O_NOFOLLOW below says only "too many levels of symbolic links"
            raise OSError(f"{self.path} is a symbolic link: refusing to open the lock through it (remove the link)")
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = read_lock_holder(fd)
            if not pid_alive(holder.get("pid")) and self._wait_for_orphans(fd):
                return self._take(fd)
            os.close(fd)
            who = (f"pid {holder.get('pid')} on {holder.get('host')}, started {holder.get('started')}: "
                   f"{holder.get('command')}") if holder else "a process that has not written its name yet"
            raise BatchLocked(f"{self.path.parent} is in use by another batch ({who}); wait for it to end or use "
                              "another --out") from None
        return self._take(fd)

    def _wait_for_orphans(self, fd: int) -> bool:
        """The batch that holds the lock is dead; judges it started still hold it while they
        write their documents (they were sent SIGTERM): wait up to `ORPHAN_WAIT_SEC` for them."""
        end = time.monotonic() + self.orphan_wait_sec
        while time.monotonic() < end:
            time.sleep(0.1)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                continue
        return False

    def _take(self, fd: int) -> BatchLock:
        previous = read_lock_holder(fd)
        self.took_over = previous if previous and not previous.get("released") else None
        write_lock_holder(fd, lock_holder_record())
        self.fd = fd
        return self

    def release(self) -> None:
        """Drop the lock (idempotent), marking the holder record released. Judges still running keep
        it until they exit."""
        if self.fd is not None:
            try:
                write_lock_holder(self.fd, {**read_lock_holder(self.fd), "released": True})
            except OSError:  # the record is only for messages: an unwritable one reads as stale, no worse
                pass
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> BatchLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

