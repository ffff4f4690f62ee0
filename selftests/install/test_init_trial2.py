"""Issue 39, trial 2 leftovers for ``init``: a rubric that is not UTF-8 is said in plain words
("… is not UTF-8 text"), never "… is cannot be read"."""

from __future__ import annotations

import subprocess
import sys

from install.test_init_image import deck_task, snapshot


def test_a_rubric_that_is_not_utf8_is_said_in_one_plain_line(tmp_path):
    root = deck_task(tmp_path, rubric=False)
    (root / "tests" / "rubric.json").write_bytes(b'{"rubrics": [{"id": "A", "description": "caf\xe9", "weight": 1}]}\n')
    before = snapshot(root)
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(root)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("cowork-judge init: error: tests/rubric.json is not UTF-8 text (byte 44: b'\\xe9'); save it "
                                  "as UTF-8; init chooses COWORK_JUDGE_EXTRAS from its rows"), proc.stderr
    assert "is cannot" not in proc.stderr and "codec" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert snapshot(root) == before
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(root), "--extras", "workflow"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "warning: tests/rubric.json is not UTF-8 text (byte 44" in proc.stdout and "is cannot" not in proc.stdout
