"""``cowork-judge try`` on an author's mistakes (trial findings 1, 7, 9, 10, 15a): each is refused with one clear
line and exit 2 before anything is written (or, for 15a, the closing message says what happened)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.commands import main as cli
from cowork_judge.install import dryrun
from install.harness import REPO

TASK_TOML = """version = "1.0"

[verifier]
timeout_sec = 900.0

[verifier.env]
JUDGE_MODEL = "${JUDGE_MODEL:-gpt-5.5}"
"""


def make_task(root: Path) -> Path:
    task = root / "task"
    (task / "tests").mkdir(parents=True)
    (task / "tests" / "test.sh").write_text("#!/bin/bash\necho hi\n")
    (task / "tests" / "rubric.json").write_text('{"rubrics": []}\n')
    (task / "task.toml").write_text(TASK_TOML)
    (task / "solution" / "output").mkdir(parents=True)
    (task / "solution" / "output" / "deck.pptx").write_bytes(b"PK\x03\x04 not really a deck")
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\n")
    return task


def tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def run_try(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, importing this checkout's package."""
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    env["PYTHONPATH"] = str(REPO / "src")
    return subprocess.run([sys.executable, "-m", "cowork_judge", "try", *args], capture_output=True, text=True,
                          timeout=120, env=env)


# ------------------------------------------------------------------ finding 1: --out inside what is staged

