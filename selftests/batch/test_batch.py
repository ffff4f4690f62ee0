"""``cowork-judge batch``: the limit split, discovery, resume, and real batches against the
simulator (global in-flight limit, documents exactly as ``run`` writes them, SIGTERM)."""

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
from cowork_judge.commands import main
from cowork_judge.core.integrity import seal
from cowork_judge.core.result import ResultDocument
from cowork_judge.sim import LatencyModel, OraclePolicy, SimServer

# --------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize("limit,jobs,n,expected", [
    (8, None, 100, (8, 1)),    # default K = min(L, 8)
    (32, None, 100, (8, 4)),
    (8, None, 2, (2, 4)),      # never more runs than instances
    (3, None, 10, (3, 1)),
    (10, 3, 10, (3, 3)),       # 3 · 3 = 9 ≤ 10
    (4, 9, 10, (4, 1)),        # K > L is lowered to L
    (40, 20, 5, (5, 8)),       # trial 6 F20: a K above the instances is lowered to them (was 20 runs x 2)
    (1, None, 0, (1, 1)),
])
def test_plan_limits(limit, jobs, n, expected):
    got = batch.plan_limits(limit, jobs, n)
    assert (got.jobs, got.per_run) == expected and got.jobs * got.per_run <= limit


def test_child_env():
    limits = batch.plan_limits(8, 4, 10)
    env = batch.child_env({"JUDGE_WORK_DIR": "/x", "JUDGE_RESPONSE_FILE": "/r", "JUDGE_CONCURRENCY": "32", "JUDGE_MODEL": "m",
                           "JUDGE_START_JITTER": "5"}, limits)
    assert env == {"JUDGE_CONCURRENCY": "2", "JUDGE_WORKFLOW_CONCURRENCY": "2", "JUDGE_MODEL": "m",
                   "JUDGE_START_JITTER": "5", "JUDGE_WORKFLOW_START_JITTER": "0"}


def _tests(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "rubric.json").write_text('{"rubrics": [{"id": "a", "description": "d", "weight": 1}]}')
    return root


def test_discover(tmp_path):
    (_tests(tmp_path / "tasks" / "fam" / "one") / "rollout").mkdir()  # an empty rollout: nothing delivered
    _tests(tmp_path / "tasks" / "two")
    (tmp_path / "tasks" / "two" / "instance.json").write_text(json.dumps({"tags": {"difficulty": "hard"}}))
    (tmp_path / "tasks" / "two" / "rollout" / "logs" / "agent").mkdir(parents=True)
    found = batch.discover_instances(tmp_path / "tasks")
    assert [(i.name, dict(i.tags), i.agent_dir is not None) for i in found] == [("fam--one", {}, False),
                                                                                ("two", {"difficulty": "hard"}, True)]
    listed = tmp_path / "list.jsonl"
    listed.write_text('"tasks/two"\n{"tests": "tasks/fam/one/tests", "name": "x", "tags": {"k": 1}}\n\n')
    assert [(i.name, dict(i.tags)) for i in batch.discover_instances(listed)] == [("two", {"difficulty": "hard"}), ("x", {"k": 1})]
    for text, needle in (('"tasks/two"\n"tasks/two"\n', "two instances are named 'two'"), ("{", "list.jsonl:1: not JSON"),
                         ('{"tests": "nope"}\n', "rubric.json not found"), ("", "no instance listed")):
        listed.write_text(text)
        with pytest.raises(batch.BatchInputError, match=needle):
            batch.discover_instances(listed)
    with pytest.raises(batch.BatchInputError, match="no instance found"):
        batch.discover_instances(tmp_path / "tasks" / "fam" / "one" / "tests")


# --------------------------------------------------------------------------- real batches


def _problems(tmp_path: Path, n: int, capsys) -> Path:
    """n reference-answer instances whose answers are symbolic (each needs the model: one call
    for ANSWER and one for PROCESS, in parallel within a run)."""
    lines = [{"id": i, "question": f"Problem {i}", "reference_answer": f"x = {i + 2} y", "reference_solution": "Step A. Step B.",
              "steps": ["step A", "step B", "step C"], "response": f"We find x = {i + 2}y.", "difficulty": ["easy", "hard"][i % 2],
              "tags": ["algebra"] + (["linear"] if i % 3 == 0 else []), "collection": "alg"} for i in range(n)]
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "inst"), "--process"]) == 0
    capsys.readouterr()
    return tmp_path / "inst"


