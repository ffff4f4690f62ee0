"""Trial 8 F4: ``summarize`` of a running batch's ``--out`` that held only ``.batch.lock`` said "no result
documents found", not that a batch is still running. The batch now lists its instances (``instance_tags.json``)
as soon as it holds the lock — before a ``--batch-api`` round that may poll for hours — so `summarize` counts them
as no_result and warns; in the moment between the lock and the list it names the running batch. Real
``python -m cowork_judge`` processes against the simulator on 127.0.0.1."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from batch.test_batch_api import _cmd, _env, _instances
from testkit import SIM_KEY

from cowork_judge.batch.lock import BatchLock
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import OracleDirPolicy


def _summarize(folder: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "summarize", str(folder), "--out", str(out), "--draws",
                           "0"], capture_output=True, text=True, timeout=120)


def test_a_held_lock_before_the_list_names_the_running_batch(tmp_path: Path):
    out = tmp_path / "bcc3"
    out.mkdir()
    with BatchLock(out):  # a batch between taking its lock and listing its instances
        proc = _summarize(out, tmp_path / "s.json")
    assert proc.returncode == 2, proc.stderr
    assert (f"{out}: no result documents yet: a batch is still running in {out} (its .batch.lock is held)"
            in proc.stderr), proc.stderr
    released = _summarize(out, tmp_path / "s.json")  # no batch holds it: the plain error
    assert released.returncode == 2 and "no result documents found" in released.stderr, released.stderr


def test_summarize_during_a_batch_api_round_counts_every_instance(tmp_path: Path):
    instances, oracles, _ = _instances(tmp_path, 3)
    out = tmp_path / "runs"
    with SimServer(OracleDirPolicy(oracles), api_key=SIM_KEY, batch_delay=60.0) as server:
        proc = subprocess.Popen(_cmd(instances, out, "--batch-api"), env=_env(server), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        try:
            ends = time.monotonic() + 120
            while proc.poll() is None and not server.batch_api.submitted and time.monotonic() < ends:
                time.sleep(0.05)
            assert proc.poll() is None and server.batch_api.submitted, "the batch never submitted"
            mid = _summarize(out, tmp_path / "mid.json")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=120)
    assert mid.returncode == 0, mid.stderr
    assert f"a batch is still running in {out}" in mid.stderr, mid.stderr
    acc = json.loads((tmp_path / "mid.json").read_text())["accounting"]
    assert acc["inputs"] == 3 and acc["no_result"] == 3, acc


def test_a_batch_api_record_pass_is_no_result_of_the_batch(tmp_path: Path):
    """Found with F4: ``<out>/batch-api/record-pass`` holds the scratch documents of the record pass (requests
    recorded, no answer: systemic); `summarize <out>` (or of a folder above it) counted them beside the real ones."""
    instances, oracles, _ = _instances(tmp_path, 3)
    out = tmp_path / "jobs" / "runs"
    with SimServer(OracleDirPolicy(oracles), api_key=SIM_KEY, batch_delay=0.2) as server:
        done = subprocess.run(_cmd(instances, out, "--batch-api"), env=_env(server), capture_output=True, text=True,
                              timeout=300)
    assert done.returncode == 0, done.stderr
    assert list((out / "batch-api" / "record-pass").glob("*/logs/verifier/result.json"))  # the scratch is there
    for folder in (out, out.parent):
        proc = _summarize(folder, tmp_path / "s.json")
        assert proc.returncode == 0, proc.stderr
        acc = json.loads((tmp_path / "s.json").read_text())["accounting"]
        assert acc["inputs"] == 3 and acc["scored"] == 3 and acc["systemic"] == 0, (folder, acc)
        (tmp_path / "s.json").unlink()
