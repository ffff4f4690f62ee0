"""Trial 27 P-4: a row with ``code_method_name``/``code_method_params`` but no ``"judge_method": "code"`` is judged by
the model; lint says M004, and the run says the same sentence in ``details.warnings`` (as it does R009, R022…).
Real CLI (`judge_run`) against the simulator; lint's M004 is not said twice (no R009 copy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

M004 = ("row 'C-RAYLEIGH': code_method_name, code_method_params set on a row judged by agentic (the default): ignored; "
        "did you mean judge_method 'code'?")


def _task(root: Path) -> tuple[Path, Path]:
    tests, rollout = root / "tests", root / "rollout"
    tests.mkdir(parents=True)
    rows = [{"id": "C-RAYLEIGH", "description": "The answer names Rayleigh scattering.", "weight": 1,
             "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
            {"id": "C-BLUE", "description": "The answer says the sky is blue.", "weight": 1}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("The sky is blue because light scatters.\n")
    return tests, rollout


def test_a_code_row_without_judge_method_code_is_warned_about_in_the_run(tmp_path, judge_run):
    tests, rollout = _task(tmp_path)
    run = judge_run(tests, rollout)
    doc = json.loads((run.verifier / "result.json").read_text())
    assert M004 in doc["details"]["warnings"], doc["details"]["warnings"]
    row = next(c for c in doc["criteria"] if c["id"] == "C-RAYLEIGH")
    assert row["judge_method"] == "agentic"  # still judged by the model: the warning says so, nothing else changed
    lint = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests / "rubric.json")],
                          capture_output=True, text=True, timeout=120)
    said = lint.stdout + lint.stderr
    assert "M004" in said and "R009" not in said, said
