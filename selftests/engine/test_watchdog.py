"""The last-resort watchdog: a wedged run still ends a few seconds after JUDGE_DEADLINE
with its documents written, keeping the block verdicts already in the audit folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time

import jsonschema
import pytest
from reliability.matrix import AGENTIC, BATCH, BLOCKS, N_ROWS, SCHEMA, oracle
from testkit import ROLLOUTS, SIM_KEY, agentic_example

from cowork_judge.core.verdicts import Verdict
from cowork_judge.engine.watchdog import GRACE_SEC, Watchdog, audit_verdicts
from cowork_judge.safety.redact import Redactor
from cowork_judge.config.judge_config import load_config
from cowork_judge.run.paths import RunPaths
from cowork_judge.sim import OraclePolicy, SimServer

WEDGE = textwrap.dedent("""
    import sys, time
    from cowork_judge.commands import main  # first: JUDGE_DEADLINE counts from this import, as in production
    from cowork_judge.agentic import scheduler

    real = scheduler.judge_block

    async def wedged(name, *args, **kwargs):
        out = await real(name, *args, **kwargs)
        if name == "block-01":
            time.sleep(3600)  # blocks the event loop itself: no cancellation reaches it
        return out

    scheduler.judge_block = wedged
    sys.exit(main(sys.argv[1:]))
