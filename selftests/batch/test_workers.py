"""Issue 36: a batch judges its instances in K long-lived workers (`batch.pool`, `batch.worker`)
with the isolation a process per instance gave: a crash, an ``os._exit``, a hang past the
deadline or a wedged worker loses only its instance (a documented error reward), the worker
is replaced, and settings never leak from one instance to the next in one worker.

Real workers (``python -m cowork_judge.commands.batch_worker``, or a test script that wraps
its engine entry to crash on chosen instances) against the simulator over HTTP.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from testkit import SIM_KEY

from cowork_judge.batch import instances as batch
from cowork_judge.batch import runner as runner_module
from cowork_judge.batch.pool import START_EXEC, START_FORK, WorkerPool
from cowork_judge.batch.runner import BatchRunner
from cowork_judge.batch.worker import InstanceSpec, judge_isolated
from cowork_judge.commands import main
from cowork_judge.sim import LatencyModel, OraclePolicy, SimServer

ORACLE = {"ANSWER": {"hit": True, "level": 1}, "PROCESS#s1": {"hit": True, "level": 1}, "PROCESS#s2": {"hit": True, "level": 0.5},
          "PROCESS#s3": {"hit": False, "level": 0}}
REWARD = 0.3 * 1 + 0.7 * 0.5

CRASHING_WORKER = '''
import os, signal, sys
from cowork_judge.batch.worker import serve
from cowork_judge.commands import batch_worker
from cowork_judge.engine import router, signals

real_route = router.route

def spin(*args, **kwargs):  # (route's arguments) a hang the run cannot cancel: the watchdog must end it
    while True:
        pass

def judge(spec, start):
    with open(os.environ["PIDS_FILE"], "a") as fh:
        fh.write(f"{spec.name} {os.getpid()}\\n")
    if spec.name == "alg-1":
        os._exit(3)
    if spec.name == "alg-2":
        os.kill(os.getpid(), signal.SIGSEGV)
    if spec.name == "alg-4":
        os.kill(os.getpid(), signal.SIGSTOP)  # wedged: not even the watchdog runs
    router.route = spin if spec.name == "alg-3" else real_route
    return batch_worker.judge(spec, start)

sys.exit(serve(judge, int(sys.argv[1]), on_busy_signal=signals.record))
'''


@pytest.fixture
def sim(monkeypatch):
    server = SimServer(OraclePolicy.from_dict(ORACLE), api_key=SIM_KEY, latency=LatencyModel.uniform(50)).start()
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("JUDGE_API_KEY", SIM_KEY)
    monkeypatch.setenv("JUDGE_BASE_URL", server.url)
    monkeypatch.setenv("JUDGE_MODEL", "sim-judge")
    monkeypatch.setenv("JUDGE_EVIDENCE", "0")
    yield server
    server.stop()


def _problems(tmp_path: Path, n: int, capsys) -> list[batch.BatchInstance]:
    lines = [{"id": i, "question": f"Problem {i}", "reference_answer": f"x = {i + 2} y", "reference_solution": "Step A. Step B.",
              "steps": ["step A", "step B", "step C"], "response": f"We find x = {i + 2}y.", "collection": "alg"} for i in range(n)]
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "inst"), "--process"]) == 0
    capsys.readouterr()
    return batch.discover_instances(tmp_path / "inst")


class _PerInstance(BatchRunner):
    """A runner whose instances carry their own extra settings (by name)."""

    def __init__(self, *args, settings: dict[str, dict[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.settings = settings

    def instance_env(self, inst):
        return {**super().instance_env(inst), **self.settings.get(inst.name, {})}


def _doc(out: Path, name: str) -> dict:
    return json.loads((out / name / "logs" / "verifier" / "result.json").read_text())


def test_a_crash_an_exit_a_hang_and_a_wedge_lose_only_their_instance(tmp_path, sim, capsys, monkeypatch):
    instances = _problems(tmp_path, 7, capsys)
    script = tmp_path / "crashing_worker.py"
    script.write_text(CRASHING_WORKER)
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("PIDS_FILE", str(pids))
    limits = batch.plan_limits(4, 2, len(instances))
    out = tmp_path / "runs"
    out.mkdir()
    runner = _PerInstance(out, limits, batch.child_env(dict(os.environ), limits, out), deadline_sec=6.0, kill_margin_sec=4.0,
                          worker_argv=[str(script)], settings={"alg-3": {"JUDGE_DEADLINE": "2"}}, jobs=2)
    report = runner.run(instances)
    states = {o.name: o.state for o in report.outcomes}
    # a crash: a document with an exit_code; a cut at the deadline: interrupted (a resume judges it again), as ever
    assert states == {"alg-0": "complete", "alg-1": "error", "alg-2": "error", "alg-3": "interrupted", "alg-4": "killed",
                      "alg-5": "complete", "alg-6": "complete"}, states
    for name in ("alg-0", "alg-5", "alg-6"):  # judged as if nothing had happened beside them
        assert _doc(out, name)["task_score"] == pytest.approx(REWARD)
    for name, how in (("alg-1", "exit status 3"), ("alg-2", "signal SIGSEGV")):  # the worker died: the batch documents it
        doc = _doc(out, name)
        assert doc["exit_code"] == "judge:scorer_error" and doc["task_score"] == 0 and doc["status"] == "error"
        assert f"the batch worker judging this instance ended ({how})" in doc["exit_reason"], doc["exit_reason"]
        assert (out / name / "logs" / "verifier" / "reward.txt").read_text().strip() == "0.0"
    hang = _doc(out, "alg-3")  # the run's own watchdog wrote the cut document, then ended the worker
    assert hang["exit_code"] == "judge:timeout"
    assert {r["error_kind"] for r in hang["results"]} == {"deadline"} and hang["results"]
    wedged = _doc(out, "alg-4")  # not even the watchdog could run: the batch killed the worker past the margin
    assert wedged["exit_code"] == "judge:timeout" and "the batch killed its worker process" in wedged["exit_reason"]
    assert {r["error_kind"] for r in wedged["results"]} == {"deadline"}
    seen = [line.split() for line in pids.read_text().splitlines()]
    assert len({pid for _, pid in seen}) >= 5  # two workers at first, one more after each lost instance
    for name, state in (("alg-1", "error"), ("alg-2", "error"), ("alg-3", "interrupted"), ("alg-4", "interrupted")):
        inst = next(i for i in instances if i.name == name)  # each lost instance has a valid, sealed document
        assert batch.result_state(out / name, batch.fingerprint(inst), expected_settings=runner.settings_digest(inst)) == state
    rerun = BatchRunner(out, limits, batch.child_env(dict(os.environ), limits, out))
    again = rerun.run(instances)
    assert sorted(o.name for o in again.outcomes if o.state == "complete") == ["alg-1", "alg-2", "alg-3", "alg-4"]
    assert all(_doc(out, i.name)["task_score"] == pytest.approx(REWARD) for i in instances)


FAILING_ROUTE_WORKER = '''
import sys
from cowork_judge.batch.worker import serve
from cowork_judge.commands import batch_worker
from cowork_judge.engine import router, signals

real_route = router.route

def broken(*args, **kwargs):
    raise RuntimeError("a bug in the router")

def judge(spec, start):
    router.route = broken if spec.name == "alg-1" else real_route
    return batch_worker.judge(spec, start)

sys.exit(serve(judge, int(sys.argv[1]), on_busy_signal=signals.record))
'''


def test_an_internal_error_is_an_error_under_the_runs_settings_not_a_settings_change(tmp_path, sim, capsys):
    """A run that ends in an internal error records the settings it ran under
    (``details.fingerprint``), so a resume calls it ``error``, not "judge settings changed"."""
    from cowork_judge.run.fingerprint import fingerprint_digest

    instances = _problems(tmp_path, 2, capsys)
    script = tmp_path / "failing_route_worker.py"
    script.write_text(FAILING_ROUTE_WORKER)
    limits = batch.plan_limits(2, 1, len(instances))
    out = tmp_path / "runs"
    out.mkdir()
    runner = BatchRunner(out, limits, batch.child_env(dict(os.environ), limits, out), worker_argv=[str(script)], jobs=1)
    report = runner.run(instances)
    assert {o.name: o.state for o in report.outcomes} == {"alg-0": "complete", "alg-1": "error"}
    broken = _doc(out, "alg-1")
    assert broken["exit_code"] == "judge:scorer_error" and "a bug in the router" in broken["exit_reason"]
    assert fingerprint_digest(broken["details"]["fingerprint"]) == runner.settings_digest(instances[1])


def _normalized(doc: dict) -> dict:
    """A result document without what differs between two runs of one judgement (clock, seal)."""
    doc = json.loads(json.dumps(doc))
    doc.pop("integrity", None)
    doc.get("details", {}).pop("run_id", None)  # a random id of each run
    for key in ("judge_seconds", "elapsed_seconds", "timing"):
        doc.get("extra_fields", {}).pop(key, None)
    doc.get("details", {}).pop("timing", None)
    text = json.dumps(doc, sort_keys=True)
    return json.loads(text)


def _drop_clock(value):
    if isinstance(value, dict):
        return {k: _drop_clock(v) for k, v in value.items() if not k.endswith(("seconds", "_sec", "_ms")) and k not in ("total",)}
    if isinstance(value, list):
        return [_drop_clock(v) for v in value]
    return value


SETTINGS = {"alg-0": {"JUDGE_REWARD_MODE": "binary", "JUDGE_PASS_THRESHOLD": "0.9", "JUDGE_GUARD": "off"},
            "alg-1": {}, "alg-2": {"JUDGE_SKIP": "1"}, "alg-3": {}}


@pytest.mark.parametrize("start", [START_EXEC, START_FORK])
def test_settings_never_leak_between_the_instances_of_one_worker(tmp_path, sim, capsys, monkeypatch, start):
    """Four instances, one worker, each under its own JUDGE_* settings: every document equals
    the one a separate ``cowork-judge run`` process writes under the same environment, whether
    the worker is a new interpreter or forked from the batch (which had loaded its own config)."""
    monkeypatch.setattr(runner_module, "WorkerPool", functools.partial(WorkerPool, start=start))
    instances = _problems(tmp_path, 4, capsys)
    limits = batch.plan_limits(2, 1, len(instances))
    out = tmp_path / "runs"
    out.mkdir()
    env = batch.child_env(dict(os.environ), limits, None)
    runner = _PerInstance(out, limits, env, settings=SETTINGS, jobs=1)
    report = runner.run(instances)
    assert {o.state for o in report.outcomes} == {"complete"}
    assert _doc(out, "alg-0")["task_score"] == 0.0 and _doc(out, "alg-1")["task_score"] == pytest.approx(REWARD)
    assert (out / "alg-2" / "logs" / "verifier" / "reward.txt").read_text().strip() == "SKIPPED"
    for inst in instances:
        alone = tmp_path / "alone" / inst.name
        (alone / "logs" / "agent").mkdir(parents=True)
        for name in batch.AGENT_FILES:
            if inst.agent_dir is not None and (inst.agent_dir / name).is_file():
                (alone / "logs" / "agent" / name).write_bytes((inst.agent_dir / name).read_bytes())
        (alone / "app").mkdir()
        run_env = runner.instance_env(inst)
        subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(inst.app_dir or alone / "app"),
                        "--logs-dir", str(alone / "logs"), "--tests-dir", str(inst.tests_dir), "--alt-output-dir",
                        str(alone / "alt-output")], env=run_env, capture_output=True, check=False, timeout=300)
        separate = json.loads((alone / "logs" / "verifier" / "result.json").read_text())
        assert _drop_clock(_normalized(_doc(out, inst.name))) == _drop_clock(_normalized(separate)), inst.name


def test_judge_isolated_restores_the_worker_state(tmp_path, monkeypatch):
    """What one instance changes in its process (environment, working folder, logging handlers,
    the temp folder cache, the console) is put back before the next."""
    monkeypatch.setenv("JUDGE_MODEL", "worker-model")
    monkeypatch.delenv("JUDGE_GUARD", raising=False)
    seen: list[dict] = []
    stray = logging.StreamHandler()

    def judge(spec, start):
        seen.append({"model": os.environ.get("JUDGE_MODEL"), "guard": os.environ.get("JUDGE_GUARD"),
                     "tmp": tempfile.gettempdir(), "cwd": os.getcwd()})
        os.environ["LEAKED"] = "1"
        logging.getLogger("cowork_judge").addHandler(stray)
        os.chdir(tmp_path)
        os.write(1, f"console of {spec.name}\n".encode())  # descriptors 1 and 2: what a crash report or a child writes to
        os.write(2, f"error of {spec.name}\n".encode())
        return 0

    base = dict(os.environ)
    cwd = os.getcwd()
    (tmp_path / "t1").mkdir()
    specs = [InstanceSpec(name=n, app_dir="/a", logs_dir="/l", tests_dir="/t", alt_output_dir="/o", log=str(tmp_path / f"{n}.log"),
                          env=env) for n, env in (("one", {"JUDGE_GUARD": "off", "TMPDIR": str(tmp_path / "t1"), "PATH": "/bin"}),
                                                  ("two", {"PATH": "/bin"}))]
    for spec in specs:
        assert judge_isolated(spec, judge, base_env=base, cwd=cwd) == 0
        assert dict(os.environ) == base and os.getcwd() == cwd
        assert stray not in logging.getLogger("cowork_judge").handlers
    assert seen[0] == {"model": None, "guard": "off", "tmp": str(tmp_path / "t1"), "cwd": cwd}
    assert seen[1]["guard"] is None and seen[1]["tmp"] != str(tmp_path / "t1")
    assert (tmp_path / "one.log").read_text() == "console of one\nerror of one\n"
    assert InstanceSpec.from_line(specs[0].to_line()) == specs[0]


def test_a_worker_that_cannot_start_stops_the_batch_with_a_message(tmp_path, sim, capsys):
    instances = _problems(tmp_path, 2, capsys)
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nprint('cannot import the judge', file=sys.stderr)\nsys.exit(7)\n")
    limits = batch.plan_limits(2, 1, len(instances))
    out = tmp_path / "runs"
    out.mkdir()
    runner = BatchRunner(out, limits, batch.child_env(dict(os.environ), limits, out), worker_argv=[str(broken)], jobs=1)
    from cowork_judge.batch.pool import WorkerStartError

    with pytest.raises(WorkerStartError, match="ended before it was ready, exit status 7"):
        runner.run(instances)


def test_the_pool_replaces_nothing_it_was_not_asked_to(tmp_path):
    """An idle worker that is retired ends at EOF with status 0 and leaves the pool."""
    pool = WorkerPool(dict(os.environ))
    worker = pool.spawn()
    try:
        while not worker.ready:
            pool.poll(0.1)
        pool.retire(worker)
        ended: list = []
        while not ended:
            _, ended = pool.poll(0.1)
        assert ended == [worker] and worker.proc.returncode == 0 and pool.workers == []
    finally:
        pool.close()


def test_a_worker_is_replaced_after_its_share_of_instances(tmp_path, sim, capsys, monkeypatch):
    instances = [i for i in _problems(tmp_path, 7, capsys) if i.name in ("alg-0", "alg-5", "alg-6")]
    script = tmp_path / "crashing_worker.py"
    script.write_text(CRASHING_WORKER)  # records which process judged which instance
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("PIDS_FILE", str(pids))
    limits = batch.plan_limits(2, 1, len(instances))
    out = tmp_path / "runs"
    out.mkdir()
    runner = BatchRunner(out, limits, batch.child_env(dict(os.environ), limits, out), worker_argv=[str(script)],
                         max_instances_per_worker=2, jobs=1)
    report = runner.run(instances)
    assert [o.state for o in report.outcomes] == ["complete"] * 3
    judged_by = [line.split()[1] for line in pids.read_text().splitlines()]
    assert judged_by[0] == judged_by[1] != judged_by[2]  # two in the first worker, the third in a fresh one
