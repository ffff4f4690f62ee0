"""Trial 8 F6: `cowork-judge init` turned a symlinked task.toml / tests/test.sh into a regular file without a
word. A file init would write that is a symbolic link is now a conflict (nothing written) naming the link and its
target; with ``--force`` the link is replaced by a file, the target left alone, and init says so in one line
(a real ``python -m cowork_judge init`` child process on a copy of the example task)."""

from __future__ import annotations

import re

from install.test_init_trial3 import _init
from install.test_try_output import example_task


def _linked_toml(tmp_path):
    """The example task with its task.toml moved to ``shared/`` (one env key missing, so init changes it) and a
    relative link in its place; returns (task, shared task.toml, its text)."""
    task = example_task(tmp_path / "lt")
    shared = tmp_path / "shared" / "task.toml"
    shared.parent.mkdir()
    text = re.sub(r'(?m)^JUDGE_SKIP = .*\n', "", (task / "task.toml").read_text())
    shared.write_text(text)
    (task / "task.toml").unlink()
    (task / "task.toml").symlink_to("../shared/task.toml")
    return task, shared, text


def test_a_linked_task_toml_is_a_conflict_without_force_and_said_with_it(tmp_path):
    task, shared, text = _linked_toml(tmp_path)
    proc = _init(task)
    assert proc.returncode == 1 and "nothing written" in proc.stderr, proc.stdout + proc.stderr
    assert ("conflict: task.toml is a symbolic link (to ../shared/task.toml): init would replace it by a file"
            in proc.stderr), proc.stderr
    assert (task / "task.toml").is_symlink() and shared.read_text() == text  # refused: link and target untouched
    proc = _init(task, "--force")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("task.toml was a symbolic link (to ../shared/task.toml): replaced by a file, the target left alone"
            in proc.stdout), proc.stdout
    assert not (task / "task.toml").is_symlink() and "JUDGE_SKIP" in (task / "task.toml").read_text()
    assert shared.read_text() == text  # never written through


def test_a_linked_task_toml_already_up_to_date_is_kept_as_a_link(tmp_path):
    task, shared, _ = _linked_toml(tmp_path)
    shared.write_text(_up_to_date_text(tmp_path))
    proc = _init(task)
    assert proc.returncode == 0 and "task.toml: already up to date" in proc.stdout, proc.stdout + proc.stderr
    assert "symbolic link" not in proc.stdout + proc.stderr and (task / "task.toml").is_symlink()


def _up_to_date_text(tmp_path):
    ref = example_task(tmp_path / "ref")
    assert _init(ref, "--force").returncode == 0
    return (ref / "task.toml").read_text()


def test_a_linked_test_sh_is_named_and_replaced_only_with_force(tmp_path):
    task = example_task(tmp_path / "lt")
    stub = tmp_path / "shared" / "test.sh"
    stub.parent.mkdir()
    stub.write_text("#!/bin/bash\necho 'my own verifier'\n")
    (task / "tests" / "test.sh").unlink()
    (task / "tests" / "test.sh").symlink_to(stub)
    proc = _init(task)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"conflict: tests/test.sh is a symbolic link (to {stub})" in proc.stderr, proc.stderr
    proc = _init(task, "--force")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (f"tests/test.sh was a symbolic link (to {stub}): replaced by a file, the target left alone"
            in proc.stdout), proc.stdout
    assert not (task / "tests" / "test.sh").is_symlink() and stub.read_text() == "#!/bin/bash\necho 'my own verifier'\n"


def test_a_linked_tests_folder_is_not_written_through(tmp_path):
    """Left over from trial 8: a ``tests/`` that is a link to a folder shared by many tasks got init's test.sh
    written into the shared folder. It is a conflict now, naming the link, its target and the files; with
    ``--force`` the link becomes a copy of that folder (the rubric with it) and the shared folder is untouched."""
    task = example_task(tmp_path / "lt")
    shared = tmp_path / "shared-tests"
    (task / "tests").rename(shared)
    (shared / "test.sh").write_text("#!/bin/bash\necho 'placeholder'\n")
    before = {p.name: p.read_bytes() for p in shared.iterdir() if p.is_file()}
    (task / "tests").symlink_to("../shared-tests")
    proc = _init(task)
    assert proc.returncode == 1 and "nothing written" in proc.stderr, proc.stdout + proc.stderr
    assert "conflict: tests/ is a symbolic link (to ../shared-tests): init would write tests/test.sh" in proc.stderr, \
        proc.stderr
    proc = _init(task, "--force")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tests/ was a symbolic link (to ../shared-tests): replaced by a copy of that folder" in proc.stdout, proc.stdout
    assert not (task / "tests").is_symlink() and (task / "tests" / "rubric.json").is_file()
    assert "cowork-judge" in (task / "tests" / "test.sh").read_text()
    assert {p.name: p.read_bytes() for p in shared.iterdir() if p.is_file()} == before  # never written through
    assert sorted(p.name for p in task.iterdir() if p.name.startswith(".")) == []  # no staging folder left
