"""Issue 39, trial 3 L4: ``cowork-judge try --final-message <a folder>`` says the path is a folder, not that
there is no such file (real ``cowork-judge try`` child processes, refused before anything is built)."""

from __future__ import annotations

from install.test_try_output import example_task, try_cli


def test_a_folder_as_the_final_message_is_named_a_folder(tmp_path):
    task = example_task(tmp_path / "task")
    for option in ("--final-message", "--trajectory"):
        proc = try_cli(str(task), option, str(task), cache=tmp_path / "cache", tmpdir=tmp_path / "tmp")
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"{option} {task}: is a folder, not a file" in proc.stderr, proc.stderr
        assert "no such file" not in proc.stderr


def test_a_missing_final_message_is_still_no_such_file(tmp_path):
    task = example_task(tmp_path / "task")
    proc = try_cli(str(task), "--final-message", str(tmp_path / "nope.txt"), cache=tmp_path / "cache",
                   tmpdir=tmp_path / "tmp")
    assert proc.returncode == 2 and f"--final-message {tmp_path / 'nope.txt'}: no such file" in proc.stderr, proc.stderr
