"""``cowork-judge run``: judge one rollout and write the verifier documents (SPEC §12)."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cowork_judge.commands import PROCESS_START
from cowork_judge.commands._args import path_args
from cowork_judge.core.exit_status import EXIT_STATUS, exit_status

if TYPE_CHECKING:
    from cowork_judge.config.judge_config import LoadedConfig
    from cowork_judge.run.paths import RunPaths


def main(argv: list[str]) -> int:
    """Judge the rollout at the given (or default container) roots.

    Returns:
        The process exit status: 0 when the result is a clean success (or skipped), 1
        otherwise; the reward file is written either way. 2 (nothing written) when neither
        ``--logs-dir`` nor ``JUDGE_LOGS_DIR`` is given and the default's ``verifier/`` folder
        does not exist (`run.paths.default_logs_dir_refusal`: not a Harbor verifier container),
        and for a root the run must not use (`_checked_roots`).
    """
    p = argparse.ArgumentParser(prog="cowork-judge run", description="Judge one rollout (inside a Harbor task container by default).")
    path_args(p)
    args = p.parse_args(argv)
    collecting = gc.isenabled()
    gc.disable()  # importing the engine makes ~40 pydantic models and ~90 dataclasses and no garbage:
    try:  # the collector's passes over them are ~5 % of a code-only run (bench/startup.py, issue 38)
        from cowork_judge.engine.judge import main_run
        from cowork_judge.config.judge_config import load_config
        from cowork_judge.run.paths import default_logs_dir_refusal
    finally:
        if collecting:
            gc.enable()

    loaded = load_config()
    if args.logs_dir is None and not loaded.sources.get("logs_dir", "").startswith("env:"):
        refusal = default_logs_dir_refusal(Path(loaded.config.logs_dir))
        if refusal is not None:
            print(f"cowork-judge run: error: {refusal}", file=sys.stderr)
            return EXIT_STATUS["usage"]
    checked = _checked_roots(args, loaded)
    if isinstance(checked, str):
        print(f"cowork-judge run: error: {checked}", file=sys.stderr)
        return EXIT_STATUS["usage"]
    paths, loaded = checked
    if args.logs_dir is not None and not Path(args.logs_dir).is_dir():  # trial 6 F9: said, never "nothing delivered"
        paths = dataclasses.replace(paths, logs_dir_absent=True)
    doc = main_run(paths, loaded, start=PROCESS_START, hard_deadline=True)
    return exit_status(doc.status if doc is not None else None)


def _checked_roots(args: argparse.Namespace, loaded: LoadedConfig) -> tuple[RunPaths, LoadedConfig] | str:
    """The run's paths, or why the command refuses them (exit 2, nothing written; trial 13):

    * a ``--work-dir`` that is a file, or cannot be made (its parent a file, not writable:
      `run.paths.work_dir_problem`) is refused; the same ``JUDGE_WORK_DIR`` (a fleet sets it for
      every run) is replaced by a private temp folder, with a warning in ``details.warnings``;
    * a logs dir or a given work dir that is, or lies inside, the app's output folder (or the
      lenient delivery's alternate folder, when lenient delivery is on) is refused, whether it
      came from the flag or from ``JUDGE_LOGS_DIR`` / ``JUDGE_WORK_DIR``
      (`run.paths.written_into_deliverables`): the run would judge its own documents.

    Returns:
        ``(paths, loaded)`` — `loaded` with the work dir's warning added — or the refusal (one line).
    """
    from cowork_judge._util.fsutil import discard_scratch
    from cowork_judge.run.paths import RunPaths, work_dir_problem, written_into_deliverables

    config = loaded.config
    work_said = "--work-dir" if args.work_dir is not None else "JUDGE_WORK_DIR"
    given_work = args.work_dir if args.work_dir is not None else config.work_dir
    problem = work_dir_problem(Path(given_work).absolute()) if given_work else None
    if problem is not None and args.work_dir is not None:
        return (f"--work-dir {given_work} {problem}; the judge keeps its deck evidence and block workspaces there; give "
                "a folder (it is made when missing), or leave --work-dir out for a temp folder removed at the end")
    paths = RunPaths.from_config(config, app_dir=args.app_dir, logs_dir=args.logs_dir, tests_dir=args.tests_dir,
                                 work_dir=args.work_dir, alt_output_dir=args.alt_output_dir)
    if problem is not None:
        paths = paths.with_private_work()
        loaded = dataclasses.replace(loaded, warnings=[*loaded.warnings, (
            f"work dir: JUDGE_WORK_DIR {given_work} {problem}; this run worked in a temp folder of its own, removed at "
            "the end (its deck evidence is kept in the verifier folder's evidence/)")])
    logs_said = "--logs-dir" if args.logs_dir is not None else ("JUDGE_LOGS_DIR" if loaded.sources.get("logs_dir", "").startswith("env:")
                                                                else "the default logs dir")
    given = {"logs_dir": logs_said, **({} if paths.ephemeral_work else {"work_dir": work_said})}
    refusal = written_into_deliverables(paths, logs_dir=paths.logs_dir, given=given,
                                        alt_output_dir=paths.alt_output_dir if config.lenient_delivery else None)
    if refusal is not None:
        if paths.ephemeral_work:
            discard_scratch(paths.work_dir)
        return refusal
    return paths, loaded
