"""Trial 13 L2: a ``depends_on`` that differs from a row's id only by Unicode normalization ("café" composed
in the row, decomposed in depends_on) was a missing dependency — D001 "names no row: 'café'", two strings
that look the same — and the run left the row gated shut. It is matched under NFC, said in lint (R009) and
in the run's warnings with both ids spelled in code points; a dependency that names no row at all shows its
code points when it is not plain ASCII."""

from __future__ import annotations

import json

from lint.conftest import rows

from cowork_judge.commands.lint import main

NFC, NFD = "caf\u00e9", "cafe\u0301"


def _findings(make_instance, capsys, rubric):
    tests = make_instance(rubric=rubric)
    code = main([str(tests), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["instances"][0]["findings"]


def test_lint_matches_a_dependency_written_in_another_unicode_form(make_instance, capsys):
    rubric = rows((2, {"id": NFC, "depends_on": ["C-DECK"]}), (3, {"depends_on": [NFD, "C-DECK"]}))
    code, findings = _findings(make_instance, capsys, rubric)
    assert code == 0 and not [f for f in findings if f["code"] == "D001"]
    said = [f["message"] for f in findings if f["code"] == "R009" and "Unicode form" in f["message"]]
    assert said == ["depends_on 'cafe\\u0301' is read as row 'caf\\xe9': the same text in another Unicode form (NFC "
                    "and NFD: a composed and a decomposed accent); write the id as the row has it"]


def test_a_dangling_id_that_is_not_ascii_is_spelled_in_code_points(make_instance, capsys):
    rubric = rows((3, {"depends_on": ["A-CONTENT", "C-DECK", "r\u00e9sum\u00e9"]}))
    code, findings = _findings(make_instance, capsys, rubric)
    d001 = [f["message"] for f in findings if f["code"] == "D001"]
    assert code == 1 and d001 == ["names no row: 'résumé' ('r\\xe9sum\\xe9') (the gate fails closed: this row never scores)"]


def test_the_run_opens_the_gate_and_says_why(judge_run, tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [
        {"id": NFC, "description": "The answer names the café.", "weight": 1},
        {"id": "R2", "description": "The answer gives the café's street.", "weight": 1, "depends_on": [NFD]}]},
        ensure_ascii=False), encoding="utf-8")
    (tests / "task_prompt.md").write_text("Name the café on the corner and its street.\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Café Central, on Herrengasse.\n")
    run = judge_run(tests, rollout, oracle={NFC: {"hit": True}, "R2": {"hit": True}})
    doc = run.doc
    assert run.reward == 1.0 and {r["id"]: r["gate"] for r in doc["results"]}["R2"] == "open"
    assert any("is read as row 'caf\\xe9'" in w for w in doc["details"]["warnings"])
