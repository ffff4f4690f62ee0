"""Issue 25 items 1-3 and 12: a batch never keeps a wrong number across a resume.

Real batches (``python -m cowork_judge batch`` processes, K long-lived workers judging each
instance, the real openai client) against the simulator over HTTP. Each instance has its own
oracle (``--oracle-dir`` routing by the ``X-Cowork-Judge-Instance`` header the judge sends
with JUDGE_SEND_INSTANCE_ID=1), so every instance has its own reward and a kept cut result
shows up as a wrong number.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit import SIM_KEY

from cowork_judge.commands import main
from cowork_judge.batch import instances as batch
from cowork_judge.batch.lock import LOCK_NAME, BatchLock
from cowork_judge.sim import LatencyModel, SimServer
from cowork_judge.sim.policies import OracleDirPolicy

N = 6
LEVELS = (0.0, 0.5, 1.0)


def _instances(tmp_path: Path, n: int = N) -> tuple[Path, Path, dict[str, float]]:
    """n reference-answer instances (two model calls each: ANSWER and PROCESS), one oracle
    per instance under ``oracles/<name>.json``, and the reward each oracle implies."""
    lines = [{"id": i, "question": f"Problem {i}", "reference_answer": f"x = {i + 2} y", "reference_solution": "A. B.",
              "steps": ["step A", "step B"], "response": f"We find x = {i + 2}y.", "collection": "alg"} for i in range(n)]
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "inst"), "--process"]) == 0
    oracles = tmp_path / "oracles"
    oracles.mkdir()
    expected = {}
    for i in range(n):
        answer = i % 2 == 0
        s1, s2 = LEVELS[i % 3], LEVELS[(i + 1) % 3]
        oracle = {"ANSWER": {"hit": answer, "level": 1 if answer else 0}, "PROCESS#s1": {"hit": s1 > 0, "level": s1},
                  "PROCESS#s2": {"hit": s2 > 0, "level": s2}}
        (oracles / f"alg-{i}.json").write_text(json.dumps(oracle))
        expected[f"alg-{i}"] = 0.3 * answer + 0.7 * (s1 + s2) / 2
    return tmp_path / "inst", oracles, expected


def _env(server: SimServer, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0",
               JUDGE_SEND_INSTANCE_ID="1", **extra)
    return env


def _rewards(out: Path, names) -> dict[str, float | None]:
    got = {}
    for name in names:
        try:
            got[name] = json.loads((out / name / "logs" / "verifier" / "result.json").read_text())["task_score"]
        except (OSError, ValueError):
            got[name] = None
    return got


def test_a_batch_killed_several_times_resumes_to_the_uninterrupted_rewards(tmp_path, capsys):
    """Item 1: SIGKILL, SIGTERM and SIGINT at random points, each followed by a resume; the
    final rewards equal those of a batch never interrupted (and the oracles' own)."""
    instances, oracles, expected = _instances(tmp_path)
    capsys.readouterr()
    latency = LatencyModel.uniform(700, jitter_frac=0.5, seed=3)
    server = SimServer(OracleDirPolicy(oracles), api_key=SIM_KEY, latency=latency).start()
    try:
        env = _env(server)

        def cmd(out: Path) -> list[str]:
            return [sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out), "--jobs", "3",
                    "--max-in-flight", "6", "--draws", "0"]

        ref = tmp_path / "ref"
        done = subprocess.run(cmd(ref), env=env, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        assert _rewards(ref, expected) == pytest.approx(expected)
        assert {e.instance for e in server.log.entries()} == set(expected)  # every call was routed by its instance

        out = tmp_path / "runs"
        rng = random.Random(25)
        cut_seen = 0
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
            seen = server.log.arrivals
            proc = subprocess.Popen(cmd(out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            # cut while a run is under way: wait for this batch's first model request (its answer
            # takes 350-1050 ms), however fast the machine; a batch with nothing left to judge exits
            ends = time.monotonic() + 60
            while proc.poll() is None and server.log.arrivals <= seen and time.monotonic() < ends:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.3))
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=120)
            assert "Traceback" not in err, err
            if sig != signal.SIGKILL:
                assert proc.returncode in (130, 143, 0, 1), err
            states = [batch.result_state(out / n, batch.fingerprint(i)) for n, i in
                      ((i.name, i) for i in batch.discover_instances(instances))]
            cut_seen += states.count("interrupted")
            for name, reward in _rewards(out, expected).items():  # a cut result may be wrong: it must say so
                state = batch.result_state(out / name, batch.fingerprint(batch.discover_instances(instances)[int(name[4:])]))
                if reward is not None and reward != pytest.approx(expected[name]):
                    assert state in ("interrupted", "error", "invalid", "missing"), (name, state, reward)
        assert cut_seen >= 1, "no run was ever cut: the kill points missed every run"
        final = subprocess.run(cmd(out), env=env, capture_output=True, text=True, timeout=300, check=False)
        assert final.returncode == 0, final.stderr
        assert _rewards(out, expected) == pytest.approx(_rewards(ref, expected))
        record = json.loads((out / "batch.json").read_text())
        # the last cut may land after the batch already finished: the resume then skips every instance
        assert record["not_complete"] == [] and set(record["states"]) <= {"complete", "kept"}
        assert sum(record["states"].values()) == len(expected)
    finally:
        server.stop()


