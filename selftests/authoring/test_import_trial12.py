"""Trial 12 F9: ``import answers`` turned every non-ASCII problem id into the folder name ``_``
(``answers-_``, ``answers-_-2``) without a word, and wrote a NaN reference answer as ``"nan"``.
Now an id keeps its letters and digits in any script (an instance name `batch` accepts), a
folder name two different ids share is a warning, and a non-finite reference answer is refused
naming the line."""

from __future__ import annotations

import json
from pathlib import Path

from cowork_judge.batch.instances import instance_name_problem
from cowork_judge.commands import main


def _run(tmp_path, capsys, lines: list[str]):
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    code = main(["import", "answers", str(source), "--out", str(tmp_path / "out")])
    captured = capsys.readouterr()
    return code, [Path(p).name for p in captured.out.splitlines()], captured.err, source


def test_non_ascii_ids_keep_their_characters(tmp_path, capsys):
    rows = [{"id": "火", "question": "2+2?", "reference_answer": "4", "response": "4"},
            {"id": "水", "question": "3+3?", "reference_answer": "6", "response": "6"},
            {"id": "café", "question": "1+1?", "reference_answer": "2", "response": "2"},
            {"id": "हिंदी", "question": "1+2?", "reference_answer": "3", "response": "3"},
            {"id": "火" * 120, "question": "5+5?", "reference_answer": "10", "response": "10"}]
    code, made, err, _ = _run(tmp_path, capsys, [json.dumps(r, ensure_ascii=False) for r in rows])
    assert code == 0, err
    assert made[:4] == ["answers-火", "answers-水", "answers-café", "answers-हिंदी"], made
    assert made[4].startswith("answers-火火") and len(made[4].encode()) <= 255
    for name in made:
        assert instance_name_problem(name) is None, name
        meta = json.loads((tmp_path / "out" / name / "instance.json").read_text(encoding="utf-8"))
        assert meta["warnings"] == [], meta["warnings"]


def test_two_ids_that_share_a_folder_name_are_warned(tmp_path, capsys):
    rows = [{"id": "a/b", "question": "q", "reference_answer": "1", "response": "1"},
            {"id": "a b", "question": "q", "reference_answer": "2", "response": "2"}]
    code, made, err, source = _run(tmp_path, capsys, [json.dumps(r) for r in rows])
    assert code == 0 and made == ["answers-a_b", "answers-a_b-2"], (made, err)
    said = [line for line in err.splitlines() if "answers-a_b-2: warning:" in line]
    assert len(said) == 1 and "'a b'" in said[0] and "'a/b'" in said[0] and f"{source}:1" in said[0], err


def test_a_non_finite_reference_answer_is_refused_naming_the_line(tmp_path, capsys):
    lines = ['{"id": "ok", "question": "q", "reference_answer": 4, "response": "4"}',
             '{"id": "n", "question": "q", "reference_answer": NaN, "response": "4"}',
             '{"id": "i", "question": "q", "answer": -Infinity, "response": "4"}']
    code, made, err, source = _run(tmp_path, capsys, lines)
    assert made == ["answers-ok"], (made, err)
    assert code != 0
    for n, shown in ((2, "NaN"), (3, "-Infinity")):
        line = next((x for x in err.splitlines() if f"{source}:{n}" in x), "")
        assert shown in line and "not a finite number" in line, err
    assert not (tmp_path / "out" / "answers-n").exists()
