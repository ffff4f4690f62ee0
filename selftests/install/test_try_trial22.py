"""Trial 22 P-2, P-4 and P-6: what ``cowork-judge try`` prints (a real child process, sandboxed, against a simulator
over HTTP).

- P-2: ``try --out ../DIR`` printed ``/tmp/x/tasks/../DIR/logs/verifier`` in its documents, report page and kept
  lines; the paths are now absolute and normalised (a symbolic link before a ``..`` keeps the ``..``: the system's
  ``link/..`` is the link target's parent).
- P-4: an empty rollout on a task with a hurdle printed "fatal: … row H-X counted as hit, …", as if the row's check
  had fired; the line (and the report page's) now says the row counts as hit because nothing was delivered.
- P-6: an empty ``--final-message`` file ended "no final message reached the judge … check --final-message", a
  plumbing hint for a file that was read; the line now says the file is empty. So does a ``--trajectory`` whose
  agent step has an empty message.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from cowork_judge.core.fatal import zeroed_sentence
from cowork_judge.sim import DemoPolicy, SimServer
from install.test_try_output import REHEARSAL_KEY, inited_task, shared_cache, try_on_sim

ROWS = [
    {"id": "A-TCP", "description": "The answer says TCP provides reliable, ordered delivery.", "weight": 2},
    {"id": "H-PLACEHOLDER", "description": "The answer still holds placeholder text such as TODO or lorem ipsum.",
     "weight": 0, "hurdle": True},
]
EMPTY_LINE = ("judged as nothing delivered, so every row was decided without a model (the reward is the agent's 0, and "
              "the coverage above says nothing about the rubric)")


def _task(root: Path) -> Path:
    return inited_task(root / "tasks" / "my-chat", ROWS, "Explain the difference between TCP and UDP.\n")


def _try_in(cwd: Path, root: Path, *args: str) -> subprocess.CompletedProcess:
    """``cowork-judge try ARGS`` run from `cwd` (as `try_on_sim`, without its ``--out``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    (root / "tmp").mkdir(parents=True, exist_ok=True)
    env.update(COWORK_JUDGE_CACHE=str(shared_cache(root / "cache")), TMPDIR=str(root / "tmp"), PWD=str(cwd))
    with SimServer(DemoPolicy()) as sim:
        env.update(JUDGE_BASE_URL=sim.url, JUDGE_API_KEY=REHEARSAL_KEY)
        return subprocess.run([sys.executable, "-m", "cowork_judge", "try", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=900)


def test_out_given_as_dot_dot_prints_normalised_paths_that_exist(tmp_path, sandbox_ready):
    """P-2: the trial's steps, ``cd tasks && try my-chat --final-message ../answer.txt --out ../out-chat``."""
    tasks = _task(tmp_path).parent
    (tmp_path / "answer.txt").write_text("TCP provides reliable, ordered delivery; UDP does not.\n")
    proc = _try_in(tasks, tmp_path, "my-chat", "--final-message", "../answer.txt", "--out", "../out-chat")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out, verifier = tmp_path / "out-chat", tmp_path / "out-chat" / "logs" / "verifier"
    lines = proc.stdout.splitlines()
    assert f"documents ({verifier}):" in lines, proc.stdout
    assert any(line.startswith(f"report page: cowork-judge report {verifier} (writes report.html") for line in lines)
    assert any(line.startswith(f"kept: {out} (app/, logs/") for line in lines), proc.stdout
    assert "/../" not in proc.stdout, proc.stdout
    assert (verifier / "result.json").is_file()


def test_tidy_absolute_keeps_a_dot_dot_after_a_symbolic_link(tmp_path, monkeypatch):
    """P-2's rule: ``..`` is taken out only where that names the same place as the system's path."""
    from cowork_judge._util.given_paths import tidy_absolute

    (tmp_path / "far" / "away").mkdir(parents=True)
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "link").symlink_to(tmp_path / "far" / "away")
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.setenv("PWD", str(tmp_path / "here"))
    assert tidy_absolute("../out") == tmp_path / "out"
    assert tidy_absolute("link/../out") == tmp_path / "here" / "link" / ".." / "out"  # the system's: far/out
    assert os.path.realpath(tidy_absolute("link/../out")) == str(tmp_path / "far" / "out")
    assert tidy_absolute("link/./x") == tmp_path / "here" / "link" / "x"  # the link is kept, not resolved


def test_an_empty_rollout_says_the_hurdle_counts_because_nothing_was_delivered(tmp_path, sandbox_ready):
    """P-4: the fatal line under the reward, and the report page's, name the empty delivery."""
    task = _task(tmp_path)
    (tmp_path / "empty").mkdir()
    proc = try_on_sim(task, tmp_path, "--rollout", str(tmp_path / "empty"))
    lines = proc.stdout.splitlines()
    assert "reward: 0.0" in lines, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert lines[lines.index("reward: 0.0") + 1] == (
        "fatal: A hurdle zeroed the reward: row H-PLACEHOLDER counted as hit because nothing was delivered (no check "
        "ran: an empty delivery is the violation, docs/result-document.md), so the reward is 0 whatever the rows earned")
    verifier = tmp_path / "out" / "logs" / "verifier"
    page = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(verifier)], capture_output=True, text=True,
                          timeout=120)
    assert page.returncode == 0, page.stdout + page.stderr
    assert "counted as hit because nothing was delivered" in (verifier / "report.html").read_text()


