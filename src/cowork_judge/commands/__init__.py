"""The command line: ``cowork-judge <command> [options]``, one module per sub-command.

`main` dispatches on the first argument and imports only the chosen command's module, so
``cowork-judge run`` on a code-only rubric never pays for the model client or the deck
renderers. Every command module exposes ``main(argv: list[str]) -> int``; usage errors
exit 2 with a message, and the process exit statuses of a judge run are those of
`cowork_judge.core.exit_status.EXIT_STATUS`.
"""

from __future__ import annotations

import time

PROCESS_START = time.monotonic()
"""Monotonic seconds at import of the command line: JUDGE_DEADLINE counts from here."""

import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
"""The judge's own process loads no pydantic plugin (pydantic ≥ 2.5 reads this variable when it
builds the first model: `pydantic.plugin._loader.get_plugins`). Finding plugins scans every
installed distribution's entry points, ~0.06 s of the ~0.45 s CPU a code-only run costs
(`bench/startup.py`, issue 38); the judge validates its own documents and has no use for a
third party's validation hooks. A value the caller set (e.g. ``PYDANTIC_DISABLE_PLUGINS=`` to
keep them) is kept; the judge's child processes inherit it."""

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
"""onnxruntime (which pymupdf ≥ 2.0 imports for its layout analysis) starts Microsoft's telemetry when it is
imported: it writes ``$TMPDIR/.ses`` and a database under ``~/.cache/Microsoft/`` that outlive the run (trial 11
F3: the one file a batch left in a private TMPDIR once its LibreOffice seeds were removed). The judge has no use
for it; a value the caller set is kept, and the judge's child processes inherit it."""

JUDGE_RUN = sys.argv[1:2] == ["run"] or bool(sys.argv[1:] and sys.argv[1][:1] not in ("-", "")
                                              and sys.argv[1].startswith(("/", ".")))
"""The process was started to judge one rollout: ``cowork-judge run`` or the original 1.3.x's
``python -m cowork_judge <tests>`` (`commands.legacy_entry`), read from ``sys.argv``."""

if JUDGE_RUN:
    # a SIGTERM from here on still gets its documents (before the imports below)
    from cowork_judge.engine import signals  # noqa: E402

    signals.capture()

import importlib  # noqa: E402

from cowork_judge import ABI, __version__  # noqa: E402
from cowork_judge._util.console import pipe_safe_console  # noqa: E402
from cowork_judge.core.exit_status import EXIT_STATUS  # noqa: E402

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("run", "judge one rollout (inside a Harbor task container by default)"),
    "demo": ("demo", "judge the bundled example instance against the built-in simulator"),
    "config": ("config", "print the effective configuration (secrets masked) and where each value came from"),
    "schema": ("schema", "print the JSON Schema of result.json"),
    "sim": ("sim", "serve the simulated OpenAI-compatible judge endpoint"),
    "evidence": ("evidence", "sniff, extract, render and check decks alone, no model calls"),
    "init": ("init", "write tests/test.sh and the [verifier] blocks of task.toml into a Harbor task"),
    "try": ("try_", "run a task's tests/test.sh against a rollout as Harbor's verifier would, in a sandbox, no Docker"),
    "exit-message": ("exit_message", "infer the exit_code of a run that left no reward from its verifier logs"),
    "lint": ("lint", "check task packages before they ship (also the lint-rubric command)"),
    "gen-ppt-rubrics": ("gen_ppt_rubrics", "write ppt_judge's content rows (from the instance's task_check_dir) and visual rows (from the shared template) into <instance>/tests/rubric.json"),
    "rescore": ("rescore", "recompute rewards from stored verdicts (new rubric, mode, threshold), zero model calls"),
    "summarize": ("summarize", "account for many result documents: rewards, coverage, error kinds, hit rates, bootstrap CIs"),
    "report": ("report", "one self-contained HTML page of one job: score, verdicts, coverage, deck pages"),
    "batch": ("batch", "judge many instances offline under one global in-flight limit, resumably, then summarize"),
    "calibrate": ("calibrate", "agreement of the judge with human labels (accuracy, kappa, F1, reward error), bootstrap CIs"),
    "import": ("import_", "convert HealthBench / PaperBench / DevAI / reference-answer data into instances (+ labels)"),
}
"""Sub-command name → (module under `cowork_judge.commands`, one-line help)."""



