"""Trial 20 P-5: a deck task whose verifier lacks the judge's deck extras (python-pptx / lxml, e.g. a
rubric of judge rows only, for which init chose extras none). The evidence step failed, the judge saw
nothing of the deck, and the run said success with no warning: the cause was only in
``details.evidence.error``. Now ``details.warnings`` names the deck, the cause and the fix, and (trial 23 P-1)
the model-judged rows are unjudged ``extras_missing`` (the verifier's install), the run systemic.

Real CLI (`python -m cowork_judge run`) against the simulator over HTTP; the missing extras are
simulated by a ``sitecustomize`` on the child's PYTHONPATH that blocks ``import lxml`` / ``import pptx``."""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path

from testkit import ROLLOUTS, without_deck_extras, write_task

ROWS = [
    {"id": "A-PATTERN-FIT", "description": "For each workflow pattern the deck presents, it says when it fits.", "weight": 3},
    {"id": "A-VISUAL-CLARITY", "description": "The slides are visually clear: text is readable.", "weight": 2},
]


def _tests(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    return write_task(tmp_path / "task", rows, "Explain how to build effective agents; put your work in /app/output/.\n") / "tests"


def test_a_deck_the_judge_cannot_read_is_a_warning_naming_the_fix(judge_run, tmp_path):
    env = {"JUDGE_EVIDENCE": "180", **without_deck_extras(tmp_path)}
    run = judge_run(_tests(tmp_path, ROWS), ROLLOUTS / "deck", env=env)
    doc = run.doc
    assert run.returncode == 1, run.stderr  # trial 23 P-1: the rows are unjudged extras_missing, the run systemic
    assert {v["error_kind"] for v in run.verdicts.values()} == {"extras_missing"}, run.verdicts
    assert "lxml" in doc["details"]["evidence"]["error"] or "pptx" in doc["details"]["evidence"]["error"]
    said = [w for w in doc["details"]["warnings"] if "could not be read" in w]
    assert len(said) == 1, doc["details"]["warnings"]
    assert "build_effective_agents.pptx" in said[0] and "ModuleNotFoundError" in said[0]
    # trial 37 P-1: said as what happened: unjudged, not judged on nothing
    assert ("model-judged row(s) A-PATTERN-FIT, A-VISUAL-CLARITY were left unjudged (extras_missing; one gated on a deck "
            "row the same cause left unjudged is dep_unjudged): they would have "
            "seen no slide text and no page image") in said[0]
    # trial 21 P-1: no deck row and a prompt naming no .pptx: init picks no extras, so the deck row comes first
    assert "add a locate_deck row, then run `cowork-judge init <task>` again" in said[0]
    assert "--extras pptx" not in said[0]
    page = tmp_path / "report.html"  # the report page's Warnings section says it too
    done = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier), "--out", str(page)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "<h2>Warnings</h2>" in page.read_text() and html.escape(said[0]) in page.read_text()


def test_a_readable_deck_says_nothing_of_the_kind(judge_run, tmp_path):
    """Same run with the extras present: the deck is read, no such warning."""
    run = judge_run(_tests(tmp_path, ROWS), ROLLOUTS / "deck", env={"JUDGE_EVIDENCE": "180"})
    assert run.returncode == 0, run.stderr
    assert "error" not in run.doc["details"]["evidence"]
    assert not [w for w in run.doc["details"]["warnings"] if "could not be read" in w]


def test_a_deck_read_by_nothing_is_not_said_judged_on_its_text(judge_run, tmp_path):
    """python-pptx alone missing and no LibreOffice: the evidence package loads, the deck's structure layer
    is skipped (python-pptx missing) and no page renders. The warning says the deck could not be read,
    not that the rows were "judged on the deck's extracted text alone" (there was none)."""
    blocked = without_deck_extras(tmp_path)
    (Path(blocked["PYTHONPATH"].split(os.pathsep)[0]) / "sitecustomize.py").write_text("import sys\nsys.modules['pptx'] = None\n")
    env = {"JUDGE_EVIDENCE": "180", "JUDGE_SOFFICE_PATH": "/nonexistent/soffice", **blocked}
    run = judge_run(_tests(tmp_path, ROWS), ROLLOUTS / "deck", env=env)
    assert run.returncode == 1, run.stderr  # trial 23 P-1: judged blind no more: extras_missing, systemic
    assert {v["error_kind"] for v in run.verdicts.values()} == {"extras_missing"}, run.verdicts
    warnings = run.doc["details"]["warnings"]
    said = [w for w in warnings if "could not be read" in w]
    assert len(said) == 1, warnings
    assert "build_effective_agents.pptx" in said[0] and "python-pptx missing" in said[0]
    assert not [w for w in warnings if "extracted text alone" in w], warnings
