"""A batch worker: one long-lived process that judges many instances, one at a time, each as
its own ``cowork-judge run`` process would (its environment, console log, deadline, signals).

Protocol (`batch.pool` is the parent's end). The parent writes one `InstanceSpec` per line,
as JSON, on the worker's stdin, and only to a worker that is idle; the worker writes one JSON
line per message on its reply descriptor: ``{"ready": <pid>}`` once its imports are done,
then ``{"name": <instance>, "status": <the run's exit status>}`` after each instance. EOF on
stdin ends the worker (status 0).

Isolation between the instances of one worker (`judge_isolated`): for the length of an
instance ``os.environ`` is exactly the instance's environment (`InstanceSpec.env`: what a
``cowork-judge run`` child used to get, so the configuration, the ``openai`` client's own
environment look-ups and ``TMPDIR`` see the same values), ``tempfile``'s cached temp folder
is forgotten, the working folder is the worker's, descriptors 1 and 2 are the instance's
``batch-run.log``, and the handlers of the root and ``cowork_judge`` loggers are put back as
they were. What a process-wide crash, hang or ``os._exit`` takes down is the worker only:
the parent writes that instance's document and starts another worker (`batch.pool`).

Signals. Idle, SIGTERM/SIGINT end the worker at once (128 + signum: nothing is being
written). While an instance is judged, a signal that arrives before the run has armed its
watchdog is handed to `on_busy_signal` (the engine's early capture, which the run takes over
as ``cowork-judge run`` does) and ends the worker after the instance's documents are
written; once the watchdog is armed, the run's own handler writes the documents of the cut
run and ends the process.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from cowork_judge._util.fsutil import announce_scratch, remove_scratch

READY = "ready"
"""The key of the worker's first message (its pid)."""
SCRATCH = "scratch"
"""The key of a message naming a scratch folder the worker made (`fsutil.announce_scratch`): the batch removes it
if the worker dies without removing it itself (killed, trial 11 F3)."""


@dataclass(frozen=True)
class InstanceSpec:
    """What a worker needs to judge one instance: the paths of its run (as the ``run``
    command's ``--app-dir``/``--logs-dir``/``--tests-dir``/``--alt-output-dir``), its whole
    environment and the file that gets its console output.

    Attributes:
        name: the instance's name (echoed in the reply).
        app_dir, logs_dir, tests_dir, alt_output_dir: absolute paths, as strings.
        log: ``<out>/<name>/batch-run.log`` (made or truncated; never followed through a link).
        env: the run's environment (``JUDGE_*``, credentials, ``PATH`` …), exactly as a
            ``cowork-judge run`` child of the batch would have it.
    """

    name: str
    app_dir: str
    logs_dir: str
    tests_dir: str
    alt_output_dir: str
    log: str
    env: Mapping[str, str] = field(default_factory=dict)

    def to_line(self) -> bytes:
        """The spec as one JSON line (UTF-8, ``\\n``-terminated)."""
        return json.dumps({**asdict(self), "env": dict(self.env)}, ensure_ascii=False).encode() + b"\n"

    @classmethod
    def from_line(cls, line: bytes) -> InstanceSpec:
        """Parse `to_line`'s output.

        Raises:
            ValueError: not a JSON object with exactly the spec's keys.
        """
        data = json.loads(line)
        if not isinstance(data, dict):
            raise ValueError("an instance spec must be a JSON object")
        return cls(**data)


Judge = Callable[[InstanceSpec, float], int]
"""The engine entry a worker calls: ``judge(spec, start)`` judges one instance whose clock
started at `start` (monotonic seconds) and returns the run's exit status."""


class _Worker:
    def __init__(self, judge: Judge, reply: BinaryIO, on_busy_signal: Callable[[int], None]) -> None:
        self.judge = judge
        self.reply = reply
        self.on_busy_signal = on_busy_signal
        self.busy = False
        self.stop_signal: int | None = None
        self.base_env = dict(os.environ)
        self.cwd = os.getcwd()
        self.sending = threading.Lock()  # a run's threads announce their scratch folders too

    def on_signal(self, signum: int, _frame: object) -> None:
        if not self.busy:  # idle: nothing is being written; its scratch folders (the LibreOffice seed) go first
            remove_scratch()  # trial 11 F3: os._exit skips the atexit that removes them
            os._exit(128 + signum)
        if self.stop_signal is None:
            self.stop_signal = signum
        self.on_busy_signal(signum)

    def send(self, message: Mapping[str, Any]) -> None:
        with self.sending:
            self.reply.write(json.dumps(message).encode() + b"\n")
            self.reply.flush()

    def announce(self, path: Path) -> None:
        """Tell the batch about scratch folder `path` (`SCRATCH`); never raises."""
        try:
            self.send({SCRATCH: str(path)})
        except (OSError, ValueError):
            pass


