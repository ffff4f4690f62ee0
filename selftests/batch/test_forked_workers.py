"""Issue 36: on Linux the batch imports the judge once and forks its workers from itself
(`batch.pool.START_FORK`) instead of starting K interpreters that each import it again; the
isolation stays: a worker killed -9 costs only its instance, the batch's death ends every
worker (which writes its cut run's documents), and a rerun judges exactly what was lost.

Real batches (``python -m cowork_judge batch`` processes: a batch with one thread forks)
against the simulator over HTTP; the workers are found as the batch's children in ``/proc``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit import SIM_KEY

from cowork_judge.batch import instances as batch
from cowork_judge.batch.pool import START_EXEC, START_FORK, WorkerPool
from cowork_judge.commands import main
from cowork_judge.sim import LatencyModel, OraclePolicy, SimServer

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")

ORACLE = {"ANSWER": {"hit": True, "level": 1}, "PROCESS#s1": {"hit": True, "level": 1}, "PROCESS#s2": {"hit": True, "level": 0.5},
          "PROCESS#s3": {"hit": False, "level": 0}}
REWARD = 0.3 * 1 + 0.7 * 0.5


def _problems(tmp_path: Path, n: int, capsys) -> Path:
    lines = [{"id": i, "question": f"Problem {i}", "reference_answer": f"x = {i + 2} y", "reference_solution": "Step A. Step B.",
              "steps": ["step A", "step B", "step C"], "response": f"We find x = {i + 2}y.", "collection": "alg"} for i in range(n)]
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "inst"), "--process"]) == 0
    capsys.readouterr()
    return tmp_path / "inst"


def _env(server: SimServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0")
    return env


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _judging(pid: int) -> str | None:
    """The instance a worker is judging: its stdout is that instance's ``batch-run.log``."""
    try:
        target = os.readlink(f"/proc/{pid}/fd/1")
    except OSError:
        return None
    return Path(target).parent.name if target.endswith("batch-run.log") else None


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


def _busy_workers(proc: subprocess.Popen, want: int, give_up: float) -> dict[int, str]:
    """Wait until `want` workers of the batch `proc` judge an instance whose model calls are in flight."""
    while time.monotonic() < give_up and proc.poll() is None:
        busy = {pid: name for pid in _children(proc.pid) if (name := _judging(pid))}
        if len(busy) >= want:
            time.sleep(0.5)  # its model call is in flight at the simulator
            return busy
        time.sleep(0.05)
    raise AssertionError(f"the batch never had {want} busy workers")


def _doc(out: Path, name: str) -> dict:
    return json.loads((out / name / "logs" / "verifier" / "result.json").read_text())


