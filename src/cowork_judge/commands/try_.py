"""``cowork-judge try <task> --rollout <dir>``: the task's own ``tests/test.sh`` against one rollout, the
way Harbor's verifier runs it, without Docker (`cowork_judge.install.dryrun`).

In a bubblewrap sandbox when ``bwrap`` can run here (plainly otherwise, and it says so). The judge
is installed inside from a local package index on 127.0.0.1 that serves this checkout's wheel (or
one downloaded from ``--index-url``) and the dependency wheels its extras need, downloaded on the
host once into a cache folder. Without ``JUDGE_API_KEY``/``JUDGE_BASE_URL`` the built-in simulator
is the endpoint, as for ``demo``; one of the two without the other is refused (exit 2), as a trial
would not reach that endpoint either. ``JUDGE_*`` variables set here that ``[verifier.env]`` does not
pass (nor the key variables of JUDGE_PANEL's judges) are named in a warning: Harbor passes nothing else.

The result's warnings (``details.warnings``: a misspelt row key that leaves a row weighing 0…) are
printed with the reward. Kept afterwards: with ``--out DIR`` everything in DIR, with ``--keep`` the
whole temp folder, otherwise only the documents of ``/logs/verifier`` (the sandbox's copies of the
deliverables and the tests are removed); the last line says where. The judge's venv is cached per
judge wheel, extras and Python (`dryrun.judge_home_name`), not per task; two runs at once share the
cache under file locks (`cowork_judge.install.cachelock`): one installs, the other waits, naming it.

Exit status: 0 a reward was written and the judge finished cleanly; 1 test.sh left no reward, only
its failure path's reward, the judge's own reward with an ``exit_code``, or a reward without
``result.json`` (a test.sh that does not run the judge; the message says which); 2 bad input (no
tests/test.sh or Harbor's placeholder one, no rubric, no task.toml, a task's tests/ folder given as the task, a
missing rollout or a file given as one, a task folder (or one holding the task's tests/) given as the rollout, an
``--out`` inside what is copied into it, an unset ``${VAR}`` of ``[verifier.env]``, half a credential pair).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from cowork_judge.commands._args import Parser, UsageError
from cowork_judge.core.exit_status import EXIT_STATUS
from cowork_judge.core.fatal import zeroed_sentence
from cowork_judge.core.hosts import placeholder_host

if TYPE_CHECKING:
    from cowork_judge.install.cachelock import CacheLock
    from cowork_judge.install.dryrun import Outcome, Rollout, Staged, TaskInfo
    from cowork_judge._util.procs import ProcResult
    from cowork_judge.sim import SimServer

EPILOG = """A rollout folder is either the container layout — app/ (copied to /app, deliverables in app/output/)
and/or logs/agent/ (copied to /logs/agent; its trajectory.json, else final_answer.txt or response.txt, holds the
final message), e.g. a Harbor trial's
artifacts/ folder, the trial folder itself, or a folder try --out kept (its app/ and logs/agent/) — or flat: its files are the deliverables (copied to /app/output),
with the final message from --trajectory or --final-message; a chat answer without deliverables needs no
--rollout: --final-message (or --trajectory) alone. A separate verifier sees only the declared
artifacts. The first call for a set of extras downloads their wheels from pip's index (PyPI) into the cache
(~/.cache/cowork-judge, or $COWORK_JUDGE_CACHE / --cache-dir); later calls reuse them and the judge's venv (one
per extras set, shared by tasks; a second call at once waits for the first one's install, naming it). Kept after
the run: the documents of /logs/verifier (--keep: the whole temp folder; --out DIR: everything, in DIR).
Without JUDGE_BASE_URL and JUDGE_API_KEY the built-in simulator judges; one without the other is refused.
OPENAI_API_KEY/OPENAI_BASE_URL count only when task.toml's [verifier.env] passes them (else ignored, said).
JUDGE_* variables set here that task.toml's [verifier.env] does not pass are named (`init --env NAME` adds them).
Exit status: 0 reward written and the judge finished cleanly; 1 no reward, the failure path's reward, or the
judge's own with an exit_code; 2 bad input; 130 / 143 interrupted (Ctrl-C / SIGTERM: the temp folders are removed,
an --out DIR is kept and said to be incomplete)."""

def _say(line: str) -> None:
    print(line, flush=True)


def _warn(line: str) -> None:
    print(f"cowork-judge try: {line}", file=sys.stderr, flush=True)


class _Terminated(BaseException):
    """SIGTERM arrived (`_on_sigterm`): unwinds `_run` so that its ``finally`` removes the temp folders."""


def _on_sigterm(signum: int, _frame: object) -> None:
    """SIGTERM handler: ignore further SIGTERMs during the cleanup and unwind through `_Terminated`.

    Raises:
        _Terminated: always.
    """
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise _Terminated(signum)


def _parser() -> Parser:
    p = Parser(prog="cowork-judge try", epilog=EPILOG,
               description="Run a task's tests/test.sh against a rollout the way Harbor's verifier would, without Docker: "
                           "in a bubblewrap sandbox, the judge installed from a local package index, the simulator as the "
                           "endpoint unless JUDGE_BASE_URL/JUDGE_API_KEY are set.")
    p.add_argument("task_dir", type=Path, help="the Harbor task folder (task.toml, tests/test.sh, tests/rubric.json)")
    p.add_argument("--rollout", type=Path, help="the rollout folder (see below); a chat task without deliverables may "
                   "leave it out and give only --final-message or --trajectory")
    msg = p.add_mutually_exclusive_group()
    msg.add_argument("--trajectory", type=Path, help="flat rollout: the agent's ATIF trajectory.json (→ /logs/agent)")
    msg.add_argument("--final-message", type=Path, help="flat rollout: the agent's final chat message as a text file")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--index-url", help="install the judge from this PEP 503 index (downloaded on the host, that index "
                     "alone) instead of building this checkout's wheel")
    src.add_argument("--wheel", type=Path, help="install this cowork-judge wheel file")
    p.add_argument("--version", dest="judge_version", help="with --index-url: the judge version (default: the task's "
                   "COWORK_JUDGE_VERSION, else the one baked into its test.sh)")
    p.add_argument("--out", type=Path, help="a new or empty folder where /app, /logs and /tests are laid out, all kept "
                   "(a folder that holds anything is refused: give a new one per run; default: a new temp folder of "
                   "which only /logs/verifier's documents are kept)")
    p.add_argument("--keep", action="store_true", help="keep the whole temp folder (the copies of /app, /logs and /tests "
                   "as test.sh left them), not only the documents")
    p.add_argument("--cache-dir", type=Path, help="the wheel and venv cache (default $COWORK_JUDGE_CACHE or ~/.cache/cowork-judge)")
    p.add_argument("--no-sandbox", action="store_true", help="run test.sh directly on this machine (as without bubblewrap)")
    p.add_argument("--fresh-install", action="store_true", help="install the judge into a new venv (a cold container), "
                   "removed afterwards, instead of reusing the cached one")
    p.add_argument("--timeout", type=float, help="seconds test.sh may run (default: task.toml's [verifier] timeout_sec)")
    return p


def main(argv: list[str]) -> int:
    """Run the command with `argv`; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        if args.judge_version and not args.index_url:
            raise UsageError("--version goes with --index-url (a built or given wheel has its own version)")
        if args.index_url and (reserved := placeholder_host(args.index_url)) is not None:  # trial 42 P-2
            raise UsageError(f"--index-url names {reserved}, a host reserved for examples (RFC 2606), as in the docs' "
                             "step 8: pass the index your fleet installs the judge from, or leave --index-url out")
        if args.rollout is None and args.trajectory is None and args.final_message is None:
            raise UsageError("give --rollout FOLDER (the deliverables), or for a chat answer without deliverables "
                             "--final-message FILE or --trajectory FILE alone")
        if args.timeout is not None and args.timeout <= 0:
            raise UsageError("--timeout must be a positive number of seconds")
    except UsageError as exc:
        _warn(f"error: {exc}")
        return EXIT_STATUS["usage"]
    from cowork_judge.install import dryrun
    from cowork_judge.install.wheels import WheelError

    # a supervisor's SIGTERM (CI, `timeout`) ends `try` as Ctrl-C does: the build and sandbox temp folders
    # removed, one line, exit 143 — not the default action's silent death (-15) that leaks them
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _run(args)
    except _Terminated:
        print("cowork-judge try: stopped (SIGTERM); its temp folders are removed", file=sys.stderr, flush=True)
        return EXIT_STATUS["SIGTERM"]
    except dryrun.TryError as exc:
        _warn(f"error: {exc}")
        return EXIT_STATUS["usage"]
    except (WheelError, OSError) as exc:
        _warn(f"error: {exc}")
        return EXIT_STATUS["not_clean"]


