"""Autograder for the Week 6 lab (linked lists).

Runs the student's module against the hidden tests and writes grade.json. The teaching
team runs it on every submission; students get the same script with the public tests only.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

MAX_SCORE = 20
TESTS = [
    ("append to empty list", 2),
    ("append keeps order", 3),
    ("remove head", 3),
    ("remove missing value raises ValueError", 2),
    ("reverse in place", 5),
    ("len after 1,000 appends", 5),
]


def load(path: Path):
    spec = importlib.util.spec_from_file_location("submission", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def grade(results: dict[str, bool]) -> dict:
    """Score = sum of the weights of passed tests; verdict 'pass' at 12 or more."""
    score = sum(weight for name, weight in TESTS if results.get(name))
    verdict = "pass" if score >= 12 else "fail"
    # full marks only when every hidden test passes; no partial credit inside a test
    return {"score": score, "max_score": MAX_SCORE, "verdict": verdict,
            "full_marks": score == MAX_SCORE, "failed": [n for n, _ in TESTS if not results.get(n)]}


def main(argv: list[str]) -> int:
    module = load(Path(argv[1]))
    results = {name: bool(getattr(module, "check_" + name.split()[0], lambda: False)()) for name, _ in TESTS}
    report = grade(results)
    Path("grade.json").write_text(json.dumps(report, indent=2))
    print(f"score {report['score']}/{MAX_SCORE} ({report['verdict']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
