"""Trial 34 P-5, P-6 (HIGH): a code method's parameter written on the row beside ``code_method_params`` was carried
as data and never read. ``"source": "response"`` on the row (as the docs' prose worded it) left the text row
searching the files, so a correct chat answer missed it; ``min_pages``/``max_pages`` on the row let a 2-slide deck
pass "6 to 10 slides" at the defaults [1, ∞). Lint and the run said nothing. Now lint says M002 (an ERROR) and the
run leaves the row unjudged ``code_params``, both naming the move; the same value written both inside and on the
row is no fault. Real CLI (`judge_run`), code rows only (no model call)."""

from __future__ import annotations

import json

from code_methods.test_text_source_trial6 import _task

from cowork_judge.code_methods import CODE_METHODS, misplaced_params
from cowork_judge.commands.lint import main as lint_main

ON_ROW = {"id": "C-RAYLEIGH", "description": "The answer names Rayleigh scattering.", "weight": 1,
          "judge_method": "code", "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh"},
          "source": "response"}
PAGES = {"id": "C-PAGES", "description": "The deck has 6 to 10 slides.", "weight": 1, "judge_method": "code",
         "code_method_name": "page_count_between", "min_pages": 6, "max_pages": 10}
MOVE = ("'source' is written on the row, beside code_method_params, where text_contains never reads it (it would run "
        "with source at its default): move it inside, \"code_method_params\": {…, \"source\": \"response\"}")


def test_the_run_leaves_a_row_with_a_parameter_on_it_unjudged_naming_the_move(tmp_path, judge_run):
    tests, rollout = _task(tmp_path, [ON_ROW])
    run = judge_run(tests, rollout, sim=False)
    (row,) = json.loads((run.verifier / "result.json").read_text())["results"]
    assert row["judged"] is False and row["error_kind"] == "code_params", row
    assert row["reason"] == f"code_method_params of text_contains: {MOVE}", row


def test_lint_says_m002_for_each_parameter_on_the_row(tmp_path, capsys):
    tests, _ = _task(tmp_path, [ON_ROW, PAGES])
    assert lint_main([str(tests), "--ignore", "T010,S001,A002,A003"]) == 1
    out = capsys.readouterr().out
    assert f"ERROR M002 row 'C-RAYLEIGH' field code_method_params: text_contains: {MOVE}" in out, out
    for name, value in (("min_pages", 6), ("max_pages", 10)):
        assert (f"ERROR M002 row 'C-PAGES' field code_method_params: page_count_between: '{name}' is written on the "
                f"row, beside code_method_params, where page_count_between never reads it (it would run with {name} at "
                f"its default): move it inside, \"code_method_params\": {{…, \"{name}\": {value}}}") in out, out


def test_what_is_not_a_misplaced_parameter():
    text = CODE_METHODS["text_contains"]
    assert misplaced_params(text, {"text": "x", "source": "response"}, {"source": "response"}) == []  # said twice alike
    assert misplaced_params(text, {"text": "x"}, {"tags": ["a"], "weight": 1, "id": "T"}) == []  # data and row fields
    assert len(misplaced_params(text, {"text": "x", "source": "files"}, {"source": "response"})) == 1  # they differ
