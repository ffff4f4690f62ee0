"""Trial 6 F2 (init half): a ``[verifier] timeout_sec`` that is not a number is said to be no number,
not "below 2280 s", and a refused init no longer prints "task.toml: already up to date" before its
conflict (a real ``python -m cowork_judge init`` child process on a copy of the example task)."""

from __future__ import annotations

import re

from install.test_init_trial3 import _init
from install.test_try_output import example_task


def test_a_timeout_that_is_not_a_number_is_called_so_and_nothing_is_up_to_date(tmp_path):
    task = example_task(tmp_path / "task")
    assert _init(task, "--force").returncode == 0
    toml = task / "task.toml"
    toml.write_text(re.sub(r"(?m)^timeout_sec = .*$", 'timeout_sec = "abc"', toml.read_text(), count=1))
    proc = _init(task)
    assert proc.returncode == 1 and "nothing written" in proc.stderr, proc.stdout + proc.stderr
    assert "timeout_sec = 'abc' is not a number of seconds" in proc.stderr, proc.stderr
    assert "is below" not in proc.stderr, proc.stderr
    assert "already up to date" not in proc.stdout, proc.stdout
    assert 'timeout_sec = "abc"' in toml.read_text()  # refused: untouched


def test_a_tests_folder_given_as_the_task_gets_a_did_you_mean(tmp_path):
    """Trial 6 F18: ``init task/tests`` said only "…/tests/task.toml not found"; `try` says "did you mean"."""
    task = example_task(tmp_path / "task")
    proc = _init(task / "tests")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"did you mean {task}?" in proc.stderr, proc.stderr
