"""``cowork-judge schema``: print the published JSON Schema of result.json."""

from __future__ import annotations

import argparse
import json


def main(argv: list[str]) -> int:
    """Print the schema; returns 0."""
    argparse.ArgumentParser(prog="cowork-judge schema", description="Print the JSON Schema of result.json.").parse_args(argv)
    from cowork_judge.core.result import result_json_schema

    print(json.dumps(result_json_schema(), indent=2))
    return 0
