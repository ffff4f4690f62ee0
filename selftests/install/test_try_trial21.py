"""Trial 21 for ``try``: an ``OPENAI_*`` fallback in the shell that task.toml's [verifier.env] does not pass
never reaches the judge, so it is ignored with one line and the simulator judges (P-7; a task that passes it
keeps the pair checks, and no refusal advises a variable the task does not pass); an ATIF trajectory given as
``--rollout`` is pointed to ``--trajectory`` (P-8); a kept ``--out`` folder of a separate verifier is re-judged
from the ``logs/agent/`` test.sh restored (the note on docs/harbor-task.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit import ROLLOUTS

from cowork_judge.commands import main as cli
from cowork_judge.install import dryrun
from install.test_try import make_task
from install.test_try_chat_only import ANSWER, chat_task
from install.test_try_output import shared_cache, try_cli

CREDENTIALS = ("JUDGE_BASE_URL", "JUDGE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "JUDGE_GATEWAY_AUTH")
IGNORED_LINE = ("cowork-judge try: OPENAI_API_KEY in your shell is not passed to the verifier by task.toml's "
                "[verifier.env]: ignored; judging with the built-in simulator")


@pytest.fixture
def no_credentials(monkeypatch):
    for name in CREDENTIALS:
        monkeypatch.delenv(name, raising=False)


def add_env(task: Path, lines: str) -> Path:
    """`task` (`make_task`: [verifier.env] is its last table) with `lines` added to its [verifier.env]."""
    with (task / "task.toml").open("a") as fh:
        fh.write(lines)
    return task


def test_an_openai_key_the_task_does_not_pass_is_ignored_and_the_simulator_judges(tmp_path, capsys, monkeypatch,
                                                                                 no_credentials):
    """P-7: refused with "Set OPENAI_BASE_URL", which cannot reach the judge. The endpoint is now decided; the run
    stops at the next check (a variable the task needs, set on purpose) before anything is built."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1234567890")
    monkeypatch.delenv("TRY21_UNSET", raising=False)
    task = add_env(make_task(tmp_path), 'JUDGE_BASE_URL = "${JUDGE_BASE_URL}"\nSTOP_HERE = "${TRY21_UNSET}"\n')
    (tmp_path / "answer.txt").write_text("Hello.\n")
    assert cli(["try", str(task), "--final-message", str(tmp_path / "answer.txt")]) == 2
    out = capsys.readouterr()
    assert IGNORED_LINE in out.err.splitlines(), out.err
    assert "  endpoint: no JUDGE_BASE_URL/JUDGE_API_KEY set: the built-in simulator at http://127.0.0.1:" in out.out
    assert 'needs variables this environment does not set: STOP_HERE = "${TRY21_UNSET}"' in out.err
    assert "OPENAI_BASE_URL" not in out.err + out.out and "sk-openai" not in out.err + out.out


