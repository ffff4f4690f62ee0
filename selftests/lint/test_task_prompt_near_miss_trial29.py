"""Trial 29 P-8: the judge's copy of the task saved as ``tests/task-prompt.md`` (a dash for the underscore): lint A004
and the run said "no task_prompt.md" without naming the file beside it, and A004's ``cp`` fix would have left the
stray file in ``tests/``. Now both name the near miss ("did you mean: rename task-prompt.md to task_prompt.md",
`_util.given_paths.close_sibling`). Real lint CLI and a real run (`python -m cowork_judge run`, the simulator)."""

from __future__ import annotations

from pathlib import Path

from testkit import lint_stdout, write_task

PROMPT = "A customer asks for a refund of an order that arrived broken. Answer them.\n"
ROWS = [{"id": "A-REFUND", "description": "The answer offers a refund.", "weight": 1}]
SAID = "did you mean: rename task-prompt.md to task_prompt.md"


def _misnamed(tmp_path: Path) -> Path:
    task = write_task(tmp_path / "chat", ROWS, PROMPT, instruction=PROMPT)
    (task / "tests" / "task_prompt.md").rename(task / "tests" / "task-prompt.md")
    return task


def test_lint_a004_names_the_near_miss_not_the_cp(tmp_path):
    task = _misnamed(tmp_path)
    (a004,) = [x for x in lint_stdout(task).splitlines() if " A004:" in x]
    assert "no task_prompt.md in" in a004 and a004.endswith(SAID) and "cp " not in a004, a004


def test_the_run_names_the_near_miss(judge_run, tmp_path):
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("We will refund the order in full.\n")
    run = judge_run(_misnamed(tmp_path) / "tests", rollout, oracle={"A-REFUND": {"hit": True}})
    assert run.returncode == 0, run.stderr
    said = [w for w in run.doc["details"]["warnings"] if w.startswith("task_prompt: no task_prompt.md in")]
    assert len(said) == 1 and said[0].endswith(SAID), run.doc["details"]["warnings"]
