"""The batch's long-lived judge processes: K workers (`batch.worker`), each judging one instance
at a time, started and replaced by the batch.

How a worker starts. On Linux, in a batch process with a single thread, the batch imports the
judge once (`commands.batch_worker.preload`: the engine, the ``openai`` client) and forks
each worker from itself (`START_FORK`): a worker then costs a fork, not an interpreter that
imports the judge again (about 1.3 CPU seconds each). Elsewhere, or when the batch has other
threads (a fork copies their locks in whatever state they are), or when a test gives its own
worker command, a worker is a new interpreter running ``python -m
cowork_judge.commands.batch_worker`` (`START_EXEC`). Either way a worker runs in its own
session (so a stop reaches it as a group, and the terminal's Ctrl-C reaches the batch only),
holds the output folder's lock descriptor (`batch.lock`), and asks the kernel to send it
SIGTERM when the batch dies (a crash, SIGKILL: ``PR_SET_PDEATHSIG``, `DIE_WITH_PARENT`): a
worker then writes the documents of the instance it is judging (cut, ``details.interrupted``)
and exits, as a ``cowork-judge run`` child did. A forked worker starts as a fresh one would:
its environment is the pool's, its stop signals are the defaults until it serves, descriptor
0 is its instance pipe, 1 is ``/dev/null``, 2 the batch's, every other descriptor of the
batch is closed but the lock and its reply pipe, and the batch's log handlers are dropped.

A worker is sent an instance only when it is idle and ready, so a worker that dies takes at
most one instance with it; the batch knows which (`Worker.current`).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, BinaryIO, Protocol

from cowork_judge._util.fsutil import forget_scratch, remove_scratch, scratch_owner_file
from cowork_judge.batch.worker import READY, SCRATCH, InstanceSpec, set_environ

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
START_FORK = "fork"
"""Workers are forked from the batch, which imported the judge once (Linux, one thread)."""
START_EXEC = "exec"
"""Workers are new interpreters (``python -m`` `WORKER_MODULE`, or the test's worker command)."""
PR_SET_PDEATHSIG = 1
START_TIMEOUT_SEC = 120.0
"""Seconds a new worker has to import the judge and say it is ready (a cold start on a loaded
2-core machine takes a few seconds)."""


class WorkerStartError(RuntimeError):
    """A worker ended before it was ready (a broken installation): the message says how."""


class WorkerProcess(Protocol):
    """What the pool uses of a worker's process: `subprocess.Popen` (`START_EXEC`) or
    `ForkedProcess` (`START_FORK`)."""

    @property
    def pid(self) -> int:
        """The process id (and, once it runs, its process group)."""

    @property
    def stdin(self) -> IO[bytes] | None:
        """The instance pipe (closed: EOF, the worker ends)."""

    @property
    def returncode(self) -> int | None:
        """The exit status once reaped (negative: the signal), else None."""

    def poll(self) -> int | None:
        """The exit status (negative: the signal that ended it) once it ended, else None."""

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end; raises `subprocess.TimeoutExpired` after `timeout` seconds."""


class ForkedProcess:
    """A worker forked from the batch (`START_FORK`), with the part of `subprocess.Popen` the
    pool uses: `pid`, `stdin` (the instance pipe), `returncode` (negative: the signal), `poll`, `wait`."""

    def __init__(self, pid: int, stdin: BinaryIO) -> None:
        self.pid = pid
        self.stdin: BinaryIO | None = stdin
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """Reap the worker if it ended (never blocks); its exit status, or None while it runs."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by someone else: its status is lost
                self.returncode = 255
                return self.returncode
            if pid == self.pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the worker to end; raises `subprocess.TimeoutExpired` after `timeout` seconds."""
        end = None if timeout is None else time.monotonic() + timeout
        while (status := self.poll()) is None:
            if end is not None and time.monotonic() >= end:
                raise subprocess.TimeoutExpired([str(self.pid)], timeout or 0.0)
            time.sleep(0.01)
        return status


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

    proc: WorkerProcess
    reply_fd: int
    started: float
    ready: bool = False
    current: Any = None
    assigned_at: float = 0.0
    judged: int = 0
    retiring: bool = False
    scratch: set[str] = field(default_factory=set)
    _buffer: bytes = field(default=b"", repr=False)

    @property
    def pid(self) -> int:
        """The worker's pid (and process group)."""
        return self.proc.pid

    def signal_group(self, signum: int) -> None:
        """Send `signum` to the worker's process group (gone already: nothing to do); to the
        worker alone when it has not made its group yet (a worker forked a moment ago)."""
        try:
            os.killpg(self.proc.pid, signum)
        except (ProcessLookupError, PermissionError):
            if self.proc.returncode is None:  # not reaped: the pid is still this worker's
                try:
                    os.kill(self.proc.pid, signum)
                except (ProcessLookupError, PermissionError):
                    pass


class WorkerPool:
    """Starts workers, sends them instances and collects what they say.

    Args:
        env: the workers' own environment (each instance brings its own: `InstanceSpec.env`).
        python: the interpreter.
        lock_fd: the output folder's lock, held by every worker (None: none).
        worker_argv: the worker command after the interpreter (default ``-m`` `WORKER_MODULE`;
            tests pass a script that wraps the engine entry; a command implies `START_EXEC`).
        start: `START_FORK`, `START_EXEC`, or None: fork where it is safe (see the module
            docstring), decided at each start.
    """

    def __init__(self, env: Mapping[str, str], *, python: str = sys.executable, lock_fd: int | None = None,
                 worker_argv: Sequence[str] | None = None, start: str | None = None) -> None:
        self.env = dict(env)
        self.python = python
        self.lock_fd = lock_fd
        self.worker_argv = list(worker_argv) if worker_argv is not None else ["-m", WORKER_MODULE]
        self.start = start
        if worker_argv is not None or python != sys.executable:
            self.start = START_EXEC
        self.workers: list[Worker] = []
        self._selector = selectors.DefaultSelector()
        self._serve: Callable[[int, BinaryIO], int] | None = None

    def start_method(self) -> str:
        """How the next worker starts: `START_FORK` when asked, or by default on Linux while the
        batch has no other thread; else `START_EXEC`."""
        if self.start is not None:
            return self.start
        forkable = sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1
        return START_FORK if forkable else START_EXEC

    def spawn(self) -> Worker:
        """Start one worker (not ready yet: `poll` says when it is).

        Raises:
            WorkerStartError: the judge cannot be imported to fork a worker from (`START_FORK`).
            OSError: no process could be started.
        """
        read_fd, write_fd = os.pipe()
        try:
            proc = self._fork(write_fd) if self.start_method() == START_FORK else self._exec(write_fd)
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

    def _exec(self, write_fd: int) -> WorkerProcess:
        cmd = [self.python, *self.worker_argv, str(write_fd)]
        if sys.platform.startswith("linux"):
            cmd = [self.python, "-I", "-S", "-c", DIE_WITH_PARENT, str(os.getpid()), *cmd]
        keep = (write_fd,) if self.lock_fd is None else (write_fd, self.lock_fd)
        return subprocess.Popen(cmd, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=None,
                                start_new_session=True, pass_fds=keep)

    def _fork(self, write_fd: int) -> WorkerProcess:
        serve = self._preloaded()
        stdin_r, stdin_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            _forked_worker(parent, serve, self.env, stdin_r, write_fd, self.lock_fd)
        os.close(stdin_r)
        return ForkedProcess(pid, os.fdopen(stdin_w, "wb"))

    def _preloaded(self) -> Callable[[int, BinaryIO], int]:
        """The forked workers' entry, after importing the judge once in this process (by name:
        only the command line may import the engine)."""
        if self._serve is None:
            try:
                import ctypes  # noqa: F401 - imported here once, used by every forked worker

                module = importlib.import_module(WORKER_MODULE)
                module.preload()
            except Exception as exc:  # noqa: BLE001 - a broken installation: the batch says so and stops
                raise WorkerStartError(f"cannot import the judge to start its workers: {type(exc).__name__}: {exc}") from exc
            self._serve = module.serve_forked
        return self._serve

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
                elif SCRATCH in message:
                    worker.scratch.add(str(message[SCRATCH]))
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
        """Drop `worker` from the pool, wait for its end and remove the scratch folders it named and left."""
        if worker in self.workers:  # the first time only: later, its descriptor number may be another's
            self.workers.remove(worker)
            self._drain(worker)
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
        for path in worker.scratch:  # trial 11 F3: what a killed worker could not remove (it removes its own at exit)
            shutil.rmtree(path, ignore_errors=True)
            scratch_owner_file(Path(path)).unlink(missing_ok=True)  # its owner file (trial 13 L5): the worker is gone

    def _drain(self, worker: Worker) -> None:
        """Read what `worker` wrote and the batch has not read yet, for the scratch folders it names (`SCRATCH`):
        a worker killed at once leaves its last messages in the pipe."""
        while True:
            try:
                data = os.read(worker.reply_fd, 65536)
            except OSError:
                break
            if not data:
                break
            worker._buffer += data
        for line in worker._buffer.split(b"\n"):
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and SCRATCH in message:
                worker.scratch.add(str(message[SCRATCH]))
        worker._buffer = b""


def _forked_worker(parent: int, serve: Callable[[int, BinaryIO], int], env: Mapping[str, str], stdin_fd: int,
                   reply_fd: int, lock_fd: int | None) -> None:
    """The life of a forked worker (`START_FORK`), set up as a fresh worker process would be
    (see the module docstring); ends the process with `serve`'s exit status, never returns."""
    status = 70
    try:
        forget_scratch()  # the batch's scratch folders are the batch's to remove
        for signum in (signal.SIGTERM, signal.SIGINT):  # the batch's handlers are not the worker's
            signal.signal(signum, signal.SIG_DFL)
        os.setsid()
        if sys.platform.startswith("linux"):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
            if os.getppid() != parent:  # the batch died before the request took effect
                os._exit(128 + signal.SIGTERM)
        os.dup2(stdin_fd, 0)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        _close_other_fds({0, 1, 2, reply_fd, *(() if lock_fd is None else (lock_fd,))})
        for logger in (logging.root, logging.getLogger("cowork_judge")):
            logger.handlers.clear()  # the batch's, not closed: they are the batch's files
        set_environ(env)
        with os.fdopen(0, "rb", closefd=False) as stdin:
            status = serve(reply_fd, stdin)
    except BaseException:  # noqa: BLE001 - the worker ends here whatever happens, never in the batch's code
        try:
            traceback.print_exc()
        finally:
            status = 70
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        remove_scratch()  # trial 11 F3: os._exit skips the atexit that removes the LibreOffice seed
        os._exit(status)


def _close_other_fds(keep: set[int]) -> None:
    """Close every descriptor of this process but `keep` (the batch's pipes to other workers,
    its selector: a worker holding another's instance pipe would keep it from seeing EOF)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024))
    for fd in fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
