"""Issue 39 item 4 end to end: a WritingBench-style graded row (1–10, "met" at 6, written as
fractions of the weight with ``pass_level: 0.6``) judged by `cowork-judge run` over the real
``openai`` client against the simulator, then calibrated by `cowork-judge calibrate` against
human labels: the judge is told the bar, the row below it is a miss that keeps its credit,
its dependant's gate stays closed, a ``hit:false`` at the bar is reported as the
contradiction it is, and calibrate pairs hits by the bar on both sides."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cowork_judge.commands import main

TEN = {f"{n / 10:g}": f"{n} of 10" for n in range(1, 11)}
RUBRIC = {"rubrics": [
    {"id": "G-ARGUMENT", "description": "The essay argues its thesis convincingly.", "weight": 4, "levels": TEN,
     "pass_level": 0.6},
    {"id": "A-CONCLUSION", "description": "The conclusion follows from the argument.", "weight": 1,
     "depends_on": ["G-ARGUMENT"]},
]}


def _task(tmp_path: Path) -> tuple[Path, Path]:
    tests = tmp_path / "inst" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Write a short argumentative essay.\n")
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "app" / "output" / "essay.md").write_text("# Essay\n\nA thesis, an argument and a conclusion.\n")
    return tests, rollout


def _audit_text(work: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(work.rglob("*")) if p.is_file() and p.suffix in (".json", ".jsonl"))


@pytest.mark.parametrize("level,hit,reward,contradiction", [
    (0.5, True, 0.4, False),  # 5 of 10: below the bar, a miss that keeps 0.5 × 4; the dependant earns nothing
    (0.6, True, (2.4 + 1) / 5, False),  # 6 of 10: met, the dependant's gate opens
    (0.7, False, 0.0, True),  # hit:false at 7 of 10: the judge contradicts itself, scored as a miss
])
def test_a_graded_row_with_a_pass_bar_end_to_end(judge_run, tmp_path, level, hit, reward, contradiction):
    tests, rollout = _task(tmp_path)
    oracle = {"G-ARGUMENT": {"hit": hit, "level": level, "reason": f"{level * 10:g} of 10"},
              "A-CONCLUSION": {"hit": True, "reason": "it follows"}}
    run = judge_run(tests, rollout, oracle=oracle, env={"JUDGE_EVIDENCE": "0"})
    assert run.returncode == 0, run.stderr
    doc = run.doc
    rows = {r["id"]: r for r in doc["results"]}
    g, a = rows["G-ARGUMENT"], rows["A-CONCLUSION"]
    assert doc["task_score"] == pytest.approx(reward)
    assert g["hit"] is (level >= 0.6 and not contradiction) and g["level_fallback"] is contradiction
    assert a["gate"] == ("open" if g["hit"] else "closed")
    assert {c["id"]: c.get("pass_level") for c in doc["criteria"]} == {"G-ARGUMENT": 0.6, "A-CONCLUSION": None}
    assert "pass bar is 0.6: hit=true when level >= 0.6" in _audit_text(run.work)  # the judge was told the bar
    said = [w for w in doc["details"]["warnings"] if "G-ARGUMENT" in w]
    if contradiction:
        assert said == ["graded row 'G-ARGUMENT': the judge said hit:false but gave level 0.7 (at or above the row's "
                        "pass_level 0.6); the two contradict each other, so the row is scored as a miss (no credit)"]
    else:
        assert said == []

    # calibrate reads the stored result: the human gave 6 of 10 and (as the oracle format does) hit = level > 0
    results = tmp_path / "results" / "inst" / "logs"
    shutil.copytree(run.verifier, results / "verifier")
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"inst": {"G-ARGUMENT": {"hit": True, "level": 0.6}, "A-CONCLUSION": {"hit": True}}}))
    report = tmp_path / "calibration.json"
    assert main(["calibrate", str(_instances(tmp_path)), "--results", str(tmp_path / "results"), "--labels", str(labels),
                 "--report", str(report), "--draws", "0"]) == 0
    agreement = json.loads(report.read_text())["agreement"]
    # the human's 6 of 10 is met; the judge's row is met only at 6 (a hit:false at 7 is a miss as scored)
    judge_met = level == 0.6
    assert agreement["confusion"] == {"tp": 1 + judge_met, "fp": 0, "fn": 1 - judge_met, "tn": 0}


def _instances(tmp_path: Path) -> Path:
    """A folder of instances for calibrate: ``instances/inst/tests`` (the task judged above)."""
    folder = tmp_path / "instances"
    if not folder.exists():
        shutil.copytree(tmp_path / "inst", folder / "inst")
    return folder
