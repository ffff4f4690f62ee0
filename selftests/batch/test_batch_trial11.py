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


WEDGED_WORKER = '''
import os, signal, sys
from pathlib import Path
from cowork_judge._util.fsutil import make_scratch_dir
from cowork_judge.batch.worker import serve

def judge(spec, start):
    folder = make_scratch_dir("cowork-judge-", Path(os.environ["SCRATCH_PARENT"]))
    (folder / "work.txt").write_text("a run's work")
    os.kill(os.getpid(), signal.SIGSTOP)  # wedged: no clean-up of its own can run
    return 0

sys.exit(serve(judge, int(sys.argv[1])))
'''


def test_the_batch_removes_the_scratch_folders_of_a_worker_it_kills(tmp_path: Path):
    """A worker the batch kills (a hang its watchdog could not end) cannot remove its run's ``cowork-judge-*`` folder
    nor its LibreOffice seed: it names each scratch folder it makes to the batch, which removes them after the kill."""
    import time

    from cowork_judge.batch.pool import START_EXEC, WorkerPool
    from cowork_judge.batch.worker import InstanceSpec

    script = tmp_path / "wedged.py"
    script.write_text(WEDGED_WORKER)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    pool = WorkerPool({**clean_env(), "SCRATCH_PARENT": str(scratch)}, worker_argv=[str(script)], start=START_EXEC)
    try:
        worker = pool.spawn()
        ends = time.monotonic() + 60
        while not worker.ready:
            assert time.monotonic() < ends, "the worker never said it was ready"
            pool.poll(0.1)
        spec = InstanceSpec(name="x", app_dir=str(tmp_path), logs_dir=str(tmp_path), tests_dir=str(tmp_path),
                            alt_output_dir=str(tmp_path), log=str(tmp_path / "x.log"), env={**clean_env(),
                                                                                               "SCRATCH_PARENT": str(scratch)})
        assert pool.assign(worker, spec, "x")
        while not any((folder / "work.txt").exists() for folder in scratch.iterdir() if folder.is_dir()):  # not its .owner
            assert time.monotonic() < ends, "the worker made no scratch folder"
            time.sleep(0.05)
        time.sleep(0.2)  # it has stopped itself
        pool.kill(worker)
    finally:
        pool.close()
    assert list(scratch.iterdir()) == []
