"""Trial 4 (trial 3 L5's last line): ``cowork-judge init``'s refusal no longer lists the extras the task
already declares as something it "would do"; a change of the extras is still an action (a real
``python -m cowork_judge init`` child process on a copy of this repository's example task)."""

from __future__ import annotations

from install.test_init_trial3 import _init
from install.test_try_output import example_task


def test_unchanged_extras_are_not_a_would_do_line(tmp_path):
    task = example_task(tmp_path / "task")
    assert _init(task, "--force").returncode == 0
    (task / "tests" / "test.sh").write_text((task / "tests" / "test.sh").read_text() + "# my edit\n")
    proc = _init(task)
    assert proc.returncode == 1 and "nothing written" in proc.stderr, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert not [line for line in lines if line.startswith("not written: would do: extras:")], proc.stdout
    assert [line for line in lines if line.startswith("extras: ")], proc.stdout  # still said, as it is
    assert "not written: would do: tests/test.sh: replaced by the cowork-judge" in proc.stdout, proc.stdout


def test_a_first_init_still_says_the_extras_it_chooses(tmp_path):
    task = example_task(tmp_path / "task")
    toml = task / "task.toml"
    toml.write_text("".join(line for line in toml.read_text().splitlines(keepends=True)
                            if not line.startswith("COWORK_JUDGE_EXTRAS")))
    proc = _init(task, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert any(line.startswith("would do: extras: ") for line in proc.stdout.splitlines()), proc.stdout
