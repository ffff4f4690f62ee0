"""Trial 14 F10: a text code row whose glob names only binary files (``text_contains`` over ``*.pptx``) can
never hit — the text methods skip a binary file — and ``lint-rubric`` shipped it without a word. It is M008
(ERROR) now; PDF, text globs and ``source: response`` rows are not flagged."""

from __future__ import annotations

import json

import pytest
from lint.conftest import rows

from cowork_judge.commands.lint import main


def _row(method: str, params: dict, **extra) -> dict:
    return {"id": "C-TEXT", "description": "The deck mentions evaporation.", "weight": 2, "judge_method": "code",
            "code_method_name": method, "code_method_params": params, "depends_on": ["C-DECK"], **extra}


def _m008(make_instance, capsys, row: dict) -> tuple[int, list[str]]:
    tests = make_instance(rubric=rows(extra=[row]))
    code = main([str(tests), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["instances"][0]["findings"]
    return code, [f["message"] for f in findings if f["code"] == "M008"]


@pytest.mark.parametrize("method, params", [
    ("text_contains", {"text": "Evaporation", "glob": "*.pptx"}),
    ("regex_match", {"pattern": "Evapo", "glob": "/app/output/slides/**/deck.PPTX"}),
    ("word_count_between", {"min_words": 10, "glob": "*.docx"}),
    ("text_contains", {"text": "logo", "glob": "figures/*.png"}),
])
def test_a_text_row_over_binary_files_is_an_error(make_instance, capsys, method, params):
    code, said = _m008(make_instance, capsys, _row(method, params))
    assert code == 1 and len(said) == 1, said
    assert "can never hit" in said[0] and method in said[0]


@pytest.mark.parametrize("params", [
    {"text": "Evaporation", "glob": "*.md"},
    {"text": "Evaporation", "glob": "*.pdf"},
    {"text": "Evaporation", "glob": "*.ppt*"},
    {"text": "Evaporation"},
    {"text": "Evaporation", "glob": "*.pptx", "source": "response"},
])
def test_text_globs_pdf_and_the_response_are_not_flagged(make_instance, capsys, params):
    code, said = _m008(make_instance, capsys, _row("text_contains", params))
    assert said == [] and code == 0
