"""Issue 39, trial 3 L5: ``cowork-judge init``'s refusal (a hand-edited test.sh) says only real actions under
"would do"; what would change nothing ("… kept", "already …", "no artifacts needed") is said as it is (a real
``python -m cowork_judge init`` child process on a copy of this repository's example task)."""

from __future__ import annotations

import subprocess
import sys

from install.test_try_output import example_task


def _init(task, *args):
    return subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task), *args], capture_output=True,
                          text=True, timeout=120)


def test_a_refusal_says_only_real_actions_as_would_do(tmp_path):
    task = example_task(tmp_path / "task")
    (task / "tests" / "test.sh").write_text((task / "tests" / "test.sh").read_text() + "# my edit\n")
    proc = _init(task)
    assert proc.returncode == 1 and "nothing written" in proc.stderr, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert "not written: would do: tests/test.sh: replaced by the cowork-judge" in proc.stdout, proc.stdout
    assert any(line.startswith("task.toml: [verifier] timeout_sec = ") and "kept (≥ 2280: " in line
               for line in lines), proc.stdout
    would = [line for line in lines if line.startswith("not written: would do: ")]
    assert not [line for line in would if " kept" in line or "already" in line or "no artifacts needed" in line], would


def test_an_up_to_date_task_in_a_dry_run_says_no_op_lines_as_they_are(tmp_path):
    task = example_task(tmp_path / "task")
    assert _init(task, "--force").returncode == 0
    proc = _init(task, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "task.toml: already up to date" in proc.stdout.splitlines(), proc.stdout
    assert "would do: task.toml: already up to date" not in proc.stdout and "already the template" not in \
        " ".join(line for line in proc.stdout.splitlines() if line.startswith("would do:")), proc.stdout
