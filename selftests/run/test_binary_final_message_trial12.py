"""Trial 12 F4: a binary final message (a NUL byte in its first 8 KiB, no UTF-16/UTF-32 mark) was read as text with
U+FFFD, so a ``word_count_between`` row with ``"source": "response"`` counted a zip's bytes (hit) and the agentic rows
were sent them, while the same bytes as a deliverable are "nothing to count". One reader (docs/rubric.md,
"Encodings"): a binary final message is not text — no readable final message, a warning naming the file and why, the
next message file is tried, and nothing scores it.

Real runs: ``python -m cowork_judge run`` against the simulator on 127.0.0.1; what the judge model was sent is read
from the run's audit of each request (``verifier/judge/block-*/attempt-*.jsonl``).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from testkit import write_rubric

WORDS = "Rayleigh scattering makes the sky blue " * 40


def _zip() -> bytes:
    """A stored (uncompressed) zip: its bytes hold the words, between headers full of NUL bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("answer.txt", WORDS)
    data = buf.getvalue()
    assert b"\x00" in data[:8192] and b"Rayleigh" in data
    return data


def _tests(tmp_path: Path) -> Path:
    rows = [
        {"id": "C-LEN", "description": "The answer has 100 to 1000 words.", "weight": 1, "judge_method": "code",
         "code_method_name": "word_count_between",
         "code_method_params": {"min_words": 100, "max_words": 1000, "source": "response"}},
        {"id": "C-WORD", "description": "The answer names Rayleigh.", "weight": 1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
        {"id": "L-WHY", "description": "The answer explains why the sky is blue.", "weight": 1},
    ]
    return write_rubric(tmp_path / "tests", rows)


def _sent(verifier: Path) -> str:
    texts = [p.read_text(encoding="utf-8") for p in sorted((verifier / "judge").rglob("attempt-*.jsonl"))]
    return "\n".join(texts)


def _setup(message: bytes, response: bytes | None = None):
    def setup(root: Path) -> None:
        for old in (root / "logs" / "agent").iterdir():
            old.unlink()
        (root / "app" / "output").mkdir(parents=True, exist_ok=True)
        (root / "app" / "output" / "notes.md").write_text("Some notes on light.\n")
        (root / "logs" / "agent" / "final_answer.txt").write_bytes(message)
        if response is not None:
            (root / "logs" / "agent" / "response.txt").write_bytes(response)
    return setup


def test_a_binary_final_message_is_not_text_and_scores_nothing(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path), setup=_setup(_zip()))
    assert run.returncode == 0, run.stderr
    doc = run.doc
    results = {r["id"]: r for r in doc["results"]}
    assert results["C-LEN"]["hit"] is False and results["C-WORD"]["hit"] is False, results
    why = "; final_answer.txt read as binary, not text (a NUL byte in the first 8 KiB and no UTF-16/UTF-32 byte-order mark)"
    assert results["C-LEN"]["reason"] == f"nothing to count in the final message{why}: no final message", results["C-LEN"]
    assert results["C-WORD"]["reason"] == f"'Rayleigh' not found in the final message{why}: no final message"
    assert doc["details"]["delivery"]["final_message_source"] is None
    warned = [w for w in doc["details"]["warnings"] if "final_answer.txt is binary, not text" in w]
    assert len(warned) == 1 and "a NUL byte in the first 8 KiB" in warned[0], doc["details"]["warnings"]
    assert not [w for w in doc["details"]["warnings"] if "U+FFFD" in w], doc["details"]["warnings"]
    sent = _sent(run.verifier)
    assert "Rayleigh" not in sent and "\\ufffd" not in sent.lower(), "the judge model was sent the zip's bytes"


def test_the_next_message_file_is_read_after_a_binary_one(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path), setup=_setup(_zip(), response=WORDS.encode()))
    results = {r["id"]: r for r in run.doc["results"]}
    assert results["C-WORD"]["hit"] is True and results["C-LEN"]["hit"] is True, results
    assert run.doc["details"]["delivery"]["final_message_source"] == "response.txt"


def test_a_binary_final_message_and_no_files_is_nothing_delivered(judge_run, tmp_path):
    """As a binary deliverable is "nothing to count", a binary message is no message: nothing delivered (reward 0,
    scored), not an unread answer that would fail the run as ``delivery_unreadable``."""
    def setup(root: Path) -> None:
        for old in (root / "logs" / "agent").iterdir():
            old.unlink()
        (root / "logs" / "agent" / "final_answer.txt").write_bytes(_zip())

    run = judge_run(_tests(tmp_path), setup=setup)
    doc = run.doc
    assert run.returncode == 0 and run.reward == 0.0, run.stderr
    assert doc["details"]["delivery"]["missing"] is True and doc.get("error_kind") is None, doc.get("error_kind")
    assert any("final_answer.txt is binary, not text" in w for w in doc["details"]["warnings"])