def _run(a: argparse.Namespace) -> int:
    from cowork_judge.install import dryrun, sandbox
    from cowork_judge.install.local_index import PackageIndex
    from cowork_judge.install.wheels import cache_root
    from cowork_judge._util.given_paths import tidy_absolute
    from cowork_judge._util.procs import run_command

    task, rollout = _task_and_rollout(a)
    cache = tidy_absolute((a.cache_dir or cache_root()).expanduser())
    use_bwrap = _announce_sandbox(a.no_sandbox)
    out = tidy_absolute(a.out or tempfile.mkdtemp(prefix="cowork-judge-try-"))  # trial 22 P-2: no tasks/../out
    caller_env = dict(os.environ)  # what the caller set, before the dry run's own settings
    host_env = dict(os.environ)  # the environment of the host that runs `harbor`, plus the dry run's own settings below
    scratch = Path(tempfile.mkdtemp(prefix="cowork-judge-try-build-"))
    server = index = home_lock = None
    staged = None
    ran = False
    try:
        server = _endpoint(host_env, task.env_templates)
        # refuse now what Harbor would refuse, before a wheel is built (the version is injected below)
        dryrun.resolve_verifier_env(task.env_templates, {"COWORK_JUDGE_VERSION": "0", **host_env})
        path = sandbox.SANDBOX_PATH if use_bwrap else host_env.get("PATH", os.defpath)
        wheel, verifier_env, files, python = _judge_and_dependencies(a, task, host_env, path, cache, scratch)
        _warn_dropped(dryrun.dropped_variables(caller_env, verifier_env), caller_env)
        index = PackageIndex(scratch / "index", files)
        for key in ("PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX"):
            verifier_env.pop(key, None)
        verifier_env.update(COWORK_WHEEL_URL=index.url, PIP_INDEX_URL=index.url, PIP_CONFIG_FILE="/dev/null")
        _say(f"  index: {index.url} (COWORK_WHEEL_URL and PIP_INDEX_URL in the verifier; pip's own configuration ignored)")
        _say_trial_index(task, caller_env, verifier_env.get("COWORK_JUDGE_VERSION", ""))
        staged = _stage(task, rollout, out, verifier_env)
        if a.fresh_install:
            home, venv_ready = scratch / "judge-home", None
            home.mkdir(parents=True, exist_ok=True)
        else:
            home, venv_ready = _judge_home(task, cache, wheel, verifier_env, python, use_bwrap)
            home_lock = _lock_judge_home(home, venv_ready)
        kept_home = None if a.fresh_install else home  # a --fresh-install home is removed after the run
        if cache_note := dryrun.verdict_cache_note(verifier_env, sandboxed=use_bwrap, judge_home=kept_home):
            _warn(cache_note)
        argv, env, cwd = _verifier_command(task, staged, home, verifier_env, path, use_bwrap=use_bwrap)
        timeout = a.timeout or task.timeout_sec
        _say(f"  running tests/test.sh (timeout {timeout:.0f} s, [verifier] timeout_sec) …")
        t0 = time.monotonic()
        with _share_once_installed(home_lock, venv_ready):
            proc = run_command(argv, timeout_sec=timeout, env=env, cwd=cwd)
        seconds = time.monotonic() - t0
        ran = True
    except (KeyboardInterrupt, _Terminated):
        from cowork_judge._util import procs
        procs.kill_all()  # test.sh and what it started do not outlive the cleanup below
        if a.out is not None and out.is_dir() and any(out.iterdir()):
            _say(f"kept: {out} (incomplete: interrupted before the judge finished, no result.json; "
                 "remove it or give a new --out)")
        raise
    finally:
        if home_lock is not None:
            home_lock.release()
        if index is not None:
            index.stop()
        if server is not None:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
        if not ran and a.out is None:
            shutil.rmtree(out, ignore_errors=True)  # a refusal or an error: nothing of it was shown, nothing to keep
    if not a.fresh_install:
        dryrun.prune_judge_homes(cache / "judge-homes")
    outcome = dryrun.read_outcome(staged.verifier)
    status = _report(outcome, staged, proc, seconds,
                     _cache_line(outcome, verifier_env, sandboxed=use_bwrap, judge_home=kept_home,
                                 builtin=server is not None), rollout)
    note = simulated_note(outcome) if server is not None else None
    if note:
        _say(note)
    _keep_what_was_asked(out, staged, given_out=a.out is not None, keep=a.keep)
    return status


