"""Trial 21 P-1: a deck task whose author ran `cowork-judge init` before writing the rubric (extras none), so
the verifier lacks python-pptx / lxml. The run's warning advised "add a locate_deck row or run init with
--extras pptx": beside the point for a rubric that has a locate_deck row, and ``--extras pptx`` is the value the
docs call wrong for a deck task (M012). The advice now follows what init picks for the rubric: re-run init when
it gives this rubric the deck extras; add a deck row first only when no row (and no prompt) says "deck".

Real CLI (`python -m cowork_judge run`) against the simulator over HTTP; the missing extras are simulated by a
``sitecustomize`` on the child's PYTHONPATH that blocks ``import lxml`` / ``import pptx``. The run's choice is
checked against what `cowork-judge init` would pick (`install.extras.for_rubric_file`) for the same files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cowork_judge.install import extras
from testkit import ROLLOUTS, without_deck_extras

AGENTIC = [
    {"id": "A-PATTERN-FIT", "description": "For each workflow pattern the deck presents, it says when it fits.", "weight": 3},
    {"id": "A-VISUAL-CLARITY", "description": "The slides are visually clear: text is readable.", "weight": 2},
]
LOCATE = {"id": "G-LOCATE", "description": "A deck is delivered.", "weight": 0, "judge_method": "code",
          "code_method_name": "locate_deck"}
GLOB = {"id": "G-FILE", "description": "A .pptx file is delivered.", "weight": 0, "judge_method": "code",
        "code_method_name": "file_exists", "code_method_params": {"glob": "*.pptx"}}
PROMPT = "Explain how to build effective agents; put your work in /app/output/.\n"
RERUN = ("the verifier lacks cowork-judge's deck extras: run `cowork-judge init <task>` again, which sets "
         "COWORK_JUDGE_EXTRAS from the rubric's rows")
ADD_ROW = "add a locate_deck row, then run `cowork-judge init <task>` again"


def _tests(tmp_path: Path, rows: list[dict[str, Any]], prompt: str) -> Path:
    tests = tmp_path / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text(prompt)
    return tests


def _unread_warning(judge_run: Any, tmp_path: Path, tests: Path) -> str:
    run = judge_run(tests, ROLLOUTS / "deck", env={"JUDGE_EVIDENCE": "180", **without_deck_extras(tmp_path)})
    assert run.returncode == 1, run.stderr  # trial 23 P-1: the agentic rows are unjudged extras_missing, systemic
    assert run.doc["exit_code"] == "judge:scorer_error", run.doc["exit_reason"]
    said = [w for w in run.doc["details"]["warnings"] if "could not be read" in w]
    assert len(said) == 1, run.doc["details"]["warnings"]
    assert "build_effective_agents.pptx" in said[0] and "ModuleNotFoundError" in said[0]
    return str(said[0])


@pytest.mark.parametrize("rows, prompt", [
    pytest.param([LOCATE, *AGENTIC], PROMPT, id="locate_deck-row"),  # the trial's rubric: a locate_deck gate first
    pytest.param([GLOB, *AGENTIC], PROMPT, id="deck-glob-row"),
    pytest.param(AGENTIC, "Make a 10-slide deck.pptx about building effective agents.\n", id="prompt-names-pptx"),
])
def test_a_rubric_init_gives_the_deck_extras_is_told_to_run_init_again(judge_run, tmp_path, rows, prompt):
    tests = _tests(tmp_path, rows, prompt)
    said = _unread_warning(judge_run, tmp_path, tests)
    assert RERUN in said
    assert "--extras pptx" not in said and "add a locate_deck row" not in said
    chosen, _ = extras.for_rubric_file(tests / "rubric.json") or ((), {})
    assert extras.covers(chosen, "pptx"), chosen  # what the advice promises: init picks them (here 'workflow')


def test_a_rubric_without_a_deck_row_is_told_to_add_one_first(judge_run, tmp_path):
    """Agentic rows only and a prompt that names no PowerPoint file: init picks no extras, so running it again
    changes nothing; the deck row comes first."""
    tests = _tests(tmp_path, AGENTIC, PROMPT)
    said = _unread_warning(judge_run, tmp_path, tests)
    assert ADD_ROW in said and "--extras pptx" not in said
    assert extras.for_rubric_file(tests / "rubric.json") == ((), {})


def test_a_misspelt_rubrics_key_is_named_by_the_run(judge_run, tmp_path):
    """Trial 21 P-2: ``{"rubric": [...]}`` is read as an id → row mapping with one row named ``rubric``; the run's
    refusal now says which key was meant (lint R003 and init say it too: install/test_init_trial21.py)."""
    tests = tmp_path / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubric": AGENTIC}))
    run = judge_run(tests, ROLLOUTS / "deck")
    assert run.doc["exit_code"] == "judge:scorer_error", run.doc["exit_reason"]
    assert run.doc["exit_reason"] == ("bad rubric: row 'rubric': a row must be an object, got list; did you mean "
                                      "'rubrics'? (rows go in a list under 'rubrics', 'criteria' or 'items')")