ORACLE = {"ANSWER": {"hit": True, "level": 1}, "PROCESS#s1": {"hit": True, "level": 1}, "PROCESS#s2": {"hit": True, "level": 0.5},
          "PROCESS#s3": {"hit": False, "level": 0}}
REWARD = 0.3 * 1 + 0.7 * 0.5  # PROCESS: mean(1, 0.5, 0) = 0.5


@pytest.fixture
def sim(monkeypatch):
    server = SimServer(OraclePolicy.from_dict(ORACLE), api_key=SIM_KEY, latency=LatencyModel.uniform(300)).start()
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("JUDGE_API_KEY", SIM_KEY)
    monkeypatch.setenv("JUDGE_BASE_URL", server.url)
    monkeypatch.setenv("JUDGE_MODEL", "sim-judge")
    monkeypatch.setenv("JUDGE_EVIDENCE", "0")
    yield server
    server.stop()


def test_batch_limit_documents_summary_and_resume(tmp_path, sim, capsys):
    instances = _problems(tmp_path, 6, capsys)
    out = tmp_path / "runs"
    assert main(["batch", str(instances), "--out", str(out), "--max-in-flight", "4", "--jobs", "2",
                 "--group-by", "difficulty,topic", "--draws", "200"]) == 0
    stdout, stderr = capsys.readouterr()
    assert stdout.strip() == str(out / "summary.json") and "6 instance(s): complete 6" in stderr
    assert len(sim.log) == 12 and sim.log.max_in_flight() <= 4  # 2 calls per run, 2 runs × 2 at most
    for name in sorted(p.name for p in instances.iterdir()):
        doc = json.loads((out / name / "logs" / "verifier" / "result.json").read_text())
        ResultDocument.model_validate(doc)  # the run's own document
        assert doc["task_score"] == pytest.approx(REWARD) and (out / name / "logs" / "verifier" / "reward.txt").read_text().strip()
        assert doc["extra_fields"]["judge_calls"] == 2
    record = json.loads((out / "batch.json").read_text())
    assert record["limits"] == {"max_in_flight": 4, "jobs": 2, "per_run": 2} and record["states"] == {"complete": 6}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accounting"]["scored"] == 6 and summary["reward"]["mean"] == pytest.approx(REWARD)
    assert summary["groups"]["difficulty"]["documents"]["hard"]["documents"] == 3
    assert summary["groups"]["topic"]["documents"]["linear"]["documents"] == 2  # problems 0 and 3

    # a rerun judges nothing
    before = len(sim.log)
    assert main(["batch", str(instances), "--out", str(out), "--max-in-flight", "4", "--draws", "0"]) == 0
    assert "kept 6" in capsys.readouterr().err and len(sim.log) == before

    # what changed, vanished or broke is judged again; the rest is kept byte for byte
    kept = (out / "alg-1" / "logs" / "verifier" / "result.json").read_bytes()
    rubric = instances / "alg-0" / "tests" / "rubric.json"
    rubric.write_text(rubric.read_text().replace('"weight": 0.7', '"weight": 0.6'))       # stale
    (out / "alg-2" / "logs" / "verifier" / "result.json").unlink()                        # missing
    (out / "alg-3" / "logs" / "verifier" / "result.json").write_text('{"status": "succ')  # invalid
    doc = json.loads((out / "alg-4" / "logs" / "verifier" / "result.json").read_text())  # a judge failure
    doc.update(status="error", exit_code="judge:api_error")
    verifier = out / "alg-4" / "logs" / "verifier"  # sealed as the judge seals what it writes (issue 39)
    (verifier / "result.json").write_text(seal(json.dumps(doc), (verifier / "reward.txt").read_text(),
                                               (verifier / "reward.json").read_text()))
    assert batch.result_state(out / "alg-4", batch.fingerprint(batch.discover_instances(instances)[4]), keep_errors=True) == "complete"
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    err = capsys.readouterr().err
    # 4 runs re-judged, 8 rows, every one answered by the verdict cache (on by default in batch; issue 26):
    # a weight edit changes the score, not the question, and the other deliverables did not change
    assert "complete 4" in err and "kept 2" in err and len(sim.log) == before
    assert (out / "verdict-cache").is_dir()
    assert (out / "alg-1" / "logs" / "verifier" / "result.json").read_bytes() == kept
    assert json.loads((out / "alg-0" / "logs" / "verifier" / "result.json").read_text())["task_score"] == pytest.approx(
        (0.3 + 0.6 * 0.5) / 0.9)


