"""Trial 14 F15: ``report``'s "Where the points went" showed 0 points lost on every row of a run
whose reward a hurdle took from 1 to 0. The section now says, above the table, which hurdle
zeroed the reward, and the hurdle's own line says it is fatal. A run without a fatal hurdle
keeps the table as it was.

A real ``cowork-judge run`` (the simulator with an oracle over HTTP) and a real
``cowork-judge report``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROWS = [{"id": "A", "description": "The answer explains Rayleigh scattering.", "weight": 1},
        {"id": "H", "description": "The answer refuses or is off-topic.", "weight": 0, "hurdle": True}]


def _costs(judge_run, tmp_path: Path, hurdle_hit: bool) -> tuple[dict, str]:
    tests = tmp_path / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
    (tests / "task_prompt.md").write_text("Explain why the sky is blue.\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True, exist_ok=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(
        "The sky is blue because of Rayleigh scattering: short wavelengths scatter more.\n")
    oracle = {"A": {"hit": True, "reason": "explains it"}, "H": {"hit": hurdle_hit, "reason": "the answer refuses"}}
    run = judge_run(tests, rollout, oracle=oracle)
    assert run.returncode == 0, run.stderr
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    html = Path(proc.stdout.strip()).read_text(encoding="utf-8")
    return run.doc, html.split("<h2>Where the points went</h2>")[1].split("<h2>")[0]


def test_a_fatal_hurdle_is_named_where_the_points_went(judge_run, tmp_path):
    doc, costs = _costs(judge_run, tmp_path, hurdle_hit=True)
    assert doc["fatal"] is True and doc["task_score"] == 0.0 and doc["score_raw"] == 1.0
    assert "A hurdle zeroed the reward: row H counted as hit" in costs
    assert "(score_raw 1 → 0): the whole reward went to the hurdle" in costs
    hurdle_line = costs.split("<code>H</code>")[1].split("</tr>")[0]
    assert "fatal: this hurdle zeroed the reward" in hurdle_line
    assert "fatal" not in costs.split("<code>A</code>")[1].split("</tr>")[0]


def test_without_a_fatal_hurdle_nothing_is_added(judge_run, tmp_path):
    doc, costs = _costs(judge_run, tmp_path, hurdle_hit=False)
    assert doc["fatal"] is False and doc["task_score"] == 1.0
    assert "hurdle zeroed" not in costs


def test_the_rows_table_colours_a_hurdles_hit_as_a_fault(tmp_path):
    """Trial 15 P-6: a hit hurdle was painted green like a met requirement, the rows that earned nothing red."""
    from cowork_judge.fleet.report import _verdict_cell

    assert _verdict_cell(True, negative=True) == '<span class="miss">hit: fault</span>'
    assert _verdict_cell(False, negative=True) == '<span class="hit">miss: no fault</span>'
    assert _verdict_cell(True, negative=False) == '<span class="hit">hit</span>'
    assert _verdict_cell(False, negative=False) == '<span class="miss">miss</span>'