@pytest.fixture
def routed(tmp_path, monkeypatch, capsys):
    instances, oracles, expected = _instances(tmp_path, 3)
    capsys.readouterr()
    server = SimServer(OracleDirPolicy(oracles), api_key=SIM_KEY).start()
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    for k, v in _env(server).items():
        if k.startswith("JUDGE_"):
            monkeypatch.setenv(k, v)
    yield instances, expected, server
    server.stop()


def test_resume_rejudges_what_other_settings_decided_and_says_how_many(routed, tmp_path, capsys, monkeypatch):
    """Item 2: another model, endpoint, sampling setting or instruction re-judges; the same
    settings judge nothing; the fingerprint is in every result, without the URL's token."""
    instances, expected, server = routed
    out = tmp_path / "runs"
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    assert "3 of 3 instance(s) to judge (3 new)" in capsys.readouterr().err and len(server.log) == 6
    doc = json.loads((out / "alg-0" / "logs" / "verifier" / "result.json").read_text())
    fp = doc["details"]["fingerprint"]
    assert fp["model"] == "sim-judge" and fp["endpoint"] == server.url and len(fp["digest"]) == 64
    assert fp["rubric_sha256"] and fp["instruction_sha256"] and fp["sampling"]["batch"] == 4

    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    assert "0 of 3 instance(s) to judge, 3 kept" in capsys.readouterr().err and len(server.log) == 6

    for knob, value in (("JUDGE_MODEL", "other-model"), ("JUDGE_BATCH", "2"), ("JUDGE_MAX_TURNS", "5")):
        monkeypatch.setenv(knob, value)
        before = len(server.log)
        assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
        err = capsys.readouterr().err
        assert "3 of 3 instance(s) to judge (3 judge settings changed (fingerprint))" in err, (knob, err)
        assert len(server.log) - before == 6
        record = json.loads((out / "batch.json").read_text())
        assert record["judged_because"] == {"settings_changed": 3}
    fp = json.loads((out / "alg-1" / "logs" / "verifier" / "result.json").read_text())["details"]["fingerprint"]
    assert (fp["model"], fp["sampling"]["batch"], fp["sampling"]["max_turns"]) == ("other-model", 2, 5)
    assert _rewards(out, expected) == pytest.approx(expected)

    instruction = instances / "alg-2" / "tests" / "judge_instruction.md"  # a new instruction: that instance only
    instruction.write_text("Judge strictly.\n")
    before = len(server.log)
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    assert "1 of 3 instance(s) to judge" in capsys.readouterr().err and len(server.log) - before == 2


def test_the_fingerprint_masks_the_endpoint_and_follows_its_ingredients(tmp_path):
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.run.fingerprint import verdict_fingerprint

    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text('{"rubrics": [{"id": "a", "description": "d", "weight": 1}]}')
    base = {"JUDGE_BASE_URL": "https://user:pw-s3cr3t@host.example/v1?api_key=k3y-s3cr3t&region=eu", "JUDGE_MODEL": "m"}
    fp = verdict_fingerprint(load_config(base).config, tests)
    assert "s3cr3t" not in json.dumps(fp) and fp["endpoint"] == "https://***@host.example/v1?api_key=***&region=eu"
    same = verdict_fingerprint(load_config(dict(base, JUDGE_DEADLINE="60", JUDGE_CONCURRENCY="9")).config, tests)
    assert same["digest"] == fp["digest"]  # time limits and concurrency decide no verdict
    for env in ({"JUDGE_MODEL": "n"}, {"JUDGE_BACKEND": "codex"}, {"JUDGE_RESPLIT": "0"}, {"JUDGE_EVIDENCE": "0"}):
        assert verdict_fingerprint(load_config(dict(base, **env)).config, tests)["digest"] != fp["digest"], env
    (tests / "rubric.json").write_text('{"rubrics": [{"id": "a", "description": "e", "weight": 1}]}')
    assert verdict_fingerprint(load_config(base).config, tests)["digest"] != fp["digest"]