def judge_isolated(spec: InstanceSpec, judge: Judge, *, base_env: Mapping[str, str], cwd: str) -> int:
    """Judge `spec` with `judge` under the instance's own process state (see the module
    docstring), and put the worker's state back afterwards, whatever happens.

    Returns:
        `judge`'s exit status; 1 when it raised (the engine entry never does: its documents
        say what went wrong) or the console log cannot be opened.
    """
    start = time.monotonic()
    root_handlers = list(logging.root.handlers)
    judge_logger = logging.getLogger("cowork_judge")
    judge_handlers = list(judge_logger.handlers)
    saved = (os.dup(1), os.dup(2))
    try:
        for stream in (sys.stdout, sys.stderr):
            _flush(stream)
        try:
            log_fd = os.open(spec.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            print(f"batch worker: cannot open {spec.log}: {exc}", file=sys.stderr)
            return 1
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.close(log_fd)
        set_environ(spec.env)
        tempfile.tempdir = None  # gettempdir() caches TMPDIR's folder: read it again from this environment
        os.chdir(cwd)
        try:
            return int(judge(spec, start))
        except BaseException as exc:  # noqa: BLE001 - the engine entry never raises; if it did, the worker goes on
            print(f"batch worker: the judge raised {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            _flush(stream)
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        set_environ(base_env)
        tempfile.tempdir = None
        _restore_handlers(logging.root, root_handlers)
        _restore_handlers(judge_logger, judge_handlers)
        try:
            os.chdir(cwd)
        except OSError:
            pass


def serve(judge: Judge, reply_fd: int, *, on_busy_signal: Callable[[int], None] = lambda signum: None,
          stdin: BinaryIO | None = None) -> int:
    """Judge the instances read from `stdin` (default: the process's) until EOF (see the module
    docstring); main thread only.

    Args:
        judge: the engine entry (`Judge`).
        reply_fd: the descriptor the parent reads the replies from (closed on return).
        on_busy_signal: called with a stop signal that arrives while an instance is judged.
        stdin: where the specs come from (tests).

    Returns:
        0 at EOF; 128 + signum when a signal stopped the worker after an instance.

    Raises:
        ValueError: a line that is not an `InstanceSpec` (a parent that speaks another protocol).
    """
    os.set_inheritable(reply_fd, False)  # a renderer the run starts must not keep the parent's pipe open
    source = stdin if stdin is not None else sys.stdin.buffer
    with os.fdopen(reply_fd, "wb") as reply:
        worker = _Worker(judge, reply, on_busy_signal)
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, worker.on_signal)
        announce_scratch(worker.announce)
        worker.send({READY: os.getpid()})
        for line in source:
            if not line.strip():
                continue
            spec = InstanceSpec.from_line(line)
            worker.busy = True
            status = judge_isolated(spec, judge, base_env=worker.base_env, cwd=worker.cwd)
            worker.busy = False
            worker.send({"name": spec.name, "status": status})
            if worker.stop_signal is not None:
                return 128 + worker.stop_signal
    return 0


def set_environ(env: Mapping[str, str]) -> None:
    """Make ``os.environ`` exactly `env` (keys not in it removed, changed values set)."""
    for key in [k for k in os.environ if k not in env]:
        del os.environ[key]
    for key, value in env.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


def _restore_handlers(logger: logging.Logger, handlers: list[logging.Handler]) -> None:
    for handler in list(logger.handlers):
        if handler not in handlers:
            logger.removeHandler(handler)
            try:
                handler.close()
            except Exception:  # noqa: BLE001 - a handler of the finished instance: nothing else to do
                pass
    for handler in handlers:
        if handler not in logger.handlers:
            logger.addHandler(handler)


def _flush(stream: Any) -> None:
    try:
        stream.flush()
    except (OSError, ValueError):
        pass