def test_forked_workers_and_a_worker_killed_9_loses_only_its_instance(tmp_path, capsys):
    instances = _problems(tmp_path, 4, capsys)
    server = SimServer(OraclePolicy.from_dict(ORACLE), api_key=SIM_KEY, latency=LatencyModel.uniform(1500)).start()
    try:
        out = tmp_path / "runs"
        cmd = [sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out), "--jobs", "2",
               "--max-in-flight", "2", "--draws", "0"]
        proc = subprocess.Popen(cmd, env=_env(server), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        busy = _busy_workers(proc, 2, time.monotonic() + 120)
        batch_cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        for pid in busy:  # forked from the batch, not a new interpreter: the same command line
            assert Path(f"/proc/{pid}/cmdline").read_bytes() == batch_cmdline
        victim, lost = sorted(busy.items())[0]
        os.kill(victim, signal.SIGKILL)
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
        for inst in batch.discover_instances(instances):
            doc = _doc(out, inst.name)
            if inst.name == lost:
                assert doc["exit_code"] == "judge:scorer_error" and doc["task_score"] == 0
                assert "SIGKILL" in doc["exit_reason"]
            else:
                assert doc["exit_code"] is None and doc["task_score"] == pytest.approx(REWARD)
        server.latency = None
        calls = server.log.arrivals
        rerun = subprocess.run(cmd, env=_env(server), capture_output=True, text=True, timeout=300, check=False)
        assert rerun.returncode == 0, rerun.stderr
        assert "kept 3" in rerun.stderr and server.log.arrivals - calls == 2  # exactly the lost instance again
        assert _doc(out, lost)["task_score"] == pytest.approx(REWARD)
    finally:
        server.stop()


def test_a_batch_killed_9_ends_its_forked_workers_and_resumes_exactly(tmp_path, capsys):
    instances = _problems(tmp_path, 3, capsys)
    server = SimServer(OraclePolicy.from_dict(ORACLE), api_key=SIM_KEY, latency=LatencyModel.uniform(30_000)).start()
    try:
        out = tmp_path / "runs"
        cmd = [sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out), "--jobs", "2",
               "--max-in-flight", "2", "--draws", "0"]
        proc = subprocess.Popen(cmd, env=_env(server), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        busy = _busy_workers(proc, 2, time.monotonic() + 120)
        proc.kill()
        proc.wait(timeout=30)
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up and any(_alive(pid) for pid in busy):
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in busy), "a worker outlived its batch"
        for name in busy.values():  # each wrote its cut run's documents (SIGTERM from the kernel), not 30 s later
            doc = _doc(out, name)
            assert doc["status"] == "error" and doc["exit_code"] is not None
        server.latency = None
        rerun = subprocess.run(cmd, env=_env(server), capture_output=True, text=True, timeout=300, check=False)
        assert rerun.returncode == 0, rerun.stderr
        for inst in batch.discover_instances(instances):
            assert batch.result_state(out / inst.name, batch.fingerprint(inst)) == "complete"
            assert _doc(out, inst.name)["task_score"] == pytest.approx(REWARD)
    finally:
        server.stop()


def test_a_forked_worker_holds_no_other_workers_pipe():
    """Retiring one of two forked workers ends it: the other (forked after it) did not keep its
    instance pipe open. Also the pool's choice: a worker command of a test means a new interpreter."""
    pool = WorkerPool(dict(os.environ), start=START_FORK)
    try:
        first, second = pool.spawn(), pool.spawn()
        while not (first.ready and second.ready):
            pool.poll(0.1)
        pool.retire(first)
        ended: list = []
        give_up = time.monotonic() + 30
        while not ended and time.monotonic() < give_up:
            _, ended = pool.poll(0.1)
        assert ended == [first] and first.proc.returncode == 0 and pool.workers == [second]
        assert second.proc.poll() is None
    finally:
        pool.close()
    assert WorkerPool({}, worker_argv=["w.py"]).start_method() == START_EXEC


def test_the_instance_record_is_written_without_fsync(tmp_path, monkeypatch):
    """The batch writes each instance's ``batch-instance.json`` in the loop that hands out
    instances: atomically, but not fsynced (a lost record after a power failure reads as
    ``stale``: judged again); every other atomic write still fsyncs."""
    from cowork_judge._util import fsutil

    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(fsutil.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    fsutil.atomic_write(tmp_path / "a.json", "{}\n")
    assert len(synced) == 1
    fsutil.atomic_write(tmp_path / "b.json", "{}\n", durable=False)
    assert len(synced) == 1 and (tmp_path / "b.json").read_text() == "{}\n"
    (tmp_path / "inst" / "tests").mkdir(parents=True)
    (tmp_path / "inst" / "tests" / "rubric.json").write_text("{}")
    out = tmp_path / "out"
    out.mkdir()
    runner = batch_runner(out)
    runner._prepare(batch.BatchInstance(name="one", tests_dir=tmp_path / "inst" / "tests"), "fp")
    assert len(synced) == 1
    assert json.loads((out / "one" / batch.RECORD_NAME).read_text())["fingerprint"] == "fp"


def batch_runner(out: Path):
    from cowork_judge.batch.runner import BatchRunner

    limits = batch.plan_limits(2, 1, 1)
    return BatchRunner(out, limits, batch.child_env({}, limits, out))
