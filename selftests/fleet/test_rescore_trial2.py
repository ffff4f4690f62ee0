"""Issue 39, trial 2 leftovers: ``rescore --samples-vote`` on a document whose rows hold no
stored samples says that the vote changes nothing (it was silent for a sampled run)."""

from __future__ import annotations

import json
import subprocess
import sys

from fleet.factory import DELIVERED, IDENTITY, ROWS, make_doc, verdicts, write

from cowork_judge.core.fold import RunFacts, fold
from cowork_judge.core.sampling import JudgeWeight, SamplingRecord
from cowork_judge.core.scoring import ScoringPolicy


def rescore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", *args], capture_output=True, text=True, timeout=120)


def test_a_sampled_run_whose_rows_hold_no_samples_warns_that_the_vote_changes_nothing(tmp_path):
    record = SamplingRecord(samples=3, mode="fixed", vote="majority", judges=(JudgeWeight(name="sim-judge", model="sim-judge"),))
    facts = RunFacts(identity=IDENTITY, delivery=DELIVERED, seconds=1.5, calls=2, tokens=100, sampling=record)
    doc = fold(ROWS, verdicts(), ScoringPolicy(), facts)
    assert doc.details.sampling is not None and not any(r.samples for r in doc.results)
    path = write(tmp_path / "verifier" / "result.json", doc)
    proc = rescore(str(path), "--samples-vote", "unanimous")
    assert proc.returncode == 0, proc.stderr
    assert (f"cowork-judge rescore: {path}: warning: a sampled run (JUDGE_SAMPLES=3) but no row holds stored samples; "
            "--samples-vote changes nothing") in proc.stderr, proc.stderr
    assert json.loads((tmp_path / "verifier" / "result.rescored.json").read_text())["task_score"] == doc.task_score


def test_a_run_without_sampling_warns_too(tmp_path):
    path = write(tmp_path / "verifier" / "result.json", make_doc())
    proc = rescore(str(path), "--samples-vote", "unanimous")
    assert proc.returncode == 0, proc.stderr
    assert (f"cowork-judge rescore: {path}: warning: no stored samples (not a sampled run); --samples-vote changes nothing"
            in proc.stderr), proc.stderr
