"""Trial 6, F12–F14: deck rows without a locate_deck row, and globs or deck paths written as the
container path (`/app/output/x`), with `./` or with `output/` in front.

F12: a deck check without `path` in a rubric with no locate_deck row locates the deck itself with
locate_deck's defaults and says so (it scored every deck 0 with coverage 1.0); a rubric WITH a
locate_deck row that located none still gets no deck. F13: `/app/output/x` and `./x` are read as
`x`; `output/x` and `/app/x` are refused (the row unjudged code_error, never a silent miss).
Lint: selftests/lint/test_lint_trial6_paths.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import deck, make_ctx

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.engine.router import route

DECK = "45__PPTAgent__build_effective_agents.pptx"


def _code(rid: str, method: str, params: dict | None = None, **extra) -> dict:
    return {"id": rid, "description": f"row {rid}", "weight": 1, "judge_method": "code", "code_method_name": method,
            "code_method_params": params or {}, **extra}


def _route(tmp_path: Path, rows: list[dict], files: dict) -> tuple[dict, object]:
    ctx = make_ctx(tmp_path, files)
    return route(normalize_rubric(rows).criteria, ctx), ctx


# --------------------------------------------------------------------------- F12


def test_deck_checks_without_a_locate_deck_row_locate_the_deck_themselves(tmp_path):
    rows = [_code("C-OPEN", "check_deck_openable"), _code("C-PAGES", "page_count_between", {"min_pages": 5, "max_pages": 20})]
    v, ctx = _route(tmp_path, rows, {"deck.pptx": deck(DECK).read_bytes()})
    for rid in ("C-OPEN", "C-PAGES"):
        assert v[rid].judged and v[rid].hit is True, v[rid].reason
    assert "deck.pptx opens" in v["C-OPEN"].reason and "no locate_deck row" in v["C-OPEN"].reason
    assert "deck.pptx has" in v["C-PAGES"].reason
    # the deck the first check located is THE deck of the later rows and segments
    assert ctx.deck is not None and ctx.deck.rel == "deck.pptx"


def test_without_a_locate_deck_row_no_deck_or_two_decks_is_a_miss_that_says_why(tmp_path):
    rows = [_code("C-OPEN", "check_pptx_openable")]
    v, _ = _route(tmp_path, rows, {"notes.md": "# no deck"})
    assert v["C-OPEN"].judged and v["C-OPEN"].hit is False
    assert "no deck among the deliverables" in v["C-OPEN"].reason and "no locate_deck row" in v["C-OPEN"].reason
    two = deck(DECK).read_bytes()
    v, ctx = _route(tmp_path / "2", rows, {"a.pptx": two, "b.pptx": two + b"\0"})
    assert v["C-OPEN"].hit is False and "ambiguous" in v["C-OPEN"].reason
    assert ctx.deck is None


def test_a_locate_deck_row_that_located_none_still_leaves_the_checks_without_a_deck(tmp_path):
    # the author's locate_deck wants slides.pptx: an ungated check must not judge deck.pptx instead
    rows = [_code("C-LOC", "locate_deck", {"expect_name": "slides.pptx", "require_expect_name": True}),
            _code("C-OPEN", "check_deck_openable")]
    v, ctx = _route(tmp_path, rows, {"deck.pptx": deck(DECK).read_bytes()})
    assert v["C-LOC"].hit is False and v["C-OPEN"].hit is False
    assert "no deck was located" in v["C-OPEN"].reason and "C-LOC" in v["C-OPEN"].reason
    assert ctx.deck is None


# --------------------------------------------------------------------------- F13


@pytest.mark.parametrize("pattern,body", [
    ("/app/output/report.md", "report.md"), ("./report.md", "report.md"), ("/slides.pptx", "slides.pptx"),
    ("/app/output/reports/**/*.csv", "reports/**/*.csv"), ("reports/./a.csv", "reports/a.csv"), ("*.md", "*.md"),
])
def test_container_paths_and_dot_slash_are_read_relative_to_output(pattern, body):
    from cowork_judge.code_methods.globs import output_relative

    assert output_relative(pattern) == body


@pytest.mark.parametrize("pattern,says", [
    ("output/report.md", "write 'report.md'"), ("/output/report.md", "write 'report.md'"),
    ("/app/report.md", "outside /app/output"), ("../output/report.md", "'..'"), ("/app/output/", "output folder itself"),
    ("./", "names no file"),
])
def test_globs_that_name_no_deliverable_are_refused(pattern, says):
    from cowork_judge.code_methods.globs import output_relative

    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(".", r"\.")):
        output_relative(pattern)


def test_globs_and_deck_paths_through_the_router(tmp_path):
    rows = [_code("G1", "file_exists", {"glob": "/app/output/report.md"}),
            _code("G3", "file_exists", {"glob": "./report.md"}),
            _code("G2", "file_exists", {"glob": "output/report.md"}),
            _code("G4", "text_contains", {"text": "revenue", "glob": "/app/output/*.md"}),
            _code("G5", "file_nonempty", {"glob": "/app/report.md"}),
            _code("P1", "page_count_between", {"path": "/app/output/deck.pptx", "min_pages": 1}),
            _code("P2", "check_deck_openable", {"path": "./deck.pptx"}),
            _code("P3", "check_deck_openable", {"path": "output/deck.pptx"}),
            _code("L1", "locate_deck", {"exclude": ["/app/output/old.pptx"], "sources": ["/app/input/**/*"]})]
    pptx = deck(DECK).read_bytes()
    v, _ = _route(tmp_path, rows, {"report.md": "Q3 revenue grew.", "deck.pptx": pptx, "old.pptx": pptx + b"\0"})
    for rid in ("G1", "G3", "G4", "P1", "P2", "L1"):
        assert v[rid].judged and v[rid].hit is True, (rid, v[rid].reason)
    assert "deck.pptx" in v["L1"].reason
    for rid in ("G2", "G5", "P3"):  # refused: unjudged code_params naming what to write, never a silent miss
        assert not v[rid].judged and v[rid].error_kind == "code_params", (rid, v[rid].reason)
    assert "write 'report.md'" in v["G2"].reason and "write 'deck.pptx'" in v["P3"].reason
    assert "outside /app/output" in v["G5"].reason


def test_the_trial_repro_through_the_cli(tmp_path):
    """The repro of F12 and F13 as a user runs it: the command line, a code-only rubric."""
    app, tests = tmp_path / "app", tmp_path / "tests"
    (app / "output").mkdir(parents=True)
    tests.mkdir()
    (app / "output" / "deck.pptx").write_bytes(deck(DECK).read_bytes())
    (app / "output" / "report.md").write_text("# Report\n")
    (tests / "task_prompt.md").write_text("Make a deck\n")
    rows = [_code("C-OPEN", "check_deck_openable"), _code("C-PAGES", "page_count_between", {"min_pages": 5, "max_pages": 20}),
            _code("G1", "file_exists", {"glob": "/app/output/report.md"}), _code("G3", "file_exists", {"glob": "./report.md"})]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    done = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir",
                           str(tmp_path / "logs"), "--tests-dir", str(tests), "--work-dir", str(tmp_path / "work")],
                          env=env | {"JUDGE_EVIDENCE": "0"}, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    doc = json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())
    assert doc["reward"] == 1.0, [(r["id"], r["reason"]) for r in doc["results"]]
