"""Trial 17 P-12 and P-7 (a real ``python -m cowork_judge init`` child process).

P-12: ``init --dry-run`` (and ``--image --dry-run``) on a task holding Harbor's ``tests/__pycache__/*.pyc``
ended in a traceback (the diff read the bytecode as UTF-8 and the InitError escaped the command). A binary
file in the diff is now one line, an InitError anywhere is one ``error:`` line with exit 2, and the real init
names the bytecode it removes. P-7: the first init explains ``timeout_sec`` as the second does, and says what
the ``[verifier.env]`` keys it adds hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.install.harbor_stubs import is_harbor_stub
from install.test_init import harbor_init

RUBRIC = '{"rubrics":[{"id":"A","description":"Explains X.","weight":1}]}'
PYC = b"\xcb\r\r\n\x00\x00\x00\x00\xe3\x00\x00\x00binary bytecode\xff\xfe"
"""Bytes no UTF-8 decoder accepts (a .pyc's magic number starts with 0xcb for Python 3.12)."""


def _init(task: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task), *args], capture_output=True,
                          text=True, timeout=120)


def _with_rubric(task: Path) -> Path:
    (task / "instruction.md").write_text("Explain X.\n")
    (task / "tests" / "task_prompt.md").write_text("Explain X.\n")
    (task / "tests" / "rubric.json").write_text(RUBRIC)
    return task


HARBOR_TEST_OUTPUTS = '''"""
Use this file to define pytest tests that verify the outputs of the task.

This file will be copied to /tests/test_outputs.py and run by the /tests/test.sh file
from the working directory.
"""


def test_outputs():
    """Test that the outputs are correct."""
    pass
'''
"""Harbor 0.26's empty ``tests/test_outputs.py`` (``template-task/pytest-tests``)."""


def _handmade_task(root: Path) -> Path:
    """A task as ``harbor init -t`` leaves it, without Harbor: its empty test_outputs.py stub, its default
    timeout_sec, and a hand-made binary ``tests/__pycache__/test_outputs.cpython-312.pyc``."""
    task = root / "t"
    (task / "tests" / "__pycache__").mkdir(parents=True)
    (task / "task.toml").write_text('version = "1.0"\n\n[verifier]\ntimeout_sec = 600.0\n')
    assert is_harbor_stub("test_outputs.py", HARBOR_TEST_OUTPUTS)  # else init keeps it as the author's
    (task / "tests" / "test_outputs.py").write_text(HARBOR_TEST_OUTPUTS)
    (task / "tests" / "__pycache__" / "test_outputs.cpython-312.pyc").write_bytes(PYC)
    return _with_rubric(task)


@pytest.mark.parametrize("image", [False, True])
def test_dry_run_over_a_binary_pycache_file_is_one_line_not_a_traceback(tmp_path, image):
    task = _handmade_task(tmp_path)
    if image:
        toml = task / "task.toml"
        toml.write_text(toml.read_text() + 'environment_mode = "separate"\n')
    proc = _init(task, "--dry-run", *(["--image", "--index-url", "http://127.0.0.1:9/simple"] if image else []))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "codec" not in proc.stdout + proc.stderr
    assert "binary file a/tests/__pycache__/test_outputs.cpython-312.pyc: removed\n" in proc.stdout
    assert "--- a/tests/test_outputs.py" in proc.stdout  # the text stub is still shown as a diff
    assert ("would do: tests/__pycache__/test_outputs.cpython-312.pyc: the stub's bytecode removed "
            "(and tests/__pycache__/, then empty)") in proc.stdout
    assert (task / "tests" / "__pycache__" / "test_outputs.cpython-312.pyc").read_bytes() == PYC  # nothing written


def test_the_real_init_names_the_bytecode_it_removes(tmp_path):
    task = _handmade_task(tmp_path)
    cache = task / "tests" / "__pycache__"
    (cache / "other.pyc").write_bytes(PYC)  # not init's: the folder stays
    proc = _init(task)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tests/__pycache__/test_outputs.cpython-312.pyc: the stub's bytecode removed\n" in proc.stdout
    assert not (cache / "test_outputs.cpython-312.pyc").exists() and (cache / "other.pyc").read_bytes() == PYC


@pytest.mark.parametrize("image", [False, True])
def test_a_task_fresh_from_harbor_init_dry_runs_and_inits(tmp_path, image):
    task = _with_rubric(harbor_init(tmp_path))  # skips with the reason when Harbor is not installed
    pycs = sorted((task / "tests" / "__pycache__").glob("test_outputs.*.pyc"))
    extra = ["--image", "--index-url", "http://127.0.0.1:9/simple"] if image else []
    proc = _init(task, "--dry-run", *extra)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    for pyc in pycs:  # Harbor 0.26 leaves one; a later Harbor may not
        assert f"binary file a/tests/__pycache__/{pyc.name}: removed\n" in proc.stdout
    proc = _init(task, *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if pycs:
        assert f"tests/__pycache__/{pycs[0].name}: the stub's bytecode removed" in proc.stdout
    assert not (task / "tests" / "__pycache__").exists()


def test_the_first_init_explains_timeout_sec_and_the_env_keys(tmp_path):
    task = _handmade_task(tmp_path)
    first = _init(task)
    assert first.returncode == 0, first.stdout + first.stderr
    assert ("task.toml: [verifier] timeout_sec 600.0 (Harbor's default) → 2280 (JUDGE_DEADLINE = 1800 s + install 300 "
            "+ 180 s margin)") in first.stdout
    env_line = next(line for line in first.stdout.splitlines() if line.startswith("task.toml: [verifier.env] "))
    assert "JUDGE_API_KEY" in env_line and env_line.endswith(
        "added (each the host's variable of that name, else the default after ':-' in task.toml)")
    second = _init(task)
    assert "kept (≥ 2280: JUDGE_DEADLINE = 1800 s + install 300 + 180 s margin)" in second.stdout
