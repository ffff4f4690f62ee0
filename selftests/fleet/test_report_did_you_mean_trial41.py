"""Trial 41 P-3: ``cowork-judge report out/logs/verifer`` (one letter off the ``verifier`` folder ``try`` names) said
"no such folder or file" with no "did you mean", while init, try, lint-rubric and gen-ppt-rubrics name the near
name. It now says ``"… does not exist: did you mean …/verifier?"`` (the folder beside it spelled alike, or a
``result.json`` mistyped), from the same `close_sibling`. The real ``report`` command in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CASES = [  # (what is typed under tmp, "did you mean" under tmp or None)
    ("out/logs/verifer", "out/logs/verifier"),
    ("out/logs/verifier/reslt.json", "out/logs/verifier/result.json"),
    ("out/logs/unrelated", None),
]


@pytest.mark.parametrize(("typed", "meant"), CASES)
def test_a_mistyped_verifier_folder_gets_did_you_mean(tmp_path: Path, typed: str, meant: str | None) -> None:
    verifier = tmp_path / "out" / "logs" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "result.json").write_text("{}\n")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(tmp_path / typed)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    if meant is None:
        assert f"{tmp_path / typed}: no such folder or file" in proc.stderr, proc.stderr
        assert "did you mean" not in proc.stderr, proc.stderr
    else:
        assert f"{tmp_path / typed} does not exist: did you mean {tmp_path / meant}?" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in verifier.iterdir()) == ["result.json"]  # nothing written
