"""Trial 9 F3: calibrate read a label ``{hit: false, level: 1}`` two ways at once — a human miss in agreement, full
human credit in the human reward — and took a level on a binary row silently. A label is now read by the rule the
judge's own answers are read by (docs/scoring.md: ``hit: false`` with a passing level is a miss with no credit;
``hit: true`` below the bar earns its level, a miss), the same in agreement, levels and the human reward, and a warning
names each such label (real ``calibrate`` over HTTP against the simulator)."""

from __future__ import annotations

import json
import os

from testkit import SIM_KEY

from cowork_judge.commands import main
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import OraclePolicy

ROWS = [
    {"id": "A-WAVELENGTH", "description": "The answer says blue light scatters more because of its shorter wavelength.",
     "weight": 2, "levels": {"0": "neither", "0.5": "names scattering", "1": "names the wavelength"}},
    {"id": "A-WRONG", "description": "The answer does not claim the sky reflects the ocean.", "weight": 1},
]
ANSWER = "The sky is blue because shorter (blue) wavelengths scatter more in the air (Rayleigh scattering)."
JUDGED = {"A-WAVELENGTH": {"hit": True, "level": 1}, "A-WRONG": {"hit": True}}


def _instance(root, labels):
    inst = root / "chat-good"
    (inst / "tests").mkdir(parents=True)
    (inst / "tests" / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
    (inst / "tests" / "task_prompt.md").write_text("Why is the sky blue?\n")
    agent = inst / "rollout" / "logs" / "agent"
    agent.mkdir(parents=True)
    (agent / "trajectory.json").write_text(json.dumps({
        "schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "agent", "message": ANSWER}]}))
    (inst / "oracle.json").write_text(json.dumps(labels))


def _calibrate(tmp_path, monkeypatch, capsys, labels):
    _instance(tmp_path / "cal", labels)
    server = SimServer(OraclePolicy.from_dict(JUDGED), api_key=SIM_KEY).start()
    try:
        for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
            monkeypatch.delenv(k)
        for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_EVIDENCE": "0"}.items():
            monkeypatch.setenv(k, v)
        code = main(["calibrate", str(tmp_path / "cal"), "--out", str(tmp_path / "runs"), "--report",
                     str(tmp_path / "report.json")])
    finally:
        server.stop()
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads((tmp_path / "report.json").read_text()), captured.err + captured.out


def test_a_label_whose_level_contradicts_its_hit_is_one_miss_with_no_credit(tmp_path, monkeypatch, capsys):
    report, said = _calibrate(tmp_path, monkeypatch, capsys,
                              {"A-WAVELENGTH": {"hit": False, "level": 1}, "A-WRONG": {"hit": True, "level": 0.5}})
    assert report["agreement"]["confusion"]["fp"] == 1  # the judge hit, the human label read as a miss
    assert report["reward"]["human_mean"] == 1 / 3  # A-WAVELENGTH earns nothing (was 1.0: full credit)
    assert report["levels"]["pairs"] == 0  # the contradicted level is no human level
    assert report["rows"]["label_conflicts"] == 2
    assert "label 'A-WAVELENGTH': hit=false contradicts level 1 (above 0); read as a miss, no credit" in said, said
    assert "label 'A-WRONG': level 0.5 on a row scored by hit (not graded): the level is ignored" in said, said
    assert "2 label(s) whose level contradicts its hit" in said


def test_a_hit_label_below_the_bar_earns_its_level_as_a_miss(tmp_path, monkeypatch, capsys):
    report, said = _calibrate(tmp_path, monkeypatch, capsys,
                              {"A-WAVELENGTH": {"hit": True, "level": 0}, "A-WRONG": {"hit": True}})
    assert report["agreement"]["confusion"]["fp"] == 1
    assert report["reward"]["human_mean"] == 1 / 3
    assert report["rows"]["label_conflicts"] == 1
    assert "label 'A-WAVELENGTH': hit=true contradicts level 0; the level decides (no credit)" in said, said


def test_consistent_labels_say_nothing(tmp_path, monkeypatch, capsys):
    report, said = _calibrate(tmp_path, monkeypatch, capsys,
                              {"A-WAVELENGTH": {"hit": True, "level": 0.5}, "A-WRONG": {"hit": True}})
    assert report["rows"]["label_conflicts"] == 0 and "contradict" not in said
    assert report["reward"]["human_mean"] == 2 / 3 and report["levels"]["pairs"] == 1
