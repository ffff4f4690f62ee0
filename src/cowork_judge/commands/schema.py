"""``cowork-judge schema``: print the published JSON Schema of result.json (or, with
``--fallback-template``, the last-resort document the judge fills in when it cannot build
one; both are generated from the code and kept identical to their packaged copies)."""

from __future__ import annotations

import argparse
import json


def main(argv: list[str]) -> int:
    """Print the schema (or the fallback template); returns 0."""
    p = argparse.ArgumentParser(prog="cowork-judge schema", description="Print the JSON Schema of result.json.")
    p.add_argument("--fallback-template", action="store_true",
                   help="print the last-resort result document template instead (src/cowork_judge/schemas/fallback-result.json)")
    args = p.parse_args(argv)
    if args.fallback_template:
        from cowork_judge.core.fold import fallback_document
        from cowork_judge.core.legacy import with_legacy_fields
        from cowork_judge.config.judge_config import JudgeConfig

        doc = with_legacy_fields(fallback_document(JudgeConfig().identity()).model_dump(mode="json", by_alias=True))
        print(json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False))
        return 0
    from cowork_judge.core.result import result_json_schema

    print(json.dumps(result_json_schema(), indent=2))
    return 0
