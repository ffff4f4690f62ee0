"""Trial 6 F10: ``import answers`` renamed a repeated problem id (``answers-p1-2``) without a word; the
source's repetition is now a warning naming both lines, printed and kept in instance.json."""

from __future__ import annotations

import json

from cowork_judge.commands import main


def test_a_repeated_problem_id_is_a_warning_naming_both_lines(tmp_path, capsys):
    source = tmp_path / "problems.jsonl"
    lines = [{"id": "p1", "question": "How far?", "reference_answer": "3 km", "response": "Answer: 3 km"},
             {"id": "p1", "question": "How far again?", "reference_answer": "4 km", "response": "Answer: 4 km"}]
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    made = [p.name for p in map(__import__("pathlib").Path, captured.out.splitlines())]
    assert made == ["answers-p1", "answers-p1-2"]
    said = [line for line in captured.err.splitlines() if "answers-p1-2: warning:" in line]
    assert len(said) == 1 and "'p1'" in said[0] and f"{source}:1" in said[0], captured.err
    meta = json.loads((tmp_path / "out" / "answers-p1-2" / "instance.json").read_text())
    assert any("'p1'" in w for w in meta["warnings"]), meta["warnings"]
    first = json.loads((tmp_path / "out" / "answers-p1" / "instance.json").read_text())
    assert first["warnings"] == []


def test_a_problem_without_a_response_is_counted_apart(tmp_path, capsys):
    """Trial 6 F10: as HealthBench's import line does, ``answers`` counts the problems written with
    nothing delivered (``"response": null``) apart instead of "1 instance(s) written … 0 failed"."""
    source = tmp_path / "problems.jsonl"
    lines = [{"id": "n", "question": "q", "reference_answer": "5", "response": None},
             {"id": "y", "question": "q", "reference_answer": "5", "response": "Answer: 5"}]
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "2 instance(s) written" in err and "1 without a response (nothing delivered" in err, err