def test_global_limit_with_one_call_per_run(tmp_path, sim, capsys):
    instances = _problems(tmp_path, 4, capsys)
    assert main(["batch", str(instances), "--out", str(tmp_path / "runs"), "--max-in-flight", "3", "--draws", "0"]) == 0
    assert "3 run(s) x 1 call(s) in flight (limit 3)" in capsys.readouterr().err
    assert len(sim.log) == 8 and sim.log.max_in_flight() <= 3


def test_sigterm_keeps_what_finished_and_a_rerun_resumes(tmp_path, capsys, monkeypatch):
    instances = _problems(tmp_path, 4, capsys)
    server = SimServer(OraclePolicy.from_dict(ORACLE), api_key=SIM_KEY, latency=LatencyModel.uniform(1500)).start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0")
        out = tmp_path / "runs"
        cmd = [sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out), "--max-in-flight", "2",
               "--jobs", "1", "--draws", "0"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = out / "alg-0" / "logs" / "verifier" / "result.json"
        give_up = time.monotonic() + 120
        while not first.is_file() and proc.poll() is None and time.monotonic() < give_up:
            time.sleep(0.1)
        assert first.is_file(), proc.communicate()
        time.sleep(0.5)  # the next run is under way
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 143, err
        assert "interrupted" in err and "Traceback" not in err
        ids = batch.discover_instances(instances)
        states = {i.name: batch.result_state(out / i.name, batch.fingerprint(i)) for i in ids}
        assert states["alg-0"] == "complete"  # finished before the signal: kept, valid
        assert set(states.values()) <= {"complete", "error", "missing", "interrupted"}
        assert list(states.values()).count("complete") < 4
        for name in [n for n, s in states.items() if s == "interrupted"]:  # the cut run's record (docs/benchmarks.md)
            doc = json.loads((out / name / "logs" / "verifier" / "result.json").read_text())
            assert doc["details"]["interrupted"] is True and doc["exit_code"] == "judge:timeout"
            assert doc["exit_reason"].endswith("the judge was stopped by SIGTERM"), doc["exit_reason"]
        done_before = [n for n, s in states.items() if s == "complete"]
        calls_before = server.log.arrivals  # a cut run's call may still be answered (logged) after the batch ended
        rerun = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, check=False)
        assert rerun.returncode == 0, rerun.stderr
        assert f"kept {len(done_before)}" in rerun.stderr
        assert server.log.arrivals - calls_before == 2 * (4 - len(done_before))
        assert all(batch.result_state(out / i.name, batch.fingerprint(i)) == "complete" for i in ids)
    finally:
        server.stop()


def test_a_crashed_batch_leaves_no_orphan_judge(tmp_path, capsys):
    """SIGKILL of the batch (a crash): the running judge gets SIGTERM from the kernel, writes its
    documents (a stopped run: exit_code set) instead of finishing 30 s later, and a rerun redoes it."""
    instances = _problems(tmp_path, 2, capsys)
    server = SimServer(OraclePolicy.from_dict(ORACLE), api_key=SIM_KEY, latency=LatencyModel.uniform(30_000)).start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0")
        out = tmp_path / "runs"
        cmd = [sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out), "--jobs", "1", "--draws", "0"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        log = out / "alg-0" / "batch-run.log"
        give_up = time.monotonic() + 120
        while time.monotonic() < give_up and not (log.is_file() and "workflow segment" in log.read_text(errors="replace")):
            time.sleep(0.1)
        time.sleep(0.5)  # its model calls are in flight at the simulator
        proc.kill()
        proc.wait(timeout=30)
        result = out / "alg-0" / "logs" / "verifier" / "result.json"
        while time.monotonic() < give_up and not result.is_file():
            time.sleep(0.1)
        doc = json.loads(result.read_text())
        assert doc["exit_code"] is not None and doc["status"] == "error"  # stopped, not finished after 30 s
        server.latency = None
        rerun = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, check=False)
        assert rerun.returncode == 0, rerun.stderr
        assert all(batch.result_state(out / i.name, batch.fingerprint(i)) == "complete" for i in batch.discover_instances(instances))
    finally:
        server.stop()


def test_bad_input_one_line(tmp_path, capsys):
    assert main(["batch", str(tmp_path / "none"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"cowork-judge batch: {tmp_path / 'none'}: no such file or folder"
    (_tests(tmp_path / "t" / "a") / "rollout").mkdir()
    assert main(["batch", str(tmp_path / "t"), "--out", str(tmp_path / "t")]) == 2
    assert "--out must not be the instances folder" in capsys.readouterr().err
    assert main(["batch", str(tmp_path / "t"), "--out", str(tmp_path / "o"), "--max-in-flight", "0"]) == 2
