"""Command line: ``cowork-judge run | demo | sim | evidence | config | schema``.

Usage errors exit 2 with a message; `run` and `demo` exit 0 when the result status is
success or skipped and 1 otherwise (the reward file is written either way).
"""

from __future__ import annotations

import time

_PROCESS_START = time.monotonic()  # JUDGE_DEADLINE counts from process start (≈ import)

import sys  # noqa: E402

if sys.argv[1:2] == ["run"]:  # a SIGTERM from here on still gets its documents (before the 0.4 s of imports below)
    from cowork_judge import signals  # noqa: E402

    signals.capture()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from cowork_judge import ABI, __version__  # noqa: E402
from cowork_judge.config import ENV_NAMES, load_config, masked  # noqa: E402
from cowork_judge.paths import RunPaths  # noqa: E402

ROLLOUTS = ("deck", "chat", "empty")


PASS_THROUGH = {"sim": "cowork_judge.sim.cli", "evidence": "cowork_judge.evidence.cli"}
"""Sub-commands with their own argument parsers: everything after the name goes to them."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cowork-judge`` console script."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in PASS_THROUGH:
            import importlib

            return int(importlib.import_module(PASS_THROUGH[args_list[0]]).main(args_list[1:]))
        parser = _parser()
        args = parser.parse_args(args_list)
        if not getattr(args, "command", None):
            parser.print_help()
            return 2
        return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C outside `run` (whose handler writes the documents first)
        print("cowork-judge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `cowork-judge config | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cowork-judge", description="Rubric judge for Harbor tasks: one rollout in, one reward out.")
    p.add_argument("--version", action="version", version=f"cowork-judge {__version__} (abi {ABI})")
    sub = p.add_subparsers(dest="command")

    run = sub.add_parser("run", help="judge one rollout (inside a Harbor task container by default)")
    _path_args(run)
    run.set_defaults(func=_cmd_run)

    demo = sub.add_parser("demo", help="judge the bundled example instance against the built-in simulator")
    demo.add_argument("--rollout", choices=[*ROLLOUTS, "healthbench"], default="deck", help="which sample rollout to judge")
    demo.add_argument("--logs-dir", help="where to write the verifier outputs (default: a new temp dir)")
    demo.set_defaults(func=_cmd_demo)

    sub.add_parser("sim", help="serve the simulated OpenAI-compatible judge endpoint (see: cowork-judge sim --help)")

    cfg = sub.add_parser("config", help="print the effective configuration (secrets masked) and where each value came from")
    cfg.add_argument("--json", action="store_true", help="machine-readable output")
    cfg.set_defaults(func=_cmd_config)

    sub.add_parser("evidence", help="sniff, extract, render and check decks alone, no model calls (see: cowork-judge evidence --help)")

    schema = sub.add_parser("schema", help="print the JSON Schema of result.json")
    schema.set_defaults(func=_cmd_schema)
    return p


def _path_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--app-dir", help="agent workdir holding output/ (default $JUDGE_APP_DIR or /app)")
    p.add_argument("--logs-dir", help="logs root holding agent/ and verifier/ (default $JUDGE_LOGS_DIR or /logs)")
    p.add_argument("--tests-dir", help="the task's tests dir with rubric.json (default $JUDGE_TESTS_DIR or /tests)")
    p.add_argument("--work-dir", help="private scratch dir for block workspaces (default: a new temp dir)")
    p.add_argument("--alt-output-dir", help="extra output dir read by lenient delivery (default /output)")


def _cmd_run(args: argparse.Namespace) -> int:
    from cowork_judge.judge import main_run

    paths = RunPaths.resolve(
        app_dir=args.app_dir, logs_dir=args.logs_dir, tests_dir=args.tests_dir,
        work_dir=args.work_dir, alt_output_dir=args.alt_output_dir,
    )
    doc = main_run(paths, load_config(), start=_PROCESS_START, hard_deadline=True)
    return 0 if doc is not None and doc.status in ("success", "skipped") else 1


def _cmd_demo(args: argparse.Namespace) -> int:
    from cowork_judge.examples import example_paths
    from cowork_judge.judge import main_run

    try:
        tests_dir, rollout = example_paths(args.rollout)
    except FileNotFoundError as exc:
        print(f"cowork-judge demo: {exc}", file=sys.stderr)
        return 2
    logs_dir = Path(args.logs_dir) if args.logs_dir else Path(tempfile.mkdtemp(prefix="cowork-judge-demo-"))
    env = dict(os.environ)
    env.setdefault("JUDGE_START_JITTER", "0")  # a demo should not wait up to 3 minutes
    server = None
    if not load_config(env).config.has_credentials:
        from cowork_judge.sim import DemoPolicy, SimServer

        server = SimServer(DemoPolicy()).start()
        env.update(JUDGE_API_KEY="sim-demo-key", JUDGE_BASE_URL=server.url, JUDGE_MODEL="simulated-judge")
        print(f"no judge endpoint configured: using the built-in simulator at {server.url} (simulated judge, no model)")
    try:
        paths = RunPaths.resolve(app_dir=rollout / "app", logs_dir=logs_dir, tests_dir=tests_dir, alt_output_dir=rollout / "output")
        _copy_agent_logs(rollout, logs_dir)
        doc = main_run(paths, load_config(env), start=time.monotonic(), environ=env)
    finally:
        if server is not None:
            server.stop()
    reward = doc.task_score if doc is not None else 0.0
    print(f"reward: {reward}")
    print(f"result: {paths.result_json}")
    if doc is not None:
        ef = doc.extra_fields
        print(f"status: {doc.status}  coverage: {ef.judge_coverage:.3f}  model calls: {ef.judge_calls}")
    return 0 if doc is not None and doc.status in ("success", "skipped") else 1


def _copy_agent_logs(rollout: Path, logs_dir: Path) -> None:
    import shutil

    source = rollout / "logs" / "agent"
    if source.is_dir():
        shutil.copytree(source, logs_dir / "agent", dirs_exist_ok=True)


def _cmd_config(args: argparse.Namespace) -> int:
    loaded = load_config()
    values = masked(loaded.config)
    if args.json:
        print(json.dumps({"values": values, "sources": loaded.sources, "warnings": loaded.warnings}, indent=2, default=str))
        return 0
    for name, value in values.items():
        envs = "/".join(ENV_NAMES.get(name, ()))
        print(f"{name:28} {json.dumps(value, default=str):32} {loaded.sources.get(name, 'default'):34} {envs}")
    for w in loaded.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from cowork_judge.result import result_json_schema

    print(json.dumps(result_json_schema(), indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
