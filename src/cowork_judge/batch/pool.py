"""The batch's long-lived judge processes: K workers (`batch.worker`), each judging one instance
at a time, started and replaced by the batch.

Each worker runs ``python -m cowork_judge.commands.batch_worker`` in its own session (so a
stop reaches it as a group), holds the output folder's lock descriptor (`batch.lock`), and
is started through `DIE_WITH_PARENT`, so that the kernel sends it SIGTERM when the batch
dies (a crash, SIGKILL): a worker then writes the documents of the instance it is judging
(cut, ``details.interrupted``) and exits, as a ``cowork-judge run`` child did. A worker is
sent an instance only when it is idle and ready, so a worker that dies takes at most one
instance with it; the batch knows which (`Worker.current`).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cowork_judge.batch.worker import READY, InstanceSpec

DIE_WITH_PARENT = (
    "import ctypes, os, sys\n"
    "ctypes.CDLL(None, use_errno=True).prctl(1, 15)\n"  # PR_SET_PDEATHSIG = 1, SIGTERM = 15: kept across exec
    "sys.exit(143) if os.getppid() != int(sys.argv[1]) else os.execv(sys.argv[2], sys.argv[2:])\n"
)
"""Linux: a tiny launcher (``python -I -S -c``, a few ms) that asks the kernel to send the
worker SIGTERM when the batch process dies, then execs the worker. Done in the child itself,
not in a ``preexec_fn``, which is unsafe in a process with threads. The batch starts its
workers from its main thread: the kernel's "parent" is the thread that forked."""
WORKER_MODULE = "cowork_judge.commands.batch_worker"
START_TIMEOUT_SEC = 120.0
"""Seconds a new worker has to import the judge and say it is ready (a cold start on a loaded
2-core machine takes a few seconds)."""


class WorkerStartError(RuntimeError):
    """A worker ended before it was ready (a broken installation): the message says how."""


@dataclass
class Reply:
    """A worker's answer for its instance: the run's exit status."""

    name: str
    status: int


