"""Trial 11 F11: ``rescore --rubric`` of a stored "nothing delivered" document scores the new and changed rows as
the live run does (``[no delivery]``, no model call), so a clean delivery_missing 0 stays one.

Before, such rows were unjudged ``no_verdict``: one edited row made the sample ``judge_degraded``, a rubric of new
rows made it a systemic ``judge:scorer_error`` ("N of N rows not judged; nothing delivered") that a fleet masks as a
judge failure, while a live run of the same rubric on the same empty rollout is ``success`` with coverage 1.0.
The test runs the real ``cowork-judge run`` (simulator on 127.0.0.1) and the real ``rescore`` CLI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

V1 = {"rubrics": [
    {"id": "A-TCP", "description": "The answer says TCP provides reliable, ordered delivery.", "weight": 2},
    {"id": "A-UDP", "description": "The answer says UDP is connectionless.", "weight": 1},
    {"id": "C-LEN", "description": "The answer is under 200 words.", "weight": 1, "judge_method": "code",
     "code_method_name": "word_count_between", "code_method_params": {"max_words": 200, "source": "response"}},
]}
V2 = {"rubrics": [  # A-UDP reworded, A-PORTS new, H-EMPTY a new hurdle
    V1["rubrics"][0],
    {"id": "A-UDP", "description": "The answer says UDP is connectionless and unordered.", "weight": 1},
    V1["rubrics"][2],
    {"id": "A-PORTS", "description": "The answer names a port number.", "weight": 1},
    {"id": "H-EMPTY", "description": "The answer is empty or off-topic.", "weight": 0, "hurdle": True},
]}
OTHER = {"rubrics": [  # every row new (a rubric of another task)
    {"id": "D-TITLE", "description": "The deck has a title slide.", "weight": 1},
    {"id": "D-CHART", "description": "The deck has a chart.", "weight": 2},
]}


def _tests(root: Path, rubric: dict[str, Any]) -> Path:
    root.mkdir(parents=True)
    (root / "rubric.json").write_text(json.dumps(rubric))
    (root / "task_prompt.md").write_text("Explain the difference between TCP and UDP.\n")
    return root


def _rescore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", *args], capture_output=True, text=True,
                          timeout=120)


def _what_counts(doc: dict[str, Any]) -> dict[str, Any]:
    """What a fleet reads of a document: status, exit code, reward, coverage, delivery, and each row's answer."""
    ef = doc["extra_fields"]
    return {"status": doc["status"], "exit_code": doc["exit_code"], "task_score": doc["task_score"],
            "coverage": ef["judge_coverage"], "delivery_missing": ef["delivery_missing"], "passed": ef["passed"],
            "fatal": ef.get("fatal"),
            "rows": {r["id"]: (r["hit"], r["judged"], r["method"], r["error_kind"], r["reason"]) for r in doc["results"]}}


def test_rescore_of_a_nothing_delivered_document_matches_the_live_run_of_the_new_rubric(judge_run, tmp_path: Path):
    empty = tmp_path / "rollout"
    (empty / "logs" / "agent").mkdir(parents=True)
    stored_run = judge_run(_tests(tmp_path / "v1" / "tests", V1), empty)
    assert stored_run.returncode == 0, stored_run.stderr
    stored = stored_run.verifier / "result.json"
    assert json.loads(stored.read_text())["extra_fields"]["delivery_missing"] is True

    for name, rubric in (("v2", V2), ("other", OTHER)):
        live = judge_run(_tests(tmp_path / name / "tests", rubric), empty)
        assert live.returncode == 0, live.stderr
        out = tmp_path / f"{name}.rescored.json"
        proc = _rescore(str(stored), "--rubric", str(tmp_path / name / "tests" / "rubric.json"), "--out", str(out))
        assert proc.returncode == 0, proc.stderr
        live_doc, new = json.loads((live.verifier / "result.json").read_text()), json.loads(out.read_text())
        assert _what_counts(new) == _what_counts(live_doc)
        assert new["status"] == "success" and new["extra_fields"]["judge_coverage"] == 1.0
        assert new["extra_fields"]["judge_called"] is False
        err = " ".join(proc.stderr.split())
        assert "no_verdict" not in err, err
        assert not any("no_verdict" in w for w in new["details"]["warnings"]), new["details"]["warnings"]
    err = " ".join(proc.stderr.split())
    assert "row 'D-CHART' is new: nothing was delivered, so it is scored as a live run scores it" in err, err


def test_the_console_names_a_changed_row_of_a_nothing_delivered_document(judge_run, tmp_path: Path):
    empty = tmp_path / "rollout"
    (empty / "logs" / "agent").mkdir(parents=True)
    run = judge_run(_tests(tmp_path / "v1" / "tests", V1), empty)
    assert run.returncode == 0, run.stderr
    (tmp_path / "v2.json").write_text(json.dumps(V2))
    proc = _rescore(str(run.verifier / "result.json"), "--rubric", str(tmp_path / "v2.json"), "--out", str(tmp_path / "n.json"))
    assert proc.returncode == 0, proc.stderr
    err = " ".join(proc.stderr.split())
    assert "row 'A-UDP' changed since it was judged (description)" in err, err
    assert "nothing was delivered, so it is scored as a live run scores it ([no delivery], no model call)" in err, err
    doc = json.loads((tmp_path / "n.json").read_text())
    assert doc["status"] == "success" and doc["extra_fields"]["delivery_missing"] is True
    assert {r["id"]: r["method"] for r in doc["results"]} == dict.fromkeys(("A-TCP", "A-UDP", "C-LEN", "A-PORTS", "H-EMPTY"),
                                                                             "delivery")
