"""Trial 17 P-1: in a deck rubric (a deck code method or a ppt_judge row), a text code row with NO glob searches
every deliverable file as text, and the deck is binary to the text methods: a placeholder hurdle can never fire
(a "Lorem ipsum" deck scored 1.0) and lint said nothing (M008 keyed only on an explicit ``*.pptx`` glob). Now a
hurdle or deduction is M008 (ERROR), a positive row M014 (WARN); a chat rubric, a text glob and
``source: response`` are not flagged. The real `lint-rubric` main."""

from __future__ import annotations

import json

import pytest
from lint.conftest import BASE_ROWS, rows

from cowork_judge.commands.lint import main

PLACEHOLDER = {"id": "H-PLACEHOLDER", "description": "The deck contains placeholder text such as 'Lorem ipsum'.",
               "weight": 0, "hurdle": True, "judge_method": "code", "code_method_name": "text_contains",
               "code_method_params": {"text": "lorem ipsum"}}


def _findings(make_instance, capsys, rubric: list[dict], **kw) -> tuple[int, list[dict]]:
    tests = make_instance(rubric=rubric, **kw)
    code = main([str(tests), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["instances"][0]["findings"]


def test_a_placeholder_hurdle_without_glob_in_a_deck_rubric_is_an_error(make_instance, capsys):
    code, found = _findings(make_instance, capsys, rows(extra=[PLACEHOLDER]))
    said = [f for f in found if f["code"] == "M008"]
    assert code == 1 and len(said) == 1, found
    assert said[0]["row"] == "H-PLACEHOLDER" and "judge row" in said[0]["message"], said


@pytest.mark.parametrize("method, params, weight", [
    ("regex_match", {"pattern": "TODO|TBD"}, -2),  # a deduction
    ("word_count_between", {"max_words": 10}, 0),  # a hurdle (with hurdle: true below)
])
def test_a_deduction_or_hurdle_of_any_text_method_is_an_error(make_instance, capsys, method, params, weight):
    row = {"id": "N-TEXT", "description": "The deck has leftover placeholder text.", "weight": weight,
           "judge_method": "code", "code_method_name": method, "code_method_params": params,
           **({"hurdle": True} if weight == 0 else {})}
    code, found = _findings(make_instance, capsys, rows(extra=[row]))
    assert [f["row"] for f in found if f["code"] == "M008"] == ["N-TEXT"] and code == 1, found


def test_a_positive_text_row_without_glob_in_a_deck_rubric_is_a_warning(make_instance, capsys):
    row = {"id": "C-NAMES", "description": "The deck names chlorophyll.", "weight": 1, "judge_method": "code",
           "code_method_name": "text_contains", "code_method_params": {"text": "chlorophyll"}}
    code, found = _findings(make_instance, capsys, rows(extra=[row]))
    assert [(f["code"], f["level"], f["row"]) for f in found if f["code"] in ("M008", "M014")] \
        == [("M014", "WARN", "C-NAMES")], found
    assert code == 0


@pytest.mark.parametrize("params", [
    {"text": "lorem ipsum", "glob": "*.md"},
    {"text": "lorem ipsum", "source": "response"},
])
def test_a_text_glob_or_the_response_is_not_flagged(make_instance, capsys, params):
    code, found = _findings(make_instance, capsys, rows(extra=[{**PLACEHOLDER, "code_method_params": params}]))
    assert not [f for f in found if f["code"] in ("M008", "M014")], found


def test_a_rubric_that_judges_no_deck_is_not_flagged(make_instance, capsys):
    rubric = [r for r in BASE_ROWS if r.get("code_method_name") != "locate_deck"]
    rubric = [{k: v for k, v in r.items() if k != "depends_on"} for r in rubric]
    code, found = _findings(make_instance, capsys, [*rubric, PLACEHOLDER])
    assert not [f for f in found if f["code"] in ("M008", "M014")], found