def usage() -> str:
    """The top-level help text: every command with its one-line help."""
    width = max(len(n) for n in COMMANDS)
    lines = ["usage: cowork-judge [--version] <command> [options]",
             "       python -m cowork_judge <tests-dir>   (the original 1.3.x's entry and settings: docs/migration.md)", "",
             "Rubric judge for Harbor tasks: one rollout in, one reward out.", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_text}" for name, (_, help_text) in COMMANDS.items()]
    lines += ["", "Run 'cowork-judge <command> --help' for the options of a command."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cowork-judge`` console script; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    name = f"cowork-judge {args[0]}" if args and args[0] in COMMANDS else "cowork-judge"
    with pipe_safe_console():  # trial 23 P-5: `init <task> | head -1` still writes what it said it writes
        return _dispatch(args, name)


def _dispatch(args: list[str], name: str) -> int:
    """Run the command `args` names (`name`: how its messages start); returns the exit status."""
    try:
        legacy_entry = importlib.import_module(f"{__name__}.legacy_entry")  # like a command: imported by name
        if (not args or args[0] not in COMMANDS) and legacy_entry.looks_like_legacy_call(args, os.environ):
            return int(legacy_entry.main(args))  # the original 1.3.x's `python -m cowork_judge <tests>`
        if not args or args[0] in ("-h", "--help"):
            print(usage(), file=sys.stdout if args else sys.stderr)
            return 0 if args else EXIT_STATUS["usage"]
        if args[0] == "--version":
            print(f"cowork-judge {__version__} (abi {ABI})")
            return 0
        entry = COMMANDS.get(args[0])
        if entry is None:
            print(f"cowork-judge: unknown command {args[0]!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
            return EXIT_STATUS["usage"]
        module = importlib.import_module(f"{__name__}.{entry[0]}")
        return int(module.main(args[1:]))
    except KeyboardInterrupt:  # Ctrl-C in any command: one line, exit 130 (`run` writes its documents first)
        procs = sys.modules.get("cowork_judge._util.procs")
        if procs is not None:  # no LibreOffice / Chromium / worker the command started outlives it
            procs.kill_all()
        print(f"{name}: interrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_STATUS["SIGINT"]
    except BrokenPipeError as exc:  # not the console's (`PipeSafe` drops those): a pipe the command needed
        print(f"{name}: error: broken pipe: {exc}", file=sys.stderr)
        return 1


def console() -> int:
    """Entry point of the ``cowork-judge`` console script and of ``python -m cowork_judge``:
    `main` on ``sys.argv``, then, after a judge run (`JUDGE_RUN`), `end_process`.

    Returns:
        The exit status, when the process is not ended here (any other command, or a run
        that leaves a non-daemon thread behind).
    """
    status = main()
    if JUDGE_RUN:
        end_process(status)
    return status


def end_process(status: int) -> None:
    """End the process now with `status`, skipping the interpreter's teardown.

    A judge run's documents are written and closed when its `main` returns; what is left is
    tearing down ~330 modules and their objects (~0.05 s CPU, an eighth of a code-only run;
    `bench/startup.py`, issue 38), which every trial of a fleet pays. This runs what a normal
    exit runs that anyone can observe — the ``atexit`` handlers (logging's shutdown, which
    flushes and closes the log handlers; ``weakref.finalize`` callbacks such as temporary
    folders'), then flushes stdout and stderr — and ends with ``os._exit``. Returns without
    doing anything when a non-daemon thread is still alive (a normal exit waits for it).
    """
    if any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: the process was started with that descriptor closed
                stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: nothing more can reach it
            pass
    os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console())
