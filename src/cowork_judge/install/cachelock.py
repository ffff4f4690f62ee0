"""Advisory locks on the shared cache of ``cowork-judge try`` (``~/.cache/cowork-judge``).

Two dry runs at once share the cache: the dependency wheels (``wheels/<key>/``), the judge
wheels downloaded from an index (``judge-wheels/<url>/``) and the judge's venvs
(``judge-homes/<key>/``, mounted at ``/opt/cowork-judge`` where ``tests/test.sh`` installs the
judge). Without a lock two cold runs both download into the same folders and both let
``test.sh`` rebuild the same venv, and both fail with a pip error that names neither run.

`CacheLock` is a ``flock(2)`` on a file beside the folder it guards (``<folder>.lock``, so
removing the folder never removes a held lock). It is taken **exclusive** to fill the folder
(download, install) and **shared** to use a folder that is complete (a warm venv): many runs
use one venv at once, one run fills it while the others wait. The mode is chosen again on
every attempt (`CacheLock.acquire` takes a callable), so a run that waited for another run's
install finds the venv ready and shares it instead of rebuilding it. An exclusive holder
writes its pid, start time and command line into the file; a run that has to wait names it
(`CacheLock.holder`), never pip. A holder that dies (even by SIGKILL) releases the lock with
its descriptor.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cowork_judge._util.fsutil import lock_holder_record, pid_alive, read_lock_holder, write_lock_holder

SHARED = fcntl.LOCK_SH
EXCLUSIVE = fcntl.LOCK_EX
POLL_SEC = 0.25
"""Seconds between two attempts while another run holds the lock."""


def lock_path(folder: Path) -> Path:
    """The lock file of a cache folder: ``<folder>.lock`` beside it."""
    return folder.with_name(folder.name + ".lock")


class CacheLock:
    """The lock of one cache folder (`lock_path`); use `acquire` then `release`, or ``with lock.acquire(mode):``
    (``with lock:`` alone takes it exclusive).

    Args:
        folder: the folder the lock guards (it need not exist).
        what: what the folder is, for the waiting message (e.g. "the judge's venv in <path>").
        on_wait: called once with a message naming the holder when another run holds the lock,
            and once when it is taken after a wait (None: wait silently).

    Attributes:
        mode: `SHARED` or `EXCLUSIVE` while held, None otherwise.
        waited_sec: seconds spent waiting for another run (0 when the lock was free).
    """

    def __init__(self, folder: Path, *, what: str, on_wait: Callable[[str], None] | None = None) -> None:
        self.path = lock_path(folder)
        self.what = what
        self.on_wait = on_wait
        self.fd: int | None = None
        self.mode: int | None = None
        self.waited_sec = 0.0

    def acquire(self, mode: int | Callable[[], int] = EXCLUSIVE, *, timeout_sec: float | None = None) -> CacheLock:
        """Take the lock, waiting for other runs as long as they hold it.

        Args:
            mode: `SHARED`, `EXCLUSIVE`, or a callable asked before every attempt (e.g.
                "exclusive while the venv is not installed, shared once it is").
            timeout_sec: give up after this many seconds of waiting (None: wait as long as the
                holder lives; a dead holder's lock is released by the kernel).

        Raises:
            TimeoutError: `timeout_sec` passed (the message names the holder).
            OSError: the lock file cannot be created.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        start = time.monotonic()
        told = False
        try:
            while True:
                want = mode() if callable(mode) else mode
                try:
                    fcntl.flock(fd, want | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    pass
                if not told and self.on_wait is not None:
                    self.on_wait(f"waiting for {self.holder(fd)}: it holds {self.what} (lock {self.path}); "
                                 "this run goes on when that run has filled it or is done with it")
                    told = True
                if timeout_sec is not None and time.monotonic() - start >= timeout_sec:
                    raise TimeoutError(f"{self.what} is still locked after {timeout_sec:.0f} s by {self.holder(fd)}")
                time.sleep(POLL_SEC)
        except BaseException:
            os.close(fd)
            raise
        self.fd, self.mode = fd, want
        self.waited_sec = time.monotonic() - start if told else 0.0
        if want == EXCLUSIVE:
            write_lock_holder(fd, {**lock_holder_record(), "using": self.what})
        if told and self.on_wait is not None:
            self.on_wait(f"the other run is done with {self.what} after {self.waited_sec:.0f} s of waiting; going on")
        return self

    @staticmethod
    def holder(fd: int) -> str:
        """The run recorded in the lock file open at `fd`, for a message ("another run" when unknown or gone)."""
        record: dict[str, Any] = read_lock_holder(fd)
        pid = record.get("pid")
        if not record or not pid_alive(pid):
            return "another run (it has not recorded its name)"
        return f"another run (pid {pid}, started {record.get('started')}: {record.get('command')})"

    def share(self) -> bool:
        """Turn a held exclusive lock into a shared one (the folder is complete: others may use it too).

        Returns True when the lock is now shared. A conversion is not atomic in ``flock(2)``: when
        another run took the lock in between, False is returned and nothing is held; call again.
        """
        if self.fd is None:
            return False
        try:
            fcntl.flock(self.fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            self.mode = None
            return False
        self.mode = SHARED
        return True

    def release(self) -> None:
        """Drop the lock (idempotent)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd, self.mode = None, None

    def __enter__(self) -> CacheLock:
        """Take the lock exclusive, unless it is held already (``with CacheLock(...).acquire(SHARED):``)."""
        return self if self.fd is not None else self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def try_exclusive(folder: Path) -> CacheLock | None:
    """The exclusive lock of `folder` when no run holds it now (to remove the folder), else None."""
    lock = CacheLock(folder, what=str(folder))
    try:
        return lock.acquire(EXCLUSIVE, timeout_sec=0)
    except (TimeoutError, OSError):
        return None


__all__ = ["EXCLUSIVE", "POLL_SEC", "SHARED", "CacheLock", "lock_path", "try_exclusive"]
