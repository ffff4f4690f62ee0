"""Trial 6 at lint: F14, every glob or deck path the run refuses is M002 (lint missed `..`); F13's
`output/x` and `/app/x` too; F12, deck checks without a locate_deck row are M005 (WARN)."""

from __future__ import annotations

from cowork_judge.lint.instance import lint_instance

from .conftest import BASE_ROWS


def _code(rid: str, method: str, params: dict | None = None) -> dict:
    return {"id": rid, "description": f"row {rid}", "weight": 1, "judge_method": "code", "code_method_name": method,
            "code_method_params": params or {}}


def _lint(make_instance, rows: list[dict]) -> list[tuple[str, str | None, str]]:
    report = lint_instance(make_instance(rubric=[*BASE_ROWS, *rows]))
    return [(f.code, f.row, f.message) for f in report.findings]


def test_lint_reports_every_glob_and_path_the_run_refuses(make_instance):
    found = _lint(make_instance, [
        _code("G7", "file_exists", {"glob": "../output/report.md"}),
        _code("G2", "json_valid", {"glob": "output/data.json"}),
        _code("G5", "regex_match", {"pattern": "Q[1-4]", "glob": "/app/notes.md"}),
        _code("P3", "page_count_between", {"path": "output/deck.pptx"}),
        _code("L2", "locate_deck", {"exclude": ["../x.pptx"]}),
        _code("T1", "file_written_before_final", {"glob": "a/../b.md"}),
        _code("OK1", "file_exists", {"glob": "/app/output/report.md"}),
        _code("OK2", "word_count_between", {"glob": "./report.md", "min_words": 1}),
    ])
    m002 = {row: message for code, row, message in found if code == "M002"}
    assert set(m002) == {"G7", "G2", "G5", "P3", "L2", "T1"}, found
    assert "'..'" in m002["G7"] and "write 'data.json'" in m002["G2"] and "write 'deck.pptx'" in m002["P3"]


def test_lint_warns_on_deck_checks_without_a_locate_deck_row(make_instance):
    report = lint_instance(make_instance(rubric=[
        _code("C-OPEN", "check_deck_openable"), _code("C-PAGES", "page_count_between", {"min_pages": 5}),
        _code("C-NAMED", "check_deck_openable", {"path": "deck.pptx"}),
        {"id": "A-X", "description": "The deck explains the report.", "weight": 1}]))
    m005 = [f for f in report.findings if f.code == "M005"]
    assert [f.row for f in m005] == ["C-OPEN", "C-PAGES"] and all(f.level == "WARN" for f in m005)
    assert "locate_deck row" in m005[0].message
