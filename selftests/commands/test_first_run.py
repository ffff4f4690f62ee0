"""First-run friction (issue 9): what a new user sees on stderr and in the result is what
matters, nothing more and nothing missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from testkit import EXAMPLE_TESTS, ROLLOUTS


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "cowork_judge", "demo", *args], capture_output=True, text=True, timeout=180, env=env)


def test_the_chat_demo_says_nothing_about_flags_it_does_not_have(tmp_path):
    proc = demo("--rollout", "chat", "--logs-dir", str(tmp_path / "logs"))
    assert proc.returncode == 0, proc.stderr
    assert "--app-dir" not in proc.stderr and "does not exist" not in proc.stderr
    doc = json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())
    assert not [w for w in doc["details"]["warnings"] if "app dir" in w]


def test_the_builtin_instruction_is_said_once_at_info_and_a_missing_task_prompt_is_a_warning(judge_run, tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text((EXAMPLE_TESTS / "rubric.json").read_text())  # no instruction, no task_prompt.md
    run = judge_run(tests, ROLLOUTS / "deck", oracle={})
    log = (run.verifier / "judge.log").read_text()
    assert log.count("using the built-in default") == 1 and "INFO instruction: no judge instruction file" in log
    warnings = run.doc["details"]["warnings"]
    assert not [w for w in warnings if "built-in" in w]
    assert [w for w in warnings if "no task_prompt.md" in w]
    assert run.doc["details"]["instruction_source"] == "built-in"


def test_a_start_jitter_wait_is_announced(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle={}, env={"JUDGE_START_JITTER": "1"})
    line = next(x for x in run.stderr.splitlines() if "start jitter" in x)
    assert "INFO" in line and "JUDGE_START_JITTER=1" in line and "JUDGE_START_JITTER=0" in line
