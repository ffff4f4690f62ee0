"""Trial 23 P-2: the ``exit_reason`` of a run whose unjudged rows are of several kinds named one kind:
``"systemic judge failure: 5 of 7 rows not judged (code_error)"`` when 4 of the 5 were ``dep_unjudged``.
Now each kind is counted, the cause first: ``"(code_error 1, dep_unjudged 4)"``.

Real CLI (`python -m cowork_judge run`) against the simulator over HTTP. The gate ``check_deck_openable``
raises because the verifier lacks the deck extras (a ``sitecustomize`` on the child's PYTHONPATH blocks
``import lxml`` / ``import pptx``, as in trial 23 and `test_unread_deck_trial20`); the rows that depend on it
are ``dep_unjudged``."""

from __future__ import annotations

from testkit import ROLLOUTS, without_deck_extras, write_task

GATES = ["C-LOCATE", "C-OPEN"]
ROWS = [
    {"id": "C-LOCATE", "description": "a deck", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck"},
    {"id": "C-OPEN", "description": "it opens", "weight": 1, "judge_method": "code", "code_method_name": "check_deck_openable",
     "depends_on": ["C-LOCATE"]},
    {"id": "C-PAGES", "description": "1-99 slides", "weight": 1, "judge_method": "code", "code_method_name": "page_count_between",
     "params": {"min": 1, "max": 99}, "depends_on": GATES},
    {"id": "A-FIGURES", "description": "The deck gives the revenue figures.", "weight": 1, "depends_on": GATES},
    {"id": "A-ADVICE", "description": "The deck recommends next steps.", "weight": 1, "depends_on": GATES},
    {"id": "A-LOOK", "description": "The slides are readable.", "weight": 1, "depends_on": GATES},
    {"id": "H-WRONG", "description": "A figure on the slides is wrong.", "weight": 0, "hurdle": True},
]


def test_a_gate_that_raised_counts_itself_and_the_rows_behind_it(judge_run, tmp_path):
    tests = write_task(tmp_path / "task", ROWS, "Make a deck about agents; save it in /app/output/.\n") / "tests"
    run = judge_run(tests, ROLLOUTS / "deck", oracle={"H-WRONG": {"hit": False}}, env=without_deck_extras(tmp_path))
    doc, v = run.doc, run.verdicts
    kind = doc["extra_fields"]["judge_error_kind"]  # the gate's own kind (code_error: the method raised)
    assert v["C-OPEN"]["judged"] is False and v["C-OPEN"]["error_kind"] == kind, v["C-OPEN"]
    assert [r for r in v if v[r]["error_kind"] == "dep_unjudged"] == ["C-PAGES", "A-FIGURES", "A-ADVICE", "A-LOOK"]
    assert doc["exit_code"] is not None and doc["status"] == "error"
    assert doc["exit_reason"].startswith(f"systemic judge failure: 5 of 7 rows not judged ({kind} 1, dep_unjudged 4)"), \
        doc["exit_reason"]
