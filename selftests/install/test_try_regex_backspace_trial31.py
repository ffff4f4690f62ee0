"""Trial 31 P-5: a hand-written rubric.json pattern ``"\\bboiling\\b"`` (one backslash, meant as a regex word
boundary) is JSON for U+0008 BACKSPACE: the pattern never matched, so a positive row was always lost and a hurdle
could never fire, while ``lint-rubric`` said 0 errors and ``try`` said ``status: success``. A C0 control character
(other than tab, newline, carriage return) in a code method's pattern or text is now refused by the method's value
check: ``lint-rubric`` M002 (ERROR) and the run's ``code_params`` (systemic), the character named ``U+0008``, never
raw, with the JSON spelling of the fix; a pattern written ``"\\\\bboiling\\\\b"`` is accepted and matches.
Real CLIs in child processes (``lint``; ``try`` against the simulator over HTTP)."""

from __future__ import annotations

import json
import subprocess
import sys

from install.test_try_output import inited_task, try_on_sim

PROMPT = "In your final message, explain how to brew green tea, with the water temperature in degrees Celsius.\n"
RUBRIC = r"""{"rubrics": [
  {"id": "C-TEMP", "description": "The answer gives a water temperature in degrees Celsius.", "weight": 1,
   "judge_method": "code", "code_method_name": "regex_match", "code_method_params": {"pattern": "%s[6-9][0-9] ?°C", "source": "response"}},
  {"id": "H-BOIL", "description": "The answer says to use boiling water.", "weight": 0, "hurdle": true,
   "judge_method": "code", "code_method_name": "regex_match", "code_method_params": {"pattern": "%sboiling%s", "source": "response"}}
]}
"""
"""The trial's two rows as written by hand, with ``%s`` where the author typed a word boundary."""


def _task(tmp_path, boundary: str):
    return inited_task(tmp_path / "tea", json.loads(RUBRIC % (boundary, boundary, boundary))["rubrics"], PROMPT)


def test_lint_refuses_a_json_backspace_in_a_pattern_and_shows_it(tmp_path):
    task = _task(tmp_path, "\\b")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(task)], capture_output=True, text=True,
                          timeout=120)
    said = proc.stdout + proc.stderr
    assert proc.returncode == 1, said
    assert "M002" in said and "C-TEMP" in said and "H-BOIL" in said, said
    assert "U+0008 (backspace) at character 1 of '\\x08boiling\\x08'" in said, said
    assert 'a word boundary is written \\\\b' in said and '"\\\\bboiling\\\\b"' in said, said
    assert "\b" not in said  # the invisible character is never printed raw


def test_the_run_is_systemic_code_params_not_a_silent_miss(tmp_path, sandbox_ready):
    task = _task(tmp_path, "\\b")
    answer = tmp_path / "bad.txt"
    answer.write_text("Use boiling water at 100 °C and steep for 10 minutes.\n")
    proc = try_on_sim(task, tmp_path, "--final-message", str(answer))
    said = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "status: error" in said, said
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert (doc["status"], doc["exit_code"]) == ("error", "judge:scorer_error"), doc["exit_reason"]
    rows = {r["id"]: r for r in doc["results"]}
    for rid in ("C-TEMP", "H-BOIL"):
        assert rows[rid]["judged"] is False and rows[rid]["error_kind"] == "code_params", rows[rid]
        assert "U+0008 (backspace)" in rows[rid]["reason"], rows[rid]["reason"]


def test_a_doubled_backslash_word_boundary_is_accepted_and_matches(tmp_path, sandbox_ready):
    task = _task(tmp_path, "\\\\b")
    lint = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(task)], capture_output=True, text=True,
                          timeout=120)
    assert "M002" not in lint.stdout + lint.stderr, lint.stdout + lint.stderr
    answer = tmp_path / "bad.txt"
    answer.write_text("Use boiling water at 100 °C and steep for 10 minutes.\n")
    proc = try_on_sim(task, tmp_path, "--final-message", str(answer))
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert doc["status"] == "success", proc.stdout + proc.stderr
    rows = {r["id"]: r for r in doc["results"]}
    assert rows["H-BOIL"]["hit"] is True and doc["reward"] == 0.0, rows  # the hurdle fires
