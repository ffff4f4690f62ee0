"""``cowork-judge demo``: judge the bundled example instance, against the built-in simulator
when no judge endpoint is configured (a deterministic policy labelled "simulated judge,
no model")."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from cowork_judge.commands.examples import ROLLOUTS, example_paths
from cowork_judge.core.exit_status import EXIT_STATUS, exit_status
from cowork_judge.layout import VerifierLayout


def main(argv: list[str]) -> int:
    """Judge a sample rollout and print the reward, the result path and the coverage.

    Returns:
        0 when the result is a clean success, 1 otherwise, 2 when the example is not installed.
    """
    p = argparse.ArgumentParser(prog="cowork-judge demo", description="Judge the bundled example instance against the built-in simulator.")
    p.add_argument("--rollout", choices=ROLLOUTS, default="deck", help="which sample rollout to judge")
    p.add_argument("--logs-dir", help="where to write the verifier outputs (default: a new temp dir)")
    args = p.parse_args(argv)
    from cowork_judge.engine.judge import main_run
    from cowork_judge.run.config import load_config
    from cowork_judge.run.paths import RunPaths

    try:
        tests_dir, rollout = example_paths(args.rollout)
    except FileNotFoundError as exc:
        print(f"cowork-judge demo: {exc}", file=sys.stderr)
        return EXIT_STATUS["usage"]
    logs_dir = Path(args.logs_dir) if args.logs_dir else Path(tempfile.mkdtemp(prefix="cowork-judge-demo-"))
    env = dict(os.environ)
    env.setdefault("JUDGE_START_JITTER", "0")  # a demo should not wait up to 3 minutes
    env.setdefault("JUDGE_WORKFLOW_START_JITTER", "0")  # nor up to 30 s before its first deck request
    server = None
    if not load_config(env).config.has_credentials:
        from cowork_judge.sim import DemoPolicy, SimServer

        server = SimServer(DemoPolicy()).start()
        env.update(JUDGE_API_KEY="sim-demo-key", JUDGE_BASE_URL=server.url, JUDGE_MODEL="simulated-judge")
        print(f"no judge endpoint configured: using the built-in simulator at {server.url} (simulated judge, no model)")
    app_dir = rollout / "app"
    if not app_dir.is_dir():  # a chat-only rollout has no files: an empty workdir, as in a real container
        app_dir = logs_dir / "app"
        app_dir.mkdir(parents=True, exist_ok=True)
    try:
        paths = RunPaths.resolve(app_dir=app_dir, logs_dir=logs_dir, tests_dir=tests_dir, alt_output_dir=rollout / "output")
        _copy_agent_logs(rollout, logs_dir)
        doc = main_run(paths, load_config(env), start=time.monotonic())
    finally:
        if server is not None:
            server.stop()
    reward = doc.task_score if doc is not None else 0.0
    print(f"reward: {reward}")
    print(f"result: {paths.result_json}")
    if doc is not None:
        ef = doc.extra_fields
        print(f"status: {doc.status}  coverage: {ef.judge_coverage:.3f}  model calls: {ef.judge_calls}")
    return exit_status(doc.status if doc is not None else None)


def _copy_agent_logs(rollout: Path, logs_dir: Path) -> None:
    source = VerifierLayout.under(rollout).agent_dir
    if source.is_dir():
        shutil.copytree(source, VerifierLayout(logs_dir).agent_dir, dirs_exist_ok=True)
