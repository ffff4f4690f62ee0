"""`report --work-dir W` where W is another run's work dir (trial 12 F13): both runs delivered a deck named
``deck.pptx``, so the deck names agree, but W's evidence was made from another deck (another page count).
The report refuses, naming what the evidence was made from and what this result's deliverable was, instead of
showing the other run's pages under this run's verdicts. The run's own work dir is still accepted.

Real runs: ``python -m cowork_judge run`` (evidence on, LibreOffice) against the simulator on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.evidence import probe_capabilities

RUBRIC = {"rubrics": [{"id": "A-TITLE", "description": "The deck opens with a title slide.", "weight": 1}]}


def _deck(path: Path, slides: int) -> None:
    import pptx

    prs = pptx.Presentation()
    for n in range(slides):
        s = prs.slides.add_slide(prs.slide_layouts[0])
        s.shapes.title.text = f"Slide {n + 1}"
    prs.save(path)


def _judged(judge_run, root: Path, slides: int):
    tests = root / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    rollout = root / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    _deck(rollout / "app" / "output" / "deck.pptx", slides)
    run = judge_run(tests, rollout, oracle={"A-TITLE": {"hit": True}}, env={"JUDGE_EVIDENCE": "180"},
                    work_dir=root / "work", timeout=300)
    assert run.returncode == 0, run.stderr
    return run


def _report(verifier: Path, work: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(verifier), "--work-dir", str(work),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)


def test_report_refuses_another_runs_work_dir_with_a_deck_of_the_same_name(judge_run, tmp_path):
    caps = probe_capabilities()
    if not caps.soffice.available:
        pytest.skip(f"LibreOffice unavailable: {caps.soffice.reason}")
    a = _judged(judge_run, tmp_path / "wa", 3)
    b = _judged(judge_run, tmp_path / "wb", 1)
    proc = _report(a.verifier, b.work, tmp_path / "mix.html")
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "refused" in proc.stderr and str(b.work / "evidence") in proc.stderr, proc.stderr
    assert "deck.pptx" in proc.stderr and "1 page" in proc.stderr and "3 pages" in proc.stderr, proc.stderr
    assert "deck.pptx: 1 page rendered in the evidence, 3 pages rendered in this result" in proc.stderr, proc.stderr
    assert not (tmp_path / "mix.html").exists()
    own = _report(a.verifier, a.work, tmp_path / "own.html")
    assert own.returncode == 0, own.stderr
    assert "data:image" in (tmp_path / "own.html").read_text(encoding="utf-8")
