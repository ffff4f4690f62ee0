"""External processes: always with a timeout, always killed with their whole process group,
never with the judge's secrets.

Every child started here is registered while it runs; `kill_all` ends every registered
process group, and the run calls it on every exit path (including the watchdog's), so no
LibreOffice, Chromium or regex worker outlives the judge. Children get a minimal
environment (`child_environment`): the judge's API key and every other variable of the
verifier's environment stay in this process.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

_live: set[int] = set()
_live_lock = threading.Lock()
_ending = False
"""Set by `kill_all(ending=True)`: the process ends next, and a child started now is killed at once."""
ENDING_MESSAGE = "the process is ending (stopped): no new child process is started"


def register(pgid: int) -> bool:
    """Remember a running child process group (its session leader's pid). Returns False, and
    remembers nothing, once `kill_all` ran with ``ending``: the caller kills the child itself."""
    with _live_lock:
        if _ending:
            return False
        _live.add(pgid)
        return True


def unregister(pgid: int) -> None:
    """Forget a process group that has ended."""
    with _live_lock:
        _live.discard(pgid)


def kill_all(*, ending: bool = False) -> int:
    """SIGKILL every registered child process group and its strays; returns how many.

    `ending`: the process ends next (the watchdog's ``os._exit``): from now on `spawn` kills what it
    starts and reports `ENDING_MESSAGE`. A thread that was about to start LibreOffice when a SIGINT
    came would otherwise start it after this kill: it outlived the judge, writing its profile into a
    render folder already removed (a ``cowork-judge-render-*`` folder left in TMPDIR, CI of stop 46).
    """
    global _ending
    with _live_lock:
        if ending:
            _ending = True
        groups = list(_live)
        _live.clear()
    for pgid in groups:
        kill_tree(pgid)
    return len(groups)


@dataclass
class ProcResult:
    """Outcome of one external command (`run_command`, and an agent CLI's run, `agentic.cli_proc.run_cli`).

    Attributes:
        returncode: the exit status; None when the process was killed or never started.
        stdout, stderr: captured output (decoded leniently; each runner says its cap).
        seconds: wall time from launch to the end of reaping.
        timed_out: its timeout killed it.
        stopped: why a watcher of its output stopped it (it was killed), else None.
        error: why it could not be started (``FileNotFoundError: …``), else None.
    """

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    error: str | None = None
    stopped: str | None = None

    @property
    def killed(self) -> bool:
        """True when the judge killed the process (timeout or watcher)."""
        return self.timed_out or self.stopped is not None


CHILD_ENV_KEYS = ("PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "FONTCONFIG_FILE", "FONTCONFIG_PATH")
"""The only variables a child process inherits: where programs, fonts and temp files are,
and the locale. Nothing secret (SPEC §22)."""


def child_environment(overrides: dict[str, str] | None = None, *, extra_keys: tuple[str, ...] = ()) -> dict[str, str]:
    """The environment of a child process: `CHILD_ENV_KEYS` and the named `extra_keys`
    (e.g. the proxy variables an agent CLI needs to reach its endpoint) from this process's
    environment, then `overrides` (e.g. a private ``HOME`` for LibreOffice's profile)."""
    env = {key: value for key in (*CHILD_ENV_KEYS, *extra_keys) if (value := os.environ.get(key)) is not None}
    env.update(overrides or {})
    return env


def judge_environment() -> dict[str, str]:
    """A copy of this process's whole environment, for a ``cowork-judge run`` child that
    `batch` or `calibrate` starts: that child is the judge itself and reads its knobs and
    endpoint credentials (``JUDGE_*``, ``OPENAI_*``) from it, as if the user had started it.
    Any other program gets `child_environment`."""
    return dict(os.environ)


def run_command(argv: list[str], *, timeout_sec: float, env: dict[str, str] | None = None,
                cwd: str | None = None, input_bytes: bytes | None = None) -> ProcResult:
    """Run ``argv`` in a new session; on timeout SIGKILL the whole process group.

    Args:
        env: the child's whole environment (default: `child_environment()`; never the
            judge's own environment).

    Never raises: a missing executable or an OS error comes back as ``error``. Output is
    captured (decoded leniently) and truncated to 20,000 characters per stream.
    """
    env = child_environment() if env is None else env
    start = time.monotonic()
    proc = spawn(argv, env=env, cwd=cwd, stdin=subprocess.PIPE if input_bytes is not None else subprocess.DEVNULL)
    if isinstance(proc, str):
        return ProcResult(None, "", "", time.monotonic() - start, error=proc)
    try:
        out, err = proc.communicate(input=input_bytes, timeout=max(timeout_sec, 0.1))
        timed_out = False
    except subprocess.TimeoutExpired:
        kill_tree(proc.pid)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
        timed_out = True
    finally:
        reap(proc, wait_sec=0.0)  # soffice forks helpers (oosplash → soffice.bin): reap stragglers
    return ProcResult(
        None if timed_out else proc.returncode,
        (out or b"").decode("utf-8", "replace")[-20000:],
        (err or b"").decode("utf-8", "replace")[-20000:],
        time.monotonic() - start,
        timed_out=timed_out,
    )


def spawn(argv: Sequence[str], *, env: dict[str, str], cwd: str | None = None,
          stdin: int = subprocess.DEVNULL) -> subprocess.Popen[bytes] | str:
    """Start `argv` in a new session (its own process group) with piped stdout and stderr, and
    register it so every exit path of the judge kills it (`kill_all`); the caller ends it with
    `reap`. Returns the process, or why it could not be started (``FileNotFoundError: …``, or
    `ENDING_MESSAGE` after ``kill_all(ending=True)``: the child is killed at once)."""
    try:
        proc = subprocess.Popen(list(argv), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                                start_new_session=True)
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"
    if not register(proc.pid):  # `kill_all(ending=True)` ran meanwhile: nothing may outlive the process
        kill_tree(proc.pid)
        proc.communicate()
        return ENDING_MESSAGE
    return proc


def reap(proc: subprocess.Popen[bytes], *, wait_sec: float) -> None:
    """End a process `spawn` started: kill its tree when it still runs, kill what is left of its
    group (helpers a normal exit leaves: soffice's oosplash → soffice.bin), wait up to `wait_sec`
    seconds for it, and unregister it. Never raises for the process."""
    if proc.poll() is None:
        kill_tree(proc.pid)
    kill_group(proc.pid)
    try:
        proc.wait(timeout=wait_sec)
    except subprocess.TimeoutExpired:
        pass
    unregister(proc.pid)


def _descendants(pid: int) -> list[int]:
    """Descendants of ``pid`` from /proc (Linux); empty where /proc is unavailable."""
    children: dict[int, list[int]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL the process group of ``pid`` and every descendant that left it.

    Chromium's zygotes move to their own process groups, so a group kill alone would
    orphan them; the descendant list is taken BEFORE anything is killed.
    """
    stray = _descendants(pid)
    kill_group(pid)
    for child in stray:
        try:
            os.kill(child, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def kill_group(pgid: int) -> None:
    """SIGKILL process group ``pgid`` (the session leader's pid); ignore if already gone."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def configured_tool_problem(configured: str) -> str | None:
    """Why a configured tool (``JUDGE_SOFFICE_PATH``, ``--soffice`` …) cannot be used, as a
    phrase to follow the path ("does not exist", "is not executable" …), or None when
    `resolve_tool` accepts it."""
    if resolve_tool(configured) is not None:
        return None
    if "/" not in configured:
        return "is not a program on PATH"
    if not os.path.exists(configured):
        return "does not exist" if not os.path.islink(configured) else "is a link to nothing"
    if os.path.isdir(configured):
        return "is a folder, not the program"
    return "is not executable"


def resolve_tool(configured: str | None, *candidates: str) -> str | None:
    """Path of an external tool: the configured one (a name on PATH or an executable
    file), else the first candidate found on PATH; None when nothing is found."""
    if configured:
        return shutil.which(configured) or (configured if os.access(configured, os.X_OK) and os.path.isfile(configured) else None)
    for name in candidates:
        found = shutil.which(name)
        if found:
            return found
    return None
