"""Trial 5, F1: ``calibrate``'s human reward scored an unlabelled CODE row as unjudged, so a
judge that agreed with every label still showed a reward error (MAE 0.089) and nothing said
why. A code row nobody labelled now keeps the judge's verdict in the human reward (a code
method decided it, not a model); a model row without a label still counts as unjudged, and the
headline says on how many instances the human reward is partial (real ``calibrate`` over HTTP
against the simulator answering from each instance's labels)."""

from __future__ import annotations

import json
import os

from testkit import SIM_KEY

from cowork_judge.commands import main
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import OraclePolicy

ROWS = [
    {"id": "R-RELIABLE", "description": "The answer says TCP provides reliable, ordered delivery.", "weight": 3},
    {"id": "R-UDP", "description": "The answer says UDP is connectionless.", "weight": 3},
    {"id": "C-LENGTH", "description": "The answer is under 200 words.", "weight": 1, "judge_method": "code",
     "code_method_name": "word_count_between", "code_method_params": {"max_words": 200, "source": "response"}},
]
LABELS = {"R-RELIABLE": {"hit": True}, "R-UDP": {"hit": False}}
ANSWER = "TCP is connection-oriented with reliable ordered delivery. HTTP runs over TCP."


def _instances(root, labels):
    for name in ("c1", "c2", "c3"):
        inst = root / name
        (inst / "tests").mkdir(parents=True)
        (inst / "tests" / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
        (inst / "tests" / "task_prompt.md").write_text("Compare TCP and UDP in a few sentences.\n")
        agent = inst / "rollout" / "logs" / "agent"
        agent.mkdir(parents=True)
        (agent / "trajectory.json").write_text(json.dumps({
            "schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "agent", "message": ANSWER}]}))
        (inst / "oracle.json").write_text(json.dumps(labels))


def _calibrate(tmp_path, monkeypatch, capsys, labels, judged_labels=LABELS):
    _instances(tmp_path / "cal", labels)
    server = SimServer(OraclePolicy.from_dict(judged_labels), api_key=SIM_KEY).start()
    try:
        for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
            monkeypatch.delenv(k)
        for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_EVIDENCE": "0"}.items():
            monkeypatch.setenv(k, v)
        code = main(["calibrate", str(tmp_path / "cal"), "--out", str(tmp_path / "runs"), "--report",
                     str(tmp_path / "report.json")])
    finally:
        server.stop()
    err = capsys.readouterr().err
    assert code == 0, err
    return json.loads((tmp_path / "report.json").read_text()), err


def test_an_unlabelled_code_row_keeps_the_judges_verdict_in_the_human_reward(tmp_path, monkeypatch, capsys):
    report, err = _calibrate(tmp_path, monkeypatch, capsys, LABELS)
    assert report["agreement"]["accuracy"] == 1.0
    assert report["reward"]["mae"] == 0.0 and report["reward"]["human_partial"] == 0, report["reward"]
    assert report["rows"]["from_code"] == 3 and report["rows"]["unlabelled"] == 0
    assert "human rewards partial" not in err, err


def test_an_unlabelled_model_row_is_said_in_the_headline(tmp_path, monkeypatch, capsys):
    report, err = _calibrate(tmp_path, monkeypatch, capsys, {"R-RELIABLE": {"hit": True}})
    assert report["reward"]["human_partial"] == 3 and report["rows"]["unlabelled"] == 3
    assert ("human reward withheld on 3 of 3 instance(s): 3 model row(s) without a label" in err), err
    assert report["reward"]["instances"] == 0 and report["reward"]["mae"] is None  # trial 10 F2


def test_a_judge_failure_is_left_out_of_the_reward_effect(tmp_path, monkeypatch, capsys):
    """Trial 5, F18: an instance whose judge failed (``judge:api_error``: its model rows
    unjudged, reward 0) entered MAE, bias and Spearman with its 0 against the labels' reward
    (MAE 0.089 → 0.244), and nothing said so. Its reward is now left out and counted."""
    from cowork_judge.core.result import ResultDocument
    from cowork_judge.fleet.calibrate import Label, calibrate_instance, report

    _calibrate(tmp_path, monkeypatch, capsys, LABELS)
    docs = {name: ResultDocument.model_validate_json(
        (tmp_path / "runs" / name / "logs" / "verifier" / "result.json").read_text()) for name in ("c1", "c2", "c3")}
    docs["c1"] = docs["c1"].model_copy(update={"status": "error", "exit_code": "judge:api_error", "task_score": 0.0})
    labels = {k: Label(hit=v["hit"]) for k, v in LABELS.items()}
    calibrated = [calibrate_instance(name, doc, labels) for name, doc in docs.items()]
    out = report(calibrated, draws=0, seed=1)
    assert out["reward"]["judge_failed"] == ["c1"] and out["reward"]["instances"] == 2, out["reward"]
    assert out["reward"]["mae"] == 0.0