@pytest.mark.parametrize("where", ["tests", "rollout", "message"])
def test_an_out_folder_inside_what_is_copied_is_refused_before_anything_is_written(tmp_path, where):
    """trial #1: `--out <task>/tests/run1` copied tests/ into itself until a RecursionError, leaving thousands of
    files in the task; the same with --out inside a flat rollout folder."""
    task = make_task(tmp_path)
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "answer.pptx").write_bytes(b"x")
    answer = tmp_path / "answer.txt"
    answer.write_text("The answer.\n")
    out = {"tests": task / "tests" / "run1", "rollout": flat / "o" / "deeper", "message": task / "tests" / "run1"}[where]
    args = [str(task), "--out", str(out), "--wheel", str(tmp_path / "no-such.whl")]
    args += ["--rollout", str(flat)] if where == "rollout" else ["--final-message", str(answer)]
    before_task, before_flat = tree(task), tree(flat)
    proc = run_try(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    inside = task / "tests" if where != "rollout" else flat
    assert f"--out {out} is inside {inside}" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists() and tree(task) == before_task and tree(flat) == before_flat


def test_an_out_folder_beside_the_tests_is_still_accepted():
    task_tests = Path("/t/task/tests")
    assert dryrun.out_inside_staged(Path("/t/task/run1"), task_tests, dryrun.Rollout("flat", Path("/t/r"),
                                                                                       {"/app/output": Path("/t/r")})) is None


# ------------------------------------------------------------------ finding 7: the task folder as the rollout

def test_the_task_folder_as_the_rollout_is_refused(tmp_path, capsys):
    """trial #7: `--rollout <task>` judged tests/rubric.json, solve.sh and the anchors as deliverables."""
    task = make_task(tmp_path)
    assert cli(["try", str(task), "--rollout", str(task)]) == 2
    out = capsys.readouterr()
    assert "is a task folder" in out.err and "rubric" in out.err and f"--rollout {task / 'solution' / 'output'}" in out.err
    assert "building the wheel" not in out.out and "Traceback" not in out.err


def test_a_rollout_that_holds_the_tasks_tests_is_refused(tmp_path, capsys):
    task = make_task(tmp_path)
    assert cli(["try", str(task), "--rollout", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path} holds the task's tests/" in err and "rubric" in err


def test_another_task_folder_as_the_rollout_is_refused(tmp_path, capsys):
    task = make_task(tmp_path)
    other = make_task(tmp_path / "other")
    assert cli(["try", str(task), "--rollout", str(other)]) == 2
    assert f"{other} is a task folder" in capsys.readouterr().err


# ------------------------------------------------------------------ finding 9: the tests folder as the task

def test_the_tests_folder_given_as_the_task_says_did_you_mean_the_task(tmp_path, capsys):
    """trial #9: the hint was `cowork-judge init <task>/tests`, which itself fails."""
    task = make_task(tmp_path)
    assert cli(["try", str(task / "tests"), "--rollout", str(task / "solution" / "output")]) == 2
    err = capsys.readouterr().err
    assert f"did you mean {task}" in err and f"init {task / 'tests'}" not in err


# ------------------------------------------------------------------ finding 10: a file as the rollout

def test_a_file_as_the_rollout_says_it_is_a_file_and_names_its_folder(tmp_path, capsys):
    task = make_task(tmp_path)
    deck = task / "solution" / "output" / "deck.pptx"
    assert cli(["try", str(task), "--rollout", str(deck)]) == 2
    err = capsys.readouterr().err
    assert "no such rollout folder" not in err
    assert f"{deck} is a file, not a folder" in err and f"--rollout {deck.parent}" in err
    assert "--final-message" not in err  # trial 15 P-3: a deck is no chat message (that option refuses it)


def test_a_text_file_as_the_rollout_is_offered_as_the_final_message(tmp_path, capsys):
    task = make_task(tmp_path)
    answer = tmp_path / "answer.txt"
    answer.write_text("The sky is blue because of Rayleigh scattering.\n")
    assert cli(["try", str(task), "--rollout", str(answer)]) == 2
    assert f"--final-message {answer}" in capsys.readouterr().err


def test_a_process_substitution_as_the_final_message_is_named_a_pipe(tmp_path, capsys):
    """Trial 15 P-1: ``--final-message <(echo …)`` was refused as "a symbolic link to pipe:[N], which does not
    exist". It is a pipe: said so, with what to do."""
    import os

    task = make_task(tmp_path)
    fifo = tmp_path / "fd63"
    os.mkfifo(fifo)
    link = tmp_path / "63"
    link.symlink_to(fifo)  # as /dev/fd/63 → pipe:[N]
    for value in (fifo, link):
        assert cli(["try", str(task), "--final-message", str(value)]) == 2
        err = capsys.readouterr().err
        assert "is a pipe (a process substitution such as <(echo …) gives one), not a file" in err, err
        assert "which does not exist" not in err


# ------------------------------------------------------------------ finding 15a: no row judged

def test_the_not_clean_message_says_when_no_row_was_judged(tmp_path, capsys):
    """trial #15a: "it scored the rows it could judge" after a bad rubric, where no row was judged."""
    from cowork_judge.commands import try_
    from cowork_judge._util.procs import ProcResult

    verifier = tmp_path / "logs" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.txt").write_text("0.0\n")
    (verifier / "result.json").write_text(json.dumps({"status": "error", "exit_code": "judge:scorer_error",
                                                      "exit_reason": "bad rubric: not JSON", "results": []}))
    staged = dryrun.Staged(app=tmp_path / "app", logs=tmp_path / "logs", tests=tmp_path / "tests")
    status = try_._report(dryrun.read_outcome(verifier), staged, ProcResult(returncode=1, stdout="", stderr="", seconds=1.0), 1.0)
    err = capsys.readouterr().err
    assert status == 1
    assert "scored the rows it could judge" not in err and "judged no row (0 rows judged)" in err
    assert try_.simulated_note(dryrun.read_outcome(verifier)) is None  # trial 16 P-10: no "the simulator judged"


def test_the_simulator_note_is_said_when_a_row_was_judged(tmp_path):
    from cowork_judge.commands import try_

    (tmp_path / "reward.txt").write_text("1.0\n")
    (tmp_path / "result.json").write_text(json.dumps({"status": "success", "exit_code": None, "exit_reason": None,
                                                      "results": [{"id": "a", "judged": True}]}))
    assert "the built-in simulator judged this run" in (try_.simulated_note(dryrun.read_outcome(tmp_path)) or "")


def test_an_atif_trajectory_given_as_the_final_message_is_refused_naming_trajectory(tmp_path, capsys):
    """Trial 15 P-9: ``--final-message traj.json`` (the flags swapped) was judged as the message text: the JSON
    keys and the user's task prompt counted as the agent's answer (53 "words" where the answer has 14)."""
    import json

    task = make_task(tmp_path)
    traj = tmp_path / "chat-poor.trajectory.json"
    traj.write_text(json.dumps({"schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a", "version": "1"},
                                "steps": [{"step_id": 1, "source": "user", "message": "Why is the sky blue?"},
                                          {"step_id": 2, "source": "agent", "message": "Because."}]}))
    assert cli(["try", str(task), "--final-message", str(traj)]) == 2
    err = capsys.readouterr().err
    assert f"--final-message {traj} is an ATIF trajectory" in err and f"--trajectory {traj}" in err
    plain = tmp_path / "answer.json"
    plain.write_text('{"answer": "a JSON answer is still a message"}')
    assert dryrun.read_rollout(None, final_message=plain).message_as_text
