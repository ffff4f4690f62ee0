"""Trial 14 P1-1: a deck the verifier cannot render (no LibreOffice, no PyMuPDF) while agentic rows
judge it. The agentic judge then sees no page image and decides on the deck's extracted text; the run
used to say so only in judge.log. Now ``details.warnings`` names the rows and what to install.

Real CLI (`python -m cowork_judge run`) against the simulator over HTTP; "no LibreOffice" is
``JUDGE_SOFFICE_PATH`` pointing at nothing, as the other render tests simulate it."""

from __future__ import annotations

from pathlib import Path

from testkit import ROLLOUTS, write_task

ROWS = [
    {"id": "C-LOCATE-DECK", "description": "Exactly one deck is delivered.", "weight": 1, "judge_method": "code",
     "code_method_name": "locate_deck"},
    {"id": "C-DECK-OPENABLE", "description": "The deck opens.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
     "judge_method": "code", "code_method_name": "check_deck_openable"},
    {"id": "A-VISUAL", "description": "The slides are visually clear: no text overflows its box.", "weight": 3,
     "depends_on": ["C-LOCATE-DECK", "C-DECK-OPENABLE"]},
]


def _tests(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    return write_task(tmp_path / "task", rows, "Make a deck about building effective agents; save it in /app/output/.\n") / "tests"


def test_agentic_rows_over_a_deck_that_was_not_rendered_are_a_warning(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, ROWS), ROLLOUTS / "deck",
                    env={"JUDGE_EVIDENCE": "180", "JUDGE_SOFFICE_PATH": "/nonexistent/soffice"})
    doc = run.doc
    assert run.returncode == 0, run.stderr
    assert doc["extra_fields"]["judge_evidence_pages"] == 0
    said = [w for w in doc["details"]["warnings"] if "no page was rendered" in w]
    assert len(said) == 1, doc["details"]["warnings"]
    assert "build_effective_agents.pptx" in said[0] and "/nonexistent/soffice" in said[0]
    assert "agentic row(s) A-VISUAL were judged on the deck's extracted text alone" in said[0]
    assert "COWORK_JUDGE_EXTRAS=workflow" in said[0] and "libreoffice-impress" in said[0]
    assert doc["extra_fields"]["judge_coverage"] == 1.0  # judged (on text): the warning says what it lacked


def test_no_agentic_row_no_page_warning(judge_run, tmp_path):
    """Only code rows: nobody looks at a page (no evidence is built), so nothing is said about the renderer."""
    run = judge_run(_tests(tmp_path, ROWS[:2]), ROLLOUTS / "deck",
                    env={"JUDGE_EVIDENCE": "180", "JUDGE_SOFFICE_PATH": "/nonexistent/soffice"})
    assert run.returncode == 0, run.stderr
    assert not [w for w in run.doc["details"]["warnings"] if "no page was rendered" in w]
