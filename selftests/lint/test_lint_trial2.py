"""Issue 39, trial 2 leftovers: an engine refusal does not hide the misspelt-field warnings of
the other rows, and a misspelt workflow name gets a did-you-mean."""

from __future__ import annotations

import json
import subprocess
import sys

from cowork_judge.commands.lint import main


def _rubric(tmp_path, rows):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    return tests


def test_a_misspelt_field_is_warned_beside_an_engine_error(tmp_path, capsys):
    tests = _rubric(tmp_path, [{"id": "a", "description": "the deck has a title", "weight": 1, "judge_methd": "code"},
                               {"id": "b", "description": "the deck has a summary", "weight": "zz"}])
    assert main([str(tests)], prog="lint-rubric") == 1
    out = capsys.readouterr().out
    assert "ERROR R006 row 'b' field weight: must be a number, got 'zz'" in out
    assert "ERROR R029: unknown field 'judge_methd' (row(s) 'a') is kept as data and not used; did you mean 'judge_method'?" in out


def test_a_misspelt_field_is_warned_beside_a_duplicate_id(tmp_path, capsys):
    tests = _rubric(tmp_path, [{"id": "a", "description": "the deck has a title", "weight": 1, "wieght": 2},
                               {"id": "a", "description": "the deck has a summary", "weight": 1}])
    assert main([str(tests)], prog="lint-rubric") == 1
    out = capsys.readouterr().out
    assert "ERROR R004" in out and "unknown field 'wieght'" in out and "did you mean 'weight'?" in out


def test_a_misspelt_workflow_name_gets_a_did_you_mean(tmp_path):
    tests = _rubric(tmp_path, [{"id": "a", "description": "the deck has a title", "weight": 1, "judge_method": "workflow",
                                "workflow_name": "ppt_judg"}])
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert ("ERROR M010 row 'a' field workflow_name: workflow 'ppt_judg' is not installed in this package (did you mean "
            "'ppt_judge'? installed: answer_match, ppt_judge, stub, trajectory_judge)") in proc.stdout, proc.stdout
