"""Trial 29 P-1: a systemic run (``status: error``; here `judge:scorer_error` from a `depends_on` typo, rule 5)
is never passed. Before, ``extra_fields.passed`` was the bare score comparison: 0.75 ≥ 0.75 gave ``passed: true``
beside ``status: error`` (and, under ``JUDGE_REWARD_MODE=binary``, beside reward 0), the report page showed
"passed … yes" beside the red error, and a fleet counting ``passed`` counted the sample as a pass.
A real `cowork-judge run` against the simulator over HTTP, the real `report` and `summarize`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from cowork_judge.core.integrity import seal
from testkit import EXAMPLE_TESTS, ROLLOUTS

RUBRIC = {"rubrics": [
    {"id": "A-ONE", "description": "The reply answers the question.", "weight": 3},
    {"id": "A-TWO", "description": "The reply is polite.", "weight": 1, "depends_on": ["A-ONN"]},  # the typo
]}


@pytest.mark.parametrize("mode", ["continuous", "binary"])
def test_a_systemic_run_is_never_passed_in_either_reward_mode(judge_run, tmp_path, mode):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    shutil.copy(EXAMPLE_TESTS / "judge_instruction.md", tests)
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A-ONE": {"hit": True}, "A-TWO": {"hit": True}},
                    env={"JUDGE_REWARD_MODE": mode})
    doc = run.doc
    assert (doc["status"], doc["exit_code"]) == ("error", "judge:scorer_error"), (doc["exit_reason"], run.stderr)
    assert doc["score_normalized"] == pytest.approx(0.75)  # on the default threshold: passed before the fix
    assert doc["extra_fields"]["passed"] is False, doc["extra_fields"]
    assert doc["reward"] == (pytest.approx(0.75) if mode == "continuous" else 0.0)
    out = tmp_path / "report.html"
    page = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert page.returncode == 0, page.stderr
    html = out.read_text()
    assert "passed = score_normalized ≥ 0.75 and status not error</td><td>no" in html
    assert "</td><td>yes" not in html.split("passed = ", 1)[1].split("</tr>", 1)[0]


def test_an_older_systemic_document_marked_passed_is_no_pass_in_summarize_and_rescore(judge_run, tmp_path):
    """A document written before the fix (``passed: true`` beside ``status: error``, sealed as the judge sealed it)
    is no pass in the summary's pass rate, and a rescore of it (no model calls) writes ``passed: false``."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    shutil.copy(EXAMPLE_TESTS / "judge_instruction.md", tests)
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A-ONE": {"hit": True}, "A-TWO": {"hit": True}})
    old = json.loads((run.verifier / "result.json").read_text())
    old["extra_fields"]["passed"] = True  # as 2.0 wrote it before trial 29
    old.pop("integrity")
    folder = tmp_path / "old" / "verifier"
    folder.mkdir(parents=True)
    (folder / "result.json").write_text(seal(json.dumps(old)))
    proc = _cli("summarize", str(folder / "result.json"), "--out", str(tmp_path / "summary.json"))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["accounting"]["systemic"] == 1, summary["accounting"]
    assert summary["pass"]["rate"] == 0.0, summary["pass"]
    proc = _cli("rescore", str(folder / "result.json"), "--out", str(tmp_path / "rescored.json"))
    assert proc.returncode == 0, proc.stderr
    assert "passed True → False" in proc.stderr, proc.stderr
    new = json.loads((tmp_path / "rescored.json").read_text())
    assert new["status"] == "error" and new["extra_fields"]["passed"] is False


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=120)
