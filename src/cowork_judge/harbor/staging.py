"""One trial's judge run on the host, without Harbor: the folders, the environment, the process.

`RubricVerifier` (``verifier.py``) stages each trial in a private host temp folder laid out
as the container would be (``app/output``, ``logs/agent``, ``logs/verifier``, ``tests``),
runs the engine there as ``tests/test.sh`` runs it (``python -m cowork_judge run`` with the
folders as flags: `judge_command`), then publishes what the run wrote into the trial's
verifier folder (`publish`). Whatever goes wrong — an exception, the trial's time limit, a
failed download — the trial still gets the documented error reward (`error_reward`: reward
0, a schema-valid ``result.json`` with ``judge:scorer_error`` or ``judge:timeout``), as
``test.sh``'s always-a-reward path leaves one.

Each trial's engine runs in its own process (started with its own session, killed with its
whole process group at the trial's limit): a judge that crashes, hangs or leaks memory takes
no other trial's reward down and never the Harbor process, and the engine's per-process state
(its log handlers, its child-process registry, the credentials it exports) stays per trial.
What the trials of one job share lives here, once per Harbor process: the slots
(`judge_slots`, sized to the machine: at most that many engines — and so LibreOffice
renderers — run at once), the verdict cache folder (``JUDGE_VERDICT_CACHE``) and the request
limiter (`JobStore`: a private ``redis-server`` on a unix socket, started once, whose store
holds ONE limiter per endpoint, model and key for every trial's engine — the fleet limiter of
`cowork_judge.transport.fleet`, so a 429 one trial meets holds the others at once).
"""

from __future__ import annotations

import asyncio
import atexit
import json
import math
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cowork_judge.run.outputs import write_fallback
from cowork_judge.run.paths import RunPaths

HOST_OVERRIDES = {"JUDGE_START_JITTER": "0", "JUDGE_WORKFLOW_START_JITTER": "0"}
"""Set for every host-mode run whatever the task says: the start jitters spread the trials of a
fleet whose judges each keep their own limiter; the trials of one host-mode job start their
engines through `judge_slots` instead, so a jitter would only add wall time."""

