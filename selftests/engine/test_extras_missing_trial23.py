"""Trial 23 P-1: a deck task whose verifier lacks the judge's deck extras (init ran before the rubric was
written). A deck code row raised ``ModuleNotFoundError: No module named 'lxml'`` and was unjudged ``code_error``
(content-caused: the rollout's fault), the agentic rows that saw no slide text and no page image counted as judged
misses, and a good deck scored 0.14 with ``status: success``. The missing extras are the verifier environment's
fault, the same for every rollout: such rows are unjudged ``extras_missing`` and the run is systemic
(``judge:scorer_error``) on any row.

Real CLI (`python -m cowork_judge run`) against the simulator over HTTP; the missing extras are simulated as the
trial 20 test does it: a ``sitecustomize`` on the child's PYTHONPATH that blocks ``import lxml`` / ``import pptx``."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from testkit import ROLLOUTS, without_deck_extras, write_task

LOCATE = {"id": "C-LOCATE-DECK", "description": "One .pptx deck in output/.", "weight": 1, "judge_method": "code",
          "code_method_name": "locate_deck"}
OPENABLE = {"id": "C-DECK-OPENABLE", "description": "The deck opens.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
            "judge_method": "code", "code_method_name": "check_deck_openable"}
AGENTIC = [
    {"id": "A-PATTERN-FIT", "description": "For each workflow pattern the deck presents, it says when it fits.",
     "weight": 3, "depends_on": ["C-LOCATE-DECK"]},
    {"id": "A-VISUAL-CLARITY", "description": "The slides are visually clear: text is readable.", "weight": 2,
     "depends_on": ["C-LOCATE-DECK"]},
]
PROMPT = "Make a deck about building effective agents; save it as a .pptx file in /app/output/.\n"


def _tests(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    return write_task(tmp_path / "task", rows, PROMPT) / "tests"


def test_missing_extras_are_the_environments_fault_not_the_decks(judge_run, tmp_path):
    env = {"JUDGE_EVIDENCE": "180", **without_deck_extras(tmp_path)}
    run = judge_run(_tests(tmp_path, [LOCATE, OPENABLE, *AGENTIC]), ROLLOUTS / "deck", env=env)
    doc, rows = run.doc, run.verdicts
    assert run.returncode == 1, run.stderr  # a systemic failure: the run says so by its exit status too
    assert rows["C-DECK-OPENABLE"]["error_kind"] == "extras_missing", rows["C-DECK-OPENABLE"]
    for rid in ("A-PATTERN-FIT", "A-VISUAL-CLARITY"):  # they saw nothing of the deck: not judged misses
        assert rows[rid]["judged"] is False and rows[rid]["error_kind"] == "extras_missing", rows[rid]
    assert doc["status"] == "error" and doc["exit_code"] == "judge:scorer_error", (doc["status"], doc["exit_code"])
    assert "extras" in doc["exit_reason"], doc["exit_reason"]
    said = [w for w in doc["details"]["warnings"] if "could not be read" in w]  # the warning naming the fix stays
    assert len(said) == 1 and "run `cowork-judge init <task>` again" in said[0], doc["details"]["warnings"]


def test_one_agentic_row_alone_is_systemic_too(judge_run, tmp_path):
    """A rubric of judge rows only: no code row raises, the agentic row alone is unjudged extras_missing, and a
    positive row unjudged for the environment still makes the run systemic (the same on every rollout)."""
    env = {"JUDGE_EVIDENCE": "180", **without_deck_extras(tmp_path)}
    run = judge_run(_tests(tmp_path, [LOCATE, *AGENTIC[:1]]), ROLLOUTS / "deck", env=env)
    rows = run.verdicts
    assert run.returncode == 1, run.stderr
    assert rows["A-PATTERN-FIT"]["error_kind"] == "extras_missing", rows["A-PATTERN-FIT"]
    assert run.doc["exit_code"] == "judge:scorer_error", run.doc["exit_reason"]


def _broken_rollout(tmp_path: Path) -> Path:
    """The deck rollout with its deck replaced by a corrupt zip of the same name (the rollout's fault)."""
    import shutil

    dst = tmp_path / "broken-rollout"
    shutil.copytree(ROLLOUTS / "deck", dst)
    deck = next((dst / "app" / "output").rglob("*.pptx"))
    with zipfile.ZipFile(deck, "w") as z:
        z.writestr("not-a-deck.txt", "garbage")
    return dst


def test_a_broken_deck_stays_the_rollouts_fault(judge_run, tmp_path):
    """Extras present, the DECK broken: the code row judges it (a miss), the agentic rows are judged, not
    extras_missing, and the run is not systemic."""
    run = judge_run(_tests(tmp_path, [LOCATE, OPENABLE, *AGENTIC]), _broken_rollout(tmp_path),
                    env={"JUDGE_EVIDENCE": "180"})
    rows = run.verdicts
    assert run.returncode == 0, run.stderr
    assert not [r for r in rows.values() if r.get("error_kind") == "extras_missing"], rows
    assert rows["A-PATTERN-FIT"]["judged"] is True, rows["A-PATTERN-FIT"]
    assert run.doc["exit_code"] is None, run.doc["exit_reason"]


def test_the_rows_reason_gives_the_warnings_fix_when_init_would_pick_no_extras(judge_run, tmp_path):
    """Trial 38 P-3: with no deck row and a prompt asking for no deck (not even in words, trial 38 P-2), init picks no deck extras, yet each row's reason
    said "run `cowork-judge init <task>` again", which changes nothing; it now gives the warning's fix."""
    rows = [{k: v for k, v in row.items() if k != "depends_on"} for row in AGENTIC]
    tests = write_task(tmp_path / "task", rows, "Explain how to build effective agents.\n") / "tests"
    run = judge_run(tests, ROLLOUTS / "deck", env={"JUDGE_EVIDENCE": "180", **without_deck_extras(tmp_path)})
    for rid in ("A-PATTERN-FIT", "A-VISUAL-CLARITY"):
        assert run.verdicts[rid]["error_kind"] == "extras_missing", run.verdicts[rid]
        assert "add a locate_deck row, then run `cowork-judge init <task>` again" in run.verdicts[rid]["reason"]
    ruled = run.verdicts["A-PATTERN-FIT"]["reason"]
    assert "extras; run `cowork-judge init" not in ruled, ruled
