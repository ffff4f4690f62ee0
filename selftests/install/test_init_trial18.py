"""Trial 18 P-11 (a real ``python -m cowork_judge init`` child process on a task ``harbor init`` made).

harbor-task.md: "When you raise the task's own ``${JUDGE_DEADLINE:-N}`` default, run ``cowork-judge init``
again: it sizes ``timeout_sec`` from that default". init took the 2280 it had written itself for "a task's own"
value (a conflict, nothing written, exit 1). init's own sum is now raised without ``--force`` — the sum of its
default deadline, or a sum whose line carries init's comment — and a task's own too-small value stays a
conflict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from install.test_init import harbor_init

RUBRIC = '{"rubrics":[{"id":"A","description":"Explains X.","weight":1}]}'


def _init(task: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task), *args], capture_output=True,
                          text=True, timeout=120)


def _task(tmp_path: Path) -> Path:
    task = harbor_init(tmp_path)
    (task / "tests" / "task_prompt.md").write_text("Explain X.\n")
    (task / "tests" / "rubric.json").write_text(RUBRIC)
    first = _init(task)
    assert first.returncode == 0, first.stdout + first.stderr
    return task


def _deadline(task: Path, old: str, new: str) -> None:
    toml = task / "task.toml"
    text = toml.read_text()
    assert f"JUDGE_DEADLINE:-{old}}}" in text
    toml.write_text(text.replace(f"JUDGE_DEADLINE:-{old}}}", f"JUDGE_DEADLINE:-{new}}}"))


def _timeout_line(task: Path) -> str:
    return next(line for line in (task / "task.toml").read_text().splitlines() if line.startswith("timeout_sec"))


def test_init_again_raises_its_own_timeout_after_the_deadline_default_is_raised(tmp_path):
    task = _task(tmp_path)
    assert _timeout_line(task).startswith("timeout_sec = 2280.0")
    _deadline(task, "1800", "3000")
    again = _init(task)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "conflict" not in again.stdout + again.stderr
    assert ("timeout_sec 2280.0 (init's own for JUDGE_DEADLINE 1800 s) → 3480 (JUDGE_DEADLINE = 3000 s + install 300 "
            "+ 180 s margin)") in again.stdout
    assert _timeout_line(task) == "timeout_sec = 3480.0  # JUDGE_DEADLINE 3000 + install 300 + 180 s margin"
    _deadline(task, "3000", "4000")  # a second raise: init knows its 3480 by its comment
    third = _init(task)
    assert third.returncode == 0, third.stdout + third.stderr
    assert "timeout_sec 3480.0 (init's own for JUDGE_DEADLINE 3000 s) → 4480" in third.stdout
    assert _timeout_line(task) == "timeout_sec = 4480.0  # JUDGE_DEADLINE 4000 + install 300 + 180 s margin"


def test_a_tasks_own_too_small_timeout_stays_a_conflict(tmp_path):
    task = _task(tmp_path)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace(_timeout_line(task), "timeout_sec = 5000.0  # ours"))
    _deadline(task, "1800", "4900")
    before = toml.read_text()
    proc = _init(task)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "timeout_sec = 5000.0 is below 5380 s" in proc.stderr and "--force raises it" in proc.stderr
    assert toml.read_text() == before
    forced = _init(task, "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert _timeout_line(task) == "timeout_sec = 5380.0  # ours"  # the author's comment kept


def test_a_sum_whose_comment_names_another_deadline_is_the_tasks_own(tmp_path):
    task = _task(tmp_path)
    toml = task / "task.toml"  # init's comment, but a hand-changed value: not init's sum for 1800 s
    toml.write_text(toml.read_text().replace(_timeout_line(task),
                                             "timeout_sec = 2500.0  # JUDGE_DEADLINE 1800 + install 300 + 180 s margin"))
    _deadline(task, "1800", "3000")
    proc = _init(task)
    assert proc.returncode == 1 and "timeout_sec = 2500.0 is below 3480 s" in proc.stderr
