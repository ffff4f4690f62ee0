"""``cowork-judge try``: a task's own ``tests/test.sh`` against one rollout, as Harbor's verifier runs it.

A dry run before a fleet does: the task folder is read as Harbor reads it (`read_task`: ``tests/``,
``task.toml``'s ``[verifier]`` timeout, ``[verifier.env]``, whether the verifier runs in a separate
container and which ``artifacts`` it then sees), the rollout is laid out at ``/app`` and
``/logs/agent`` (`read_rollout`, `stage`), the verifier environment is ``[verifier.env]`` with its
``${VAR}`` / ``${VAR:-default}`` templates resolved from the caller's environment exactly as Harbor
0.26 does (`resolve_verifier_env`), and ``test.sh`` runs in a sandbox (`sandbox`) whose pip reaches
only a local index of the judge's wheels (`wheels`, `local_index`). `read_outcome` reads what it left.

**A rollout folder** (`ROLLOUT_HELP`) is one of:

- *container layout*: it holds ``app/`` (copied to ``/app``; the deliverables are in ``app/output/``)
  and/or ``logs/agent/`` (copied to ``/logs/agent``: ``trajectory.json`` carries the agent's final
  message) and nothing else but ``manifest.json``. The repository's ``examples/rollouts/*`` and the
  ``artifacts/`` folder of a Harbor trial have this shape; a Harbor trial folder itself (with
  ``artifacts/`` and ``result.json``) is read through its ``artifacts/``;
- *kept*: a folder ``try --out`` laid out (`kept_try_folder`: ``app/``, ``logs/``, ``tests/`` and
  `TRY_MARKER`, or the shape of a run): its ``app/`` and ``logs/agent/`` only, the previous run's
  ``tests/`` and ``logs/verifier/`` ignored;
- *flat*: any other folder: its files are the deliverables (copied to ``/app/output``). The agent's
  final message then comes from ``--trajectory FILE`` (an ATIF ``trajectory.json``) or
  ``--final-message FILE`` (plain text, written as a one-step ATIF trajectory).

For a separate verifier (``[verifier] environment_mode = "separate"``) only the declared
``artifacts`` (and Harbor's ``/logs/artifacts``) are copied, as Harbor re-creates them.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from cowork_judge import __version__
from cowork_judge._util.fsutil import copy_sparse
from cowork_judge.core.fatal import fatal_rows
from cowork_judge.core.layout import ANSWER_NAMES, MESSAGE_NAMES, TRAJECTORY_NAME
from cowork_judge.install import agent_logs, solve_script, stray_app
from cowork_judge.install.solve_script import CopyCommand
from cowork_judge._util.given_paths import absolute, close_sibling, in_task_folder, not_a_folder, parent_of, shown_task, task_part

HARBOR_DEFAULT_TIMEOUT_SEC = 600.0
"""Harbor 0.26's ``[verifier] timeout_sec`` default (``harbor.models.task.config.VerifierConfig``)."""
HARBOR_CONVENTION_ARTIFACT = "/logs/artifacts"
"""The folder Harbor always collects for a separate verifier, besides the declared artifacts."""
ROLLOUT_EXTRA_NAMES = frozenset({"manifest.json"})
TRY_MARKER = "cowork-judge-try.json"
"""The file `stage` writes at the top of the folder it lays out (``try --out DIR``): it names the command, so the
folder, kept, is read back as a rollout (`kept_try_folder`) rather than flat."""
KEPT_IGNORED = ("tests", "logs/verifier", "logs/artifacts")
"""What a kept ``try --out`` folder holds that is not the rollout: the previous run's tests (its rubric), verdicts
and the artifacts copy."""
"""Top-level names a container-layout rollout may hold besides ``app/`` and ``logs/`` (Harbor's artifacts folder)."""
DOCUMENTS = ("reward.txt", "reward.json", "result.json", "reward-details.json", "ctrf.json", "test-sh.log", "judge.log",
             "install.log", "env_capabilities.json", "test-stdout.txt", "judge_verdict.json", "reward_exit_message.json")
"""Files of ``/logs/verifier`` the command reports, in order."""
DOCUMENT_FOLDERS = ("evidence", "judge")
"""Folders of ``/logs/verifier`` the command reports after the files (trial 20 P-4): ``evidence/`` (the
rendered pages ``cowork-judge report`` shows), ``judge/`` (the judge's audit)."""
FAILURE_PATH_LINE = "cowork-judge/test.sh: no reward from the judge:"
"""What ``templates/test.sh``'s failure path (``finish_failed``) writes to ``test-sh.log`` before its own 0 reward."""
_TEMPLATE = re.compile(r"\$\{([^}:]+)(?::-(.*))?\}")
"""Harbor 0.26's whole-value template (``harbor.utils.env._TEMPLATE_PATTERN``)."""

ROLLOUT_HELP = ("a folder holding app/ (copied to /app; deliverables in app/output/) and/or logs/agent/ (copied to "
                "/logs/agent), such as a Harbor trial's artifacts/ folder or the trial folder itself; any other folder is "
                "flat: its files are the deliverables, copied to /app/output")


class TryError(Exception):
    """Bad input to a dry run (task folder, rollout, task.toml, environment): exit status 2."""


@dataclass
class TaskInfo:
    """What a dry run reads from a task folder (`read_task`).

    Attributes:
        root: the task folder.
        tests: its ``tests/`` folder (holds ``test.sh`` and ``rubric.json``).
        env_templates: ``[verifier.env]`` as written (values may be ``${VAR:-default}`` templates).
        timeout_sec: ``[verifier] timeout_sec`` (Harbor's default 600 s when absent).
        separate: the verifier runs in its own container (sees only `artifacts`).
        artifacts: the declared artifact source paths (absolute, inside the container).
        workdir: ``[environment] workdir`` (default ``/app``): test.sh's working directory.
        verifier_dockerfile: ``tests/Dockerfile`` exists (Harbor would build the verifier from it).
        collect_agent: ``[[verifier.collect]]`` holds the hook `cowork-judge init` writes
            (`taskinit.COLLECT_COMMAND`): for a separate verifier the agent's final-message files reach
            ``/logs/artifacts/cowork-judge-agent`` (`stage` does what the hook does).
        collect_other: the commands of every other ``[[verifier.collect]]`` hook (a dry run does not run them).
    """

    root: Path
    tests: Path
    env_templates: dict[str, str]
    timeout_sec: float
    separate: bool
    artifacts: list[str]
    workdir: str = "/app"
    verifier_dockerfile: bool = False
    collect_agent: bool = False
    collect_other: list[str] = field(default_factory=list)


