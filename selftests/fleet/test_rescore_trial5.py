"""Trial 5 F17: ``rescore`` keeps the ``cached`` mark of verdicts the verdict cache gave.

A real ``cowork-judge run`` against the simulator twice with ``JUDGE_VERDICT_CACHE`` (the second run's rows
come from the cache), then the real ``rescore`` CLI: with no option the stored document is reproduced byte
for byte (docs/fleet-tools.md), and a re-score under another mode still says which verdicts were cached.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUBRIC = {"rubrics": [
    {"id": "A-TCP", "description": "The answer says TCP provides reliable, ordered delivery.", "weight": 2},
    {"id": "A-UDP", "description": "The answer says UDP is connectionless.", "weight": 1},
    {"id": "C-LEN", "description": "The answer is under 200 words.", "weight": 1, "judge_method": "code",
     "code_method_name": "word_count_between", "code_method_params": {"max_words": 200, "source": "response"}},
]}
ANSWER = "TCP provides reliable, ordered delivery over a connection. UDP is connectionless and sends datagrams.\n"


def rescore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", *args],
                          capture_output=True, text=True, timeout=120)


def test_rescore_keeps_the_cached_mark_of_cached_verdicts(judge_run, tmp_path: Path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Explain the difference between TCP and UDP.\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(ANSWER)
    env = {"JUDGE_VERDICT_CACHE": str(tmp_path / "cache")}
    first = judge_run(tests, rollout, env=env)
    assert first.returncode == 0, first.stderr
    again = judge_run(tests, rollout, env=env)
    assert again.returncode == 0, again.stderr
    stored = again.verifier / "result.json"
    cached = {r["id"] for r in json.loads(stored.read_text())["results"] if r["cached"]}
    assert cached == {"A-TCP", "A-UDP"}

    same = rescore(str(stored), "--out", str(tmp_path / "same.json"))
    assert same.returncode == 0, same.stderr
    assert (tmp_path / "same.json").read_bytes() == stored.read_bytes()

    binary = rescore(str(stored), "--mode", "binary", "--threshold", "0.5", "--out", str(tmp_path / "binary.json"))
    assert binary.returncode == 0, binary.stderr
    doc = json.loads((tmp_path / "binary.json").read_text())
    assert {r["id"] for r in doc["results"] if r["cached"]} == cached


def test_a_new_row_without_a_stored_verdict_is_named_and_a_fatal_new_hurdle_says_why(judge_run, tmp_path: Path):
    """Trial 5 F20: a rubric edit that adds a hurdle row re-scores every stored run to 0 (the new row has no
    verdict, and an unjudged hurdle counts as hit under JUDGE_UNJUDGED_NEGATIVE=deduct): the console named neither
    the new row nor why the reward fell to 0 ("reward 1.0 → 0.0")."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Explain the difference between TCP and UDP.\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(ANSWER)
    run = judge_run(tests, rollout)
    assert run.returncode == 0, run.stderr
    stored = run.verifier / "result.json"
    edited = {"rubrics": [*RUBRIC["rubrics"],
                          {"id": "H-EMPTY", "description": "The answer is empty or off-topic.", "weight": 0, "hurdle": True},
                          {"id": "A-PORTS", "description": "The answer names a port number.", "weight": 1}]}
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    proc = rescore(str(stored), "--rubric", str(tmp_path / "edited.json"), "--out", str(tmp_path / "new.json"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "new.json").read_text())["task_score"] == 0.0
    err = " ".join(proc.stderr.split())
    assert "row 'H-EMPTY' is new (the stored result has no verdict for it): unjudged (no_verdict)" in err, err
    assert "row 'A-PORTS' is new (the stored result has no verdict for it): unjudged (no_verdict)" in err, err
    assert ("hurdle row 'H-EMPTY' was not judged (no_verdict) and counts as hit under "
            "JUDGE_UNJUDGED_NEGATIVE=deduct: the task scores 0") in err, err
