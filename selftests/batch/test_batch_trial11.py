"""Trial 11 F3: a ``batch`` that judges decks left a ``cowork-judge-lo-seed-*`` folder (LibreOffice's seed profile,
~560 KB) in $TMPDIR per worker: a forked worker ends with ``os._exit``, which skips the ``atexit`` that removes the
seed in a ``cowork-judge run``. Nothing of the judge's may stay in $TMPDIR after a batch ends.

The real ``batch`` CLI with a private TMPDIR, a deck instance judged against the simulator on 127.0.0.1 (with
rendering: skipped when LibreOffice is missing).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import SIM_KEY, clean_env, deck

from cowork_judge.evidence import probe_capabilities
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import DemoPolicy

DECK_RUBRIC = {"rubrics": [{"id": "A-TITLE", "description": "The deck has a title slide.", "weight": 1}]}


def _deck_instances(root: Path, n: int) -> Path:
    tests = root / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps(DECK_RUBRIC))
    (tests / "task_prompt.md").write_text("Make a one-slide deck with a title.\n")
    lines = []
    for i in range(n):
        (root / f"r{i}" / "app" / "output").mkdir(parents=True)
        shutil.copy(deck("06__python-pptx__shp-shapes.pptx"), root / f"r{i}" / "app" / "output" / "deck.pptx")
        lines.append(json.dumps({"tests": "task/tests", "rollout": f"r{i}", "name": f"deck{i}"}))
    (root / "list.jsonl").write_text("\n".join(lines) + "\n")
    return root / "list.jsonl"


@pytest.mark.slow
def test_a_batch_of_decks_leaves_nothing_in_tmpdir(tmp_path: Path):
    if not probe_capabilities().soffice.available:
        pytest.skip("LibreOffice (soffice) is not installed: no deck is rendered, no seed is made")
    instances = _deck_instances(tmp_path, 3)
    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    with SimServer(DemoPolicy(), api_key=SIM_KEY) as server:
        env = clean_env(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_START_JITTER="0",
                        TMPDIR=str(tmpdir))
        done = subprocess.run([sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(tmp_path / "out"),
                               "--jobs", "2", "--draws", "0"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for i in range(3):  # the decks were rendered (else no seed would have been made)
        doc = json.loads((tmp_path / "out" / f"deck{i}" / "logs" / "verifier" / "result.json").read_text())
        assert doc["status"] == "success", doc["exit_reason"]
        assert doc["extra_fields"]["judge_evidence_pages"] >= 1, doc["details"]["evidence"]
    assert sorted(p.name for p in tmpdir.iterdir()) == []
