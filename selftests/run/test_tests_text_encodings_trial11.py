"""The texts of tests/ the judge sends to the model (``task_prompt.md``, the judge instruction) are read
with the deliverables' one reader (`safety.agent_text.decode`: a UTF-16/UTF-32 byte-order mark is
honoured), and a named warning says when bytes could not be decoded (trial 11 F12, F13); a final
message decoded cleanly by its byte-order mark is not warned about (trial 11 F4).

Real runs: ``python -m cowork_judge run`` against the simulator on 127.0.0.1; what the judge model was
sent is read from the run's audit of each request (``verifier/judge/block-*/attempt-*.jsonl``)."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

from testkit import ROLLOUTS

PROMPT = "Explain why the sky is blue — Réponds en une phrase."
INSTRUCTION = "Judge each row strictly; quote the final message. Réponds en français."
ANSWER = "The sky is blue because of Rayleigh scattering of sunlight."


def _tests(tmp_path: Path, *, prompt: bytes | None = None, instruction: bytes | None = None) -> Path:
    tests = tmp_path / "tests"
    tests.mkdir(parents=True)
    rows = [{"id": "A", "description": "The answer names Rayleigh scattering.", "weight": 1}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}), encoding="utf-8")
    if prompt is not None:
        (tests / "task_prompt.md").write_bytes(prompt)
    if instruction is not None:
        (tests / "judge_instruction.md").write_bytes(instruction)
    return tests


def _sent(verifier: Path) -> str:
    """Every request the run sent to the judge model, as the audit recorded it (JSON text, decoded)."""
    texts = [p.read_text(encoding="utf-8") for p in sorted((verifier / "judge").rglob("attempt-*.jsonl"))]
    assert texts, f"no audited request under {verifier / 'judge'}"
    return "\n".join(json.dumps(json.loads(line), ensure_ascii=False) for t in texts for line in t.splitlines() if line)


def test_a_utf16_task_prompt_reaches_the_judge_as_its_text(judge_run, tmp_path):
    """F12: Windows PowerShell's default (UTF-16 with a byte-order mark) is read as the mark says: the
    judge is sent the task, not ``\\ufffd\\ufffdE\\x00x\\x00p…``; nothing to warn about."""
    for codec, mark in (("utf-16", b""), ("utf-16-be", codecs.BOM_UTF16_BE), ("utf-32", b""), ("utf-8-sig", b"")):
        tests = _tests(tmp_path / codec, prompt=mark + PROMPT.encode(codec))
        run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}})
        sent = _sent(run.verifier)
        assert PROMPT in sent and "\\u0000" not in sent and "\ufffd" not in sent, (codec, sent[:2000])
        assert not [w for w in run.doc["details"]["warnings"] if "task_prompt" in w], run.doc["details"]["warnings"]


def test_a_latin1_task_prompt_is_sent_with_a_named_warning(judge_run, tmp_path):
    """F12: a Latin-1 prompt is read like a Latin-1 deliverable (U+FFFD in place of the undecodable
    byte), and details.warnings says so, naming the file and the first bad byte."""
    data = PROMPT.encode("latin-1", errors="replace")
    tests = _tests(tmp_path, prompt=data)
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}})
    warnings = [w for w in run.doc["details"]["warnings"] if w.startswith("task_prompt: ")]
    offset = data.index(b"\xe9")
    assert len(warnings) == 1 and "task_prompt.md is not UTF-8" in warnings[0], run.doc["details"]["warnings"]
    assert f"offset {offset}: 0xe9" in warnings[0] and "U+FFFD" in warnings[0], warnings
    assert "R\ufffdponds" in _sent(run.verifier)


def test_a_task_prompt_without_text_is_warned_and_not_sent_as_nuls(judge_run, tmp_path):
    """F12/F13: UTF-16 *without* a mark (NUL bytes, no byte-order mark) is binary to the one reader: the
    judge is not sent NULs, and the warning says why; an empty task_prompt.md is warned like a missing one."""
    tests = _tests(tmp_path / "nomark", prompt=PROMPT.encode("utf-16-le"))
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}})
    assert "\\u0000" not in _sent(run.verifier)
    warned = [w for w in run.doc["details"]["warnings"] if w.startswith("task_prompt: ")]
    assert len(warned) == 1 and "byte-order mark" in warned[0] and "not sent" in warned[0], warned
    tests = _tests(tmp_path / "empty", prompt=b"  \n")
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}})
    warned = [w for w in run.doc["details"]["warnings"] if w.startswith("task_prompt: ")]
    assert len(warned) == 1 and "task_prompt.md is empty" in warned[0], warned


def test_a_utf16_instruction_is_used_not_replaced_by_the_built_in_one(judge_run, tmp_path):
    """F13: the run read the instruction as strict UTF-8 and fell back to the built-in default for a
    UTF-16 one; it is now read as its mark says, and a Latin-1 one is used with a named warning."""
    tests = _tests(tmp_path / "u16", prompt=PROMPT.encode(), instruction=INSTRUCTION.encode("utf-16"))
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}})
    assert run.doc["details"]["instruction_source"] == str(tests / "judge_instruction.md")
    assert INSTRUCTION in _sent(run.verifier)
    assert not [w for w in run.doc["details"]["warnings"] if "instruction" in w], run.doc["details"]["warnings"]
    data = INSTRUCTION.encode("latin-1")
    tests = _tests(tmp_path / "latin1", prompt=PROMPT.encode(), instruction=data)
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}})
    assert run.doc["details"]["instruction_source"] == str(tests / "judge_instruction.md")
    warned = [w for w in run.doc["details"]["warnings"] if "judge_instruction.md is not UTF-8" in w]
    offset = data.index(b"\xe9")
    assert len(warned) == 1 and f"offset {offset}: 0xe9" in warned[0], run.doc["details"]["warnings"]


def _answer_run(judge_run, tmp_path: Path, data: bytes):
    def setup(root: Path) -> None:
        for old in (root / "logs" / "agent").iterdir():
            old.unlink()
        (root / "logs" / "agent" / "final_answer.txt").write_bytes(data)

    rows = [{"id": "A", "description": "Names Rayleigh.", "weight": 1, "judge_method": "code",
             "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}}]
    tests = tmp_path / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}), encoding="utf-8")
    return judge_run(tests, sim=False, setup=setup)


def test_a_utf16_final_answer_decoded_by_its_mark_is_not_warned_about(judge_run, tmp_path):
    """F4: the message was decoded right (the row finds 'Rayleigh') but the run warned it was read "with
    U+FFFD in place of the undecodable bytes"; a warning must be true."""
    run = _answer_run(judge_run, tmp_path / "u16", ANSWER.encode("utf-16"))
    assert run.reward == 1.0, run.doc["results"]
    assert not [w for w in run.doc["details"]["warnings"] if "final_answer.txt" in w], run.doc["details"]["warnings"]
    data = b"The sky: Rayleigh \xe9"  # Latin-1 still says what it lost
    run = _answer_run(judge_run, tmp_path / "latin1", data)
    assert run.reward == 1.0
    assert any("final_answer.txt is not UTF-8 (first undecodable byte at offset 18: 0xe9)" in w
               for w in run.doc["details"]["warnings"]), run.doc["details"]["warnings"]
    data = "Rayleigh".encode("utf-16") + b"\x00"  # a mark, then a cut code unit: said, with the encoding
    run = _answer_run(judge_run, tmp_path / "cut", data)
    assert any("final_answer.txt is not UTF-16-LE" in w for w in run.doc["details"]["warnings"]), run.doc["details"]["warnings"]
