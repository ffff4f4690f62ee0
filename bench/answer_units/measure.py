"""Blind set for spelled-out units in answer_match (trial 17 P-10): how often code decides as expected.

Each line of blind.jsonl: a reference, a response, and the expected outcome: "match" (code, level 1),
"miss" (code, level 0) or "model" (code cannot decide). Written before the unit words were added.
Run: PYTHONPATH=<tree>/src python bench/answer_units/measure.py [--rows]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cowork_judge.workflow.answer_match.decide import code_decision


def outcome(ref: str, response: str) -> str:
    """"match", "miss", "partial" or "model" for one case at rel_tol 0.05."""
    got = code_decision([ref], response, 0.05)
    if got is None:
        return "model"
    return {1.0: "match", 0.0: "miss"}.get(got.level, "partial")


def main() -> int:
    cases = [json.loads(line) for line in (Path(__file__).parent / "blind.jsonl").read_text().splitlines() if line]
    right = 0
    wrong_code = 0
    for c in cases:
        got = outcome(c["ref"], c["response"])
        right += got == c["expect"]
        wrong_code += got != c["expect"] and got != "model"
        if "--rows" in sys.argv or got != c["expect"]:
            print(f"{'ok ' if got == c['expect'] else 'BAD'} {c['ref']!r:16} {c['response']!r:70} expect {c['expect']:5} got {got}")
    print(f"{right}/{len(cases)} as expected; {wrong_code} code decisions that differ from the expectation")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
