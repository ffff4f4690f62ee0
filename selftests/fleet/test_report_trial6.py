"""Issue 39, trial 6 F19: ``report`` checks the seal as ``summarize`` and ``rescore`` do. A
result.json (or the reward.txt beside it) that no longer matches what the judge wrote is
refused — never rendered as the judge's page — and a document written before seals is
rendered with the note that it was not checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cowork_judge.core.integrity import UNSEALED_NOTE, seal
from cowork_judge.run.outputs import format_reward
from fleet.factory import dump, make_doc, verdicts, write


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "report", *args], capture_output=True, text=True, timeout=120)


def sealed_run(tmp_path: Path) -> Path:
    """A verifier folder as the judge leaves it: a sealed result.json and its reward.txt."""
    verifier = tmp_path / "logs" / "verifier"
    verifier.mkdir(parents=True)
    doc = make_doc(verdicts(r1=False, r2=False))
    reward_txt = format_reward(doc.task_score)
    (verifier / "result.json").write_text(seal(json.dumps(dump(doc), indent=2) + "\n", reward_txt), encoding="utf-8")
    (verifier / "reward.txt").write_text(reward_txt, encoding="utf-8")
    return verifier


def test_a_sealed_document_is_reported_with_its_seal_verified(tmp_path):
    verifier = sealed_run(tmp_path)
    proc = report(str(verifier))
    assert proc.returncode == 0, proc.stderr
    assert "seal verified" in (verifier / "report.html").read_text(encoding="utf-8")


def test_a_hand_edited_result_json_is_refused_and_no_page_is_written(tmp_path):
    verifier = sealed_run(tmp_path)
    doc = json.loads((verifier / "result.json").read_text(encoding="utf-8"))
    for key in ("reward", "score", "task_score", "score_normalized", "score_raw"):
        doc[key] = 1.0
    for row in doc["results"]:
        row["hit"] = True
    (verifier / "result.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    proc = report(str(verifier), "--force")
    assert proc.returncode == 1
    assert proc.stderr == (f"cowork-judge report: refused: {verifier / 'result.json'} no longer matches what the judge wrote "
                           "(its integrity digest); no page written (judge the rollout again, or restore the files the "
                           "judge wrote)\n"), proc.stderr
    assert not (verifier / "report.html").exists()


def test_an_edited_reward_txt_beside_it_is_refused_too(tmp_path):
    verifier = sealed_run(tmp_path)
    (verifier / "reward.txt").write_text("1\n", encoding="utf-8")
    proc = report(str(verifier))
    assert proc.returncode == 1
    assert "reward.txt no longer matches what the judge wrote beside" in proc.stderr, proc.stderr
    assert not (verifier / "report.html").exists()


def test_a_document_written_before_seals_is_reported_with_the_note(tmp_path):
    verifier = tmp_path / "verifier"
    write(verifier / "result.json", make_doc())
    proc = report(str(verifier))
    assert proc.returncode == 0, proc.stderr
    assert f"report: {UNSEALED_NOTE}" in proc.stderr
    assert UNSEALED_NOTE in (verifier / "report.html").read_text(encoding="utf-8")
