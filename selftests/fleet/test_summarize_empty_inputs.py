"""Trial 5 F9: ``summarize`` of inputs that hold no document (an empty ``.jsonl``) names them.

Before, it ended "no input was a readable result document (each is named above and in the summary's
problems)" while nothing was named above and ``problems`` was empty.
"""

from __future__ import annotations

import subprocess
import sys


def summarize(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "summarize", *args],
                          capture_output=True, text=True, timeout=120)


def test_an_empty_jsonl_is_named_as_holding_no_document(tmp_path):
    empty = tmp_path / "docs.jsonl"
    empty.write_text("")
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n")
    proc = summarize(str(empty), str(blank), "--out", str(tmp_path / "s.json"))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "each is named above" not in proc.stderr
    assert f"{empty}, {blank}: no result document in them (empty, or only blank lines)" in proc.stderr, proc.stderr


def test_an_empty_jsonl_beside_an_invalid_document_names_both(tmp_path):
    empty = tmp_path / "docs.jsonl"
    empty.write_text("")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"bad": 1}\n')
    proc = summarize(str(empty), str(bad), "--out", str(tmp_path / "s.json"))
    assert proc.returncode == 2, proc.stderr
    assert f"{empty}: no result document in it (empty, or only blank lines); no input was a readable result document" \
        in proc.stderr, proc.stderr
    assert f"invalid: {bad}:1" in proc.stderr