def test_a_missing_half_the_task_does_not_pass_is_named_never_advised_as_a_shell_setting(tmp_path, capsys, monkeypatch,
                                                                                       no_credentials):
    """P-7: the task passes OPENAI_API_KEY but not OPENAI_BASE_URL: the shell's OPENAI_BASE_URL never reaches the
    judge (it judged "with your endpoint", which a trial would not reach); the way out is the [verifier.env] line."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1234567890")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    task = add_env(make_task(tmp_path), 'OPENAI_API_KEY = "${OPENAI_API_KEY}"\n')
    assert cli(["try", str(task), "--rollout", str(ROLLOUTS / "deck")]) == 2
    out = capsys.readouterr()
    assert ("error: OPENAI_API_KEY is set but OPENAI_BASE_URL does not reach the judge: task.toml's [verifier.env] does "
            "not pass it: a trial would not reach your endpoint") in out.err, out.err
    assert ('Add OPENAI_BASE_URL = "${OPENAI_BASE_URL}" to [verifier.env] and set OPENAI_BASE_URL to judge with your '
            "endpoint, or unset OPENAI_API_KEY to judge with the built-in simulator") in out.err
    assert "endpoint:" not in out.out and "sk-openai" not in out.err + out.out


def test_a_judge_half_with_an_openai_url_the_task_does_not_pass_is_the_judge_half_pair(tmp_path, capsys, monkeypatch,
                                                                                     no_credentials):
    """P-7: "unset JUDGE_API_KEY to use the OPENAI_* pair" advised a pair the task does not pass."""
    monkeypatch.setenv("JUDGE_API_KEY", "sk-judge-1234567890")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    task = add_env(make_task(tmp_path), 'JUDGE_BASE_URL = "${JUDGE_BASE_URL}"\n')
    assert cli(["try", str(task), "--rollout", str(ROLLOUTS / "deck")]) == 2
    err = capsys.readouterr().err
    assert ("error: JUDGE_API_KEY is set but JUDGE_BASE_URL is not set: a trial would not reach your endpoint" in err), err
    assert "Set JUDGE_BASE_URL to judge with your endpoint, or unset JUDGE_API_KEY to judge with the built-in simulator" in err
    assert "OPENAI" not in err


def test_an_atif_trajectory_given_as_the_rollout_is_pointed_to_trajectory(tmp_path, capsys, no_credentials):
    """P-8: the refusal advised copying the trajectory into a folder as a deliverable."""
    trajectory = tmp_path / "solution" / "trajectory.json"
    trajectory.parent.mkdir()
    trajectory.write_text(json.dumps({"schema_version": "ATIF-v1.4", "steps": [
        {"step_id": 1, "source": "agent", "message": "Here is the answer."}]}))
    (tmp_path / "solution" / "solve.sh").write_text("#!/bin/bash\n")
    assert cli(["try", str(make_task(tmp_path)), "--rollout", str(trajectory)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"cowork-judge try: error: --rollout {trajectory} is an ATIF trajectory (JSON with steps), not a folder "
                   f"of deliverables: give it as --trajectory {trajectory}, which reads the agent's last answer from it "
                   "(and the deliverables' folder, if any, as --rollout FOLDER)"), err
    assert "mkdir" not in err


def test_a_kept_separate_verifier_folder_is_rejudged_from_the_restored_logs_agent(tmp_path):
    """The note on docs/harbor-task.md: test.sh restores the collect hook's copy into logs/agent/, so a kept
    folder is read from there, and the rollout line names logs/agent/, not the copy."""
    kept = tmp_path / "kept"
    for folder in ("app/output", "logs/agent", "logs/artifacts/cowork-judge-agent", "logs/verifier", "tests"):
        (kept / folder).mkdir(parents=True)
    (kept / "tests" / "test.sh").write_text("#!/bin/bash\n")
    for folder in ("logs/agent", "logs/artifacts/cowork-judge-agent"):
        (kept / folder / "trajectory.json").write_text('{"steps": []}')
    rollout = dryrun.read_rollout(kept)
    assert rollout.files["/logs/agent"] == kept / "logs" / "agent"
    assert "its app/ and logs/agent/ are the rollout" in rollout.ignored and "collect hook" not in rollout.ignored


@pytest.mark.slow
def test_a_dry_run_with_only_an_openai_key_in_the_shell_is_judged_by_the_simulator(tmp_path, sandbox_ready):
    """P-7, the whole dry run (this checkout's wheel, the simulator over HTTP): exit 0, one line says the key is
    ignored, and the result is the simulator's."""
    task = chat_task(tmp_path, mode="separate")
    assert cli(["init", str(task), "--force"]) == 0  # [verifier.env] passes JUDGE_* only, as init writes it
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    proc = try_cli(str(task), "--final-message", str(answer), "--out", str(tmp_path / "out"),
                   cache=shared_cache(tmp_path / "cache"), tmpdir=None, env={"OPENAI_API_KEY": "sk-openai-1234567890"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert IGNORED_LINE in proc.stderr.splitlines(), proc.stderr
    assert "coverage: 1.000 (1 of 1 rows judged)" in proc.stdout
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert doc["status"] == "success" and doc["judge_model"] == "simulated-judge"
