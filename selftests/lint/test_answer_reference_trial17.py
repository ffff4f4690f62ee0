"""Trial 17 P-10: lint warns (M013) about an answer_match reference that starts with a number code
cannot read, so every rollout would silently go to the model; the run's own parser decides."""

from __future__ import annotations

import json
import subprocess
import sys

from cowork_judge.workflow.answer_match.rows import answer_row, process_row


def _lint(tmp_path, rows):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests)], capture_output=True, text=True,
                          timeout=120)
    return proc


def test_a_reference_code_cannot_read_is_warned(tmp_path):
    rows = [answer_row("FURLONGS", "8.3 furlongs", weight=1), answer_row("PARTS", ["(a) 3 km", "(b) 5 m/s north"], weight=1)]
    proc = _lint(tmp_path, rows)
    assert "WARN M013 row 'FURLONGS'" in proc.stdout and "'8.3 furlongs'" in proc.stdout, proc.stdout
    assert "WARN M013 row 'PARTS'" in proc.stdout and "'5 m/s north'" in proc.stdout, proc.stdout
    assert "'3 km'" not in proc.stdout
    assert "every rollout goes to the model" in proc.stdout
    assert proc.returncode == 0, proc.stdout + proc.stderr  # a WARN, not an ERROR


def test_readable_and_prose_references_are_not_warned(tmp_path):
    rows = [answer_row("MIN", "8.3 minutes", weight=1), answer_row("SYM", "499 s", weight=1),
            answer_row("PROSE", "a circle of radius 2", weight=1), answer_row("PCT", "12 per cent", weight=1),
            process_row("PROC", "energy conservation", weight=1)]
    proc = _lint(tmp_path, rows)
    assert "M013" not in proc.stdout, proc.stdout