HOST_KEYS = ("PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "FONTCONFIG_FILE", "FONTCONFIG_PATH",
             "PYTHONPATH", "VIRTUAL_ENV", "PLAYWRIGHT_BROWSERS_PATH", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
             "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
"""What the engine's process takes from the Harbor process's environment: where programs,
Python packages, fonts, certificates and proxies are. Every judge knob (``JUDGE_*``, the
credentials) comes from the task's resolved ``[verifier.env]`` only, as in ``test.sh`` mode,
where the sandbox sees nothing else of the host."""

KILL_MARGIN_SEC = 5.0
"""The engine process is stopped this long before the trial's own limit, to leave time for the
error documents."""


@dataclass(frozen=True)
class TrialFolders:
    """The host folders of one staged trial (all under `root`, a private temp folder)."""

    root: Path

    @property
    def app(self) -> Path:
        return self.root / "app"

    @property
    def output(self) -> Path:
        """Where ``/app/output`` is downloaded."""
        return self.app / "output"

    @property
    def alt_output(self) -> Path:
        """Where ``/output`` (lenient delivery) is downloaded."""
        return self.root / "alt-output"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def agent(self) -> Path:
        return self.logs / "agent"

    @property
    def verifier(self) -> Path:
        return self.logs / "verifier"

    @property
    def tests(self) -> Path:
        return self.root / "tests"

    @property
    def work(self) -> Path:
        return self.root / "work"


def stage(root: Path, tests_sources: Sequence[Path], agent_dir: Path | None) -> TrialFolders:
    """Lay out one trial under `root` (created): the tests and the agent's logs copied in.

    Args:
        tests_sources: the task's ``tests/`` folders in Harbor's upload order (a step's own
            ``tests/`` after the task's, its files winning); missing ones are skipped.
        agent_dir: the trial's agent folder on the host (``<trial>/agent``), or None.

    Symbolic links are not copied (`copy_plain`): on the host, a link the agent planted would
    point into the host's files, not the sandbox's.
    """
    folders = TrialFolders(root)
    for folder in (folders.app, folders.alt_output, folders.agent, folders.verifier, folders.tests, folders.work):
        folder.mkdir(parents=True, exist_ok=True)
    for source in tests_sources:
        if source.is_dir():
            copy_plain(source, folders.tests)
    if agent_dir is not None and agent_dir.is_dir():
        copy_plain(agent_dir, folders.agent)
    return folders


def copy_plain(source: Path, dest: Path) -> None:
    """Copy the regular files and folders of `source` into `dest` (merged, files overwritten),
    skipping symbolic links, FIFOs and devices."""
    dest.mkdir(parents=True, exist_ok=True)
    for entry in os.scandir(source):
        target = dest / entry.name
        if entry.is_symlink():
            continue
        if entry.is_dir():
            copy_plain(Path(entry.path), target)
        elif entry.is_file():
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            shutil.copy2(entry.path, target)


def drop_links(folder: Path) -> list[str]:
    """Remove every symbolic link (and FIFO, socket, device) under `folder` (a download);
    returns their paths relative to `folder`."""
    dropped: list[str] = []
    if not folder.is_dir():
        return dropped
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            if path.is_symlink() or not (path.is_dir() or path.is_file()):
                path.unlink(missing_ok=True)
                dropped.append(str(path.relative_to(folder)))
        dirnames[:] = [d for d in dirnames if (Path(dirpath) / d).is_dir() and not (Path(dirpath) / d).is_symlink()]
    return dropped


def judge_environment(verifier_env: Mapping[str, str], host: Mapping[str, str]) -> dict[str, str]:
    """The environment of one trial's engine process: `HOST_KEYS` from `host` (the Harbor
    process), then the task's resolved `verifier_env`, then `HOST_OVERRIDES`."""
    env = {key: host[key] for key in HOST_KEYS if key in host}
    env.update(verifier_env)
    env.update(HOST_OVERRIDES)
    return env


def judge_command(python: str, folders: TrialFolders) -> list[str]:
    """The engine's command line for `folders` (``cowork-judge run``, as ``test.sh`` runs it)."""
    return [python, "-m", "cowork_judge", "run", "--app-dir", str(folders.app), "--logs-dir", str(folders.logs),
            "--tests-dir", str(folders.tests), "--work-dir", str(folders.work), "--alt-output-dir", str(folders.alt_output)]


def machine_slots() -> int:
    """How many engines one Harbor process runs at once: the machine's usable CPUs (at least 2)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 2
    return max(2, cpus)


_slots: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Semaphore]] = {}


def judge_slots(size: int | None = None) -> asyncio.Semaphore:
    """The Harbor process's one semaphore of engine slots (per event loop; created on first use
    with `size`, default `machine_slots`). Every trial of the job waits for a slot before its
    engine starts, so LibreOffice renderers and judge processes never outnumber the CPUs."""
    loop = asyncio.get_running_loop()
    key = id(loop)
    held = _slots.get(key)
    if held is None or held[0] is not loop:
        held = (loop, asyncio.Semaphore(size or machine_slots()))
        _slots[key] = held
    return held[1]


@dataclass(frozen=True)
class EngineRun:
    """How one engine process ended. ``returncode`` is None when it was stopped at its limit."""

    returncode: int | None
    seconds: float


async def run_engine(command: Sequence[str], env: Mapping[str, str], *, cwd: Path, output: Path,
                     timeout_sec: float) -> EngineRun:
    """Run the engine, its stdout and stderr to `output`; stop its whole process group after
    `timeout_sec` (then ``returncode`` is None) or when this task is cancelled (Harbor's own
    timeout: the group is killed and the cancellation raised again)."""
    start = time.monotonic()
    output.parent.mkdir(parents=True, exist_ok=True)
    with open(output, "wb") as sink:
        proc = await asyncio.create_subprocess_exec(*command, env=dict(env), cwd=str(cwd), stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=sink, stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        try:
            code = await asyncio.wait_for(proc.wait(), timeout=max(0.1, timeout_sec))
        except asyncio.TimeoutError:
            await _kill(proc)
            return EngineRun(None, time.monotonic() - start)
        except BaseException:
            await _kill(proc)
            raise
    return EngineRun(code, time.monotonic() - start)


async def _kill(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        await asyncio.wait_for(proc.wait(), timeout=10)
    except (asyncio.TimeoutError, ProcessLookupError):
        pass


def publish(source: Path, dest: Path) -> None:
    """Copy what the engine wrote (`source`, the staged verifier folder) into the trial's
    verifier folder `dest`, replacing files of the same names; the reward files last (a reward
    never stands beside another run's result.json)."""
    dest.mkdir(parents=True, exist_ok=True)
    last = ("reward.json", "reward.txt")
    for entry in sorted(source.iterdir(), key=lambda p: p.name in last):
        target = dest / entry.name
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if target.is_symlink() or target.is_file():
                target.unlink()
            shutil.copytree(entry, target, dirs_exist_ok=True, symlinks=False)
        elif entry.is_file():
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            shutil.copy2(entry, target)


TEXT_SUFFIXES = (".json", ".jsonl", ".log", ".txt", ".md", ".xml", ".html", ".csv")
"""Documents whose staged host paths `show_trial_paths` rewrites (never images, decks or PDFs)."""

TEXT_LIMIT_BYTES = 32 * 1024 * 1024
"""Larger documents are left as written."""


def trial_paths(folders: TrialFolders) -> list[tuple[str, str]]:
    """(staged host folder, the path the trial knows) pairs, as ``test.sh`` mode names them:
    ``…/app`` → ``/app``, ``…/alt-output`` → ``/output``, ``…/logs`` → ``/logs``, ``…/tests`` → ``/tests``."""
    return [(str(folders.app), "/app"), (str(folders.alt_output), "/output"), (str(folders.logs), "/logs"),
            (str(folders.tests), "/tests")]


def show_trial_paths(folders: TrialFolders) -> int:
    """Rewrite the staged host paths in the documents the engine wrote (`folders.verifier`,
    `TEXT_SUFFIXES`, up to `TEXT_LIMIT_BYTES`) to the paths the trial knows (`trial_paths`): a
    result.json's ``instruction_source``, judge.log, the evidence index then name
    ``/tests/judge_instruction.md`` and ``/app/output/…`` as in ``test.sh`` mode, never the
    private temp folder the trial was judged in (gone after the run; the engine's scratch
    ``work`` folder is left as written: a temp path in both modes). Only whole path prefixes
    are replaced (``<root>/app/`` or ``<root>/app`` at the end of a path), so no score, reward or
    other text changes; the reward files hold no path and are not touched. Returns the number of
    files rewritten."""
    pairs = [(host.encode(), inside.encode()) for host, inside in trial_paths(folders)]
    changed = 0
    for path in sorted(folders.verifier.rglob("*")):
        if path.is_symlink() or not path.is_file() or path.suffix.lower() not in TEXT_SUFFIXES \
                or path.name in ("reward.txt", "reward.json") or path.stat().st_size > TEXT_LIMIT_BYTES:
            continue
        data = path.read_bytes()
        new = data
        for host, inside in pairs:
            if host in new:
                new = _replace_prefix(new, host, inside)
        if new != data:
            path.write_bytes(new)
            changed += 1
    return changed


def _replace_prefix(data: bytes, host: bytes, inside: bytes) -> bytes:
    """`data` with every occurrence of the path `host` (followed by ``/`` or a byte that cannot
    continue a folder name) replaced by `inside`."""
    out, start = bytearray(), 0
    while (at := data.find(host, start)) >= 0:
        end = at + len(host)
        nxt = data[end:end + 1]
        out += data[start:at]
        out += inside if (not nxt or not (nxt.isalnum() or nxt in b"-_.")) else host
        start = end
    out += data[start:]
    return bytes(out)


ERROR_REWARD = 0.0
"""The reward of a trial the judge could not finish (the same as ``test.sh``'s failure path)."""


def error_reward(verifier_dir: Path, *, exit_code: str, reason: str, seconds: float = 0.0) -> None:
    """Write the error documents into `verifier_dir`: reward.txt ``0``, reward.json
    ``{"reward": 0.0}`` and a schema-valid result.json whose ``exit_code`` is `exit_code`
    (``judge:scorer_error`` or ``judge:timeout``) and ``exit_reason`` is `reason`
    (`cowork_judge.run.outputs.write_fallback`, the engine's own last resort)."""
    verifier_dir.mkdir(parents=True, exist_ok=True)
    paths = RunPaths(app_dir=verifier_dir, logs_dir=verifier_dir.parent, tests_dir=verifier_dir, work_dir=verifier_dir)
    for name in ("reward.txt", "reward.json", "result.json", "reward-details.json", "ctrf.json"):
        (verifier_dir / name).unlink(missing_ok=True)
    write_fallback(paths, exit_code=exit_code, exit_reason=reason, seconds=seconds)


class SkippedReward(RuntimeError):
    """The judge archived the rollout without a reward (``JUDGE_SKIP``): the trial is an error in
    Harbor, never a 0 in the mean (as in ``test.sh`` mode, where Harbor fails to parse
    ``SKIPPED``)."""


def read_rewards(verifier_dir: Path) -> dict[str, float] | None:
    """The rewards the run left in `verifier_dir`: reward.json's mapping (every value a finite
    number), else reward.txt's number as ``{"reward": x}``; None when neither holds one.

    Raises:
        SkippedReward: reward.txt says ``SKIPPED``.
    """
    try:
        doc = json.loads((verifier_dir / "reward.json").read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc and all(_finite(v) for v in doc.values()):
            return {str(k): float(v) for k, v in doc.items()}
    except (OSError, ValueError):
        pass
    try:
        text = (verifier_dir / "reward.txt").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if text == "SKIPPED":
        raise SkippedReward("the judge wrote reward SKIPPED (JUDGE_SKIP is set): no reward for this trial")
    try:
        value = float(text)
    except ValueError:
        return None
    return {"reward": value} if math.isfinite(value) else None


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class JobStore:
    """The Harbor process's one limiter store: a private ``redis-server`` (no port, a unix socket
    in a private temp folder, no persistence), started on first use and stopped when the process
    exits (or, within seconds, when it dies: a watching shell, `_WATCH`, stops it).

    `url` is None — every engine then keeps its own in-process limiter, as before — when there is
    no ``redis-server`` on ``PATH``, when the engine's Python cannot import ``redis`` (the
    ``fleet-redis`` extra), or when the server does not start within `START_SEC`. The store is
    never worth a reward: an engine that loses it mid-run falls back to its local limiter
    (`cowork_judge.transport.fleet`).
    """

    START_SEC = 10.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._urls: dict[str, str | None] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._socket: Path | None = None
        self.reason: str | None = None

    def url(self, python: str) -> str | None:
        """``unix://…`` of the store for engines run by `python`, or None (see the class docstring)."""
        with self._lock:
            if python in self._urls:
                return self._urls[python]
            url = self._start() if self._usable(python) else None
            self._urls[python] = url
            return url

    def _usable(self, python: str) -> bool:
        try:
            probe = subprocess.run([python, "-c", "import redis"], capture_output=True, timeout=60,
                                   env={k: v for k, v in os.environ.items() if k in HOST_KEYS})
        except (OSError, subprocess.SubprocessError) as exc:
            self.reason = f"{python} cannot be run ({exc})"
            return False
        if probe.returncode != 0:
            self.reason = f"{python} cannot import redis (install cowork-judge[fleet-redis])"
            return False
        return True

    def _start(self) -> str | None:
        if self._socket is not None:
            return f"unix://{self._socket}" if self._proc is not None and self._proc.poll() is None else None
        server = shutil.which("redis-server")
        if server is None:
            self.reason = "no redis-server on PATH"
            return None
        folder = Path(tempfile.mkdtemp(prefix="cowork-judge-limiter-"))
        self._socket = folder / "limiter.sock"
        argv = [server, "--port", "0", "--unixsocket", str(self._socket), "--unixsocketperm", "700", "--save", "",
                "--appendonly", "no", "--dir", str(folder), "--loglevel", "warning", "--daemonize", "no"]
        try:  # under a shell that ends the server when this process is gone (even after a SIGKILL)
            self._proc = subprocess.Popen(["sh", "-c", _WATCH, "sh", str(os.getpid()), str(folder), *argv], stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                          env={"PATH": os.environ.get("PATH", "")})
        except OSError as exc:
            self.reason = f"redis-server cannot start ({exc})"
            return None
        atexit.register(self.stop)
        deadline = time.monotonic() + self.START_SEC
        while time.monotonic() < deadline and self._proc.poll() is None:
            if self._socket.exists():
                return f"unix://{self._socket}"
            time.sleep(0.05)
        self.reason = "redis-server did not open its socket"
        self.stop()
        return None

    def stop(self) -> None:
        """Stop the server (idempotent)."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        if self._socket is not None:
            shutil.rmtree(self._socket.parent, ignore_errors=True)


_WATCH = ('parent="$1"; folder="$2"; shift 2; "$@" & child=$!; trap \'kill "$child" 2>/dev/null; exit 0\' TERM INT HUP; '
          'while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null; do sleep 2; done; '
          'kill "$child" 2>/dev/null; wait "$child"; rm -rf "$folder"')
"""``sh -c`` script: run the server (``$3…``) and stop it when the process ``$1`` (Harbor) is gone or on SIGTERM;
when Harbor is gone (even after a SIGKILL, where no ``atexit`` runs) it also removes the server's folder ``$2``."""


job_store = JobStore()
"""The Harbor process's one store (`RubricVerifier` asks it for every trial)."""
