"""Trial 5 F6: ``cowork-judge try`` says "nothing delivered" when the judge found no output file and no final
message, instead of a bare "coverage: 1.000 (5 of 5 rows judged)" that reads like a clean dry run.

The fast test feeds the try report the documents a real ``cowork-judge run`` wrote for an empty delivery; the
slow one runs the whole dry run with an empty ``--final-message`` file (since trial 22 P-6 said to be empty).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge._util.procs import ProcResult
from cowork_judge.commands import main as cli
from cowork_judge.commands import try_
from cowork_judge.install import dryrun
from install.test_try_chat_only import chat_task
from install.test_try_output import shared_cache, try_cli

RUBRIC = {"rubrics": [
    {"id": "A-TCP", "description": "The answer says TCP provides reliable, ordered delivery.", "weight": 2},
    {"id": "C-LEN", "description": "The answer is under 200 words.", "weight": 1, "judge_method": "code",
     "code_method_name": "word_count_between", "code_method_params": {"max_words": 200, "source": "response"}},
]}


def test_the_try_report_says_nothing_was_delivered(judge_run, tmp_path: Path, capsys):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Explain the difference between TCP and UDP.\n")
    run = judge_run(tests, None, sim=False)  # no file, no final message: no model call either
    assert run.returncode == 0, run.stderr
    outcome = dryrun.read_outcome(run.verifier)
    assert outcome.delivery_missing and outcome.coverage == 1.0 and outcome.clean
    staged = dryrun.Staged(app=tmp_path / "app", logs=run.verifier.parent, tests=tests)
    assert try_._report(outcome, staged, ProcResult(0, "", "", 1.0), 1.0) == 0
    out, err = capsys.readouterr()
    assert "coverage: 1.000 (2 of 2 rows judged)" in out
    assert "nothing delivered: no output file and no final message reached the judge" in err, err


def test_a_judged_delivery_says_nothing_of_the_kind(judge_run, tmp_path: Path, capsys):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [RUBRIC["rubrics"][1]]}))
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("TCP is reliable; UDP is not.\n")
    run = judge_run(tests, rollout, sim=False)
    assert run.returncode == 0, run.stderr
    outcome = dryrun.read_outcome(run.verifier)
    assert not outcome.delivery_missing
    try_._report(outcome, dryrun.Staged(app=tmp_path / "app", logs=run.verifier.parent, tests=tests),
                 ProcResult(0, "", "", 1.0), 1.0)
    assert "nothing delivered" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_dry_run_of_an_empty_final_message_says_nothing_was_delivered(tmp_path, sandbox_ready):
    task = chat_task(tmp_path)
    assert cli(["init", str(task), "--force"]) == 0
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    proc = try_cli(str(task), "--final-message", str(empty), cache=shared_cache(tmp_path / "cache"), tmpdir=None)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "reward: 0.0" in proc.stdout
    assert f"--final-message {empty} is empty (0 bytes): judged as nothing delivered" in proc.stderr  # trial 22 P-6
