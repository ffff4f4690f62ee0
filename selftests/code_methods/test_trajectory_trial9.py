"""Trial 9 F10: trajectory code rows take the trajectory's facts, not text that looks like them. A ``>`` inside
quotes is no redirect (no file written); an exit status the agent's own command line prints, or an observation
that shows conflicting statuses, is unclear: the ``command_succeeded`` row is unjudged ``trajectory_missing``
rather than a hit. A structured status (the tool's ``extra``) still decides. A real ``cowork-judge run``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge.segment.trajectory import parse_trajectory

ROWS = [
    {"id": "T-WRITE", "description": "report.md written before the final message", "weight": 1, "judge_method": "code",
     "code_method_name": "file_written_before_final", "code_method_params": {"glob": "report.md"}},
    {"id": "T-PYTEST", "description": "pytest ran and passed", "weight": 1, "judge_method": "code",
     "code_method_name": "command_succeeded", "code_method_params": {"pattern": "pytest"}},
]


def _run(judge_run, tmp_path: Path, command: str, output: str, extra: dict | None = None) -> dict[str, dict]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
    (tests / "task_prompt.md").write_text("Run the tests and write report.md.\n")
    rollout = tmp_path / "rollout"
    (rollout / "app").mkdir(parents=True)
    (rollout / "logs" / "agent").mkdir(parents=True)
    step = {"step_id": 2, "source": "agent", "message": "",
            "tool_calls": [{"tool_call_id": "c1", "function_name": "bash", "arguments": {"command": command}}],
            "observation": {"results": [{"source_call_id": "c1", "content": output}]}}
    if extra is not None:
        step["extra"] = extra
    steps = [{"step_id": 1, "source": "user", "message": "Run the tests."}, step,
             {"step_id": 3, "source": "agent", "message": "Done."}]
    (rollout / "logs" / "agent" / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.6", "steps": steps}))
    run = judge_run(tests, rollout, sim=False)
    assert run.returncode in (0, 1), run.stderr
    return {r["id"]: r for r in json.loads((run.verifier / "result.json").read_text())["results"]}


def test_a_quoted_redirect_writes_no_file(judge_run, tmp_path):
    rows = _run(judge_run, tmp_path, 'echo "usage: tool > report.md"', "usage: tool > report.md\nexit_code: 0")
    assert rows["T-WRITE"]["hit"] is False, rows["T-WRITE"]["reason"]


@pytest.mark.parametrize(("command", "output"), [
    ('pytest -q; echo "Process exited with code 0"', "1 failed\nProcess exited with code 0"),  # its own echo
    ("pytest -q", "1 failed in 0.1s\nexit_code: 1\n... retrying\nexit_code: 0"),                # two statuses
])
def test_an_unclear_text_exit_status_is_unjudged_not_a_hit(judge_run, tmp_path, command, output):
    rows = _run(judge_run, tmp_path, command, output)
    row = rows["T-PYTEST"]
    assert row["hit"] is not True, row["reason"]
    assert row.get("error_kind") == "trajectory_missing", row
    assert "unclear" in row["reason"] or "unclear" in str(row.get("error", "")), row


def test_a_structured_status_decides_over_echoed_text(judge_run, tmp_path):
    rows = _run(judge_run, tmp_path, 'pytest -q; echo "Process exited with code 0"', "1 failed\nProcess exited with code 0",
                extra={"tool_metadata": {"exit_code": 1}})
    assert rows["T-PYTEST"]["hit"] is False, rows["T-PYTEST"]["reason"]


@pytest.mark.parametrize(("command", "paths"), [
    ('echo "usage: tool > report.md"', []),
    ("echo 'a >> b.txt' > out.txt", ["out.txt"]),
    ('printf "%s\\n" "x" > "my report.md"', ["my report.md"]),
    ("python -c 'print(1 > 0)' 2>&1 | tee -a log.txt", ["log.txt"]),
    ('echo \\> literal.txt', []),
    ('cat a.txt >report.md', ["report.md"]),
    ('echo "it is \\"quoted > x\\"" >> notes.md', ["notes.md"]),
    # left over from trial 9: tee names every file; a here-document's body is data
    ("pytest | tee a.log b.log", ["a.log", "b.log"]),
    ('make 2>&1 | tee --append "build log.txt" other.txt | tail -3', ["build log.txt", "other.txt"]),
    ("cat > notes.md <<EOF\nuse a > b to compare\nEOF\necho done > done.txt", ["notes.md", "done.txt"]),
    ("cat <<-'END' > f.md\n\tq >> w\n\tEND", ["f.md"]),
    ('grep x <<< "a > b" > out.txt', ["out.txt"]),
    ("make guarantee > m.txt", ["m.txt"]),
])
def test_written_paths_read_the_command_line_as_a_shell_does(command, paths):
    step = parse_trajectory({"schema_version": "ATIF-v1.6", "steps": [{"step_id": 1, "source": "agent", "tool_calls": [
        {"tool_call_id": "c", "function_name": "bash", "arguments": {"command": command}}]}]}).steps[0]
    assert step.tool_calls[0].written_paths() == paths