@dataclass
class Worker:
    """One worker process and what the batch knows of it.

    Attributes:
        proc: the process (its pid is its process group).
        ready: it said it is ready (its imports are done).
        current: the instance it is judging (the batch's own record of it), None when idle.
        assigned_at: monotonic seconds at which `current` was sent.
        judged: instances it has finished.
    """

    proc: subprocess.Popen[bytes]
    reply_fd: int
    started: float
    ready: bool = False
    current: Any = None
    assigned_at: float = 0.0
    judged: int = 0
    retiring: bool = False
    _buffer: bytes = field(default=b"", repr=False)

    @property
    def pid(self) -> int:
        """The worker's pid (and process group)."""
        return self.proc.pid

    def signal_group(self, signum: int) -> None:
        """Send `signum` to the worker's process group (gone already: nothing to do)."""
        try:
            os.killpg(self.proc.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass


class WorkerPool:
    """Starts workers, sends them instances and collects what they say.

    Args:
        env: the workers' own environment (each instance brings its own: `InstanceSpec.env`).
        python: the interpreter.
        lock_fd: the output folder's lock, held by every worker (None: none).
        worker_argv: the worker command after the interpreter (default ``-m`` `WORKER_MODULE`;
            tests pass a script that wraps the engine entry).
    """

    def __init__(self, env: Mapping[str, str], *, python: str = sys.executable, lock_fd: int | None = None,
                 worker_argv: Sequence[str] | None = None) -> None:
        self.env = dict(env)
        self.python = python
        self.lock_fd = lock_fd
        self.worker_argv = list(worker_argv) if worker_argv is not None else ["-m", WORKER_MODULE]
        self.workers: list[Worker] = []
        self._selector = selectors.DefaultSelector()

    def spawn(self) -> Worker:
        """Start one worker (not ready yet: `poll` says when it is)."""
        read_fd, write_fd = os.pipe()
        cmd = [self.python, *self.worker_argv, str(write_fd)]
        if sys.platform.startswith("linux"):
            cmd = [self.python, "-I", "-S", "-c", DIE_WITH_PARENT, str(os.getpid()), *cmd]
        keep = (write_fd,) if self.lock_fd is None else (write_fd, self.lock_fd)
        try:
            proc = subprocess.Popen(cmd, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=None,
                                    start_new_session=True, pass_fds=keep)
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        os.set_blocking(read_fd, False)
        worker = Worker(proc, read_fd, time.monotonic())
        self._selector.register(read_fd, selectors.EVENT_READ, worker)
        self.workers.append(worker)
        return worker

    def idle(self) -> list[Worker]:
        """Ready workers judging nothing (and not asked to end)."""
        return [w for w in self.workers if w.ready and w.current is None and not w.retiring]

    def busy(self) -> list[Worker]:
        """Workers judging an instance."""
        return [w for w in self.workers if w.current is not None]

    def assign(self, worker: Worker, spec: InstanceSpec, current: Any) -> bool:
        """Send `spec` to idle `worker`, remembering `current` as what it judges; False when the
        worker is gone (its death is reported by `poll`; `current` is not assigned)."""
        assert worker.proc.stdin is not None
        try:
            worker.proc.stdin.write(spec.to_line())
            worker.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return False
        worker.current, worker.assigned_at = current, time.monotonic()
        return True

    def poll(self, timeout: float) -> tuple[list[tuple[Worker, Reply]], list[Worker]]:
        """Wait up to `timeout` seconds for the workers to say something.

        Returns:
            (replies as (worker, reply) — the worker is idle again —, workers that ended:
            removed from the pool and waited for; their ``current`` is what they took with them).

        Raises:
            WorkerStartError: a worker ended before it was ready.
        """
        replies: list[tuple[Worker, Reply]] = []
        ended: list[Worker] = []
        for key, _ in self._selector.select(timeout):
            worker: Worker = key.data
            try:
                data = os.read(worker.reply_fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                ended.append(worker)
                continue
            worker._buffer += data
            while b"\n" in worker._buffer:
                line, worker._buffer = worker._buffer.split(b"\n", 1)
                message = json.loads(line)
                if READY in message:
                    worker.ready = True
                elif worker.current is not None:
                    replies.append((worker, Reply(str(message.get("name")), int(message.get("status", 1)))))
                    worker.judged += 1
        for worker in ended:
            self._forget(worker)
            if not worker.ready:
                raise WorkerStartError(f"a judge worker (pid {worker.pid}) ended before it was ready, exit status "
                                       f"{worker.proc.returncode}: its output is above")
        return replies, ended

    def retire(self, worker: Worker) -> None:
        """Ask idle `worker` to end (EOF on its stdin); it leaves the pool when `poll` sees it end."""
        assert worker.proc.stdin is not None
        worker.retiring = True
        try:
            worker.proc.stdin.close()
        except OSError:
            pass

    def kill(self, worker: Worker) -> None:
        """SIGKILL `worker`'s process group and forget it (its ``current`` is left for the caller)."""
        worker.signal_group(signal.SIGKILL)
        self._forget(worker)

    def stop(self, grace_sec: float, poll_sec: float = 0.05) -> list[tuple[Worker, bool]]:
        """Stop every worker: SIGTERM to each group (a busy one writes its instance's documents),
        SIGKILL after `grace_sec`. Returns the workers that were judging, each with True when it
        had to be killed."""
        busy = self.busy()
        for worker in self.workers:
            worker.signal_group(signal.SIGTERM)
        end = time.monotonic() + grace_sec
        while any(w.proc.poll() is None for w in self.workers) and time.monotonic() < end:
            time.sleep(poll_sec)
        killed = {w.pid for w in self.workers if w.proc.poll() is None}
        for worker in list(self.workers):
            if worker.pid in killed:
                worker.signal_group(signal.SIGKILL)
            self._forget(worker)
        return [(w, w.pid in killed) for w in busy]

    def close(self) -> None:
        """End every worker still there (EOF, then SIGKILL after a moment) and free the selector."""
        for worker in list(self.workers):
            self.retire(worker)
        end = time.monotonic() + 5.0
        while any(w.proc.poll() is None for w in self.workers) and time.monotonic() < end:
            time.sleep(0.02)
        for worker in list(self.workers):
            if worker.proc.poll() is None:
                worker.signal_group(signal.SIGKILL)
            self._forget(worker)
        self._selector.close()

    def _forget(self, worker: Worker) -> None:
        if worker in self.workers:
            self.workers.remove(worker)
        try:
            self._selector.unregister(worker.reply_fd)
        except (KeyError, ValueError):
            pass
        try:
            os.close(worker.reply_fd)
        except OSError:
            pass
        if worker.proc.stdin is not None:
            try:
                worker.proc.stdin.close()
            except OSError:
                pass
        try:
            worker.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.signal_group(signal.SIGKILL)
            worker.proc.wait()