def test_a_judged_hurdle_keeps_the_plain_sentence():
    assert zeroed_sentence(["H-X"]) == "A hurdle zeroed the reward: row H-X counted as hit, so the reward is 0 whatever " \
                                       "the rows earned"


def test_an_empty_final_message_file_is_said_to_be_empty(tmp_path, sandbox_ready):
    """P-6: 0 bytes, then only white space; no "check --final-message" for a file that was read."""
    task = _task(tmp_path)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    proc = try_on_sim(task, tmp_path / "a", "--final-message", str(empty))
    assert proc.returncode == 0 and "reward: 0.0" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"cowork-judge try: --final-message {empty} is empty (0 bytes): {EMPTY_LINE}\n" in proc.stderr, proc.stderr
    assert "check --rollout" not in proc.stderr and "reached the judge" not in proc.stderr
    empty.write_text(" \n\t\n")
    proc = try_on_sim(task, tmp_path / "b", "--final-message", str(empty))
    assert f"--final-message {empty} is empty (4 bytes of white space): {EMPTY_LINE}" in proc.stderr, proc.stderr


def test_an_empty_flat_rollout_with_an_empty_final_message_names_both(tmp_path, sandbox_ready):
    task = _task(tmp_path)
    (tmp_path / "flat").mkdir()
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    proc = try_on_sim(task, tmp_path, "--rollout", str(tmp_path / "flat"), "--final-message", str(empty))
    assert (f"--final-message {empty} is empty (0 bytes) and no output file reached the judge: {EMPTY_LINE}"
            in proc.stderr), proc.stdout[-3000:] + proc.stderr[-3000:]


def test_a_trajectory_whose_agent_message_is_empty_is_said_so(tmp_path, sandbox_ready):
    task = _task(tmp_path)
    trajectory = tmp_path / "trajectory.json"
    trajectory.write_text(json.dumps({
        "schema_version": "ATIF-v1.4", "session_id": "s1", "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "user", "message": "Explain TCP and UDP."},
                  {"step_id": 2, "source": "agent", "message": "  "}]}))
    proc = try_on_sim(task, tmp_path, "--trajectory", str(trajectory))
    assert proc.returncode == 0 and "reward: 0.0" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    said = re.search(r"^cowork-judge try: (--trajectory .*)$", proc.stderr, flags=re.MULTILINE)
    assert said and said.group(1) == (f"--trajectory {trajectory} holds no final message (no step with source 'agent' "
                                      f"has a non-empty message): {EMPTY_LINE}"), proc.stderr


def test_set_aside_files_and_an_empty_final_message_are_both_named(tmp_path, capsys):
    """The report of a flat rollout whose only file is empty, with an empty ``--final-message``: the files set aside
    are named first (trial 7 F1), then the empty message (the outcome as `dryrun.read_outcome` reads such a run)."""
    from cowork_judge._util.procs import ProcResult
    from cowork_judge.commands import try_
    from cowork_judge.install import dryrun

    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "deck.pptx").write_bytes(b"")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    rollout = dryrun.read_rollout(tmp_path / "flat", final_message=empty)
    outcome = dryrun.Outcome(reward_text="0.0", reward=0.0, status="success", coverage=1.0, rows=1,
                             delivery_missing=True, set_aside=["deck.pptx (empty, 0 bytes)"])
    staged = dryrun.Staged(app=tmp_path / "app", logs=tmp_path / "logs", tests=tmp_path / "tests")
    try_._report(outcome, staged, ProcResult(0, "", "", 1.0), 1.0, rollout=rollout)
    err = capsys.readouterr().err
    assert "the judge read none of the rollout's output files — deck.pptx (empty, 0 bytes) —" in err, err
    assert err.rstrip().endswith(f"not a link or an empty file; --final-message {empty} is empty (0 bytes), so no "
                                 "final message was judged either"), err