def read_task(task_dir: Path, *, rollout_given: Path | None = None) -> TaskInfo:
    """Read a task folder for a dry run. `rollout_given` (``--rollout``) is read only to say that the two were
    swapped when it is the task folder and `task_dir` is none (trial 44 P-4).

    Raises:
        TryError: no such folder, no ``tests/test.sh``, no ``tests/rubric.json``, no or an
            unreadable ``task.toml``.
    """
    from cowork_judge.install.taskinit import COLLECT_COMMAND, OLD_COLLECT_COMMANDS, is_separate, rubric_misnamed, rubric_too_high

    root = Path(task_dir)
    if not root.is_dir():
        raise TryError(not_a_folder(root, task=True))  # init's, lint's and gen-ppt-rubrics' "did you mean" (trial 25 P-1)
    tests = root / "tests"
    if not tests.is_dir() and (_is_tests_folder(root) or in_task_folder(root)):  # tests/, solution/… (trial 32 P-1)
        above = shown_task(root, str(root))  # `try .` inside tests/ names `..`, not `.` (trial 18 P-6)
        raise TryError(f"{root} is a task's {task_part(root) or absolute(root).name}/ folder, not the task folder: did you mean {above}? "
                       f"(`cowork-judge try {above} …`)")
    if not (tests / "test.sh").is_file() and not (root / "task.toml").is_file():
        raise TryError(_not_a_task(root, rollout_given))
    if not (tests / "test.sh").is_file():
        raise TryError(f"{tests / 'test.sh'}: missing (Harbor runs tests/test.sh; `cowork-judge init {root}` writes it)")
    _refuse_placeholder(root, tests / "test.sh")
    if not (tests / "rubric.json").is_file() and (too_high := rubric_too_high(root)):
        raise TryError(f"{tests / 'rubric.json'}: missing, but {too_high}")
    if not (tests / "rubric.json").is_file() and (misnamed := rubric_misnamed(tests)):
        raise TryError(f"{tests / 'rubric.json'}: missing, but {misnamed}")
    if not (tests / "rubric.json").is_file():
        raise TryError(f"{tests / 'rubric.json'}: missing (the rubric the judge scores against; see docs/rubric.md, and "
                       "`cowork-judge gen-ppt-rubrics` for a deck task)")
    toml = root / "task.toml"
    try:
        config = tomllib.loads(toml.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TryError(f"{toml}: missing (Harbor needs it; `cowork-judge init {root}` writes its verifier blocks)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TryError(f"{toml}: cannot read: {exc}") from None
    verifier = _table(config, "verifier")
    env = _table(verifier, "env")
    timeout = verifier.get("timeout_sec", HARBOR_DEFAULT_TIMEOUT_SEC)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise TryError(f"{toml}: [verifier] timeout_sec = {timeout!r} is not a positive number of seconds")
    artifacts = []
    for entry in config.get("artifacts") or []:
        source = entry.get("source") if isinstance(entry, dict) else entry
        if isinstance(source, str) and source.startswith("/"):
            artifacts.append(source)
    environment = _table(config, "environment")
    workdir = environment.get("workdir") if isinstance(environment.get("workdir"), str) else "/app"
    hooks = verifier.get("collect")
    hooks = hooks if isinstance(hooks, list) else []
    commands = [str(h.get("command", "")) for h in hooks if isinstance(h, dict)]
    ours = (COLLECT_COMMAND, *OLD_COLLECT_COMMANDS)
    return TaskInfo(root=root, tests=tests, env_templates={str(k): str(v) for k, v in env.items()},
                    timeout_sec=float(timeout), separate=is_separate(config), artifacts=artifacts, workdir=workdir or "/app",
                    verifier_dockerfile=(tests / "Dockerfile").is_file(),
                    collect_agent=any(c in ours for c in commands), collect_other=[c for c in commands if c not in ours])


def _not_a_task(root: Path, rollout_given: Path | None) -> str:
    """Why `root`, given as the task, is none (no ``task.toml``, no ``tests/test.sh``; trial 44 P-4: the advice was
    `cowork-judge init <root>`, which fails there): the task and the rollout swapped when `rollout_given` is a task
    folder, else what a task folder holds (a folder inside a task is named before: `in_task_folder`)."""
    if rollout_given is not None and is_task_folder(rollout_given):
        return (f"{root} is not a task folder (no task.toml), but --rollout {rollout_given} is one: the two swapped? "
                f"did you mean `cowork-judge try {rollout_given} --rollout {root}`?")
    return (f"{root} is not a task folder: it holds no task.toml and no tests/test.sh (a task folder is what `harbor "
            "init` makes: task.toml and tests/; then `cowork-judge init <task>` writes its tests/test.sh)")


def _is_tests_folder(path: Path) -> bool:
    """`path` looks like a task's ``tests/`` folder (named tests, holding ``test.sh`` or ``rubric.json``, or
    beside a ``task.toml``)."""
    return absolute(path).name == "tests" and ((path / "test.sh").is_file() or (path / "rubric.json").is_file()
                                               or (parent_of(path) / "task.toml").is_file())


def is_task_folder(path: Path) -> bool:
    """`path` is a Harbor task folder: a ``task.toml`` beside a ``tests/`` folder."""
    return (path / "task.toml").is_file() and (path / "tests").is_dir()


def refuse_task_as_rollout(task: TaskInfo, rollout: Rollout) -> None:
    """Refuse a rollout folder that is a task folder (``task.toml`` and ``tests/``) or holds this task's
    ``tests/``: read as deliverables, the rubric, ``solve.sh`` and the hidden anchors (the ground truth)
    would be judged as the agent's work and inflate the reward.

    Raises:
        TryError: naming the folder and what to give instead.
    """
    if rollout.layout == "message":
        return
    root = Path(rollout.root)
    if is_task_folder(root):
        what = f"{root} is a task folder (task.toml, tests/)"
    elif _inside(task.tests, root):
        what = f"{root} holds the task's tests/ ({task.tests})"
    else:
        return
    output = task.root / "solution" / "output"
    meant = (f"; to try the reference solution: --rollout {output}" if output.is_dir()
             else "; give the folder of the agent's deliverables (or a trial's artifacts/)")
    raise TryError(f"--rollout {root}: {what}: read as a rollout, its rubric, solution and anchors (the ground truth) "
                   f"would be judged as deliverables{meant}")


def _inside(path: Path, folder: Path) -> bool:
    """`path` is `folder` or lies under it (both resolved; symlinks followed)."""
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except OSError:
        return False


def out_inside_staged(out: Path, tests: Path, rollout: Rollout) -> str | None:
    """Why `out` (``--out``) cannot hold the dry run ("... is inside FOLDER"), or None: it lies in (or is) a folder
    the run copies into it — the task's ``tests/`` or a folder of the rollout — so the copy would copy itself
    without end and leave its copies in the task or the rollout."""
    sources = [tests]
    if rollout.layout != "message":
        sources.append(Path(rollout.root))
    sources += [host for host in rollout.files.values() if host.is_dir()]
    for source in sources:
        if _inside(out, source):
            return f"--out {out} is inside {source}, which the dry run copies into it: give a folder outside it"
    return None


def _refuse_placeholder(root: Path, test_sh: Path) -> None:
    """Refuse Harbor's placeholder ``tests/test.sh`` (a task fresh from ``harbor init``): it runs pytest
    on ``test_outputs.py``, not the judge, so its reward would say nothing about the rubric.

    Raises:
        TryError: `test_sh` is one of ``harbor init``'s stubs (`harbor_stubs`).
    """
    from cowork_judge.install.harbor_stubs import is_harbor_stub

    try:
        text = test_sh.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise TryError(f"{test_sh}: cannot read: {exc}") from None
    if is_harbor_stub("test.sh", text):
        raise TryError(f"{test_sh} is Harbor's placeholder (written by `harbor init`: it runs pytest, not the judge); "
                       f"run `cowork-judge init {root}` to write the judge's test.sh and task.toml's [verifier] blocks")


def _table(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """``doc[key]`` when it is a table (a dict), else an empty one."""
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def resolve_verifier_env(templates: dict[str, str], host_env: dict[str, str]) -> dict[str, str]:
    """``[verifier.env]`` resolved from `host_env` as Harbor 0.26 does (``harbor.utils.env.resolve_env_vars``):
    a whole-value ``${VAR}`` takes ``VAR`` from the host, ``${VAR:-default}`` the default only when
    ``VAR`` is unset (an empty value passes through), anything else is literal.

    Raises:
        TryError: a ``${VAR}`` without default whose ``VAR`` is unset (Harbor refuses such a trial).
    """
    resolved: dict[str, str] = {}
    unset: list[str] = []
    for key, value in templates.items():
        match = _TEMPLATE.fullmatch(value)
        if match is None:
            resolved[key] = value
        elif match.group(1) in host_env:
            resolved[key] = host_env[match.group(1)]
        elif match.group(2) is not None:
            resolved[key] = match.group(2)
        else:
            unset.append(f"{key} = \"{value}\"")
    if unset:
        raise TryError("Harbor would refuse this trial: [verifier.env] needs variables this environment does not set: "
                       + "; ".join(unset))
    return resolved


def dropped_variables(host_env: dict[str, str], verifier_env: dict[str, str]) -> list[str]:
    """Names of variables the caller set for the judge that ``[verifier.env]`` does not pass: every
    non-empty ``JUDGE_*`` of `host_env`, and the key variables JUDGE_PANEL's judges name
    (``api_key_env``), absent from the resolved `verifier_env`. Harbor passes nothing else to the
    verifier, so these settings (JUDGE_GUARD, JUDGE_SAMPLES…) never reach the judge of a trial.
    Sorted; names only, never values."""
    names = {k for k, v in host_env.items() if k.startswith("JUDGE_") and v}
    panel = verifier_env.get("JUDGE_PANEL") or host_env.get("JUDGE_PANEL") or ""
    try:
        judges = json.loads(panel) if panel.strip() else []
    except ValueError:
        judges = []  # the judge says what is wrong with it
    for judge in judges if isinstance(judges, list) else []:
        key_env = judge.get("api_key_env") if isinstance(judge, dict) else None
        if isinstance(key_env, str) and host_env.get(key_env):
            names.add(key_env)
    return sorted(n for n in names if n not in verifier_env)


def verdict_cache_value(verifier_env: dict[str, str]) -> str | None:
    """The folder ``JUDGE_VERDICT_CACHE`` names in the resolved `verifier_env`, or None when it is off
    (unset, empty, ``off``/``0``…) or a yes word (``on``/``1``: the judge itself refuses it for ``run``)."""
    from cowork_judge.core.knobs import FALSY, TRUTHY

    value = verifier_env.get("JUDGE_VERDICT_CACHE", "").strip()
    return None if value.lower() in FALSY or value.lower() in TRUTHY else value


def verdict_cache_host(value: str, *, sandboxed: bool, judge_home: Path | None) -> Path | None:
    """Where the judge's verdict cache folder `value` (a path as the judge sees it) lives on this
    machine across `try` runs, or None when it is discarded with the run (trial 15 P-5).

    In the sandbox, a path under ``/opt/cowork-judge`` is under the judge home `judge_home` (the
    cached ``judge-homes/<…>`` folder, kept across runs and shared by every task with the same judge
    and extras; None: a ``--fresh-install`` home, removed after the run); any other path is the
    sandbox's own (a private ``/tmp``, the run's staged ``/app``/``/logs``/``/tests``, or a folder
    of the sandbox's temporary root). Without the sandbox, an absolute path is that folder itself;
    a relative one is under the staged ``/app`` copy (None)."""
    from cowork_judge.install.sandbox import JUDGE_HOME

    path = PurePosixPath(value)
    if not sandboxed:
        return Path(value) if path.is_absolute() else None
    if judge_home is None or not path.is_absolute() or ".." in path.parts:
        return None
    if path == PurePosixPath(JUDGE_HOME) or path.is_relative_to(JUDGE_HOME):
        return judge_home / path.relative_to(JUDGE_HOME)
    return None


def verdict_cache_note(verifier_env: dict[str, str], *, sandboxed: bool, judge_home: Path | None = None) -> str | None:
    """The warning, before the run, about where the verdict cache ``JUDGE_VERDICT_CACHE`` lives
    (trial 14 F14, corrected by trial 15 P-5), or None (no cache, or ``--no-sandbox``: the host
    folder is used). Two cases (`verdict_cache_host`): under ``/opt/cowork-judge`` in the sandbox,
    the folder is kept on this machine in the judge home (`judge_home`), so a later `try` of any
    task with the same judge reuses its verdicts for the same deliverable, row, model and endpoint;
    anywhere else it is a sandbox-private copy, discarded with the sandbox."""
    value = verdict_cache_value(verifier_env)
    if not sandboxed or value is None:
        return None
    host = verdict_cache_host(value, sandboxed=sandboxed, judge_home=judge_home)
    if host is not None:
        return (f"JUDGE_VERDICT_CACHE={value!r}: the sandbox's /opt/cowork-judge is this machine's judge home, kept "
                f"between runs, so the cache is {host}, shared by every `try` with this judge and extras: verdicts "
                "stored there for the same deliverable, row, model and endpoint (the built-in simulator is one endpoint, "
                "whatever port it gets) are reused (the reward line says how "
                "many); remove that folder or set JUDGE_VERDICT_CACHE=off for fresh verdicts. In a trial "
                "/opt/cowork-judge is the container's: the folder must be a volume that outlives it (harbor-task.md "
                "step 9)")
    return (f"JUDGE_VERDICT_CACHE={value!r} reaches the judge, but the sandbox does not share that folder: the judge "
            "keeps its verdicts in a sandbox-private copy of it, discarded with the sandbox (its log says \"stored\", "
            "yet nothing is written to or reused from the folder on this machine; with --no-sandbox the judge uses the "
            "host folder itself). In a trial the folder must be a volume that outlives the container (harbor-task.md "
            "step 9)")


CACHE_OFF_ADVICE = "(JUDGE_VERDICT_CACHE=off asks every row)"
"""The advice `verdict_cache_line` ends with when verdicts were reused (unless given another)."""


def verdict_cache_line(outcome: Outcome, verifier_env: dict[str, str], *, sandboxed: bool,
                       judge_home: Path | None, advice: str = CACHE_OFF_ADVICE) -> str | None:
    """The line `try` prints with the reward when ``JUDGE_VERDICT_CACHE`` is on (trial 15 P-5): how
    many of the result's verdicts were reused from the cache (``results[].cached``, `Outcome.cached`)
    and where that cache lives on this machine, or that it is discarded with the sandbox; when some
    were reused it ends with `advice` (one parenthesis: trial 31 P-2). None when the cache is off."""
    value = verdict_cache_value(verifier_env)
    if value is None:
        return None
    host = verdict_cache_host(value, sandboxed=sandboxed, judge_home=judge_home)
    where = (f"the verdict cache {host} (kept on this machine between runs)" if host is not None else
             f"the verdict cache {value} (inside the sandbox: discarded with it)" if sandboxed else
             f"the verdict cache {value} (under the run's /app copy)")
    reused = f"verdict cache: {outcome.cached} of {outcome.rows} row verdict(s) reused from {where}"
    if outcome.cached:
        reused += f": the reward holds verdicts of an earlier run, not asked now {advice}"
    return reused


@dataclass
class Rollout:
    """A rollout folder, read (`read_rollout`).

    Attributes:
        layout: ``container`` (``app/`` and ``logs/agent/``), ``trial`` (a Harbor trial folder,
            read through its ``artifacts/``), ``kept`` (a folder ``try --out`` kept: its ``app/`` and
            ``logs/agent/``), ``flat`` (the deliverables themselves) or ``message``
            (no folder: a chat answer's final message alone).
        root: the folder given (for ``message``, the message file).
        files: inside path (``/app``, ``/app/output``, ``/logs/agent``, ``/logs/agent/trajectory.json``…)
            → host path to copy there.
        message_as_text: the trajectory entry is a plain-text final message (``--final-message``),
            written as a one-step ATIF trajectory by `stage`.
        flat_because: for a flat folder that holds ``app/`` or ``logs/``, why it is not read as the
            container layout ("" otherwise): a folder that looks like a rollout but is not read as one.
        ignored: for a kept ``try --out`` folder (layout ``kept``), the one line that says what of it is not
            read ("" otherwise).
        misread: for a flat folder that looks like a task's ``solution/`` folder (it holds Harbor's
            ``solve.sh``, or is ``<task>/solution``) or holds a ``trajectory.json`` that no option reads
            as the final message: what is judged as a deliverable by mistake and the command line meant
            ("" otherwise).
        message_given: the ``--final-message``/``--trajectory`` file as the user gave it (its option is
            ``--final-message`` when `message_as_text`), or None (the rollout's own ``logs/agent``, or none).
        message_entries: for a flat folder, its entries (as walked from `root`, subfolders included) that are
            the `message_given` file itself (the path given, or a file or link that is the same file): not
            copied to ``/app/output`` (trial 25 P-2: a trial's final message is never a deliverable).
    """

    layout: str
    root: Path
    files: dict[str, Path] = field(default_factory=dict)
    message_as_text: bool = False
    flat_because: str = ""
    misread: str = ""
    ignored: str = ""
    message_given: Path | None = None
    message_entries: set[Path] = field(default_factory=set)

    def describe(self) -> str:
        """One line: the layout and where its parts go."""
        where = ", ".join(inside + (" (the deliverables)" if self.layout == "flat" and inside == "/app/output" else "")
                          for inside in self.files) or "nothing"
        return {"container": "container layout", "trial": "a Harbor trial (its artifacts/)", "flat": "flat",
                "kept": "a folder `cowork-judge try --out` kept (its app/ and logs/agent/)",
                "message": "the final message alone (no deliverables)"}[self.layout] + f" → {where}"


def _message_file_inside(option: str, folder: Path) -> str:
    """The end of `_not_a_message_file`'s line for a `folder` given as ``--final-message``/``--trajectory``
    (trial 41 P-4): ``": did you mean --final-message sol/final_answer.txt?"`` for the first answer file inside
    (`core.layout.ANSWER_NAMES`; ``trajectory.json`` for ``--trajectory``, each option's own file first, then the
    other's), else the generic advice. Only reads; never raises."""
    own = (TRAJECTORY_NAME,) if option == "--trajectory" else ANSWER_NAMES
    other = ANSWER_NAMES if option == "--trajectory" else (TRAJECTORY_NAME,)
    for names, flag in ((own, option), (other, "--final-message" if option == "--trajectory" else "--trajectory")):
        for name in names:
            try:
                if (folder / name).is_file():
                    return f": did you mean {flag} {folder / name}?"
            except OSError:
                continue
    return " (give the file of the agent's final message)"


def _not_a_message_file(option: str, value: str | Path) -> str:
    """Why ``--final-message``/``--trajectory`` `value` is refused: a folder is named as one, not as missing."""
    if Path(value).is_dir():
        return f"{option} {value}: is a folder, not a file" + _message_file_inside(option, Path(value))
    try:
        pipe = stat.S_ISFIFO(os.stat(value).st_mode)
    except OSError:
        pipe = False
    if pipe:  # trial 15 P-1: a process substitution, <(echo …), is a pipe behind a /dev/fd link, not a dangling link
        return (f"{option} {value}: is a pipe (a process substitution such as <(echo …) gives one), not a file: the "
                "message is read more than once, so write it to a file first (echo '…' > answer.txt) and give that")
    if Path(value).is_symlink():
        return (f"{option} {value}: is a symbolic link to {os.readlink(value)}, which does not exist (give the file "
                "of the agent's final message itself)")
    if os.path.lexists(value):
        return f"{option} {value}: not a regular file"
    close = close_sibling(value, files=True)  # trial 26 P-2: the task folder's "did you mean", for a file
    return f"{option} {value}: no such file" + (f": did you mean {close}?" if close else "")


def _through_link(value: Path) -> Path:
    """The file a ``--final-message``/``--trajectory`` `value` names, read through a symbolic link (trial 9 F2):
    the option is the operator's own input on the host, written anew into the sandbox, not the agent's
    deliverable (whose links the judge does not follow). `value` is an existing file (checked before)."""
    return Path(value).resolve() if Path(value).is_symlink() else Path(value)


def read_rollout(path: Path | None, *, trajectory: Path | None = None, final_message: Path | None = None) -> Rollout:
    """Read a rollout folder (see the module docstring for the layouts).

    `path` None: a chat answer without deliverables, the final message alone (``--trajectory`` or
    ``--final-message``; layout ``message``, nothing placed in ``/app``).

    Raises:
        TryError: it is missing or not a folder; ``--trajectory``/``--final-message`` name a
            missing file or are given with a container layout (which has its own ``logs/agent``);
            `path` None without either; ``--trajectory`` is not JSON; ``--final-message`` is not a
            text file (`_check_final_message`).
    """
    if path is None:
        message = final_message if final_message is not None else trajectory
        if message is None:
            raise TryError(f"no rollout: give --rollout FOLDER, or --final-message/--trajectory for a chat answer ({ROLLOUT_HELP})")
        if trajectory is not None and final_message is not None:
            raise TryError("--trajectory and --final-message exclude each other (both are the agent's final message)")
        if not Path(message).is_file():
            raise TryError(_not_a_message_file('--final-message' if final_message is not None else '--trajectory', message))
        if trajectory is not None:
            _check_trajectory(Path(trajectory))
        else:
            _check_final_message(Path(message))
        return Rollout("message", Path(message), {"/logs/agent/trajectory.json": _through_link(message)},
                       message_as_text=final_message is not None, message_given=Path(message))
    root = Path(path)
    if root.is_file():
        raise TryError(_file_as_rollout(root))
    if not root.is_dir():
        close = close_sibling(root)  # trial 26 P-2: the task folder's "did you mean", before the layouts
        raise TryError(f"{root}: no such rollout folder" + (f": did you mean {close}?" if close else "")
                       + f" ({ROLLOUT_HELP})")
    for option, value in (("--trajectory", trajectory), ("--final-message", final_message)):
        if value is not None and not Path(value).is_file():
            raise TryError(_not_a_message_file(option, value))
    if trajectory is not None and final_message is not None:
        raise TryError("--trajectory and --final-message exclude each other (both are the agent's final message)")
    if trajectory is not None:
        _check_trajectory(Path(trajectory))
    if final_message is not None:
        _check_final_message(Path(final_message))
    if kept_try_folder(root):
        return _read_kept(root, message_given=trajectory is not None or final_message is not None)
    layout = "flat"
    base = root
    if (root / "artifacts").is_dir() and (root / "result.json").is_file():
        layout, base = "trial", root / "artifacts"
    names = {p.name for p in base.iterdir()}
    if layout == "trial" or (names & {"app", "logs"} and names <= {"app", "logs"} | ROLLOUT_EXTRA_NAMES
                             and all((base / n).is_dir() for n in names & {"app", "logs"})):
        layout = "trial" if layout == "trial" else "container"
        if trajectory is not None or final_message is not None:
            raise TryError(f"{root} has the container layout: its agent's final message {_container_message(base)}, "
                           "not --trajectory/--final-message")
        rollout = Rollout(layout, root)
        if (base / "app").is_dir():
            rollout.files["/app"] = base / "app"
        if (base / "logs").is_dir():
            for child in sorted((base / "logs").iterdir()):
                rollout.files[f"/logs/{child.name}"] = child
        return rollout
    rollout = Rollout("flat", root, {"/app/output": root}, flat_because=_why_flat(base, names),
                      misread=_misread(root, names, message_given=trajectory is not None or final_message is not None))
    if trajectory is not None:
        rollout.files["/logs/agent/trajectory.json"] = _through_link(trajectory)
        rollout.message_given = Path(trajectory)
    if final_message is not None:
        rollout.files["/logs/agent/trajectory.json"] = _through_link(final_message)
        rollout.message_as_text, rollout.message_given = True, Path(final_message)
    if rollout.message_given is not None:
        rollout.message_entries = _message_entries(root, rollout.message_given)
    return rollout


def _message_entries(root: Path, given: Path) -> set[Path]:
    """The entries under the flat rollout folder `root` (at most `MAX_LINK_SCAN` looked at) that are the message file
    `given`: the path given itself (a link included), or a file or link that resolves to the same file."""
    def place(path: Path) -> Path:
        return Path(os.path.realpath(parent_of(path))) / absolute(path).name

    found: set[Path] = set()
    for entry in _entries(root, MAX_LINK_SCAN):
        try:
            if place(entry) == place(given) or (entry.is_file() and os.path.samefile(entry, given)):
                found.add(entry)
        except OSError:
            continue
    return found


def message_entry_line(rollout: Rollout) -> str:
    """The line `try` says of a ``--final-message``/``--trajectory`` file that lies in the flat rollout folder
    (`Rollout.message_entries`), or "": it is read as the final message only, not copied as a deliverable."""
    if not rollout.message_entries or rollout.message_given is None:
        return ""
    option = "--final-message" if rollout.message_as_text else "--trajectory"
    names = ", ".join(sorted(str(e.relative_to(rollout.root)) for e in rollout.message_entries))
    return (f"{names} is read as the final message ({option}), not as a deliverable: it is not copied to /app/output "
            "(a trial's final message is never in /app/output)")


def kept_try_folder(root: Path) -> bool:
    """Is `root` a folder ``cowork-judge try --out`` laid out (trial 18 P-5)? It holds ``app/``, ``logs/`` and
    ``tests/`` (folders) and nothing else but `TRY_MARKER` and ``manifest.json``, and either the marker or the
    shape of a run: ``logs/verifier/`` and ``tests/test.sh``. A folder with anything else is not (read flat)."""
    names = {p.name for p in root.iterdir()}
    if not {"app", "logs", "tests"} <= names or not names <= {"app", "logs", "tests", TRY_MARKER} | ROLLOUT_EXTRA_NAMES:
        return False
    if not all((root / n).is_dir() and not (root / n).is_symlink() for n in ("app", "logs", "tests")):
        return False
    return (root / TRY_MARKER).is_file() or ((root / "logs" / "verifier").is_dir() and (root / "tests" / "test.sh").is_file())


def _read_kept(root: Path, *, message_given: bool) -> Rollout:
    """A kept ``try --out`` folder read in the container layout: its ``app/`` and ``logs/agent/`` only.

    Raises:
        TryError: ``--trajectory``/``--final-message`` given (its ``logs/agent/`` holds the final message).
    """
    if message_given:
        raise TryError(f"{root} is a folder `cowork-judge try --out` kept: its agent's final message "
                       f"{_container_message(root)}, not --trajectory/--final-message")
    rollout = Rollout("kept", root, {"/app": root / "app"})
    agent, carried = _kept_agent_folder(root)
    if agent is not None:
        rollout.files["/logs/agent"] = agent
    held = [n + "/" for n in KEPT_IGNORED if (root / n).exists()]
    rollout.ignored = (f"{root} is a folder `cowork-judge try --out` kept: its app/ and {carried or 'logs/agent/'} are "
                       f"the rollout; {', '.join(held)} (the previous run's rubric, verdicts and copies) are ignored")
    return rollout


def _kept_agent_folder(root: Path) -> tuple[Path | None, str]:
    """The folder of a kept ``try --out`` folder that holds its agent's final message, and "" or the words that
    say it came from the collect hook's copy: ``logs/agent/`` when it holds a message file (`taskinit.AGENT_FILES`);
    else, for a task with a separate verifier, ``logs/artifacts/cowork-judge-agent/`` (`taskinit.AGENT_COPY_DIR`,
    where `stage` put the message the hook carries, leaving ``logs/agent/`` empty); else ``logs/agent/`` if it
    exists, None if not."""
    from cowork_judge.install.taskinit import AGENT_COPY_DIR, AGENT_FILES

    agent = root / "logs" / "agent"
    copy = root / AGENT_COPY_DIR.lstrip("/")

    def holds_message(folder: Path) -> bool:
        return any((folder / n).is_file() and not (folder / n).is_symlink() for n in AGENT_FILES)

    if not holds_message(agent) and copy.is_dir() and not copy.is_symlink() and holds_message(copy):
        return copy, f"the agent's final message the collect hook carried ({AGENT_COPY_DIR.lstrip('/')}/)"
    return (agent if agent.is_dir() else None), ""


def _container_message(base: Path) -> str:
    """Where a container-layout rollout's final message is, said after "its agent's final message": the
    message files of `base`/logs/agent the judge would read (regular files, `AGENT_FILES` order, trial 8 F8)."""
    from cowork_judge.install.taskinit import AGENT_FILES  # the files a separate verifier copies, in the judge's order

    agent = base / "logs" / "agent"
    held = [n for n in AGENT_FILES if (agent / n).is_file() and not (agent / n).is_symlink()]
    if not held:
        return f"would be logs/agent/{', '.join(AGENT_FILES[:-1])} or {AGENT_FILES[-1]} (it holds none of them)"
    later = f" (the judge reads it before {', '.join(held[1:])})" if held[1:] else ""
    return f"is logs/agent/{held[0]}{later}"


def _check_trajectory(path: Path) -> None:
    """Refuse a ``--trajectory`` that is not JSON before anything is built or judged (issue 39):
    the judge would read it as an unreadable final message.

    Raises:
        TryError: one line naming the file and the line/column of the JSON error (or why it
            cannot be read).
    """
    try:  # as the judge reads it (`run.answer`): undecodable bytes as U+FFFD, no BOM skipped
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise TryError(f"--trajectory {path}: cannot be read ({exc.strerror or exc})") from None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise TryError(f"--trajectory {path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}): the judge would not "
                       "find the agent's final message in it; fix the file, or give a plain-text message with "
                       "--final-message") from None
    except RecursionError:
        raise TryError(f"--trajectory {path}: JSON nested too deeply to read") from None


BINARY_SNIFF_BYTES = 65_536
"""Bytes of a ``--final-message`` file `_check_final_message` looks at for a NUL byte."""
_BINARY_SIGNATURES = ((b"PK\x03\x04", "a ZIP archive, such as a .pptx, .docx or .xlsx"), (b"%PDF-", "a PDF"),
                      (b"\xd0\xcf\x11\xe0", "a legacy Office file (.ppt, .doc, .xls)"), (b"\x89PNG", "a PNG image"),
                      (b"\xff\xd8\xff", "a JPEG image"))
"""Leading bytes of the binary files an operator passes as the final message by mistake, and what each is."""


def _check_final_message(path: Path) -> None:
    """Refuse a ``--final-message`` that is not a text file before anything is built or judged (trial 7 F5: a
    deck passed by mistake was judged as 1,089 "words" of mojibake, reward 0, status success). Binary = it
    starts like a known binary format, or holds a NUL byte in its first `BINARY_SNIFF_BYTES` (no text
    encoding but UTF-16/32 has one, and those are named). A text file that is merely not UTF-8 is read
    (`stage` warns, naming the first undecodable byte).

    Raises:
        TryError: one line naming the file, what it looks like, and what to give instead.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(BINARY_SNIFF_BYTES)
    except OSError as exc:
        raise TryError(f"--final-message {path}: cannot be read ({exc.strerror or exc})") from None
    looks = next((what for magic, what in _BINARY_SIGNATURES if head.startswith(magic)), None)
    nul = head.find(b"\x00")
    if looks is None and nul < 0:
        if _looks_like_atif(path):  # trial 15 P-9: the JSON, the task prompt and all, was judged as the answer
            raise TryError(f"--final-message {path} is an ATIF trajectory (JSON with steps), not the message's text: give "
                           f"it as --trajectory {shlex.quote(str(path))}, which reads the agent's last answer from it")
        return
    if looks is None and head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise TryError(f"--final-message {path} is UTF-16 text (a NUL byte at offset {nul}): the judge reads UTF-8; "
                       f"convert it first (iconv -f UTF-16 -t UTF-8 {shlex.quote(str(path))} > answer.txt)")
    what = f"it starts like {looks}" if looks else f"a NUL byte at offset {nul}"
    raise TryError(f"--final-message {path} is not a text file ({what}): give the agent's final chat message as a "
                   "UTF-8 text file; a deliverable (a deck, a document) goes in a rollout folder, --rollout FOLDER")


ATIF_SNIFF_BYTES = 8 << 20
"""Largest ``--final-message`` read whole to tell whether it is an ATIF trajectory (bytes)."""


def _looks_like_atif(path: Path) -> bool:
    """Whether the text file `path` is a JSON object shaped as an ATIF trajectory (a ``steps`` list, or a
    ``schema_version`` starting ``ATIF``); False for anything else, a file over `ATIF_SNIFF_BYTES` included."""
    try:
        if path.stat().st_size > ATIF_SNIFF_BYTES:
            return False
        doc = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and (isinstance(doc.get("steps"), list)
                                      or str(doc.get("schema_version", "")).upper().startswith("ATIF"))


def _file_as_rollout(root: Path) -> str:
    """The refusal of a file given as ``--rollout``: its folder when it holds that file alone,
    else a folder of its own to make (issue 39: never ``--rollout .``, which would judge every
    file of the working folder); and ``--final-message`` for a chat answer, first when the file is
    named as one (`core.layout.ANSWER_NAMES`, trial 31 P-3). An ATIF trajectory is
    not a deliverable: its refusal names ``--trajectory`` alone (trial 21 P-8)."""
    q = shlex.quote
    if _looks_like_atif(root):
        return (f"--rollout {root} is an ATIF trajectory (JSON with steps), not a folder of deliverables: give it as "
                f"--trajectory {q(str(root))}, which reads the agent's last answer from it (and the deliverables' "
                "folder, if any, as --rollout FOLDER)")
    parent = root.parent
    try:
        alone = [p.name for p in parent.iterdir()] == [root.name] and parent.resolve() != Path.cwd().resolve()
    except OSError:
        alone = False
    if alone:
        how = f"give the folder that holds it: --rollout {q(str(parent))} (every file in it is judged)"
    else:
        folder = root.with_name(f"{root.stem or root.name}-rollout")
        how = (f"put the deliverable in a folder of its own: mkdir {q(str(folder))} && cp {q(str(root))} {q(str(folder))}/ "
               f"then give --rollout {q(str(folder))} (every file in it is judged)")
    try:  # trial 15 P-3: the chat-message hint only for a file that could be one (a deck is refused there)
        _check_final_message(root)
    except TryError:
        return f"--rollout {root} is a file, not a folder: {how}"
    if root.name in ANSWER_NAMES:  # trial 31 P-3: named as a final message, so that advice leads
        return (f"--rollout {root} is a file, not a folder: if it is the agent's final chat message (its name is "
                f"one the judge reads a final message from), give --final-message {q(str(root))} instead; "
                f"if it is a deliverable, {how}")
    return (f"--rollout {root} is a file, not a folder: {how}; if it is the agent's final chat message, give "
            f"--final-message {q(str(root))} instead")


def _why_flat(base: Path, names: set[str]) -> str:
    """Why a folder holding ``app`` or ``logs`` is not the container layout ("" when it holds neither)."""
    held = sorted(names & {"app", "logs"})
    if not held:
        return ""
    files = [n for n in held if not (base / n).is_dir()]
    if files:
        return f"{' and '.join(files)} {'is' if len(files) == 1 else 'are'} not a folder"
    others = sorted(names - {"app", "logs"} - ROLLOUT_EXTRA_NAMES)
    shown = ", ".join(n + ("/" if (base / n).is_dir() else "") for n in others[:5]) + (" …" if len(others) > 5 else "")
    return (f"besides {' and '.join(n + '/' for n in held)} it holds {shown} (a container-layout rollout holds only "
            "app/, logs/ and manifest.json)")


TEXT_MESSAGE_FILES = ANSWER_NAMES
"""The text files the judge reads a final message from, under ``/logs/agent`` only (`core.layout.ANSWER_NAMES`)."""


def _misread(root: Path, names: set[str], *, message_given: bool) -> str:
    """What a flat read of `root` judges by mistake ("" when nothing): a task's ``solution/`` folder
    (``solve.sh`` is Harbor's oracle script, not a deliverable), or a ``trajectory.json`` or a
    ``final_answer.txt`` / ``response.txt`` (trial 18 P-12) that is not read as the agent's final message
    because neither ``--trajectory`` nor ``--final-message`` names it."""
    solution = "solve.sh" in names or (absolute(root).name == "solution" and (parent_of(root) / "task.toml").is_file())
    stray_message = "trajectory.json" in names and not message_given
    stray_text = [n for n in TEXT_MESSAGE_FILES if n in names and (root / n).is_file()] if not message_given else []
    if not solution and not stray_message and not stray_text:
        return ""
    judged = [n for n in ("solve.sh", "trajectory.json", *stray_text) if n in names]
    if solution:
        what = "it looks like a task's solution/ folder" + (" (solve.sh is the script of Harbor's oracle agent)"
                                                            if "solve.sh" in names else "")
        meant = f"The reference solution (docs/harbor-task.md, step 6) is tried with: {_solution_meant(root, names, stray_message, stray_text)}"
    elif stray_message:
        what = "no --trajectory or --final-message reads its trajectory.json as the agent's final message"
        meant = "To read it as the final message, move it out of the folder and give --trajectory <its path>"
    else:
        what, meant = _stray_text_message(root, stray_text[0])
    return (f"{root}: {what}; read flat, every file in it{' (' + ' and '.join(judged) + ' too)' if judged else ''} is "
            f"judged as a deliverable at /app/output. {meant}")


def _solution_meant(root: Path, names: set[str], stray_message: bool, stray_text: list[str]) -> str:
    """The command line meant for a task's ``solution/`` folder `root`: ``--rollout`` its ``output/``, with
    ``--trajectory`` its ``trajectory.json`` no option reads; for a chat solution (trial 27 P-2: a
    ``final_answer.txt`` / ``response.txt`` beside solve.sh), ``--final-message`` that file, without ``--rollout``
    when nothing but solve.sh is beside it; for an answer file of another name that solve.sh copies to the chat
    answer (trial 29 P-4, `_answer_copied_by_solve_sh`), ``--final-message`` that file; else what solve.sh writes
    (`_answer_in_solve_sh`, trial 28 P-1)."""
    output = root / "output"
    if stray_text and not stray_message:
        message = f"--final-message {root / stray_text[0]}"
        if output.is_dir():
            return f"--rollout {output} {message}"
        if names <= {"solve.sh", *stray_text}:
            return message
        files = _reference_files(root, names, _solve_copies(_read_solve_sh(root)))  # trial 36 P-1: named
        if files:
            return f"{message} (and --rollout {output} for the files {_copy_into(files, output)})"
        return f"{message} (and --rollout with a folder of the agent's files, if it delivers any)"
    script = _read_solve_sh(root)
    commands = _solve_copies(script)
    copied = None if stray_message else _answer_copied_by_solve_sh(root, commands)
    if copied is not None:
        return (f"--rollout {output} " if output.is_dir() else "") + f"--final-message {copied}"
    if not output.is_dir() and not stray_message:
        return _answer_in_solve_sh(root, script, alone=names <= {"solve.sh"})
    trajectory = f" --trajectory {root / 'trajectory.json'}" if stray_message else ""
    if output.is_dir():
        return f"--rollout {output}{trajectory}"
    files = _reference_files(root, names, commands)  # trial 36 P-1: the deck beside solve.sh, named
    if files:
        return f"--rollout {output}{trajectory}, {_copy_into(files, output)}"
    return (f"--rollout {output}{trajectory}, once the reference deliverables are in {output}/ (solve.sh copying "
            "them, step 6)")


def _reference_files(root: Path, names: set[str], commands: list[CopyCommand]) -> list[Path]:
    """The reference deliverables of a ``solution/`` folder `root` that has no ``output/`` (trial 36 P-1): the files
    solve.sh's copy `commands` (`_solve_copies`: read, never run) copy into ``/app/output`` from ``/solution/``,
    else the regular files beside solve.sh that are neither it, a trajectory nor a chat answer; at most 20."""
    copied: list[Path] = []
    for command in commands:
        for source in _copied_to_output(command):
            candidate = root / source.removeprefix("/solution/")
            if candidate.is_file() and candidate not in copied:
                copied.append(candidate)
    if copied:
        return copied[:20]
    skip = {"solve.sh", "trajectory.json", *TEXT_MESSAGE_FILES}
    return [root / n for n in sorted(names) if n not in skip and not n.startswith(".") and (root / n).is_file()][:20]


def _copied_to_output(command: CopyCommand) -> list[str]:
    """The ``/solution/…`` (or relative) sources a ``cp``/``mv``/``install`` `command` (not under ``sudo``) copies
    into ``/app/output`` (its target starts with it), without ``$``, ``~``, globs or ``..``; else []."""
    if command.sudo or command.tool not in ("cp", "mv", "install"):
        return []
    if not command.target.rstrip("/").startswith("/app/output"):
        return []
    return [a for a in command.sources if not a.startswith(("$", "~")) and not set(a) & set("*?[`")
            and ".." not in a.split("/") and (a.startswith("/solution/") or not a.startswith("/"))]


def _copy_into(files: list[Path], output: Path) -> str:
    """The shell line that copies `files` into the folder `output`, as a clause (``once copied there: …``)."""
    import shlex

    return (f"once copied there: mkdir -p {shlex.quote(str(output))} && cp "
            f"{' '.join(shlex.quote(str(f)) for f in files)} {shlex.quote(str(output))}/")


_CHAT_WRITE = re.compile(r"/logs/agent/(?:final_answer|response)\.txt")
"""A solve.sh that names one of these writes a chat answer (`_answer_in_solve_sh`)."""


SOLVE_SH_CHARS = 100_000
"""How much of a solve.sh the dry run reads (`_read_solve_sh`), in characters."""
SOLVE_SH_LINES = 5000
"""How many of its logical lines the dry run parses for copy commands (`_solve_copies`)."""


def _read_solve_sh(root: Path) -> str:
    """The first `SOLVE_SH_CHARS` characters of ``<root>/solve.sh`` ("" when it is not a readable regular file;
    `solve_script.read_solve_sh`)."""
    return solve_script.read_solve_sh(root, limit=SOLVE_SH_CHARS)


def _solve_copies(script: str) -> list[CopyCommand]:
    """The copy commands of `script`, solve.sh's text, in its first `SOLVE_SH_LINES` logical lines (read, never run;
    `solve_script.copy_commands`)."""
    return solve_script.copy_commands(script, max_lines=SOLVE_SH_LINES)


def _answer_in_solve_sh(root: Path, script: str, *, alone: bool) -> str:
    """The command line meant for a ``solution/`` folder `root` whose solve.sh (its text `script`) copies no answer
    file beside it (trial 28 P-1; `alone`: solve.sh is all there is, the answer made inside it). For a chat solve.sh
    (it names ``/logs/agent/final_answer.txt`` or ``response.txt`` and not ``/app/output``): put the answer in
    ``<root>/final_answer.txt`` and give ``--final-message`` it alone; for one that names ``/app/output`` and no chat
    answer, the deck line (``output/`` and ``trajectory.json``); when it cannot tell, both."""
    answer = root / "final_answer.txt"
    chat = (f"--final-message {answer} (without --rollout), once the answer is in that file: "
            f"{'it now lives inside solve.sh, so ' if alone else ''}put it in {answer} and have solve.sh copy it "
            "(step 6: mkdir -p /logs/agent && cp /solution/final_answer.txt /logs/agent/final_answer.txt)")
    chat_write, files = bool(_CHAT_WRITE.search(script)), "/app/output" in script
    deck = (f"--rollout {root / 'output'} --trajectory {root / 'trajectory.json'}, once the reference deliverables are in "
            f"{root / 'output'}/ and the final message in that trajectory.json (solve.sh copying them, step 6)")
    if chat_write != files:
        return chat if chat_write else deck
    return f"for a deck task, {deck}; for a chat task, {chat}"


def _answer_copied_by_solve_sh(root: Path, commands: list[CopyCommand]) -> Path | None:
    """The file beside solve.sh that its copy `commands` (`_solve_copies`) copy to the chat answer (trial 29 P-4), or
    None. A pure parse, nothing run: a ``cp``/``mv``/``install`` of ``/solution/X`` (or a relative ``X``) to
    ``/logs/agent/final_answer.txt`` or ``response.txt``, or ``cat X >`` it, quotes allowed; the first whose
    ``<root>/X`` is a file inside `root` wins."""
    for command in commands:
        source = _copy_to_answer_source(command)
        if source is None or source.startswith(("$", "~")) or (source.startswith("/")
                                                                and not source.startswith("/solution/")):
            continue
        candidate = root / source.removeprefix("/solution/")
        try:
            if candidate.is_file() and candidate.resolve().is_relative_to(root.resolve()):
                return candidate
        except OSError:
            continue
    return None


def _copy_to_answer_source(command: CopyCommand) -> str | None:
    """The one source a ``cp``/``mv``/``install SRC DEST`` or ``cat SRC > DEST`` `command` (not under ``sudo``)
    copies when DEST is the chat answer (``/logs/agent/final_answer.txt`` or ``response.txt``), else None."""
    if command.sudo or len(command.sources) != 1 or not _CHAT_WRITE.fullmatch(command.target):
        return None
    return command.sources[0]


def _stray_text_message(root: Path, name: str) -> tuple[str, str]:
    """(what, the command line meant) for a flat folder holding `name`, a final-message file no option reads:
    the judge reads it only under /logs/agent, and a flat folder is /app/output (where a task may ask for a file
    of that name), so try does not guess."""
    what = (f"no --final-message reads its {name} as the agent's final message (the judge reads that name only "
            "under /logs/agent), so the run has no final message")
    meant = (f"Meant as the final message: --final-message {root / name} (without --rollout when the agent delivered "
             f"no files), or move it to {root / 'logs' / 'agent' / name} and the deliverables to "
             f"{root / 'app' / 'output'}/ (the container layout)")
    return what, meant


def final_message_trajectory(text: str) -> dict[str, Any]:
    """A one-step ATIF (v1.4) trajectory whose agent message is `text` (``--final-message``)."""
    return {"schema_version": "ATIF-v1.4", "session_id": "cowork-judge-try",
            "agent": {"name": "cowork-judge-try", "version": __version__},
            "steps": [{"step_id": 1, "source": "agent", "message": text}]}


@dataclass
class Staged:
    """The folders of one dry run (host paths) and what was laid out in them.

    Attributes:
        app, logs, tests: mounted at /app, /logs, /tests.
        placed: inside paths filled from the rollout.
        left_out: inside paths of the rollout a separate verifier does not see (not artifacts).
    """

    app: Path
    logs: Path
    tests: Path
    placed: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """What staging changed in the rollout and the user should hear (a --final-message that is not UTF-8)."""
    unread_agent: str = ""
    """`agent_logs.unread_line` for a rollout whose ``logs/agent`` holds files but none the judge reads the final
    message from (trial 21 P-3: ``answer.txt``), said with "nothing delivered"; "" otherwise."""
    stray_app: str = ""
    """`stray_app.stray_line` for files directly in the rollout's ``app/`` while its ``app/output/`` holds nothing
    (trial 35 P-4: a deck one folder level too high); "" otherwise."""

    @property
    def verifier(self) -> Path:
        """``/logs/verifier`` on the host."""
        return self.logs / "verifier"


def _visible(inside: str, artifacts: list[str]) -> list[str]:
    """The parts of `inside` a separate verifier sees: itself when an artifact covers it, else the
    artifacts below it."""
    p = PurePosixPath(inside)
    if any(p == PurePosixPath(a) or p.is_relative_to(a) for a in artifacts):
        return [inside]
    return [a for a in artifacts if PurePosixPath(a).is_relative_to(p)]


def stage(task: TaskInfo, rollout: Rollout, out: Path, *, response_file: str | None = None) -> Staged:
    """Lay out ``app/``, ``logs/`` and ``tests/`` under `out` (copies: the sandbox writes there).

    ``tests/`` is a copy of the task's ``tests/`` with ``test.sh`` executable (Harbor runs
    ``chmod +x``). For a separate verifier only the declared artifacts of the rollout are placed,
    plus what init's ``[[verifier.collect]]`` hook carries (`TaskInfo.collect_agent`): the agent's
    final-message files, regular files only, in ``/logs/artifacts/cowork-judge-agent`` (test.sh puts
    them back under ``/logs/agent``), as Harbor runs the hook after the agent phase. What else the
    rollout's ``logs/agent`` holds is not named as unseen (`_left_out_entry`: the judge reads nothing
    else there), but files there none of which the judge reads are (`Staged.unread_agent`).
    `response_file`: JUDGE_RESPONSE_FILE as the verifier gets it (a container path), or None.

    Raises:
        TryError: `out` already holds one of them.
    """
    out.mkdir(parents=True, exist_ok=True)
    taken = [name for name in ("app", "logs", "tests") if (out / name).exists()]
    if taken:
        raise TryError(f"{out} already holds {', '.join(taken)}/ (give a new folder to --out)")
    staged = Staged(app=out / "app", logs=out / "logs", tests=out / "tests")
    _write_marker(out, task)
    staged.app.mkdir()
    for sub in ("agent", "verifier", "artifacts"):
        (staged.logs / sub).mkdir(parents=True)
    shutil.copytree(task.tests, staged.tests, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    (staged.tests / "test.sh").chmod(0o755)
    seen = [*task.artifacts, HARBOR_CONVENTION_ARTIFACT]
    for inside, host in rollout.files.items():
        parts = _visible(inside, seen) if task.separate else [inside]
        collected, linked = _collect_agent_files(task, rollout, staged, inside, host) if not parts else ([], [])
        if not parts and (entry := _left_out_entry(task, inside, host, [*collected, *linked], response_file)):
            staged.left_out.append(entry)
        for part in parts:
            source = host / PurePosixPath(part).relative_to(inside) if part != inside else host
            if not source.exists():
                continue
            target = (staged.app if part.startswith("/app") else staged.logs) / PurePosixPath(part).relative_to(
                "/app" if part.startswith("/app") else "/logs")
            _place(rollout, staged, part, source, target)
            staged.placed.append(part)
        if task.separate and parts and parts != [inside] and _holds_files(host, inside, besides=parts):
            staged.left_out.append(f"{inside} (besides {', '.join(parts)})")
    staged.warnings.extend(links_leaving_output(rollout))
    staged.unread_agent = _unread_agent(task, rollout, response_file)
    app = rollout.files.get("/app")
    if app is not None and (stray := stray_app.stray_files(app)):
        staged.stray_app = stray_app.stray_line(app, stray)
    return staged


def _unread_agent(task: TaskInfo, rollout: Rollout, response_file: str | None) -> str:
    """`Staged.unread_agent` for `rollout` ("" when no ``logs/agent`` folder of it is copied, or a message option gives
    the final message)."""
    folder = rollout.files.get(str(agent_logs.AGENT_LOGS))
    if f"{agent_logs.AGENT_LOGS}/{TRAJECTORY_NAME}" in rollout.files:
        return ""
    unread = agent_logs.unread_files(folder, response_file)
    if folder is None or not unread:
        return ""
    logs = agent_logs.AGENT_LOGS
    seen = any(logs.is_relative_to(a) or PurePosixPath(a).is_relative_to(logs) for a in task.artifacts)
    return agent_logs.unread_line(folder, unread, hook=task.separate and task.collect_agent,
                                  unseen=task.separate and not task.collect_agent and not seen)


def _left_out_entry(task: TaskInfo, inside: str, host: Path, named: list[str], response_file: str | None) -> str | None:
    """What `stage` names of the rollout's part `inside` (at `host`) a separate verifier does not see, or None.
    `named`: the final-message files below it the collect hook carried or that are links (named apart). Of the
    agent logs dir with init's collect hook, the judge reads only what the hook carries (trial 21 P-3: "/logs/agent
    … is not an artifact" misled), so only a JUDGE_RESPONSE_FILE there that the rollout holds is named."""
    if not _left_over(inside, host, named):
        return None
    if task.collect_agent and PurePosixPath(inside).is_relative_to(agent_logs.AGENT_LOGS):
        wanted = PurePosixPath(response_file) if response_file else None
        if (wanted is None or not wanted.is_relative_to(inside) or str(wanted) in named
                or not os.path.lexists(host / wanted.relative_to(inside))):
            return None
        return (f"{wanted} (JUDGE_RESPONSE_FILE; the task's [[verifier.collect]] hook carries only "
                f"{', '.join(MESSAGE_NAMES)})")
    return inside


def _write_marker(out: Path, task: TaskInfo) -> None:
    """`TRY_MARKER` in `out`: which command laid the folder out, for which task (read back by `kept_try_folder`)."""
    doc = {"written_by": "cowork-judge try", "version": __version__, "task": str(task.root),
           "note": "give this folder to `cowork-judge try --rollout` to re-judge it: app/ and logs/agent/ are read, "
                   "tests/ and logs/verifier/ ignored"}
    (out / TRY_MARKER).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


MAX_LINK_SCAN = 10_000
"""Entries of a rollout's deliverables folder `links_leaving_output` looks at, at most (a dry run's check, not
the judge's: past it the judge's own warnings still name every link it does not follow)."""


def _rollout_output(rollout: Rollout) -> Path | None:
    """The host folder that becomes ``/app/output``: a flat rollout itself, else its ``app/output`` (None: none)."""
    if rollout.layout == "flat":
        return rollout.root
    app = rollout.files.get("/app")
    return app / "output" if app is not None else None


def _entries(root: Path, limit: int) -> Iterator[Path]:
    """The paths under `root` (links not descended into), at most `limit` of them."""
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted([*dirnames, *filenames]):
            seen += 1
            if seen > limit:
                return
            yield Path(dirpath) / name


def links_leaving_output(rollout: Rollout) -> list[str]:
    """What `stage` says about the symbolic links of the rollout's deliverables folder the judge will not follow
    (trial 7 F1: a deck linked into ``solution/output/`` from elsewhere in the repository was judged "nothing
    delivered", and the hint pointed at --rollout): a link whose target leaves the folder, or points at nothing.
    They are copied as links, as Harbor's own copy keeps them, and the judge never follows a link out of
    output/ (it could read /tests). One line per link (at most five, then a count); [] when there is none."""
    output = _rollout_output(rollout)
    if output is None or output.is_symlink() or not output.is_dir():
        return []
    base = output.resolve()
    said: list[str] = []
    for path in _entries(output, MAX_LINK_SCAN):
        if not path.is_symlink() or path in rollout.message_entries:
            continue
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            said.append(f"{path} is a symbolic link to {os.readlink(path)}, which does not exist: the judge reads "
                        "nothing from it; copy the file itself into the rollout")
            continue
        if not target.is_relative_to(base):
            said.append(f"{path} is a symbolic link to {target}, out of the rollout's deliverables folder: it is "
                        "copied as a link, and the judge does not follow a link out of output/ (nor in a Harbor "
                        "trial); copy the file itself (cp -L) if it is a deliverable")
    return said[:5] + ([f"… and {len(said) - 5} more symbolic link(s) the judge will not follow"] if len(said) > 5 else [])


def _place(rollout: Rollout, staged: Staged, part: str, source: Path, target: Path) -> None:
    """Copy `source` to `target` (links as links, sparse files sparse: `fsutil.copy_sparse`); a ``--final-message`` text becomes a one-step ATIF trajectory."""
    if rollout.message_as_text and part == "/logs/agent/trajectory.json":
        data = source.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:  # trial 3 L2: never a silent replacement character
            staged.warnings.append(f"--final-message {source} is not UTF-8 (first undecodable byte at offset "
                                   f"{exc.start}: 0x{data[exc.start]:02x}): read with U+FFFD in place of the "
                                   "undecodable bytes")
            text = data.decode("utf-8", errors="replace")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(final_message_trajectory(text), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    elif source.is_dir():  # sparse files stay sparse (trial 12 F10: a 1 GiB sparse file took 1.1 GB of /tmp)
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True, copy_function=copy_sparse,
                        ignore=lambda folder, names: _not_copied(Path(folder), names, staged, rollout))
    elif source in rollout.message_entries:  # a separate verifier's artifact naming the message file itself
        return
    elif not source.is_symlink() and source.exists() and not source.is_file():
        _special_files(source.parent, [source.name], staged)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink() or not source.is_file():
            shutil.copy2(source, target, follow_symlinks=False)
        else:
            copy_sparse(source, target)


def _not_copied(folder: Path, names: list[str], staged: Staged, rollout: Rollout) -> set[str]:
    """The `names` in `folder` a copy of the rollout leaves out: special files (`_special_files`) and the
    final-message file of a flat rollout (`Rollout.message_entries`)."""
    return _special_files(folder, names, staged) | {n for n in names if folder / n in rollout.message_entries}


def _special_files(folder: Path, names: list[str], staged: Staged) -> set[str]:
    """The `names` in `folder` that are neither a regular file, a folder nor a link (a FIFO, a socket, a device),
    each named in ``staged.warnings``: they are not copied (trial 14 F7: a FIFO stopped `try` with
    ``shutil.Error``'s repr) — the judge would leave them out of a real trial too (``details.delivery.ignored``,
    ``not_regular``) and judge the rest."""
    import stat as stat_

    special: set[str] = set()
    for name in names:
        try:
            mode = os.lstat(folder / name).st_mode
        except OSError:
            continue
        if not (stat_.S_ISREG(mode) or stat_.S_ISDIR(mode) or stat_.S_ISLNK(mode)):
            special.add(name)
            kind = "a named pipe" if stat_.S_ISFIFO(mode) else "a socket" if stat_.S_ISSOCK(mode) else "a device"
            staged.warnings.append(f"{folder / name} is {kind}: not copied into the sandbox; the judge leaves such a "
                                   "file out of a trial too (details.delivery.ignored: not_regular) and judges the rest")
    return special


def _collect_agent_files(task: TaskInfo, rollout: Rollout, staged: Staged, inside: str,
                         host: Path) -> tuple[list[str], list[str]]:
    """Do what init's collect hook does for the part `inside` of the rollout a separate verifier does
    not see: copy each of `taskinit.AGENT_FILES` under it that is a regular file (not a link) to
    ``/logs/artifacts/cowork-judge-agent/``. Returns the inside paths it copied (trial 4 H1: `try`
    ignored the hook, so a separate chat task was judged as nothing delivered) and those it did not
    copy because they are symbolic links, each named in ``staged.warnings`` (trial 12 F12)."""
    from cowork_judge.install.taskinit import AGENT_COPY_DIR, AGENT_FILES

    if not (task.separate and task.collect_agent):
        return [], []
    copied: list[str] = []
    linked: list[str] = []
    for name in AGENT_FILES:
        path = PurePosixPath("/logs/agent") / name
        if not (path == PurePosixPath(inside) or path.is_relative_to(inside)):
            continue
        source = host / path.relative_to(inside) if path != PurePosixPath(inside) else host
        if source.is_symlink():  # trial 12 F12: name the link, not the task, for what the verifier misses
            staged.warnings.append(f"{source} (logs/agent/{name}) is a symbolic link to {os.readlink(source)}: the "
                                   "task's [[verifier.collect]] hook copies regular files only, so the verifier does not "
                                   "get it; copy the file itself (cp -L)")
            linked.append(str(path))
            continue
        if not source.is_file():
            continue
        _place(rollout, staged, str(path), source, staged.logs / PurePosixPath(AGENT_COPY_DIR).relative_to("/logs") / name)
        copied.append(str(path))
        staged.placed.append(f"{AGENT_COPY_DIR}/{name}")
    return copied, linked


def _left_over(inside: str, host: Path, named: list[str]) -> bool:
    """Whether the part `inside` of the rollout holds more than the `named` files (final-message files the hook
    copied, or does not copy and were named as links)."""
    if not named:
        return _holds_files(host, inside)
    if inside in named or not host.is_dir():
        return False
    names = {PurePosixPath(c).name for c in named}
    return any(entry.name not in names for entry in host.iterdir())


def _holds_files(host: Path, inside: str, *, besides: Sequence[str] = ()) -> bool:
    """Whether the part `inside` of the rollout (at `host`) holds anything but folders, outside the parts
    `besides` (inside paths below it): an empty ``app/`` or ``logs/agent/`` (a folder ``try --out`` kept
    lays them out, trial 19 P-2) leaves nothing a separate verifier misses. A file, or a link, counts."""
    if not host.is_dir() or host.is_symlink():
        return host.exists() or host.is_symlink()
    skip = {host / PurePosixPath(b).relative_to(inside) for b in besides if PurePosixPath(b).is_relative_to(inside)}
    for folder, dirs, files in os.walk(host):
        if files:
            return True
        here = Path(folder)
        dirs[:] = [d for d in dirs if here / d not in skip]
        if any((here / d).is_symlink() for d in dirs):
            return True
    return False


@dataclass
class Outcome:
    """What ``test.sh`` left in ``/logs/verifier`` (`read_outcome`).

    Attributes:
        reward_text: ``reward.txt`` stripped ("" when absent).
        reward: its value when it is a finite number, else None (``SKIPPED``, garbage, absent).
        failure_path: the reward and result are test.sh's failure path (the judge left none; ``test-sh.log``
            says `FAILURE_PATH_LINE`), not a document the judge wrote itself.
        status, exit_code, exit_reason: from ``result.json`` (None when it is absent or unreadable).
        coverage: ``extra_fields.judge_coverage`` (fraction of rows judged, 0–1).
        rows: number of rubric rows in ``results``.
        unjudged: ``error_kind`` → number of rows left unjudged with it.
        unjudged_rows: ``(row id, error_kind, reason)`` of each unjudged row, in the rubric's order.
        documents: file name → path, for the `DOCUMENTS` that exist, then ``<folder>/`` → path for the
            `DOCUMENT_FOLDERS` that exist.
        warnings: ``details.warnings`` of ``result.json`` (the rubric's and the run's: a misspelt row
            key such as ``wieght``, a row without weight…), in order.
        delivery_missing: ``extra_fields.delivery_missing``: nothing was delivered (no output file, no
            final message), so every row was decided without a model.
        set_aside: the files in output/ the judge did not read, each with why (``details.delivery``: a
            symbolic link leaving output/, a link to nothing, a file of 0 bytes), e.g.
            ``deck.pptx (a symbolic link to nothing that exists)``.
        final_message_source: ``details.delivery.final_message_source``: where the judge found the agent's final
            message (``trajectory``, ``response_file``, a file name), None when it found none. With
            `delivery_missing` it means the message was found and not judged (JUDGE_CHAT_FALLBACK off).
        cached: rows whose verdict came from the verdict cache (``results[].cached``), not asked now.
        fatal: ``result.json``'s ``fatal``: a hurdle row counted as hit zeroed the reward.
        fatal_rows: the ids of those hurdle rows (`cowork_judge.core.fatal.fatal_rows`).
        judge_called: ``extra_fields.judge_called`` (else ``judge_calls > 0``): the judge endpoint was asked at least
            once; None when the result records neither.
        not_in_oracle: ``(row id, hint, fault)`` of each judged row whose reason says ``not in oracle`` anywhere (a
            ppt_judge row wraps it: ``not covered: pass A (slide text): not in oracle …``, ``… | p1 0: not in
            oracle; p2 0: …``): a simulator answering from ``--oracle FILE`` found no entry for it (a mistyped key)
            and judged it a miss. `hint` is the first `` (did you mean 'KEY'?)`` the reason carries, else "";
            `fault` is True for a hurdle or deduction row (polarity negative): its miss is "no fault found".
        unshown_quotes: ids of the judged rows whose reason says `UNSHOWN_ORACLE_QUOTE` (trial 33 P-1): the simulator's
            oracle gave a quote the request did not show (not verbatim in the text sent), answered with a shown line.
        closed_gates: ``(gate row id, its reason, rows it closed)`` of each positive code row judged a miss whose
            dependants (``depends_on``) were closed by it (``gate: closed``), e.g. ``C-LOCATE-DECK`` with ``no deck
            among the deliverables`` (trial 32 P-2: the reason was only in result.json).
    """

    reward_text: str = ""
    reward: float | None = None
    failure_path: bool = False
    status: str | None = None
    exit_code: str | None = None
    exit_reason: str | None = None
    coverage: float | None = None
    rows: int = 0
    unjudged: dict[str, int] = field(default_factory=dict)
    unjudged_rows: list[tuple[str, str, str]] = field(default_factory=list)
    documents: dict[str, Path] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    delivery_missing: bool = False
    set_aside: list[str] = field(default_factory=list)
    final_message_source: str | None = None
    cached: int = 0
    fatal: bool = False
    fatal_rows: list[str] = field(default_factory=list)
    judge_called: bool | None = None
    not_in_oracle: list[tuple[str, str, bool]] = field(default_factory=list)
    unshown_quotes: list[str] = field(default_factory=list)
    closed_gates: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """A reward was written and the judge finished cleanly (status success or skipped, no exit_code)."""
        return bool(self.reward_text) and self.status in ("success", "skipped") and not self.exit_code


def closed_gates(doc: Mapping[str, Any], results: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    """``(gate row id, reason, number of rows it closed)`` for each positive code row of a parsed ``result.json``
    (`doc`, its `results` rows) judged a miss while at least one row naming it in ``depends_on`` has ``gate:
    closed``, in the rubric's order; a row itself closed by a gate is not one (only the gate that missed first is
    named). Malformed parts are skipped, never raised on."""
    criteria = [c for c in doc.get("criteria") or [] if isinstance(c, dict)]
    closed = {str(r.get("id")) for r in results if r.get("gate") == "closed"}
    out = []
    for row in results:
        gid = str(row.get("id"))
        crit = next((c for c in criteria if str(c.get("id")) == gid), {})
        if crit.get("judge_method") != "code" or crit.get("polarity") == "negative" or crit.get("hurdle") \
                or row.get("judged") is not True or row.get("hit") is not False or row.get("gate") == "closed":
            continue
        n = sum(1 for c in criteria if str(c.get("id")) in closed and gid in (c.get("depends_on") or []))
        if n:
            out.append((gid, str(row.get("reason") or ""), n))
    return out


def read_outcome(verifier: Path) -> Outcome:
    """Read ``reward.txt`` and ``result.json`` under `verifier` (never raises)."""
    import math

    out = Outcome(documents={name: verifier / name for name in DOCUMENTS if (verifier / name).is_file()})
    out.documents.update({f"{name}/": verifier / name for name in DOCUMENT_FOLDERS if (verifier / name).is_dir()})
    try:
        out.reward_text = (verifier / "reward.txt").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        pass
    try:
        value = float(out.reward_text)
        out.reward = value if math.isfinite(value) else None
    except ValueError:
        pass
    try:
        out.failure_path = FAILURE_PATH_LINE in (verifier / "test-sh.log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        pass
    try:
        doc = json.loads((verifier / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return out
    if not isinstance(doc, dict):
        return out
    out.status, out.exit_code, out.exit_reason = doc.get("status"), doc.get("exit_code"), doc.get("exit_reason")
    extra = _table(doc, "extra_fields")
    coverage = extra.get("judge_coverage")
    out.coverage = float(coverage) if isinstance(coverage, (int, float)) else None
    out.delivery_missing = extra.get("delivery_missing") is True
    out.judge_called = _judge_called(extra)
    results = [r for r in doc.get("results") or [] if isinstance(r, dict)]
    out.rows = len(results)
    out.cached = sum(1 for r in results if r.get("cached") is True)
    out.fatal, out.fatal_rows = doc.get("fatal") is True, fatal_rows(doc)
    out.unjudged = dict(Counter(str(r.get("error_kind") or "unjudged") for r in results if r.get("judged") is False))
    out.unjudged_rows = [(str(r.get("id")), str(r.get("error_kind") or "unjudged"), str(r.get("reason") or ""))
                         for r in results if r.get("judged") is False]
    out.not_in_oracle = oracle_gaps(doc, results)
    out.unshown_quotes = [str(r.get("id")) for r in results
                          if r.get("judged") is not False and UNSHOWN_ORACLE_QUOTE in str(r.get("reason") or "")]
    out.closed_gates = closed_gates(doc, results)
    delivery = _table(doc, "details").get("delivery")
    out.set_aside = _set_aside(delivery)
    source = delivery.get("final_message_source") if isinstance(delivery, dict) else None
    out.final_message_source = source if isinstance(source, str) and source.strip() else None
    warnings = _table(doc, "details").get("warnings")
    out.warnings = [str(w) for w in warnings if isinstance(w, str) and w.strip()] if isinstance(warnings, list) else []
    return out


def _judge_called(extra: dict[str, Any]) -> bool | None:
    """`Outcome.judge_called` from a result's ``extra_fields``: ``judge_called`` when it is a bool, else whether
    ``judge_calls`` is above 0, else None (neither recorded)."""
    called, calls = extra.get("judge_called"), extra.get("judge_calls")
    if isinstance(called, bool):
        return called
    if isinstance(calls, int) and not isinstance(calls, bool):
        return calls > 0
    return None


NOT_IN_ORACLE = "not in oracle"
"""How ``cowork-judge sim --oracle`` begins the reason of a row its oracle has no entry for (`Outcome.not_in_oracle`)."""

UNSHOWN_ORACLE_QUOTE = "oracle quote not in the text sent"
"""What ``cowork-judge sim --oracle`` adds to the reason of a row whose oracle ``quote`` the request did not show, a
copy of `cowork_judge.sim.quotes.UNSHOWN_QUOTE_NOTE` (`Outcome.unshown_quotes`)."""

_ORACLE_GAP = re.compile(re.escape(NOT_IN_ORACLE) + r"( \(did you mean .{1,200}?\?\))?")


def oracle_gaps(doc: dict[str, Any], results: list[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    """`Outcome.not_in_oracle` from a parsed result.json (`doc`) and its object rows (`results`): one
    ``(row id, hint, fault)`` per judged row whose reason says ``not in oracle`` anywhere (trial 27 P-6: ppt_judge
    wraps it), named once however many pages say it; a row is a fault row (trial 27 P-1) when ``criteria[]`` gives
    it polarity negative or hurdle true, or its scored weight is below 0."""
    criteria = doc.get("criteria")
    negative = {str(c.get("id")) for c in criteria if isinstance(c, dict)
                and (c.get("polarity") == "negative" or c.get("hurdle") is True)} if isinstance(criteria, list) else set()
    out = []
    for row in results:
        found = list(_ORACLE_GAP.finditer(str(row.get("reason") or "")))
        if row.get("judged") is False or not found:
            continue
        hint = next((m.group(1) for m in found if m.group(1)), "")
        weight = row.get("weight")
        fault = str(row.get("id")) in negative or (isinstance(weight, (int, float)) and weight < 0)
        out.append((str(row.get("id")), hint, fault))
    return out


SET_ASIDE_SAYS = {"symlink_escape": "a symbolic link leaving output/, not followed",
                  "dangling_link": "a symbolic link to nothing that exists",
                  "empty": "empty, 0 bytes"}
"""``details.delivery`` reasons of the files in output/ the judge did not read → what `Outcome.set_aside` says."""


def _set_aside(delivery: Any) -> list[str]:
    """`Outcome.set_aside` from a result's ``details.delivery`` (its ``stray`` and ``ignored`` entries,
    ``name (reason)``)."""
    if not isinstance(delivery, dict):
        return []
    out = []
    for key in ("stray", "ignored"):
        entries = delivery.get(key)
        for entry in entries if isinstance(entries, list) else []:
            name, _, reason = str(entry).rpartition(" (")
            says = SET_ASIDE_SAYS.get(reason.rstrip(")"))
            if name and says:
                out.append(f"{name} ({says})")
    return out


def verifier_python(env: dict[str, str], path: str) -> str | None:
    """The interpreter ``test.sh``'s ``find_python`` will pick on `path` (``COWORK_JUDGE_PYTHON``,
    ``python3``, ``python3.13`` … ``python3.10``, ``python``: the first that runs and is >= 3.10), or None."""
    from cowork_judge.install.wheels import WheelError, python_version

    for name in filter(None, (env.get("COWORK_JUDGE_PYTHON"), "python3", "python3.13", "python3.12", "python3.11",
                              "python3.10", "python")):
        found = shutil.which(name, path=path) if "/" not in name else (name if os.access(name, os.X_OK) else None)
        if found is None:
            continue
        try:
            major, minor = (int(x) for x in python_version(found).split("."))
        except WheelError:
            continue
        if (major, minor) >= (3, 10):
            return found
    return None


def pinned_version(verifier_env: dict[str, str], test_sh_text: str) -> str:
    """The judge version ``tests/test.sh`` installs: ``COWORK_JUDGE_VERSION`` without blanks, else the
    version baked into `test_sh_text` ("" when it has none)."""
    from cowork_judge.install.template import TemplateError, baked_version

    pinned = re.sub(r"[ \t\r\n]", "", verifier_env.get("COWORK_JUDGE_VERSION", ""))
    if pinned:
        return pinned
    try:
        return baked_version(test_sh_text)
    except TemplateError:
        return ""


def pinned_extras(verifier_env: dict[str, str]) -> str:
    """``COWORK_JUDGE_EXTRAS`` as ``tests/test.sh`` reads it (blanks removed, order kept: ``pptx,workflow``)."""
    return re.sub(r"[ \t\r\n]", "", verifier_env.get("COWORK_JUDGE_EXTRAS", ""))


def judge_home_name(wheel_digest: str, *, extras: str, python_tag: str | None, sandboxed: bool) -> str:
    """The cache folder name of the judge's venv root (mounted at ``/opt/cowork-judge``) for one judge
    wheel (its SHA-256: a version, or a checkout as it is now), one `extras` string (`pinned_extras`) and
    one Python ``X.Y``, in or out of the sandbox (a venv records its own path):
    ``<wheel digest 16>-py<X.Y>-<extras digest 8>-<bwrap|plain>``. The task is no part of it: tasks with
    the same judge, extras and Python share one venv (test.sh keeps ONE venv per version and Python in a
    home and reinstalls it when the extras differ, so homes must not be shared across extras)."""
    import hashlib

    extras_key = hashlib.sha256(extras.encode("utf-8")).hexdigest()[:8]
    return f"{wheel_digest[:16]}-py{python_tag or 'none'}-{extras_key}-{'bwrap' if sandboxed else 'plain'}"


def judge_venv_ready(home: Path, *, version: str, extras: str, python_tag: str | None) -> bool:
    """Whether ``tests/test.sh`` has installed ``cowork-judge[extras]==version`` for Python `python_tag`
    in the judge home `home`: the stamp it writes last (``venv-<version>-py<X.Y>/.cowork-judge-installed``,
    ``cowork-judge==<version> [<extras>]``) is there."""
    if not version or not python_tag:
        return False
    stamp = home / f"venv-{version}-py{python_tag}" / ".cowork-judge-installed"
    try:
        return stamp.read_text(encoding="utf-8") == f"cowork-judge=={version} [{extras}]"
    except (OSError, UnicodeDecodeError):
        return False


def prune_judge_homes(parent: Path, keep: int = 3) -> None:
    """Remove all but the `keep` most recently used judge homes under `parent` (each holds a venv);
    a home another run holds (`cachelock`) is left alone."""
    from cowork_judge.install.cachelock import try_exclusive

    homes = sorted((p for p in parent.glob("*") if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in homes[keep:]:
        lock = try_exclusive(old)
        if lock is None:
            continue  # in use by another run
        try:
            shutil.rmtree(old, ignore_errors=True)
            lock.path.unlink(missing_ok=True)
        finally:
            lock.release()


__all__ = ["CACHE_OFF_ADVICE", "DOCUMENTS", "FAILURE_PATH_LINE", "HARBOR_DEFAULT_TIMEOUT_SEC", "ROLLOUT_HELP", "Outcome", "Rollout", "Staged",
           "TaskInfo", "TryError", "dropped_variables", "final_message_trajectory", "judge_home_name", "judge_venv_ready", "links_leaving_output", "message_entry_line",
           "prune_judge_homes", "read_outcome", "read_rollout", "read_task", "resolve_verifier_env", "stage", "pinned_extras",
           "pinned_version", "verdict_cache_host", "verdict_cache_line", "verdict_cache_note", "verdict_cache_value",
           "verifier_python"]