def _say_trial_index(task: TaskInfo, caller_env: dict[str, str], version: str) -> None:
    """Say, under the ``index:`` line, that a real trial from this shell installs the judge from pip's configured
    index (trial 25 P-5: the dry run injects its own index, so it never shows that): `taskinit.trial_index_warning`,
    for a task whose ``tests/Dockerfile`` does not bake the judge in (`init --image` warns about that one)."""
    from cowork_judge.install import taskinit, verifier_image

    try:
        baked = task.verifier_dockerfile and verifier_image.is_baked(
            (task.tests / "Dockerfile").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        baked = False
    line = taskinit.trial_index_warning(task.env_templates, caller_env, version, baked=baked, who="this shell")
    if line is not None:
        _say(f"  {line}")


def simulated_note(outcome: Outcome) -> str | None:
    """The note said under a reward the built-in simulator judged (trial 14 P1-2: its reward checks the plumbing),
    or None when the run judged no row (trial 16 P-10: a rubric that did not load; the note was noise there) or never
    asked the simulator (trial 26 P-4: nothing delivered, every row decided without a model; ``judge_called`` false)."""
    from cowork_judge.core.simulated import simulated_note as note

    return note(judge_called=outcome.judge_called, judged_rows=outcome.rows - sum(outcome.unjudged.values()))


def _task_and_rollout(a: argparse.Namespace) -> tuple[TaskInfo, Rollout]:
    """The task and the rollout to judge, and say which (a rollout read flat or misread is
    warned about).

    Raises:
        dryrun.TryError: the rollout is the task itself, or --out is inside what is staged,
            not a folder, or not empty.
    """
    from cowork_judge.install import dryrun

    task = dryrun.read_task(a.task_dir, rollout_given=a.rollout)
    rollout = dryrun.read_rollout(a.rollout, trajectory=a.trajectory, final_message=a.final_message)
    dryrun.refuse_task_as_rollout(task, rollout)
    if a.out is not None and (why := dryrun.out_inside_staged(a.out, task.tests, rollout)):
        raise dryrun.TryError(why)
    if a.out is not None and os.path.lexists(a.out) and not a.out.is_dir():
        raise dryrun.TryError(f"--out {a.out}: exists and is not a folder (give a new folder)")
    if a.out is not None and a.out.is_dir() and any(a.out.iterdir()):
        raise dryrun.TryError(f"--out {a.out}: not empty (give a new folder)")
    _say(f"cowork-judge try: {task.tests / 'test.sh'} against {rollout.root}")
    _say(f"  rollout: {rollout.describe()}")
    if rollout.ignored:
        _say(f"  {rollout.ignored}")
    if message_line := dryrun.message_entry_line(rollout):  # trial 25 P-2
        _say(f"  {message_line}")
    if rollout.flat_because:
        _warn(f"{rollout.root} is read as a FLAT rollout (every file under it is a deliverable, copied to /app/output, "
              f"app/ and logs/ included) because {rollout.flat_because}; for the container layout remove the rest")
    if rollout.misread:
        _warn(rollout.misread)
    return task, rollout


ORACLE_CACHE_NOTE = ("(JUDGE_VERDICT_CACHE: an edited oracle is not asked for these; set JUDGE_VERDICT_CACHE=off "
                     "to re-ask)")
"""The verdict cache line's advice, in place of `dryrun.CACHE_OFF_ADVICE` (trial 31 P-2: one piece of advice), when
verdicts were reused and the endpoint is a loopback one (trial 24 P-3): the rehearsal loop "edit the `sim --oracle`
file, run `try` again" does not reach a row the cache answers."""


def _cache_line(outcome: Outcome, verifier_env: dict[str, str], *, sandboxed: bool, judge_home: Path | None,
                builtin: bool) -> str | None:
    """`dryrun.verdict_cache_line`, its advice `ORACLE_CACHE_NOTE` when ``JUDGE_BASE_URL`` in `verifier_env` is a
    loopback URL (a `cowork-judge sim --oracle` the author may have edited) that is not the `builtin` simulator
    (which has no oracle)."""
    from cowork_judge.commands._endpoint import loopback_address
    from cowork_judge.install import dryrun

    oracle = not builtin and loopback_address(verifier_env.get("JUDGE_BASE_URL", "").strip()) is not None
    return dryrun.verdict_cache_line(outcome, verifier_env, sandboxed=sandboxed, judge_home=judge_home,
                                     advice=ORACLE_CACHE_NOTE if oracle else dryrun.CACHE_OFF_ADVICE)


def _verifier_command(task: TaskInfo, staged: Staged, home: Path, verifier_env: dict[str, str], path: str, *,
                      use_bwrap: bool) -> tuple[list[str], dict[str, str], str | None]:
    """``(argv, environment, working folder)`` of Harbor's verifier command line: in the
    bubblewrap sandbox (the staged folders bound at /app, /logs, /tests and the judge home),
    or directly on the host (`path`: its PATH)."""
    from cowork_judge.install import sandbox

    if use_bwrap:
        binds = [sandbox.Bind(staged.app, "/app"), sandbox.Bind(staged.logs, "/logs"), sandbox.Bind(staged.tests, "/tests"),
                 sandbox.Bind(home, sandbox.JUDGE_HOME)]
        argv = sandbox.bwrap_command(sandbox.HARBOR_COMMAND, binds=binds, env=verifier_env, cwd=task.workdir)
        return argv, {"PATH": os.environ.get("PATH", os.defpath)}, None  # bwrap clears it for test.sh
    argv, env = sandbox.plain_command(app=staged.app, logs=staged.logs, tests=staged.tests, judge_home=home,
                                      env=verifier_env, host_path=path)
    return argv, env, str(staged.app)


def _keep_what_was_asked(out: Path, staged: Staged, *, given_out: bool, keep: bool) -> None:
    """Remove the sandbox's copies unless asked to keep them, and say what is kept where.

    ``--out DIR`` keeps all of it in DIR, ``--keep`` all of the temp folder; otherwise only the documents
    of ``/logs/verifier`` stay (the paths printed above), and the copies of ``/app`` (the deliverables, as
    large as they are), ``/tests``, ``/logs/agent`` and the rest are removed.
    """
    if given_out or keep:
        _say(f"kept: {out} (app/, logs/ and tests/ as test.sh left them{'' if given_out else '; remove it when done'})")
        return
    removed = 0
    for child in [*out.iterdir(), *staged.logs.iterdir()]:
        if child in (staged.logs, staged.verifier):
            continue
        removed += _tree_size(child)
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
    _say(f"kept: the documents in {staged.verifier}; the sandbox's copies of /app, /tests and /logs/agent "
         f"({removed / 1e6:.1f} MB) are removed (--keep keeps them, --out DIR keeps everything in DIR)")


def _tree_size(path: Path) -> int:
    """Bytes of the regular files under `path` (symlinks not followed; unreadable entries count 0)."""
    if path.is_symlink() or not path.is_dir():
        try:
            return path.lstat().st_size if path.is_file() and not path.is_symlink() else 0
        except OSError:
            return 0
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            total += st.st_size if stat.S_ISREG(st.st_mode) else 0
    return total


def _judge_home(task: TaskInfo, cache: Path, wheel: Path, verifier_env: dict[str, str], python: str | None,
                use_bwrap: bool) -> tuple[Path, Callable[[], bool]]:
    """(the cached judge home for this judge, extras and Python — shared across tasks, `dryrun.judge_home_name` —,
    a check that test.sh has installed the judge there)."""
    from cowork_judge.install import dryrun
    from cowork_judge.install.wheels import python_version, wheel_digest

    tag = python_version(python) if python else None
    extras = dryrun.pinned_extras(verifier_env)
    version = dryrun.pinned_version(verifier_env, (task.tests / "test.sh").read_text(encoding="utf-8", errors="replace"))
    home = cache / "judge-homes" / dryrun.judge_home_name(wheel_digest(wheel), extras=extras, python_tag=tag,
                                                          sandboxed=use_bwrap)
    home.mkdir(parents=True, exist_ok=True)
    os.utime(home)
    return home, lambda: dryrun.judge_venv_ready(home, version=version, extras=extras, python_tag=tag)


def _lock_judge_home(home: Path, venv_ready: Callable[[], bool]) -> CacheLock:
    """The home's lock: shared when the judge is installed there, exclusive while this run's test.sh may install it;
    waits (naming the other run) while another run installs it."""
    from cowork_judge.install.cachelock import EXCLUSIVE, SHARED, CacheLock

    lock = CacheLock(home, what=f"the judge's venv in {home}", on_wait=_warn)
    return lock.acquire(lambda: SHARED if venv_ready() else EXCLUSIVE)


@contextlib.contextmanager
def _share_once_installed(lock: CacheLock | None, venv_ready: Callable[[], bool] | None) -> Iterator[None]:
    """While test.sh runs under an exclusive home lock: share the lock as soon as test.sh has installed the judge
    (its stamp), so a run waiting for the install reuses the venv while this one is still judging."""
    from cowork_judge.install.cachelock import EXCLUSIVE, POLL_SEC

    if lock is None or venv_ready is None or lock.mode != EXCLUSIVE:
        yield
        return
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(POLL_SEC):
            if venv_ready() and lock.share():
                return

    watcher = threading.Thread(target=watch, name="judge-home-lock", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()


def _announce_sandbox(no_sandbox: bool) -> bool:
    """Whether bubblewrap runs test.sh; says which, loudly when it does not."""
    from cowork_judge.install import sandbox

    why_not = "--no-sandbox was given" if no_sandbox else sandbox.bwrap_missing(python="")
    if why_not is None:
        _say("  sandbox: bubblewrap: /app, /logs, /tests are copies (where they are kept is said at the end); the host's "
             "/usr and /etc read-only "
             "(Python, LibreOffice, Chromium, fonts); the host's network, so 127.0.0.1 reaches the endpoint and the index")
        return True
    _warn("=" * 78)
    _warn(f"NOT SANDBOXED ({why_not}): test.sh runs directly on this machine. How that differs from a trial:")
    for line in sandbox.PLAIN_DIFFERENCES:
        _warn(f"  - {line}")
    _warn("=" * 78)
    return False


def _warn_dropped(names: list[str], caller_env: dict[str, str]) -> None:
    """Name the caller's judge settings that ``[verifier.env]`` does not pass (Harbor passes nothing else);
    a ``JUDGE_*`` name the judge does not read is named as such, with a did-you-mean, never suggested
    for ``init --env`` (trial finding 11)."""
    from cowork_judge.config.judge_config import load_config, unknown_env_problem

    panel_keys = {j.api_key_env for j in load_config(caller_env).config.panel}
    unknown = {n: problem for n in names if n not in panel_keys and (problem := unknown_env_problem(n))}
    for name, problem in unknown.items():
        _warn(f"{name} {problem}: nothing reads it, here or in a trial; fix its name")
    names = [n for n in names if n not in unknown]
    if not names:
        return
    listed = ", ".join(names)
    _warn(f"set here but not passed by task.toml's [verifier.env], so the judge inside (and every Harbor trial) runs "
          f"without them: {listed}. To pass them, add a line NAME = \"${{NAME:-}}\" for each "
          f"(`cowork-judge init {' '.join('--env ' + n for n in names)} <task>` writes them; see docs/guard.md, "
          "docs/sampling.md)")


CREDENTIAL_FALLBACKS = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
"""The fallbacks of JUDGE_API_KEY/JUDGE_BASE_URL the judge reads from its own environment."""


def judge_credentials(templates: dict[str, str], host_env: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """What the judge inside the verifier reads for its endpoint, and the fallbacks of the shell it never sees.

    Harbor gives the verifier ``[verifier.env]`` and nothing else (trial 21 P-7): an ``OPENAI_*`` fallback
    (`CREDENTIAL_FALLBACKS`) reaches the judge only when `templates` has a line of that name, and then with
    the value that line resolves to from `host_env` (`dryrun.resolve_verifier_env`; a ``${VAR}`` whose VAR is
    unset is left out here: Harbor's refusal of it is said after the endpoint). ``JUDGE_*`` are read from
    `host_env` as they are (the half-pair refusal stays; `_stage` warns when the task does not pass them).

    Returns:
        (`host_env` with its ``OPENAI_*`` fallbacks replaced by the ones the task passes; the names of the
        non-empty ``OPENAI_*`` fallbacks of `host_env` whose value does not reach the judge, in
        `CREDENTIAL_FALLBACKS` order).
    """
    from cowork_judge.install.dryrun import TryError, resolve_verifier_env

    passed: dict[str, str] = {}
    for name in CREDENTIAL_FALLBACKS:
        if name in templates:
            with contextlib.suppress(TryError):
                passed.update(resolve_verifier_env({name: templates[name]}, host_env))
    judge_env = {k: v for k, v in host_env.items() if k not in CREDENTIAL_FALLBACKS} | passed
    ignored = [n for n in CREDENTIAL_FALLBACKS if host_env.get(n, "").strip() and passed.get(n) != host_env[n]]
    return judge_env, ignored


def _endpoint(host_env: dict[str, str], templates: dict[str, str]) -> SimServer | None:
    """The judge endpoint: the caller's, else a started simulator (returned, to stop); jitters 0 unless set.

    Decided from what the judge inside would read (`judge_credentials`): an ``OPENAI_*`` fallback of the shell
    that task.toml's ``[verifier.env]`` (`templates`) does not pass is ignored, said in one line when the
    simulator judges instead (trial 21 P-7).

    Raises:
        TryError: half a credential pair (a URL without a key, or a key without a URL; a gateway
            that injects the key counts as a key, ``JUDGE_GATEWAY_AUTH``; a URL the configuration
            ignores, not an http(s) URL with a host, counts as none): a trial would refuse it
            (``JUDGE_API_KEY = "${JUDGE_API_KEY}"``) or end ``judge:no_credential``, and quietly
            judging with the simulator instead would hide that. A missing half the task does not pass is
            named as such, never advised as a shell setting. A loopback URL nothing listens at
            (`nothing_listens`: a stopped ``cowork-judge sim``), with the command that starts it.
    """
    from cowork_judge.commands._endpoint import (HalfCredentials, caller_endpoint, endpoint_cost_note, nothing_listens,
                                                  resolved_endpoint, simulator_note, start_simulator)
    from cowork_judge.install.dryrun import TryError
    from cowork_judge.safety.redact import mask_url

    judge_env, ignored = judge_credentials(templates, host_env)
    server = None
    try:
        own = caller_endpoint(judge_env)
    except HalfCredentials as exc:
        why = ("Harbor refuses a trial whose [verifier.env] needs an unset variable, else the judge ends "
               "judge:no_credential" if exc.unset else "the judge ends judge:no_credential")  # trial 29 P-2
        raise TryError(exc.message(f"a trial would not reach your endpoint ({why})", passed=exc.lack in templates)) from None
    if not own:
        if ignored:
            _warn(f"{' and '.join(ignored)} in your shell {'is' if len(ignored) == 1 else 'are'} not passed to the "
                  "verifier by task.toml's [verifier.env]: ignored; judging with the built-in simulator")
        server = start_simulator(host_env)
        _say(f"  endpoint: no JUDGE_BASE_URL/JUDGE_API_KEY set: the built-in simulator at {server.url} "
             f"({simulator_note(host_env)})")
    else:  # the URL the judge resolved and its variable, never an empty JUDGE_BASE_URL= (trial finding 12)
        from cowork_judge.config.judge_config import load_config

        url, source = resolved_endpoint(judge_env)
        _say(f"  endpoint: {source}={mask_url(url)} ({endpoint_cost_note(url)})")
        if refusal := nothing_listens(url, source):  # trial 23 P-6: said now, not after 30 s of retries
            raise TryError(refusal)
        api_key = load_config(judge_env).config.api_key
        _name_the_simulator(host_env, templates, url, api_key.get_secret_value() if api_key is not None else "")
    for key in ("JUDGE_START_JITTER", "JUDGE_WORKFLOW_START_JITTER"):
        host_env.setdefault(key, "0")
    _say("  start jitter: 0 s unless set (the fleet's spread, 180 s and 30 s, only delays a single run)")
    return server


def _name_the_simulator(host_env: dict[str, str], templates: dict[str, str], url: str, key: str) -> None:
    """A rehearsal against ``cowork-judge sim`` (trial 25 P-3): when ``JUDGE_MODEL`` is unset in `host_env`, the task
    passes it (`templates`) and the loopback endpoint `url` answers as the simulator (`_endpoint.simulator_model`),
    set ``JUDGE_MODEL`` to the simulator's model, so the result's ``judge_model`` and the report page name a
    simulator, not task.toml's default model; said in one line. A real endpoint is never touched."""
    from cowork_judge.commands._endpoint import simulator_model
    from cowork_judge.install.taskinit import declared_default

    if host_env.get("JUDGE_MODEL", "").strip() or "JUDGE_MODEL" not in templates:
        return
    model = simulator_model(url, key)
    if model is None:
        return
    host_env["JUDGE_MODEL"] = model
    default = declared_default(templates["JUDGE_MODEL"], "JUDGE_MODEL") or "the judge's default"
    _say(f"  model: the endpoint answers as `cowork-judge sim` (its /v1/models) and JUDGE_MODEL is unset, so the run "
         f"asks for its model {model!r} and records it as judge_model (a simulator judged, not {default})")


def _judge_and_dependencies(a: argparse.Namespace, task: TaskInfo, host_env: dict[str, str], path: str, cache: Path,
                            scratch: Path) -> tuple[Path, dict[str, str], list[Path], str | None]:
    """(the judge's wheel, the resolved verifier environment, every wheel the local index serves, the verifier's
    Python or None)."""
    from cowork_judge.install import dryrun, wheels
    from cowork_judge.install.template import TemplateError, baked_version

    if a.wheel is not None:
        source = wheels.JudgeSource("wheel", str(Path(a.wheel).absolute()))
    elif a.index_url:
        source = wheels.JudgeSource("index", a.index_url)
    else:
        found = wheels.find_judge_source()
        if found is None:
            raise dryrun.TryError("this cowork-judge was installed from an index, so there is no checkout to build a "
                                  "wheel from: pass --index-url (the index your fleet installs from) or --wheel")
        source = found
    if source.kind == "checkout":
        _say(f"  judge: building the wheel of {source.describe().removeprefix('built from ')} …")
        wheel = wheels.build_wheel(Path(source.location), scratch / "wheel")
    elif source.kind == "wheel":
        wheel = Path(source.location)
        if not wheel.is_file():
            raise dryrun.TryError(f"--wheel {wheel}: no such file")
    if source.kind != "index":
        version = wheels.wheel_version(wheel)
        _warn_ignored_version(host_env.get("COWORK_JUDGE_VERSION"), version, f"cowork-judge {version}, {source.describe()}")
        host_env.update(COWORK_JUDGE_VERSION=version, COWORK_JUDGE_VERSION_SOURCE="injection")
        _say(f"  judge: cowork-judge {version}, {source.describe()} (injected as COWORK_JUDGE_VERSION={version}, "
             "as a fleet injects a version)")
    verifier_env = dryrun.resolve_verifier_env(task.env_templates, host_env)
    python = dryrun.verifier_python(verifier_env, path)
    if source.kind == "index":
        try:
            version = (a.judge_version or verifier_env.get("COWORK_JUDGE_VERSION")
                       or baked_version((task.tests / "test.sh").read_text(encoding="utf-8")))
        except (OSError, TemplateError) as exc:
            raise dryrun.TryError(f"no judge version: the task sets no COWORK_JUDGE_VERSION and its test.sh has none "
                                  f"({exc}); pass --version") from None
        if python is None:
            raise dryrun.TryError("no Python >= 3.10 for the verifier on its PATH, so no wheel can be chosen for it")
        if a.judge_version:
            _warn_ignored_version(host_env.get("COWORK_JUDGE_VERSION"), version, f"--version {version}")
        wheel = wheels.download_judge(source.location, version, python=python, cache=cache, on_wait=_warn)
        verifier_env.update(COWORK_JUDGE_VERSION=version)
        _say(f"  judge: cowork-judge {version} {source.describe()} (that index alone)")
    if python is None:
        _warn("no Python >= 3.10 on the verifier's PATH: test.sh will take its failure path")
        return wheel, verifier_env, [wheel], None
    extras = tuple(e for e in verifier_env.get("COWORK_JUDGE_EXTRAS", "").replace(" ", "").split(",") if e)
    label = f"cowork-judge[{','.join(extras)}]" if extras else "cowork-judge"
    _say(f"  dependencies: the Python {wheels.python_version(python)} wheels of {label} (COWORK_JUDGE_EXTRAS) from "
         f"the cache {cache / 'wheels'}; the first call for a set of extras downloads them with pip (PyPI) …")
    t0 = time.monotonic()
    deps, downloaded = wheels.download_dependencies(
        wheel, extras, python=python, cache=cache, extra_index_url=source.location if source.kind == "index" else None,
        on_wait=_warn)
    dep_files = sorted(deps.glob("*.whl"))
    _say(f"  dependencies: {len(dep_files)} wheels " + (f"downloaded in {time.monotonic() - t0:.0f} s" if downloaded
                                                      else "reused (no download)") + f" → {deps}")
    return wheel, verifier_env, [wheel, *dep_files], python


def ignored_version_warning(shell_value: str | None, version: str, chosen_by: str) -> str | None:
    """The warning for a ``COWORK_JUDGE_VERSION`` set in the caller's environment that this dry run does not use
    (trial 11 F10: `try` injects the judge it installs, as a fleet injects a version, and said nothing), or None
    when none is set (empty counts as unset) or it names `version` anyway.

    Args:
        shell_value: the caller's ``COWORK_JUDGE_VERSION`` (None: unset).
        version: the judge version the run installs and injects.
        chosen_by: what chose `version` (``"cowork-judge 2.0.0, built from …"``, ``"--version 2.0.0"``).
    """
    if shell_value is None or not shell_value.strip() or shell_value.strip() == version:
        return None
    wanted = shell_value.strip()
    how = (f"--version {shlex.quote(wanted)} tries that one" if chosen_by.startswith("--version") else
           f"to try that version, pass --index-url URL --version {shlex.quote(wanted)} (the index your fleet installs the "
           "judge from)")
    return f"warning: COWORK_JUDGE_VERSION={wanted!r} in your environment is ignored: this run judges with {chosen_by}; {how}"


def _warn_ignored_version(shell_value: str | None, version: str, chosen_by: str) -> None:
    """Print `ignored_version_warning`'s line, when there is one."""
    line = ignored_version_warning(shell_value, version, chosen_by)
    if line is not None:
        _warn(line)


def _stage(task: TaskInfo, rollout: Rollout, out: Path, verifier_env: dict[str, str]) -> Staged:
    """Lay out the run's folders and say what a trial would see differently."""
    from cowork_judge.install import dryrun

    if task.verifier_dockerfile:
        _say("  note: tests/Dockerfile is not built: the host's /usr stands for the verifier image (its RUN lines do "
             "not run; a judge baked in by `init --image` is installed from the local index instead)")
    staged = dryrun.stage(task, rollout, out, response_file=verifier_env.get("JUDGE_RESPONSE_FILE") or None)
    if task.separate:
        _say(f"  separate verifier: only the artifacts are copied ({', '.join(task.artifacts) or 'none declared'})"
             + (", and the agent's final-message files as init's [[verifier.collect]] hook copies them" if task.collect_agent
                else ""))
        for command in task.collect_other:
            _warn(f"the task's [[verifier.collect]] hook `{command[:120]}` is not run by a dry run: what it would carry "
                  "to the verifier is missing here")
    for line in staged.warnings:
        _warn(line)
    for line in _left_out_lines(staged):
        _warn(line)
    if not staged.placed:
        _warn("nothing of the rollout reaches the verifier: it will judge an empty delivery")
    if "JUDGE_BASE_URL" not in verifier_env:
        _warn("task.toml's [verifier.env] does not pass JUDGE_BASE_URL: the judge inside sees no endpoint "
              "(`cowork-judge init` writes the passthrough)")
    return staged


def _left_out_line(left: str) -> str:
    """The warning for a path of the rollout a separate verifier does not see (`Staged.left_out`)."""
    return f"{left} of the rollout is not an artifact of this task: a separate verifier does not see it"


def _left_out_lines(staged: Staged) -> list[str]:
    """The warnings for what of the rollout the judge does not see: each `Staged.left_out` path, then the files
    left directly in its ``app/`` with the ``mv`` that fixes it (`Staged.stray_app`, trial 35 P-4)."""
    return [_left_out_line(left) for left in staged.left_out] + ([staged.stray_app] if staged.stray_app else [])


UNJUDGED_SHOWN = 8
"""How many unjudged rows `_say_unjudged` names under the reward (the rest are in result.json)."""


def _say_unjudged(outcome: Outcome) -> None:
    """Name each unjudged row with its kind and reason under the reward (trial 19 P-4: the reason of a
    rubric fault such as ``code_params`` was only in result.json)."""
    for rid, kind, reason in outcome.unjudged_rows[:UNJUDGED_SHOWN]:
        text = reason if len(reason) <= 300 else reason[:299] + "…"
        _say(f"  not judged: {rid} ({kind}): {text}" if text else f"  not judged: {rid} ({kind})")
    if len(outcome.unjudged_rows) > UNJUDGED_SHOWN:
        _say(f"  … and {len(outcome.unjudged_rows) - UNJUDGED_SHOWN} more unjudged row(s) in result.json")


def _say_closed_gates(outcome: Outcome) -> None:
    """Name each positive code gate that missed and the rows it closed (trial 32 P-2: a forgotten ``--rollout``
    or a folder of two decks gave reward 0, coverage 1 and no reason outside result.json)."""
    for gid, reason, n in outcome.closed_gates:
        text = reason if len(reason) <= 160 else reason[:159] + "…"
        _say(f"  gate {gid} missed: {text}; {n} row(s) depend on it")


def _say_documents(outcome: Outcome, verifier: Path) -> None:
    """List the documents of `verifier` (``/logs/verifier`` on the host) and, when it holds a result.json, the
    ``cowork-judge report`` command that makes its page (trial 21 P-6: the author's path never named it)."""
    from cowork_judge.core.layout import REPORT_PAGE_NAME, RESULT_NAME

    _say(f"documents ({verifier}):")
    for name, path in outcome.documents.items():
        _say(f"  {name:<22} {path}")
    if RESULT_NAME in outcome.documents:
        _say(f"report page: cowork-judge report {shlex.quote(str(verifier))} (writes {REPORT_PAGE_NAME} there: each "
             "row's verdict and reason, the final message the judge read, a deck's rendered pages)")


NO_MODEL = ("every row was decided without a model (the reward is the agent's 0, and the coverage above says nothing "
            "about the rubric)")
"""What a run with nothing delivered means for the reward and the coverage, said in each "nothing delivered" line."""


def empty_message(rollout: Rollout | None) -> str | None:
    """How the final message of `rollout`'s ``--final-message``/``--trajectory`` file (`Rollout.message_given`) is
    empty, as the judge reads it (trial 22 P-6): ``--final-message a.txt is empty (0 bytes)`` (or "N bytes of white
    space"), ``--trajectory t.json holds no final message (…)``; None when no option gave the message, it holds
    text, or it cannot be read here."""
    from cowork_judge.run.answer import MAX_TRAJECTORY_BYTES, atif_final_message

    given = rollout.message_given if rollout is not None else None
    if rollout is None or given is None:
        return None
    host = rollout.files.get("/logs/agent/trajectory.json", given)
    try:
        if host.stat().st_size > MAX_TRAJECTORY_BYTES:
            return None
        data = host.read_bytes()
    except OSError:
        return None
    text = data.decode("utf-8", errors="replace")  # as the judge reads it: undecodable bytes as U+FFFD
    if rollout.message_as_text:
        size = "0 bytes" if not data else f"{len(data)} bytes of white space"
        return None if text.strip() else f"--final-message {shlex.quote(str(given))} is empty ({size})"
    try:
        if atif_final_message(json.loads(text)):
            return None
    except (ValueError, RecursionError):  # not JSON or not ATIF: the judge's own warning names it, not this line
        return None
    return (f"--trajectory {shlex.quote(str(given))} holds no final message (no step with source 'agent' has a "
            "non-empty message)")


def _say_nothing_delivered(outcome: Outcome, staged: Staged, rollout: Rollout | None) -> None:
    """The "nothing delivered" line of a run whose result says ``delivery_missing``: the output files set aside
    (trial 7 F1), an empty ``--final-message``/``--trajectory`` (trial 22 P-6), a final message the judge found
    and did not judge (``details.delivery.final_message_source`` set: JUDGE_CHAT_FALLBACK off), the agent logs'
    unread files (trial 21 P-3), else where to look."""
    empty = empty_message(rollout)
    unjudged = unjudged_message(outcome)
    if outcome.set_aside:  # trial 7 F1: named, not "check --rollout"
        _warn(f"nothing delivered: the judge read none of the rollout's output files — {', '.join(outcome.set_aside[:5])}"
              f"{' …' if len(outcome.set_aside) > 5 else ''} — so {NO_MODEL}; put the deliverable itself in the rollout "
              "(cp -L copies the file a link points at), not a link or an empty file"
              + (f"; {empty}, so no final message was judged either" if empty else "")
              + (f"; {unjudged}" if unjudged else ""))
    elif unjudged:  # the message reached the judge and was set aside on purpose: no plumbing to check
        _warn(f"nothing delivered: no output file, and {unjudged}, so {NO_MODEL}")
    elif empty and rollout is not None:  # the file was read: no plumbing to check
        files = "" if rollout.layout == "message" else " and no output file reached the judge"
        _warn(f"{empty}{files}: judged as nothing delivered, so {NO_MODEL}")
    else:  # trial 5 F6: a perfect coverage of nothing
        _warn(f"nothing delivered: no output file and no final message reached the judge, so {NO_MODEL}; "
              + (staged.unread_agent or "check --rollout, --final-message or --trajectory"))  # trial 21 P-3: named


def unjudged_message(outcome: Outcome) -> str | None:
    """What try says of a final message the judge found but did not judge (a result with ``delivery_missing`` and a
    ``details.delivery.final_message_source``: the judge sets nothing delivered beside a message only when
    JUDGE_CHAT_FALLBACK is off), e.g. ``the final message (read from trajectory) is not judged (JUDGE_CHAT_FALLBACK
    is off: …)``; None when the result names no message source or delivered something."""
    if not outcome.delivery_missing or outcome.final_message_source is None:
        return None
    return (f"the final message (read from {outcome.final_message_source}) is not judged (JUDGE_CHAT_FALLBACK is off: "
            "a run without output files is nothing delivered; unset it, or set it to 1, to judge the message)")


def oracle_gap_message(outcome: Outcome) -> str | None:
    """The warning for rows a simulator's oracle has no entry for (trial 26 P-3: a mistyped key in ``sim --oracle
    FILE`` judged the row a miss, the reward silently lower), read from the result's rows (`Outcome.not_in_oracle`),
    e.g. ``the oracle has no entry for row(s) A-FORMULA (did you mean 'A-FORMULAS'?) (judged a miss): …``;
    a hurdle or deduction row's miss is said as "no fault found", the reward maybe higher (trial 27 P-1);
    None when no row says so."""
    if not outcome.not_in_oracle:
        return None
    named = ", ".join(row_id + hint for row_id, hint, _fault in outcome.not_in_oracle)
    misses = [row_id for row_id, _hint, fault in outcome.not_in_oracle if not fault]
    faults = [row_id for row_id, _hint, fault in outcome.not_in_oracle if fault]
    lower, higher = ("as misses (the reward is lower than the oracle meant)",
                     "as no fault found (a hurdle does not fire, a deduction is not taken; the reward may be higher "
                     "than the oracle meant)")
    if not faults:
        counts = f"these rows {lower}"
    elif not misses:
        counts = f"these hurdle/deduction rows {higher}"
    else:
        counts = f"{', '.join(misses)} {lower} and the hurdle/deduction row(s) {', '.join(faults)} {higher}"
    return (f"the oracle has no entry for row(s) {named} (judged a miss): check the oracle's keys against the "
            f"rubric's row ids; the reward above counts {counts}")


def unshown_quote_message(outcome: Outcome) -> str | None:
    """The warning for rows whose ``sim --oracle`` quote the judge's request did not show (trial 33 P-1: the simulator
    quoted a line it showed instead, so a paraphrased or mistyped quote grounded with no word of it), read from the
    result's reasons (`Outcome.unshown_quotes`); None when no row says so."""
    if not outcome.unshown_quotes:
        return None
    return (f"the oracle's quote of row(s) {', '.join(outcome.unshown_quotes)} is not in the agent's text the judge "
            "sent (not verbatim in the deliverable or final message, or on another page; a file listing does not count): the simulator quoted a line it was "
            "shown instead, so the credit grounded here, while a real judge's quote that is not in the text sent is "
            "withdrawn (grounded: false). Copy the quote verbatim from the deliverable (docs/simulator.md)")


def _say_fatal(outcome: Outcome) -> None:
    """The ``fatal:`` line when a hurdle zeroed the reward (trial 17 P-2: as the report page says it), else nothing."""
    if outcome.fatal:
        kinds = {r: k for r, k, _ in outcome.unjudged_rows}
        _say("fatal: " + zeroed_sentence(outcome.fatal_rows, nothing_delivered=outcome.delivery_missing, unjudged=kinds))


def _report(outcome: Outcome, staged: Staged, proc: ProcResult, seconds: float, cache_line: str | None = None,
            rollout: Rollout | None = None) -> int:
    verifier = staged.verifier
    _say(f"test.sh finished in {seconds:.0f} s" + (" (STOPPED at the timeout: Harbor would record a verifier timeout)"
                                                  if proc.timed_out else ""))
    if proc.error or (proc.returncode not in (0, 1, None) and not outcome.reward_text):
        _warn(f"the sandbox failed: {proc.error or (proc.stderr or proc.stdout).strip()[-500:]}")
    errored = outcome.status == "error"  # trial 39 P-2: an error's status comes before the hurdle it zeroed
    if outcome.reward_text:
        _say(f"reward: {outcome.reward_text}")
        if not errored:
            _say_fatal(outcome)
    if outcome.status is not None:
        cov = f"{outcome.coverage:.3f}" if outcome.coverage is not None else "n/a"
        unjudged = sum(outcome.unjudged.values())
        detail = f" ({outcome.rows - unjudged} of {outcome.rows} rows judged" + (
            "; unjudged: " + ", ".join(f"{k} {v}" for k, v in sorted(outcome.unjudged.items())) if unjudged else "") + ")"
        _say(f"status: {outcome.status}   coverage: {cov}{detail if outcome.rows else ''}")
        if errored and outcome.reward_text:
            _say_fatal(outcome)
        _say_unjudged(outcome)
        _say_closed_gates(outcome)
    if cache_line and outcome.status is not None:  # trial 15 P-5: reused verdicts are said with the reward
        _say(cache_line)
    if outcome.delivery_missing and not outcome.exit_code:
        _say_nothing_delivered(outcome, staged, rollout)
    # said before the run as well: repeated where the reward is read (trial 7 F1, F5; a misread folder: trial 34 P-2)
    said = ([rollout.misread] if rollout is not None and rollout.misread else []) + staged.warnings
    if outcome.closed_gates or outcome.delivery_missing:  # what the delivery missed may be what was left out (P-2)
        said += _left_out_lines(staged)
    for line in said:
        _warn(f"(said of the rollout before the run) {line}")
    if outcome.warnings:
        _say(f"warnings ({len(outcome.warnings)}, result.json details.warnings: read them before trusting the reward):")
        for line in outcome.warnings:
            _say(f"  - {line}")
    if (gap := oracle_gap_message(outcome)) is not None:
        _warn(gap)
    if (unshown := unshown_quote_message(outcome)) is not None:
        _warn(unshown)
    _say_documents(outcome, verifier)
    if not outcome.reward_text:
        _warn(f"test.sh left no reward ({verifier / 'reward.txt'} is missing): Harbor would fail this trial "
              f"(RewardFileNotFoundError). See {verifier / 'test-stdout.txt'}")
        return EXIT_STATUS["not_clean"]
    if outcome.reward_text == "SKIPPED":
        _say("note: SKIPPED (JUDGE_SKIP): Harbor records the trial as an error and leaves it out of the mean")
    logs = " and ".join(str(verifier / n) for n in ("test-sh.log", "install.log", "test-stdout.txt") if (verifier / n).is_file())
    if not outcome.clean and outcome.status is None:
        _warn(f"test.sh wrote a reward but no result.json, so the judge did not run (not the test.sh `cowork-judge init` "
              f"writes? a custom one that does not call it?); Harbor would take this reward as it is. See {logs or verifier}")
        return EXIT_STATUS["not_clean"]
    if not outcome.clean:
        reason = f"{outcome.exit_code}: {outcome.exit_reason}" if outcome.exit_code else f"status {outcome.status}"
        if outcome.failure_path:
            whose = ("the judge left no reward, so the reward above is test.sh's failure path (0, "
                     "or SKIPPED under JUDGE_SKIP) with the exit code it inferred from the logs")
        elif outcome.rows - sum(outcome.unjudged.values()) <= 0:
            whose = (f"the reward above is the judge's own, but it judged no row (0 rows judged"
                     f"{f' of {outcome.rows}' if outcome.rows else ''}), so it says nothing about the deliverables; "
                     "it set exit_code, so a fleet masks this trial by it")
        else:
            whose = ("the reward above is the judge's own: it scored the rows it could judge (an unjudged row counts "
                     "as a miss, a deduction or hurdle as hit) and set exit_code, so a fleet masks this trial by it")
        _warn(f"the judge did not finish cleanly ({reason}); {whose}. See {logs or verifier}")
        return EXIT_STATUS["not_clean"]
    return EXIT_STATUS["clean"]
