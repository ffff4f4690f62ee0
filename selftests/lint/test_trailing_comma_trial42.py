"""Trial 42 P-4: a trailing comma after the last row of a hand-edited ``rubric.json`` was said by init, lint-rubric
and the run as Python's ``Expecting value: line 9 column 1``: the line after the comma, with no hint. Each now adds
where the comma is. The real ``lint-rubric`` main, ``cowork-judge init`` and ``cowork-judge run`` in child
processes, and the pure helper."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from install.test_init import harbor_init
from testkit import run_cli, verifier_result

from cowork_judge.commands.lint import main as lint_main
from cowork_judge.core.json_errors import json_error_said

RUBRIC = ('{"rubrics": [\n'
          '  {"id": "A-ONE", "description": "The answer names Rayleigh scattering.", "weight": 1},\n'
          '  {"id": "A-TWO", "description": "The answer is short.", "weight": 1},\n'
          ']}\n')
HINT = "a trailing comma at line 3 column 70? (JSON allows no comma after the last item of a list or object)"


def _error(text: str) -> str:
    try:
        json.loads(text)
    except ValueError as exc:
        return json_error_said(exc, text)
    raise AssertionError("parsed")


def test_the_helper_points_at_the_comma_and_at_nothing_else():
    assert _error(RUBRIC).endswith(HINT)
    assert _error('{"a": 1,\n}').endswith("a trailing comma at line 1 column 8? (JSON allows no comma after the last "
                                          "item of a list or object)")
    assert "trailing comma" not in _error('{"a": 1 "b": 2}')  # a missing comma is another slip
    assert "trailing comma" not in _error('[1, 2')


def test_lint_init_and_the_run_name_the_comma(tmp_path: Path, capsys):
    task = harbor_init(tmp_path)
    (task / "tests" / "rubric.json").write_text(RUBRIC, encoding="utf-8")
    lint_main([str(task / "tests"), "--format", "json"])
    found = json.loads(capsys.readouterr().out)["instances"][0]["findings"]
    assert any(f["code"] == "R002" and f["message"].endswith(HINT) for f in found), found
    init = subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))
    assert HINT in init.stdout + init.stderr, init.stdout + init.stderr
    app, logs = tmp_path / "app", tmp_path / "logs"
    (app / "output").mkdir(parents=True)
    (logs / "agent").mkdir(parents=True)
    run_cli(app, logs, task / "tests")
    assert HINT in verifier_result(logs)["exit_reason"]
