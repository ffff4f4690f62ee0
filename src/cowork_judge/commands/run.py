"""``cowork-judge run``: judge one rollout and write the verifier documents (SPEC §12)."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import sys
from pathlib import Path

from cowork_judge.commands import PROCESS_START
from cowork_judge.commands._args import path_args
from cowork_judge.core.exit_status import EXIT_STATUS, exit_status


def main(argv: list[str]) -> int:
    """Judge the rollout at the given (or default container) roots.

    Returns:
        The process exit status: 0 when the result is a clean success (or skipped), 1
        otherwise; the reward file is written either way. 2 (nothing written) when neither
        ``--logs-dir`` nor ``JUDGE_LOGS_DIR`` is given and the default's ``verifier/`` folder
        does not exist (`run.paths.default_logs_dir_refusal`: not a Harbor verifier container).
    """
    p = argparse.ArgumentParser(prog="cowork-judge run", description="Judge one rollout (inside a Harbor task container by default).")
    path_args(p)
    args = p.parse_args(argv)
    collecting = gc.isenabled()
    gc.disable()  # importing the engine makes ~40 pydantic models and ~90 dataclasses and no garbage:
    try:  # the collector's passes over them are ~5 % of a code-only run (bench/startup.py, issue 38)
        from cowork_judge.engine.judge import main_run
        from cowork_judge.config.judge_config import load_config
        from cowork_judge.run.paths import RunPaths, default_logs_dir_refusal
    finally:
        if collecting:
            gc.enable()

    loaded = load_config()
    if args.logs_dir is None and not loaded.sources.get("logs_dir", "").startswith("env:"):
        refusal = default_logs_dir_refusal(Path(loaded.config.logs_dir))
        if refusal is not None:
            print(f"cowork-judge run: error: {refusal}", file=sys.stderr)
            return EXIT_STATUS["usage"]
    paths = RunPaths.from_config(loaded.config, app_dir=args.app_dir, logs_dir=args.logs_dir, tests_dir=args.tests_dir,
                                 work_dir=args.work_dir, alt_output_dir=args.alt_output_dir)
    if args.logs_dir is not None and not Path(args.logs_dir).is_dir():  # trial 6 F9: said, never "nothing delivered"
        paths = dataclasses.replace(paths, logs_dir_absent=True)
    doc = main_run(paths, loaded, start=PROCESS_START, hard_deadline=True)
    return exit_status(doc.status if doc is not None else None)
