"""Trial 7 F6 (second half), F2 and F8: what a batch's ``--out`` holds and says.

F6: ``batch --out DIR`` over a folder that is not a batch's output (no ``batch.json`` and no
``.batch.lock``) replaced the ``summary.json`` there and removed files under
``DIR/<name>/logs/``; it now refuses, naming what is there, and a batch's own folder whose
``summary.json`` is not the one the batch wrote is refused too. F2: an interrupted batch's
``summary.json`` and ``batch.json`` account for every instance of its list. F8: ``summarize``
of a running batch before its first document writes the instances as ``no_result`` and says the
batch is still running. Real ``python -m cowork_judge`` processes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from testkit import SIM_KEY, clean_env

from cowork_judge.sim import LatencyModel, SimServer
from cowork_judge.sim.policies import DemoPolicy

CODE_RUBRIC = {"rubrics": [{"id": "C-ANSWER", "description": "answer.txt gives the answer 42.", "weight": 1,
                            "judge_method": "code", "code_method_name": "text_contains",
                            "code_method_params": {"text": "42", "glob": "answer.txt"}}]}
CHAT_RUBRIC = {"rubrics": [{"id": "A-CLEAR", "description": "The answer is clear.", "weight": 1}]}


def _code_instances(root: Path, names: tuple[str, ...] = ("chat1",)) -> Path:
    """Instances with a code-only rubric (no model call), each delivering ``answer.txt`` = 42."""
    for name in names:
        (root / name / "tests").mkdir(parents=True)
        (root / name / "tests" / "rubric.json").write_text(json.dumps(CODE_RUBRIC))
        answer = root / name / "rollout" / "app" / "output" / "answer.txt"
        answer.parent.mkdir(parents=True)
        answer.write_text("42\n")
    return root


def _chat_instances(root: Path, n: int) -> Path:
    """`n` chat instances ``c1..cn`` (one model row each, a final answer)."""
    for i in range(1, n + 1):
        (root / f"c{i}" / "tests").mkdir(parents=True)
        (root / f"c{i}" / "tests" / "rubric.json").write_text(json.dumps(CHAT_RUBRIC))
        agent = root / f"c{i}" / "rollout" / "logs" / "agent"
        agent.mkdir(parents=True)
        (agent / "final_answer.txt").write_text(f"Answer {i}: the sky is blue because of Rayleigh scattering.\n")
    return root


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=timeout,
                          env=env or clean_env(), check=False)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_folder_no_batch_made_is_refused_naming_what_is_there_and_left_as_it_was(tmp_path: Path):
    instances = _code_instances(tmp_path / "inst")
    victim = tmp_path / "victim"
    (victim / "chat1" / "logs" / "verifier").mkdir(parents=True)
    (victim / "chat1" / "logs" / "verifier" / "notes.txt").write_text("precious\n")
    (victim / "summary.json").write_text('{"mine": 1}\n')
    before = _tree(victim)
    done = _cli("batch", str(instances), "--out", str(victim))
    assert done.returncode == 2, done.stderr
    assert "not the output of a batch" in done.stderr and "summary.json" in done.stderr and "chat1" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert _tree(victim) == before and sorted(os.listdir(victim)) == ["chat1", "summary.json"]  # not even a lock file


def test_an_empty_or_new_folder_and_a_batchs_own_folder_are_accepted(tmp_path: Path):
    instances = _code_instances(tmp_path / "inst")
    empty = tmp_path / "empty"
    empty.mkdir()
    first = _cli("batch", str(instances), "--out", str(empty))
    assert first.returncode == 0, first.stderr
    again = _cli("batch", str(instances), "--out", str(empty))
    assert again.returncode == 0 and "1 kept" in again.stderr, again.stderr
    new = _cli("batch", str(instances), "--out", str(tmp_path / "new" / "out"))
    assert new.returncode == 0, new.stderr


def test_a_summary_the_batch_did_not_write_is_not_replaced(tmp_path: Path):
    instances = _code_instances(tmp_path / "inst")
    out = tmp_path / "out"
    assert _cli("batch", str(instances), "--out", str(out)).returncode == 0
    mine = _cli("summarize", str(out), "--out", str(out / "summary.json"), "--force", "--group-by", "class")
    assert mine.returncode == 0, mine.stderr
    before = (out / "summary.json").read_bytes()
    rerun = _cli("batch", str(instances), "--out", str(out))
    assert rerun.returncode == 2, rerun.stderr
    assert "summary.json is not the summary a batch wrote" in rerun.stderr, rerun.stderr
    assert (out / "summary.json").read_bytes() == before
    (out / "summary.json").rename(tmp_path / "mine.json")  # moved away: the batch writes its own again
    ok = _cli("batch", str(instances), "--out", str(out))
    assert ok.returncode == 0 and (out / "summary.json").is_file(), ok.stderr


def _sim_env(server: SimServer) -> dict[str, str]:
    return clean_env(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0",
                     JUDGE_START_JITTER="0")


def _start_batch(instances: Path, out: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out), "--jobs", "2",
                             "--draws", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(predicate, proc: subprocess.Popen[str], what: str, limit: float = 90.0) -> None:
    ends = time.monotonic() + limit
    while not predicate():
        assert proc.poll() is None, f"the batch ended before {what}: {proc.communicate()}"
        assert time.monotonic() < ends, f"no {what} within {limit} s"
        time.sleep(0.05)


def test_an_interrupted_batchs_summary_and_record_account_for_every_instance(tmp_path: Path):
    """Trial 7 F2: 6 instances, 2 runs at once, stopped with SIGTERM while the first two wait for
    the judge: the 4 never started were missing from summary.json (inputs 2) and batch.json."""
    instances = _chat_instances(tmp_path / "inst", 6)
    out = tmp_path / "out"
    server = SimServer(DemoPolicy(), api_key=SIM_KEY, latency=LatencyModel.uniform(4000, jitter_frac=0.0, seed=1)).start()
    try:
        proc = _start_batch(instances, out, _sim_env(server))
        _wait_for(lambda: server.log.arrivals >= 1, proc, "model request")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        server.stop()
    assert proc.returncode == 143 and "Traceback" not in err, err
    summary = json.loads((out / "summary.json").read_text())
    acc = summary["accounting"]
    assert acc["inputs"] == 6 and acc["no_result"] >= 4, acc
    problems = [p for p in summary["problems"] if p["class"] == "no_result"]
    assert sum("stopped before it started this instance" in (p["error"] or "") for p in problems) >= 4, problems
    record = json.loads((out / "batch.json").read_text())
    assert sum(record["states"].values()) == record["instances"] == 6, record
    assert record["states"].get("not_started", 0) >= 4 and len(record["not_complete"]) == 6, record
    again = _cli("summarize", str(out), "--out", str(tmp_path / "s2.json"), "--draws", "0")
    assert json.loads((tmp_path / "s2.json").read_text())["accounting"]["inputs"] == 6, again.stderr


def test_summarize_of_a_running_batch_before_its_first_document_counts_its_instances(tmp_path: Path):
    """Trial 7 F8: ``summarize`` said "no result documents found" (exit 2, nothing written) while
    the batch ran its first instances; it now writes every instance as no_result and says the
    batch is still running."""
    instances = _chat_instances(tmp_path / "inst", 4)
    out = tmp_path / "out"
    server = SimServer(DemoPolicy(), api_key=SIM_KEY, latency=LatencyModel.uniform(20000, jitter_frac=0.0, seed=1)).start()
    try:
        proc = _start_batch(instances, out, _sim_env(server))
        try:
            _wait_for(lambda: server.log.arrivals >= 1, proc, "model request")
            assert not list(out.glob("*/logs/verifier/result.json"))
            mid = _cli("summarize", str(out), "--out", str(tmp_path / "mid.json"), "--draws", "0")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=120)
    finally:
        server.stop()
    assert mid.returncode == 0, mid.stderr
    assert "a batch is still running in" in mid.stderr, mid.stderr
    acc = json.loads((tmp_path / "mid.json").read_text())["accounting"]
    assert acc["inputs"] == 4 and acc["no_result"] == 4, acc


def test_an_edited_file_anywhere_under_tests_is_judged_again_on_resume(tmp_path: Path):
    """Trial 7 F4 (leftover): the instance fingerprint hashed only rubric.json, the prompt and the
    instruction files of tests/, so an edited ppt_judge anchor (the ground truth its rows are
    judged against) kept the verdicts judged against the old one. Every file under tests/ counts."""
    instances = _code_instances(tmp_path / "inst")
    anchor = instances / "chat1" / "tests" / "workflow_assets" / "ppt_judge" / "task_check_dir" / "anchors" / "p1.md"
    anchor.parent.mkdir(parents=True)
    anchor.write_text("The deck names 42.\n")
    out = tmp_path / "out"
    assert _cli("batch", str(instances), "--out", str(out)).returncode == 0
    kept = _cli("batch", str(instances), "--out", str(out))
    assert "1 kept" in kept.stderr, kept.stderr
    stat = anchor.stat()
    anchor.write_text("The deck names 17.\n")  # same size, same time: only the bytes differ
    os.utime(anchor, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    rerun = _cli("batch", str(instances), "--out", str(out))
    assert rerun.returncode == 0 and "1 of 1 instance(s) to judge (1 instance changed), 0 kept" in rerun.stderr, rerun.stderr
    (instances / "chat1" / "tests" / ".DS_Store").write_text("finder\n")  # hidden files are not the package
    again = _cli("batch", str(instances), "--out", str(out))
    assert "1 kept" in again.stderr, again.stderr


def test_files_anywhere_under_a_rejudged_instances_logs_are_set_aside(tmp_path: Path):
    """Trial 7 F6: besides ``logs/verifier/``, what ``logs/`` and ``logs/agent/`` hold that the
    batch did not put there is moved to ``set-aside/``, not removed with ``logs/``; the batch's
    own copies and the judge's documents are not (a rejudge with nothing foreign moves nothing)."""
    instances = _code_instances(tmp_path / "inst")
    out = tmp_path / "out"
    assert _cli("batch", str(instances), "--out", str(out)).returncode == 0
    forced = _cli("batch", str(instances), "--out", str(out), "--force")
    assert forced.returncode == 0 and "moved" not in forced.stderr, forced.stderr
    logs = out / "chat1" / "logs"
    (logs / "agent").mkdir(exist_ok=True)
    (logs / "agent" / "extra.txt").write_text("mine\n")
    (logs / "review.md").write_text("looks fine\n")
    rerun = _cli("batch", str(instances), "--out", str(out), "--force")
    assert rerun.returncode == 0, rerun.stderr
    assert "moved logs/agent/extra.txt, logs/review.md (not written by the judge)" in rerun.stderr, rerun.stderr
    aside = out / "chat1" / "set-aside"
    assert (aside / "extra.txt").read_text() == "mine\n" and (aside / "review.md").read_text() == "looks fine\n"


def test_a_summary_replaced_while_the_batch_ran_is_not_written_over(tmp_path: Path):
    """The end of the batch checks again (a ``summarize --force`` may have run meanwhile):
    `write_outputs` raises `ForeignOutput` (the batch's exit 1, "cannot write the batch
    outputs") and writes nothing."""
    import pytest

    from cowork_judge.batch.instances import discover_instances, plan_limits
    from cowork_judge.batch.outdir import ForeignOutput
    from cowork_judge.batch.runner import BatchReport, write_outputs

    instances = _code_instances(tmp_path / "inst")
    out = tmp_path / "out"
    assert _cli("batch", str(instances), "--out", str(out)).returncode == 0
    found = discover_instances(instances)
    (out / "summary.json").write_text('{"mine": 1}\n')
    record = (out / "batch.json").read_bytes()
    with pytest.raises(ForeignOutput, match="is not the summary a batch wrote"):
        write_outputs(out, found, BatchReport(), plan_limits(8, None, len(found)))
    assert (out / "summary.json").read_text() == '{"mine": 1}\n' and (out / "batch.json").read_bytes() == record
