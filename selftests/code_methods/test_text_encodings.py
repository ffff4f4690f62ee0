"""Trial 8 F2: a UTF-16/UTF-32 text deliverable with a byte-order mark (Windows PowerShell's
default) is text, not binary: ``text_contains``, ``regex_match`` and ``word_count_between`` read it,
and a file that really is skipped as binary is named in the miss's reason. A real
``cowork-judge run`` (code rows only, no endpoint)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPORT = "Rayleigh scattering explains the blue sky\n"


def _rows(tmp_path: Path, glob: str = "*") -> Path:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [
        {"id": "C1", "description": "Names Rayleigh.", "weight": 1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "glob": glob}},
        {"id": "C2", "description": "Ray… word.", "weight": 1, "judge_method": "code",
         "code_method_name": "regex_match", "code_method_params": {"pattern": r"Ray\w+ scatter", "glob": glob}},
        {"id": "C3", "description": "Six words.", "weight": 1, "judge_method": "code",
         "code_method_name": "word_count_between", "code_method_params": {"min_words": 6, "max_words": 6, "glob": glob}},
    ]}))
    (tests / "task_prompt.md").write_text("Why is the sky blue?\n")
    return tests


def _judge(judge_run, tmp_path: Path, files: dict[str, bytes]) -> dict[str, dict]:
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    for name, data in files.items():
        (rollout / "app" / "output" / name).write_bytes(data)
    run = judge_run(_rows(tmp_path), rollout, sim=False)
    assert run.returncode == 0, run.stderr
    return {r["id"]: r for r in json.loads((run.verifier / "result.json").read_text())["results"]}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be-bom", "utf-32", "utf-8-sig"])
def test_a_text_deliverable_with_a_byte_order_mark_is_read_as_text(judge_run, tmp_path, encoding):
    data = (b"\xfe\xff" + REPORT.encode("utf-16-be")) if encoding == "utf-16-be-bom" else REPORT.encode(encoding)
    rows = _judge(judge_run, tmp_path, {"report.md": data})
    assert [rows[r]["hit"] for r in ("C1", "C2", "C3")] == [True, True, True], {r: rows[r]["reason"] for r in rows}


def test_a_file_skipped_as_binary_is_named_in_the_miss_reason(judge_run, tmp_path):
    rows = _judge(judge_run, tmp_path, {"report.bin": b"Rayleigh\x00\x01\x02 scattering"})
    for row in ("C1", "C2"):
        assert rows[row]["hit"] is False
        assert "report.bin read as binary" in rows[row]["reason"] and "byte-order mark" in rows[row]["reason"], rows[row]
    assert "report.bin read as binary" in rows["C3"]["reason"]


def test_the_shared_reader_decodes_a_bom_and_keeps_nul_text_binary():
    from cowork_judge.safety.agent_text import decode, looks_binary

    assert decode("Grüße".encode("utf-16")) == "Grüße" and decode("Grüße".encode("utf-32")) == "Grüße"
    assert decode(b"\xef\xbb\xbfplain") == "plain" and decode(b"caf\xe9") == "caf\ufffd"
    assert not looks_binary("a".encode("utf-16")) and not looks_binary("a".encode("utf-32"))
    assert looks_binary(b"PK\x03\x04\x00\x00") and looks_binary("a".encode("utf-16-le"))  # no BOM: NUL bytes, binary


def test_the_guard_and_the_agentic_tools_read_the_same_utf16_text(tmp_path):
    """One reader (`agent_text.looks_binary` + `decode`): what the code rows now read, the guard scans
    and the agentic judge's read_text/grep tools see — a UTF-16 file is no blind spot of the guard."""
    from cowork_judge.agentic.tools import WorkspaceTools
    from cowork_judge.guard.gather import file_texts

    out = tmp_path / "output"
    out.mkdir()
    (out / "report.md").write_bytes(REPORT.encode("utf-16"))
    pieces = file_texts("report.md", out / "report.md")
    assert any("Rayleigh scattering" in p.text for p in pieces)
    tools = WorkspaceTools(tmp_path)
    assert tools.call("read_text", json.dumps({"path": "output/report.md"})).text.startswith("Rayleigh scattering")
    assert "Rayleigh" in tools.call("grep", json.dumps({"pattern": "Ray\\w+", "path": "output"})).text
