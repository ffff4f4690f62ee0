"""``python -m cowork_judge <tests>``: the original cowork-judge 1.3.x's entry point and settings.

The original ran as ``python -m cowork_judge <task_dir>`` (or with ``TASK_DIR`` set and no
argument), configured by environment variables. This entry translates them into this
project's paths and settings and runs `cowork_judge.commands.run`:

| 1.3.x setting | here |
|---|---|
| ``<task_dir>`` / ``TASK_DIR`` | ``--tests-dir`` (the folder holding ``rubric.json``) |
| ``VERIFIER_LOG_DIR`` (default ``/logs/verifier``) | ``--logs-dir`` = its parent; its name must be ``verifier`` |
| ``OUTPUT_DIR`` (default ``/app/output``) | ``--app-dir`` = its parent; its name must be ``output`` |
| ``JUDGE_WORK_DIR`` | the same setting |
| ``JUDGE_BACKEND=codex\\|claude`` | the same setting (unset: ``openai`` here, ``codex`` in 1.3.x; a note says so) |
| ``CLAUDE_JUDGE_MODEL`` | ``JUDGE_MODEL`` for ``JUDGE_BACKEND=claude`` when ``JUDGE_MODEL`` is unset |
| ``CODEX_BIN`` / ``CLAUDE_BIN`` | their folder goes first on ``PATH`` (the file must be named ``codex``/``claude``) |
| ``JUDGE_PER_TIMEOUT`` | the same setting (default 150 s here, 300 s in 1.3.x) |
| ``JUDGE_SAVE_TRAJECTORY`` | nothing to do: the audit folder ``judge/`` always keeps every exchange |
| ``INPUT_FILES_DIR``, ``AGENT_TRAJECTORY`` (other than ``<logs>/agent/trajectory.json``), ``JUDGE_NO_AGENT_TOOLS``, ``JUDGE_CODEX_USE_CHAT_SHIM``, ``JUDGE_CODEX_WIRE_API=chat`` | no counterpart: a warning says what happens instead |

A setting that cannot be honoured where it matters for the outputs (a ``VERIFIER_LOG_DIR``
or ``OUTPUT_DIR`` whose name is not ``verifier``/``output``) is a usage error (exit 2),
never a run that writes its reward where nobody reads it. As in 1.3.x, the exit status is 0
whenever the reward files were written (the documents say what happened), else the run's.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path

from cowork_judge.core.exit_status import EXIT_STATUS

ORIGINAL_DEFAULTS = {"VERIFIER_LOG_DIR": "/logs/verifier", "OUTPUT_DIR": "/app/output"}
"""The original's defaults for the two folders this entry maps onto ``--logs-dir``/``--app-dir``."""


class LegacySettingError(ValueError):
    """A 1.3.x setting that cannot be honoured: the run would write where nobody reads."""


def looks_like_legacy_call(args: list[str], environ: MutableMapping[str, str]) -> bool:
    """True for ``python -m cowork_judge <folder>`` (an existing folder, not a command) or a bare
    call with ``TASK_DIR`` set."""
    if not args:
        return bool(environ.get("TASK_DIR"))
    return not args[0].startswith("-") and Path(args[0]).is_dir()


