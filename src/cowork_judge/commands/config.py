"""``cowork-judge config``: the effective configuration, secrets masked, with each value's source."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str]) -> int:
    """Print one row per knob (name, value, source, environment variables); returns 0."""
    p = argparse.ArgumentParser(prog="cowork-judge config", description="Print the effective configuration and where each value came from.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    args = p.parse_args(argv)
    from cowork_judge.config.judge_config import ENV_NAMES, load_config, masked

    loaded = load_config()
    values = masked(loaded.config)
    if args.json:
        print(json.dumps({"values": values, "sources": loaded.sources, "warnings": loaded.warnings}, indent=2, default=str))
        return 0
    print(f"{'knob':28} {'value':32} {'source':34} environment variable(s)")
    for name, value in values.items():
        envs = "/".join(ENV_NAMES.get(name, ()))
        print(f"{name:28} {json.dumps(value, default=str):32} {loaded.sources.get(name, 'default'):34} {envs}")
    for w in loaded.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return 0
