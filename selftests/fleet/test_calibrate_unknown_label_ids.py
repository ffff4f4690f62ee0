"""Trial 12 F8: ``calibrate`` counted a label naming no row of the rubric (a typo in a row id) in
``rows.unknown_labels`` but never said which: the row looked unlabelled with no word why. Each such
label is now named, with its instance (and the closest row id), on stderr and in the report.
Real ``calibrate`` over HTTP against the simulator."""

from __future__ import annotations

import json
import os
from pathlib import Path

from testkit import SIM_KEY

from cowork_judge.commands import main
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import OraclePolicy

ROWS = [
    {"id": "A-WAVELENGTH", "description": "The answer says blue light scatters more because of its shorter wavelength.",
     "weight": 2},
    {"id": "A-WRONG", "description": "The answer does not claim the sky reflects the ocean.", "weight": 1},
]
GOOD = "The sky is blue because shorter (blue) wavelengths scatter more in the air (Rayleigh scattering)."


def _instances(root: Path) -> Path:
    for i in range(2):
        inst = root / f"chat{i}"
        (inst / "tests").mkdir(parents=True)
        (inst / "tests" / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
        (inst / "tests" / "task_prompt.md").write_text("Why is the sky blue?\n")
        agent = inst / "rollout" / "logs" / "agent"
        agent.mkdir(parents=True)
        (agent / "final_answer.txt").write_text(GOOD + "\n")
        labels = {"A-WAVELENGTH": {"hit": True}, "A-WRONG": {"hit": True}}
        if i == 1:
            labels = {"A-WAVELENTH": {"hit": True}, "A-WRONG": {"hit": True}, "NOPE": {"hit": False}}
        (inst / "oracle.json").write_text(json.dumps(labels))
    return root


def test_a_label_naming_no_row_is_named_with_its_instance(tmp_path: Path, monkeypatch, capsys):
    cal = _instances(tmp_path / "cal")
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    server = SimServer(OraclePolicy.from_dict({"A-WAVELENGTH": {"hit": True}, "A-WRONG": {"hit": True}}),
                       api_key=SIM_KEY).start()
    try:
        for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_EVIDENCE": "0"}.items():
            monkeypatch.setenv(k, v)
        code = main(["calibrate", str(cal), "--out", str(tmp_path / "runs"), "--report", str(tmp_path / "r.json")])
    finally:
        server.stop()
    said = " ".join(capsys.readouterr().err.split())
    assert code == 0, said
    assert "chat1: warning: label 'A-WAVELENTH' names no row of its rubric (did you mean 'A-WAVELENGTH'?)" in said
    assert "chat1: warning: label 'NOPE' names no row of its rubric" in said
    assert "chat0: warning: label" not in said
    assert "2 label(s) naming no row of the rubric, not paired (warnings above)" in said
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["rows"]["unknown_labels"] == 2
    assert report["rows"]["unknown_label_ids"] == {"chat1": ["A-WAVELENTH", "NOPE"]}
    by_name = {i["name"]: i for i in report["per_instance"]}
    assert by_name["chat1"]["unknown_label_ids"] == ["A-WAVELENTH", "NOPE"] and by_name["chat0"]["unknown_label_ids"] == []