def translate(args: list[str], environ: MutableMapping[str, str]) -> tuple[list[str], list[str]]:
    """The ``cowork-judge run`` arguments for a 1.3.x call, and the notes to print.

    Updates `environ` in place for the settings that become this project's (``JUDGE_MODEL``
    from ``CLAUDE_JUDGE_MODEL``, ``PATH`` from ``CODEX_BIN``/``CLAUDE_BIN``).

    Raises:
        LegacySettingError: no tests folder, or a ``VERIFIER_LOG_DIR``/``OUTPUT_DIR`` this
            project's layout cannot write/read (see the module docstring).
    """
    notes: list[str] = []
    tests = args[0] if args else environ.get("TASK_DIR", "")
    if not tests:
        raise LegacySettingError("usage: python -m cowork_judge <task_dir> (or TASK_DIR=<task_dir>)")
    if not Path(tests).is_dir():
        raise LegacySettingError(f"{tests}: no such folder (the task's tests folder holding rubric.json)")
    verifier = Path(environ.get("VERIFIER_LOG_DIR") or ORIGINAL_DEFAULTS["VERIFIER_LOG_DIR"])
    if verifier.name != "verifier":
        raise LegacySettingError(f"VERIFIER_LOG_DIR={verifier}: this version writes into <logs>/verifier, so the folder "
                                 "must be named 'verifier' (or use `cowork-judge run --logs-dir`)")
    output = Path(environ.get("OUTPUT_DIR") or ORIGINAL_DEFAULTS["OUTPUT_DIR"])
    if output.name != "output":
        raise LegacySettingError(f"OUTPUT_DIR={output}: this version reads the deliverables from <app>/output, so the "
                                 "folder must be named 'output' (or use `cowork-judge run --app-dir`)")
    logs = verifier.parent
    argv = ["--tests-dir", str(Path(tests).resolve()), "--logs-dir", str(logs), "--app-dir", str(output.parent)]
    backend = (environ.get("JUDGE_BACKEND") or "").strip().lower()
    if not backend:
        notes.append("JUDGE_BACKEND is unset: agentic rows use the built-in 'openai' backend (1.3.x's default was "
                      "'codex'; set JUDGE_BACKEND=codex to drive the codex CLI as 1.3.x did)")
    if backend == "claude" and environ.get("CLAUDE_JUDGE_MODEL") and not environ.get("JUDGE_MODEL"):
        environ["JUDGE_MODEL"] = environ["CLAUDE_JUDGE_MODEL"]
        notes.append(f"CLAUDE_JUDGE_MODEL={environ['CLAUDE_JUDGE_MODEL']} is the claude backend's model (JUDGE_MODEL)")
    elif environ.get("CLAUDE_JUDGE_MODEL") and backend == "claude":
        notes.append("CLAUDE_JUDGE_MODEL is ignored: JUDGE_MODEL is set and names the claude backend's model")
    for key, name in (("CODEX_BIN", "codex"), ("CLAUDE_BIN", "claude")):
        value = environ.get(key)
        if not value:
            continue
        path = Path(value)
        if path.name != name:
            notes.append(f"warning: {key}={value} is not used: this version runs the CLI named {name!r} found on PATH "
                         f"(put a {name!r} executable first on PATH)")
            continue
        environ["PATH"] = f"{path.parent}{os.pathsep}{environ.get('PATH', os.defpath)}"
    if not environ.get("JUDGE_PER_TIMEOUT"):
        notes.append("JUDGE_PER_TIMEOUT is unset: 150 s per call here (1.3.x: 300 s); set JUDGE_PER_TIMEOUT=300 for 1.3.x's")
    trajectory = environ.get("AGENT_TRAJECTORY")
    if trajectory and Path(trajectory) != logs / "agent" / "trajectory.json":
        notes.append(f"warning: AGENT_TRAJECTORY={trajectory} has no counterpart: the final message is read from "
                     f"{logs / 'agent'} (trajectory.json, final_answer.txt)")
    if environ.get("INPUT_FILES_DIR"):
        notes.append("warning: INPUT_FILES_DIR has no counterpart: the task's input files are not copied into the "
                     "judge's workspace (put what the judge must compare against in tests/ and name it in the rubric)")
    if (environ.get("JUDGE_NO_AGENT_TOOLS") or "").strip().lower() in ("1", "true", "yes", "on"):
        notes.append("warning: JUDGE_NO_AGENT_TOOLS has no counterpart: agentic rows are judged with tools (backend "
                     "'openai' reads the deliverables through this project's own read-only tools)")
    if (environ.get("JUDGE_CODEX_USE_CHAT_SHIM") or "").strip().lower() in ("1", "true", "yes", "on") \
            or (environ.get("JUDGE_CODEX_WIRE_API") or "").strip().lower() == "chat":
        notes.append("warning: JUDGE_CODEX_USE_CHAT_SHIM / JUDGE_CODEX_WIRE_API=chat have no counterpart: the codex "
                     "backend speaks the Responses API only; for an endpoint with only Chat Completions use "
                     "JUDGE_BACKEND=openai")
    if environ.get("JUDGE_SAVE_TRAJECTORY"):
        notes.append("JUDGE_SAVE_TRAJECTORY: nothing to do, the audit folder judge/ keeps every exchange")
    return argv, notes


def main(args: list[str]) -> int:
    """Run a 1.3.x-style call; returns the exit status (see the module docstring)."""
    try:
        argv, notes = translate(args, os.environ)
    except LegacySettingError as exc:
        print(f"cowork-judge: {exc}", file=sys.stderr)
        return EXIT_STATUS["usage"]
    for note in notes:
        print(f"cowork-judge (1.3.x settings): {note}", file=sys.stderr)
    run = importlib.import_module("cowork_judge.commands.run")  # by name, as the dispatcher imports a command
    status = int(run.main(argv))
    reward = Path(argv[argv.index("--logs-dir") + 1]) / "verifier" / "reward.txt"
    return 0 if reward.is_file() else status
