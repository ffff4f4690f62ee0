"""The command line: both entry points, exit statuses, JSON output, hostile packages, the docs' code table."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import REPO

import cowork_judge
from cowork_judge.commands.lint import main
from cowork_judge.lint.codes import CHECKS
from cowork_judge.lint.reading import tomllib
from cowork_judge.lint.tasktoml import INSTALL_MARGIN_SEC

from .conftest import rows


def _console(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``lint-rubric`` as installed (the console script next to this interpreter)."""
    script = Path(sys.executable).with_name("lint-rubric")
    if not script.exists():
        pytest.skip("the lint-rubric console script is not installed (pip install -e .)")
    return subprocess.run([str(script), *args], capture_output=True, text=True, timeout=120, cwd=cwd, check=False)


def test_clean_instance_exits_0(make_instance, capsys):
    assert main([str(make_instance())]) == 0
    assert capsys.readouterr().out.endswith("1 instance: 0 errors, 0 warnings\n")


def test_warnings_exit_0_unless_strict(make_instance, capsys):
    tests = make_instance(instruction=None)
    assert main([str(tests)]) == 0
    assert main([str(tests), "--strict"]) == 1


def test_errors_exit_1_and_ignore_drops_a_code(make_instance, capsys):
    tests = make_instance(rubric=rows((3, {"depends_on": ["A-CONTENT"]})))
    assert main([str(tests)]) == 1
    assert main([str(tests), "--ignore", "d003"]) == 0


@pytest.mark.parametrize("text", ["", "   \n", "[]", "{}", '{"rubrics": []}'])
def test_empty_input_is_an_error_not_a_clean_package(make_instance, capsys, text):
    """Issue 26 item 6 ("empty input exits 0"): an empty rubric, an empty list or an object without rows
    lints with an ERROR (exit 1), through the command and the console script alike."""
    tests = make_instance(rubric_text=text)
    assert main([str(tests)]) == 1
    assert "ERROR" in capsys.readouterr().out
    assert _console(str(tests)).returncode == 1


@pytest.mark.parametrize("argv", [[], ["--dry-run", "x"], ["--ignore", "Z999", "x"], ["--format", "xml", "x"]])
def test_usage_errors_exit_2(argv, capsys):
    try:
        assert main(argv) == 2
    except SystemExit as exc:  # argparse's own usage errors
        assert exc.code == 2


def test_console_script_and_subcommand_agree(make_instance):
    tests = make_instance(rubric=rows((2, {"depends_on": ["nope"]})))
    script = _console(str(tests), "--format", "json")
    sub = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests), "--format", "json"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert script.returncode == sub.returncode == 1
    assert json.loads(script.stdout) == json.loads(sub.stdout)
    assert json.loads(script.stdout)["instances"][0]["findings"][0]["code"] == "D001"


@pytest.mark.parametrize(
    "what",
    ["binary rubric", "rubric is a directory", "tests dir is a file", "rubric is a dangling symlink",
     "task.toml is a directory", "deeply nested json", "huge integer"],
)
def test_hostile_packages_are_findings_not_tracebacks(make_instance, tmp_path, capsys, what):
    tests = make_instance()
    rubric = tests / "rubric.json"
    if what == "binary rubric":
        rubric.write_bytes(os.urandom(4096) + b"\xff\xfe")
    elif what == "rubric is a directory":
        rubric.unlink()
        rubric.mkdir()
    elif what == "tests dir is a file":
        shutil.rmtree(tests)
        tests.write_text("not a dir")
    elif what == "rubric is a dangling symlink":
        rubric.unlink()
        rubric.symlink_to(tmp_path / "gone.json")
    elif what == "task.toml is a directory":
        (tests.parent / "task.toml").unlink()
        (tests.parent / "task.toml").mkdir()
    elif what == "deeply nested json":
        rubric.write_text('{"rubrics": [{"id": "a", "description": "x", "weight": 1, "code_method_params": '
                          + "[" * 50_000 + "]" * 50_000 + "}]}")
    elif what == "huge integer":
        rubric.write_text('{"rubrics": [{"id": "a", "description": "x", "weight": 1' + "0" * 5000 + "}]}")
    assert main([str(tests)]) == 1  # an exception here would fail the test: none may escape
    assert re.search(r": ERROR [A-Z]\d{3}", capsys.readouterr().out)


def test_example_instances_lint_clean():
    """The repository's examples lint clean, except two things outside this package's files:
    S001 until tests/test.sh is added, and T004 while task.toml's timeout_sec is below
    JUDGE_DEADLINE + INSTALL_MARGIN_SEC (2280 s, what `cowork-judge init` writes)."""
    proc = _console("tests", "examples/healthbench-bbd759b4/tests", "--format", "json", cwd=REPO)
    doc = json.loads(proc.stdout)
    toml = tomllib.loads((REPO / "task.toml").read_text())
    short = toml["verifier"]["timeout_sec"] < 1800 + INSTALL_MARGIN_SEC
    expected = ({"S001"} if not (REPO / "tests" / "test.sh").exists() else set()) | ({"T004"} if short else set())
    assert {f["code"] for f in doc["instances"][0]["findings"]} == expected
    assert {f["code"] for f in doc["instances"][1]["findings"]} <= {"S001", "T010"}  # the example ships no task.toml
    assert proc.returncode == (1 if short else 0)
    assert doc["instances"][0]["facts"]["version"] == cowork_judge.__version__


def test_docs_document_every_code_with_its_level():
    readme = (REPO / "docs" / "lint-rubric.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| `([A-Z]\d{3})` \| (ERROR|WARN) \|", readme, flags=re.MULTILINE))
    assert table == {code: check.level for code, check in CHECKS.items()}



def test_a_linter_bug_costs_one_instance_not_the_batch(make_instance, tmp_path, monkeypatch, capsys):
    from cowork_judge.lint import instance

    make_instance(name="fam/a")
    make_instance(name="fam/b", sh="#!/bin/bash\nBOOM\n" + "pip install cowork-judge==0.1.0\n")
    real = instance.testsh.check

    def flaky(path, *args, **kwargs):
        if "BOOM" in path.read_text():
            raise RuntimeError("simulated bug")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(instance.testsh, "check", flaky)
    assert main(["--batch", str(tmp_path / "fam")]) == 1
    out = capsys.readouterr().out
    assert "fam/b/tests: ERROR P002: lint-rubric failed on this package (RuntimeError: simulated bug)" in out
    assert "2 instances in 1 family, 1 with errors: 1 error, 0 warnings" in out
