"""Trial 7 F9: with ``JUDGE_PANEL`` the result's ``judge_model`` (and the legacy ``usage.model``)
named ``JUDGE_MODEL``, a model the run never asked. Now they name what was asked: a one-judge
panel its model, a panel of several ``panel:<model>+<model>…`` in panel order
(docs/result-document.md); ``summarize --group-by judge_model`` groups by that. Real
``python -m cowork_judge run`` subprocesses against the simulator."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUBRIC = {"rubrics": [{"id": "A-SKY", "description": "The answer explains why the sky is blue.", "weight": 1}]}


def _task(tmp_path: Path) -> tuple[Path, Path]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Why is the sky blue?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Rayleigh scattering: the sky is blue.\n")
    return tests, rollout


def test_judge_model_names_the_panel_that_was_asked(judge_run, tmp_path: Path):
    tests, rollout = _task(tmp_path)
    one = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}}, env={"JUDGE_PANEL": json.dumps([{"model": "m2"}])})
    assert one.returncode == 0, one.stderr
    assert {e.model for e in one.sim.log.entries()} == {"m2"}  # the run's JUDGE_MODEL (sim-judge) is never asked
    assert one.doc["judge_model"] == "m2"
    assert one.doc["usage"]["model"] == "m2"
    exit_message = json.loads((one.verifier / "reward_exit_message.json").read_text())
    assert exit_message["extra_fields"]["judge_model"] == "m2"

    panel = [{"name": "a", "model": "m1"}, {"name": "b", "model": "m2"}]
    two = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}}, env={"JUDGE_PANEL": json.dumps(panel)})
    assert two.returncode == 0, two.stderr
    assert {e.model for e in two.sim.log.entries()} == {"m1", "m2"}
    assert two.doc["judge_model"] == "panel:m1+m2"
    assert two.doc["usage"]["model"] == "panel:m1+m2"

    plain = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}})
    assert plain.doc["judge_model"] == "sim-judge"  # no panel: JUDGE_MODEL, as before

    out = tmp_path / "summary.json"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "summarize", str(one.verifier), str(two.verifier),
                           str(plain.verifier), "--group-by", "judge_model", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    groups = json.loads(out.read_text())["groups"]["judge_model"]
    assert set(groups["documents"]) == {"m2", "panel:m1+m2", "sim-judge"}, groups
    assert all(g["documents"] == 1 for g in groups["documents"].values())
