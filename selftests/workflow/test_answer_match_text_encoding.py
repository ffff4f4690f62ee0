"""Left over from trial 11 F12: answer_match read a text deliverable as UTF-8 only, so an answer file saved as UTF-16
with a byte-order mark (Windows PowerShell's default) reached the code decision and the judge as NULs and U+FFFD.
It is now read as every reader of agent text reads it (`safety.agent_text.decode`), and a binary file is left out."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from cowork_judge.workflow.answer_match.decide import response_text


def _delivery(tmp_path: Path, files: dict[str, bytes]) -> SimpleNamespace:
    out = []
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        out.append(SimpleNamespace(rel=name, path=str(tmp_path / name), size_bytes=len(data)))
    return SimpleNamespace(final_message=None, files=out)


def test_a_utf16_answer_file_is_read_by_its_mark(tmp_path: Path):
    text = "Answer: (a) 3.02 km; (b) 40 s"
    assert response_text(_delivery(tmp_path, {"answer.txt": text.encode("utf-16")})) == text


def test_a_binary_file_named_txt_is_left_out(tmp_path: Path):
    delivery = _delivery(tmp_path, {"a.txt": b"\x00\x01\x02binary", "b.md": "x = 4 y".encode()})
    assert response_text(delivery) == "x = 4 y"
