"""Trial 6 F5: a panel judge whose ``api_key_env`` names an unset variable could not start, and the
log said "the openai backend needs JUDGE_API_KEY and JUDGE_BASE_URL" — both were set; what the judge
lacked was its own key variable. A real ``cowork-judge run`` against the simulator."""

from __future__ import annotations

import json
from pathlib import Path

RUBRIC = {"rubrics": [{"id": "A-SKY", "description": "The answer explains why the sky is blue.", "weight": 1}]}


def test_a_panel_judge_without_its_key_names_its_key_variable(judge_run, tmp_path: Path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Why is the sky blue?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Rayleigh scattering: the sky is blue.\n")
    panel = [{"name": "a", "model": "m1", "api_key_env": "TRIAL6_UNSET_KEY"}, {"name": "b", "model": "m2"}]
    run = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}}, env={"JUDGE_PANEL": json.dumps(panel)})
    assert run.returncode == 0, run.stderr
    (line,) = [x for x in run.stderr.splitlines() if "could not start" in x]
    assert "judge 'a'" in line and "TRIAL6_UNSET_KEY" in line, line
    assert "needs JUDGE_API_KEY" not in line, line
    doc = json.loads((run.verifier / "result.json").read_text())
    assert doc["details"]["sampling"]["lost"]["judges"] == {"a": 1}
