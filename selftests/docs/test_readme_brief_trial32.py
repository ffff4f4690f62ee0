"""Trial 32 P-3: README's "For a task author, in brief" went from ``harbor init`` to the rubric and skipped the judge's
copy of the task (``tests/task_prompt.md``) and its instruction (``tests/judge_instruction.md``), which
docs/harbor-task.md step 2 writes. The brief now has the step, with harbor-task.md's own ``cp`` line."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_brief_writes_the_task_prompt_as_harbor_task_md_does() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    brief = readme.split("## For a task author, in brief")[1].split("```bash")[1].split("```")[0]
    guide = (REPO / "docs" / "harbor-task.md").read_text(encoding="utf-8")
    cp = "cp my-deck-task/instruction.md my-deck-task/tests/task_prompt.md"
    assert cp in guide
    lines = brief.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith(cp.replace("my-deck-task", "my-task")))
    assert any("tests/judge_instruction.md" in ln for ln in lines)
    assert at < next(i for i, ln in enumerate(lines) if ln.startswith("cowork-judge init my-task"))
    assert "harbor run -p my-task -a oracle -y" in brief and "cowork-judge try my-task --rollout my-rollout" in brief
