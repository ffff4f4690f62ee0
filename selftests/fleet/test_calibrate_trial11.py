"""Trial 11 F6: ``calibrate --results DIR`` paired labels with stored results by instance name alone, even when DIR's
results were judged on another rollout or another rubric: human labels of one answer against verdicts on another, and
a label for a row whose question changed, with no word. An instance whose stored result no longer matches the
instance given (its ``batch-instance.json`` fingerprint differs, or its rows ask other questions) is now left out of
every statistic with a named warning and a count in the report; when none matches, calibrate refuses (exit 1).
Real ``calibrate`` over HTTP against the simulator."""

from __future__ import annotations

import json
import os
import shutil
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
OCEAN = "The sky is blue because it reflects the ocean."
JUDGED = {"A-WAVELENGTH": {"hit": True}, "A-WRONG": {"hit": True}}
LABELS = {"A-WAVELENGTH": {"hit": True}, "A-WRONG": {"hit": False}}


def _answer(inst: Path, text: str) -> None:
    agent = inst / "rollout" / "logs" / "agent"
    shutil.rmtree(inst / "rollout", ignore_errors=True)
    agent.mkdir(parents=True)
    (agent / "trajectory.json").write_text(json.dumps({
        "schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "agent", "message": text}]}))


def _instances(root: Path, n: int = 3) -> Path:
    for i in range(n):
        inst = root / f"chat{i}"
        (inst / "tests").mkdir(parents=True)
        (inst / "tests" / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
        (inst / "tests" / "task_prompt.md").write_text("Why is the sky blue?\n")
        _answer(inst, GOOD)
        (inst / "oracle.json").write_text(json.dumps(LABELS))
    return root


def _reword(inst: Path) -> None:
    rows = [dict(ROWS[0], description="The answer says the sky is green."), ROWS[1]]
    (inst / "tests" / "rubric.json").write_text(json.dumps({"rubrics": rows}))


def _calibrate(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    server = SimServer(OraclePolicy.from_dict(JUDGED), api_key=SIM_KEY).start()
    try:
        for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_EVIDENCE": "0"}.items():
            monkeypatch.setenv(k, v)
        code = main(["calibrate", *args])
    finally:
        server.stop()
    captured = capsys.readouterr()
    return code, " ".join((captured.err + captured.out).split())


def test_results_of_another_rollout_or_rubric_are_left_out_named_and_counted(tmp_path: Path, monkeypatch, capsys):
    cal = _instances(tmp_path / "cal")
    code, said = _calibrate(monkeypatch, capsys, str(cal), "--out", str(tmp_path / "runs"), "--report",
                            str(tmp_path / "first.json"))
    assert code == 0, said
    first = json.loads((tmp_path / "first.json").read_text())
    assert first["instances"]["calibrated"] == 3 and first["instances"]["result_mismatch"] == []

    same = tmp_path / "same"  # an honest copy (times kept): every stored result still pairs, silently
    shutil.copytree(cal, same)
    code, said = _calibrate(monkeypatch, capsys, str(same), "--results", str(tmp_path / "runs"), "--report",
                            str(tmp_path / "same.json"))
    assert code == 0, said
    assert "warning" not in said, said
    assert json.loads((tmp_path / "same.json").read_text())["agreement"] == first["agreement"]

    cal2 = tmp_path / "cal2"
    shutil.copytree(cal, cal2)
    _answer(cal2 / "chat0", OCEAN)  # another answer
    _reword(cal2 / "chat1")  # a row that asks another question
    code, said = _calibrate(monkeypatch, capsys, str(cal2), "--results", str(tmp_path / "runs"), "--report",
                            str(tmp_path / "cal2.json"))
    assert code == 0, said
    report = json.loads((tmp_path / "cal2.json").read_text())
    assert report["instances"]["calibrated"] == 1
    assert report["instances"]["result_mismatch"] == ["chat0", "chat1"]
    assert [i["name"] for i in report["per_instance"]] == ["chat2"]
    assert report["agreement"]["n"] == 2  # chat2's two rows only
    assert ("chat0: warning: its stored result was judged on another instance: the batch-instance.json fingerprint "
            "differs (its rollout or tests/ changed since it was judged") in said, said
    assert "chat1: warning: its stored result was judged on another instance: row 'A-WAVELENGTH' changed (description)" in said
    assert "2 instance(s) whose stored result was judged on another rollout or rubric" in said, said


def test_none_matching_is_refused(tmp_path: Path, monkeypatch, capsys):
    cal = _instances(tmp_path / "cal", 2)
    code, said = _calibrate(monkeypatch, capsys, str(cal), "--out", str(tmp_path / "runs"), "--report",
                            str(tmp_path / "first.json"))
    assert code == 0, said
    for inst in ("chat0", "chat1"):
        _answer(cal / inst, OCEAN)
    code, said = _calibrate(monkeypatch, capsys, str(cal), "--results", str(tmp_path / "runs"), "--report",
                            str(tmp_path / "again.json"))
    assert code == 1, said
    assert "nothing to calibrate" in said and "2 whose stored result was judged on another instance" in said, said
    assert not (tmp_path / "again.json").exists()


def test_without_rollouts_a_reworded_row_is_still_caught_and_the_unchecked_fingerprint_said(tmp_path: Path, monkeypatch,
                                                                                             capsys):
    cal = _instances(tmp_path / "cal")
    code, said = _calibrate(monkeypatch, capsys, str(cal), "--out", str(tmp_path / "runs"), "--report",
                            str(tmp_path / "first.json"))
    assert code == 0, said
    bare = tmp_path / "bare"  # tests/ and labels only (calibrate --results reads no rollout)
    shutil.copytree(cal, bare, ignore=shutil.ignore_patterns("rollout"))
    _reword(bare / "chat1")
    code, said = _calibrate(monkeypatch, capsys, str(bare), "--results", str(tmp_path / "runs"), "--report",
                            str(tmp_path / "bare.json"))
    assert code == 0, said
    report = json.loads((tmp_path / "bare.json").read_text())
    assert report["instances"]["result_mismatch"] == ["chat1"]
    assert report["instances"]["fingerprint_unchecked"] == ["chat0", "chat2"]
    assert "the rollouts cannot be read" in said and "paired by their rows' text only" in said, said
