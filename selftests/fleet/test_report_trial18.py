"""Trial 18 P-7: ``cowork-judge report .`` run inside a deck run's verifier folder finds the page images in
``./evidence`` (the copy the run keeps beside its outputs), as ``report <path>`` of the same folder does; it
used to take ``Path(".").parent`` for the logs folder, look for ``./verifier/evidence`` and blame the removed
work dir. A real run (LibreOffice renders the deck; the simulator judges), the real CLI in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fleet.test_report_e2e import ORACLE, deck_task


IMAGES = r'<img src="data:image/(?:jpeg|png);base64,[^"]*"'


def report(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "report", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PWD": str(cwd)})


@pytest.fixture
def deck_run(judge_run, tmp_path):
    tests, rollout = deck_task(tmp_path)
    run = judge_run(tests, rollout, oracle=ORACLE, env={"JUDGE_EVIDENCE": "180"}, timeout=300)  # no --work-dir kept
    assert run.returncode == 0, run.stderr
    assert (run.verifier / "evidence" / "index.json").is_file()
    return run


def test_report_dot_inside_the_verifier_folder_shows_the_pages(deck_run):
    verifier = deck_run.verifier
    by_path = report(str(verifier), cwd=verifier.parent)
    assert by_path.returncode == 0 and "page images not found" not in by_path.stderr, by_path.stderr
    expected = re.findall(IMAGES, (verifier / "report.html").read_text(encoding="utf-8"))
    assert len(expected) == 3
    for arg, cwd in ((".", verifier), ("./", verifier), ("verifier", verifier.parent), ("..", verifier / "evidence")):
        (verifier / "report.html").unlink()
        proc = report(arg, cwd=cwd)
        assert proc.returncode == 0, (arg, proc.stderr)
        assert "page images not found" not in proc.stderr and "work dir" not in proc.stderr, (arg, proc.stderr)
        assert re.findall(IMAGES, (verifier / "report.html").read_text(encoding="utf-8")) == expected, arg