def test_a_second_batch_on_one_out_refuses_naming_the_first(routed, tmp_path, capsys):
    """Item 3: the lock is held (a live holder): refuse, naming it; a dead holder's file is taken over."""
    instances, expected, server = routed
    out = tmp_path / "runs"
    out.mkdir()
    holder = BatchLock(out).acquire()  # the same lock a running batch holds (this process is alive)
    try:
        assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 1
        err = capsys.readouterr().err
        assert "is in use by another batch" in err and f"pid {os.getpid()}" in err and len(server.log) == 0
        assert main(["calibrate", str(instances), "--out", str(out), "--report", str(tmp_path / "c.json")]) == 1
        assert "is in use by another batch" in capsys.readouterr().err and len(server.log) == 0
    finally:
        holder.release()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    (out / LOCK_NAME).write_text(json.dumps({"pid": int(dead.stdout), "host": "h", "started": "t", "command": "old"}))
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    assert f"took over the stale lock of pid {int(dead.stdout)}" in capsys.readouterr().err
    assert _rewards(out, expected) == pytest.approx(expected)
    with open(out / LOCK_NAME) as fh:  # released at exit
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_two_concurrent_batches_judge_each_instance_once(routed, tmp_path):
    """Item 3 as reported: two batches started together on one --out; one judges, one refuses."""
    instances, expected, server = routed
    server.latency = LatencyModel.uniform(400)
    env = _env(server)
    cmd = [sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(tmp_path / "runs"), "--draws", "0"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for p in procs:
        p.stderr.close()
    assert sorted(code for code, _ in results) == [0, 1], results
    assert any("is in use by another batch" in err for _, err in results)
    assert len(server.log) == 2 * len(expected)


def test_oracle_dir_refuses_requests_it_cannot_route(tmp_path):
    """Item 12: without the header (JUDGE_SEND_INSTANCE_ID off), or for an unknown instance, or a
    name escaping the folder, the simulator answers 400 instead of inventing verdicts."""
    import openai

    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "a.json").write_text(json.dumps({"r1": {"hit": True}}))
    (tmp_path / "o" / "b").mkdir()
    (tmp_path / "o" / "b" / "oracle.json").write_text(json.dumps({"r1": {"hit": False}}))
    (tmp_path / "secret.json").write_text(json.dumps({"r1": {"hit": True}}))
    server = SimServer(OracleDirPolicy(tmp_path / "o"), api_key=SIM_KEY).start()
    try:
        client = openai.OpenAI(api_key=SIM_KEY, base_url=server.url, max_retries=0)
        messages = [{"role": "user", "content": '<rubric_rows>[{"id": "r1", "description": "d"}]</rubric_rows>'}]

        def ask(instance: str | None) -> str:
            headers = {"X-Cowork-Judge-Instance": instance} if instance else {}
            reply = client.chat.completions.create(model="m", messages=messages, extra_headers=headers)
            return json.loads(reply.choices[0].message.content)["verdicts"][0]["hit"]

        assert ask("a") is True and ask("b") is False
        for bad, needle in ((None, "needs the X-Cowork-Judge-Instance header"), ("c", "no oracle for instance 'c'"),
                            ("../secret", "outside --oracle-dir")):
            with pytest.raises(openai.BadRequestError, match=needle):
                ask(bad)
    finally:
        server.stop()
    with pytest.raises(ValueError, match="not a folder"):
        OracleDirPolicy(tmp_path / "nope")
    from cowork_judge.sim.cli import _configure, build_parser

    assert isinstance(_configure(build_parser().parse_args(["--oracle-dir", str(tmp_path / "o")])).policy, OracleDirPolicy)
    with pytest.raises(Exception, match="not allowed with argument --oracle-dir"):  # one oracle source at a time
        build_parser().parse_args(["--oracle-dir", str(tmp_path / "o"), "--oracle", str(tmp_path / "secret.json")])


def test_calibrate_out_writes_the_batch_outputs(routed, tmp_path, capsys):
    """Item 11: ``calibrate --out`` judges as ``batch`` does, so it writes batch.json and summary.json too."""
    instances, expected, server = routed
    for name in expected:
        (instances / name / "oracle.json").write_text((tmp_path / "oracles" / f"{name}.json").read_text())
    out = tmp_path / "runs"
    assert main(["calibrate", str(instances), "--out", str(out), "--report", str(tmp_path / "cal.json"), "--draws", "0"]) == 0
    capsys.readouterr()
    record = json.loads((out / "batch.json").read_text())
    summary = json.loads((out / "summary.json").read_text())
    assert record["states"] == {"complete": 3} and summary["accounting"]["scored"] == 3
    assert summary["reward"]["mean"] == pytest.approx(sum(expected.values()) / 3)
    assert json.loads((tmp_path / "cal.json").read_text())["agreement"]["accuracy"] == 1.0