""")


def layout(tmp_path):
    shutil.copytree(ROLLOUTS / "deck" / "app", tmp_path / "app")
    shutil.copytree(ROLLOUTS / "deck" / "logs", tmp_path / "logs")
    return RunPaths.resolve(app_dir=tmp_path / "app", logs_dir=tmp_path / "logs", tests_dir=agentic_example(tmp_path / "tests"),
                            work_dir=tmp_path / "work", alt_output_dir=tmp_path / "alt", environ={})


def test_wedged_event_loop_is_ended_by_the_watchdog(tmp_path):
    paths = layout(tmp_path)
    deadline = 12  # room for block-01 to be judged on a loaded machine before the wedge
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    with SimServer(OraclePolicy.from_dict(oracle()), api_key=SIM_KEY) as sim:
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0", JUDGE_CONCURRENCY="1",
                   JUDGE_DEADLINE=str(deadline), JUDGE_EVIDENCE="0", JUDGE_BATCH=str(BATCH), PYTHONDONTWRITEBYTECODE="1")
        t0 = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-c", WEDGE, "run", "--app-dir", str(paths.app_dir), "--logs-dir", str(paths.logs_dir),
             "--tests-dir", str(paths.tests_dir), "--work-dir", str(paths.work_dir)],
            env=env, capture_output=True, text=True, timeout=60)
        seconds = time.monotonic() - t0
    assert seconds <= deadline + 5, proc.stderr
    assert proc.returncode == 1
    doc = json.loads(paths.result_json.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert float(paths.reward_txt.read_text()) == doc["task_score"]
    assert "watchdog" in doc["exit_reason"] and "watchdog" in paths.judge_log.read_text()
    results = {r["id"]: r for r in doc["results"]}
    first = [c.id for c in BLOCKS[0]]
    assert all(results[i]["judged"] for i in first)  # recovered from the audit folder
    rest = [c.id for c in AGENTIC if c.id not in first]
    assert all(results[i]["error_kind"] == "deadline" for i in rest)
    assert doc["extra_fields"]["judge_calls"] == 2 == len(sim.log)  # the live counters, not a guess
    assert doc["exit_code"] == "judge:timeout"
    code_rows = [r for r in doc["results"] if r["method"] == "code"]
    assert len(code_rows) == 2 and all(r["judged"] and r["hit"] for r in code_rows)  # recovered from judge/code/
    assert doc["extra_fields"]["judge_coverage"] == (len(first) + len(code_rows)) / N_ROWS


def _watchdog(tmp_path, fire_in: float = 0.1):
    paths = layout(tmp_path)
    exits: list[int] = []
    dog = Watchdog(paths, load_config({"JUDGE_DEADLINE": "1"}), Redactor([]), fire_at=time.monotonic() + fire_in,
                   exit_process=exits.append)
    return paths, dog, exits


def test_watchdog_writes_the_best_document_then_exits(tmp_path):
    paths, dog, exits = _watchdog(tmp_path)
    block = paths.audit_dir / "block-01"
    block.mkdir(parents=True)
    judged = Verdict(id=AGENTIC[0].id, hit=True, judged=True, reason="seen", attempts=1)
    failed = Verdict.unjudged(AGENTIC[1].id, "timeout", "slow", attempts=2)
    block.joinpath("verdicts.json").write_text(json.dumps({v.id: v.model_dump(mode="json") for v in (judged, failed)}))
    gates = paths.audit_dir / "agentic-gated"
    gates.mkdir()
    closed = Verdict(id=AGENTIC[2].id, hit=False, judged=True, reason="[gate] X judged and missed", gate="closed")
    dep = Verdict.unjudged(AGENTIC[3].id, "dep_unjudged", "dependency X was not judged", gate="closed")
    gates.joinpath("verdicts.json").write_text(json.dumps({v.id: v.model_dump(mode="json") for v in (closed, dep)}))
    dog.start()._thread.join(5)
    assert dog.fired and exits == [1]
    doc = json.loads(paths.result_json.read_text())
    jsonschema.validate(doc, SCHEMA)
    results = {r["id"]: r for r in doc["results"]}
    assert results[AGENTIC[0].id]["judged"] and results[AGENTIC[0].id]["hit"] is True
    assert results[AGENTIC[1].id]["error_kind"] == "deadline" and results[AGENTIC[1].id]["attempts"] == 2
    # settled by a gate before the cut: kept as decided, not turned into `deadline`
    assert results[AGENTIC[2].id]["judged"] and results[AGENTIC[2].id]["reason"].startswith("[gate]")
    assert results[AGENTIC[3].id]["error_kind"] == "dep_unjudged"
    assert paths.reward_txt.read_text().strip() == repr(doc["task_score"])


def test_a_late_watchdog_states_how_far_past_the_deadline_it_fired(tmp_path):
    # trial 8 F3: a main thread holding the GIL (one regex call over a huge text) kept the watchdog
    # from firing for minutes, and its message still said "2.5 s after JUDGE_DEADLINE"
    paths, dog, exits = _watchdog(tmp_path, fire_in=-10.0)  # due 10 s ago: the deadline passed 12.5 s ago
    dog.start()._thread.join(5)
    assert dog.fired and exits == [1]
    doc = json.loads(paths.result_json.read_text())
    said = re.search(r"still running ([0-9.]+) s after JUDGE_DEADLINE", doc["exit_reason"])
    assert said is not None and float(said.group(1)) >= 10 + GRACE_SEC, doc["exit_reason"]
    assert dog.fired_after_deadline is not None and dog.fired_after_deadline >= 10 + GRACE_SEC
    assert said.group(0) in " ".join(doc["details"]["warnings"])
    assert all(said.group(0) in r["reason"] for r in doc["results"] if r["error_kind"] == "deadline")


def test_watchdog_keeps_the_main_threads_documents(tmp_path):
    paths, dog, exits = _watchdog(tmp_path)
    paths.verifier_dir.mkdir(parents=True)
    paths.reward_txt.write_text("0.75\n")  # written by the main thread after the watchdog was armed
    dog.start()._thread.join(5)
    assert exits == [1] and paths.reward_txt.read_text() == "0.75\n" and not paths.result_json.exists()


def test_disarmed_watchdog_never_fires(tmp_path):
    paths, dog, exits = _watchdog(tmp_path, fire_in=0.3)
    dog.start()
    dog.disarm()
    dog._thread.join(2)
    assert not dog.fired and exits == [] and not paths.reward_txt.exists()


def test_audit_verdicts_prefer_the_latest_judged_verdict(tmp_path):
    audit = tmp_path / "judge"
    rows = {
        "block-01": [Verdict.unjudged("A", "timeout", "slow"), Verdict(id="B", hit=False, judged=True)],
        "block-01-r1": [Verdict(id="A", hit=True, judged=True, reason="alone")],
        "block-01-r2": [Verdict.unjudged("B", "rate_limit", "later failure")],
    }
    for name, vs in rows.items():
        (audit / name).mkdir(parents=True)
        (audit / name / "verdicts.json").write_text(json.dumps({v.id: v.model_dump(mode="json") for v in vs}))
    (audit / "block-02").mkdir()
    (audit / "block-02" / "verdicts.json").write_text("{not json")
    found = audit_verdicts(audit)
    assert found["A"].judged and found["A"].reason == "alone"
    assert found["B"].judged and found["B"].hit is False
    assert GRACE_SEC < 5


def test_backstop_writes_the_fallback_when_the_best_document_blocks(tmp_path, monkeypatch):
    paths, dog, exits = _watchdog(tmp_path)
    release = threading.Event()
    monkeypatch.setattr(dog, "_document", lambda *a, **k: release.wait(60))  # e.g. a read that never returns
    dog.start()
    for _ in range(100):  # the backstop fires BACKSTOP_SEC after the watchdog
        if exits:
            break
        time.sleep(0.1)
    release.set()
    assert exits and exits[0] == 1
    doc = json.loads(paths.result_json.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["exit_code"] == "judge:timeout" and "backstop" in doc["exit_reason"]
    assert paths.reward_txt.read_text().strip() == "0.0"


def test_backstop_keeps_every_verdict_the_watchdog_reached(tmp_path, monkeypatch):
    """The watchdog's own document was serialised but its write blocked (a 5,000-row run
    once lost 1,619 verdicts to an empty fallback this way): the backstop writes it."""
    from cowork_judge.run import outputs

    paths, dog, exits = _watchdog(tmp_path)
    block = paths.audit_dir / "block-01"
    block.mkdir(parents=True)
    judged = Verdict(id=AGENTIC[0].id, hit=True, judged=True, reason="seen", attempts=1)
    block.joinpath("verdicts.json").write_text(json.dumps({judged.id: judged.model_dump(mode="json")}))
    real_write, release = outputs.write_prepared, threading.Event()

    def stuck_once(paths_, prepared):
        if threading.current_thread().name == "judge-watchdog":
            release.wait(60)  # the watchdog's own write hangs (a wedged thread holds the disk, say)
        real_write(paths_, prepared)

    monkeypatch.setattr(outputs, "write_prepared", stuck_once)
    dog.start()
    for _ in range(150):
        if exits:
            break
        time.sleep(0.1)
    release.set()
    assert exits == [1]
    doc = json.loads(paths.result_json.read_text())
    jsonschema.validate(doc, SCHEMA)
    results = {r["id"]: r for r in doc["results"]}
    assert len(results) == N_ROWS and results[AGENTIC[0].id]["judged"] and results[AGENTIC[0].id]["hit"] is True
    assert "watchdog" in doc["exit_reason"] and "backstop" not in doc["exit_reason"]


def test_the_backstop_grows_with_the_rubric():
    from cowork_judge.engine.watchdog import BACKSTOP_SEC, BACKSTOP_SEC_PER_ROW

    dog = Watchdog.__new__(Watchdog)
    dog._criteria = tuple(AGENTIC)
    assert dog.backstop_sec() == pytest.approx(BACKSTOP_SEC + BACKSTOP_SEC_PER_ROW * len(AGENTIC))
    dog._criteria = None
    assert dog.backstop_sec() == BACKSTOP_SEC


@pytest.mark.parametrize("how", ["SIGTERM", "backstop"])
def test_scratch_folders_are_removed_on_every_exit_path(tmp_path, how):
    """A run stopped by SIGTERM or by the watchdog's backstop leaves no scratch folder behind."""
    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    script = textwrap.dedent(f"""
        import os, signal, sys, threading, time
        from cowork_judge.commands import main
        from cowork_judge.agentic import scheduler
        from cowork_judge.engine import watchdog
        real = scheduler.judge_block

        async def slow(name, *args, **kwargs):  # stops the run at its first block, however slow the machine
            if {how!r} == "SIGTERM":
                threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM)).start()
                time.sleep(30)
            else:  # the watchdog's document never finishes: the backstop ends the process
                watchdog.Watchdog._document = lambda *a, **k: time.sleep(600)
                time.sleep(600)
            return await real(name, *args, **kwargs)

        scheduler.judge_block = slow
        sys.exit(main(sys.argv[1:]))
    """)
    paths = layout(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    with SimServer(OraclePolicy.from_dict(oracle()), api_key=SIM_KEY) as sim:
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0", JUDGE_CONCURRENCY="1",
                   JUDGE_DEADLINE="30" if how == "SIGTERM" else "12",  # room for a loaded machine to reach block-01
                   JUDGE_EVIDENCE="0", PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(scratch_root))
        proc = subprocess.run([sys.executable, "-c", script, "run", "--app-dir", str(paths.app_dir), "--logs-dir",
                               str(paths.logs_dir), "--tests-dir", str(paths.tests_dir)],  # no --work-dir: a scratch one
                              env=env, capture_output=True, text=True, timeout=90)
    assert proc.returncode == (143 if how == "SIGTERM" else 1), proc.stderr
    assert paths.reward_txt.is_file()
    assert list(scratch_root.iterdir()) == [], "scratch folders left behind"
