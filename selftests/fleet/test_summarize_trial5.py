"""Trial 5, F2: a typo in a setting that changes the reward (``JUDGE_REWARD_MODE=binar``,
``JUDGE_GUARD=penalise``) in a verifier's environment makes ``run`` score under the default
with only a warning (a reward is written on every path, SPEC §12). The document now says so
in ``details.settings_invalid`` and ``summarize`` counts and names such documents, so a fleet
sees the typo instead of thousands of rewards scored under a policy nobody chose (real
``python -m cowork_judge`` child processes)."""

from __future__ import annotations

import json
import subprocess
import sys

from testkit import clean_env, code_only_task

CLI = [sys.executable, "-m", "cowork_judge"]
_env = clean_env


def _run(root, **settings: str) -> dict:
    proc = subprocess.run([*CLI, "run", *code_only_task(root)], capture_output=True, text=True, timeout=120,
                          env=_env(**settings))
    assert proc.returncode == 0, proc.stderr
    return json.loads((root / "logs" / "verifier" / "result.json").read_text())


def test_an_invalid_reward_setting_is_recorded_and_counted_by_summarize(tmp_path):
    typo = _run(tmp_path / "runs" / "typo", JUDGE_REWARD_MODE="binar", JUDGE_GUARD="penalise")
    clean = _run(tmp_path / "runs" / "clean")
    assert typo["details"]["settings_invalid"] == ["JUDGE_GUARD", "JUDGE_REWARD_MODE"]
    assert "settings_invalid" not in clean["details"]  # a clean run's document keeps its shape
    assert typo["reward"] == clean["reward"] == 1.0  # scored under the defaults, as the warning says
    proc = subprocess.run([*CLI, "summarize", str(tmp_path / "runs"), "--out", str(tmp_path / "s.json")],
                          capture_output=True, text=True, timeout=120, env=_env())
    assert proc.returncode == 0, proc.stderr
    assert ("summarize: warning: 1 document(s) were scored under a default because a setting that changes the reward "
            "held an invalid value: JUDGE_GUARD (1), JUDGE_REWARD_MODE (1)") in proc.stderr, proc.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["scoring"]["settings_invalid"] == {"documents": 1,
                                                      "by_variable": {"JUDGE_GUARD": 1, "JUDGE_REWARD_MODE": 1}}


def test_keys_a_fleet_adds_to_a_sealed_document_are_outside_the_seal(tmp_path):
    """Trial 5, F7: docs/fleet-tools.md invites a fleet to add ``task_id`` and ``tags`` to each
    document (``--task-key auto``, ``--group-by``); doing so classed every document
    ``tampered`` and left it out of the summary (exit 0). The seal covers the judge's keys
    only; a changed judge value is still tampering."""
    docs = [_run(tmp_path / "runs" / name) for name in ("a", "b", "c")]
    lines = []
    for n, doc in enumerate(docs):
        doc = {**doc, "task_id": f"t{n % 2}", "tags": {"difficulty": "hard" if n else "easy"}}
        if n == 2:
            doc["reward"] = 0.5  # a judge's value changed: still tampering
        lines.append(json.dumps(doc))
    (tmp_path / "fleet.jsonl").write_text("\n".join(lines) + "\n")
    proc = subprocess.run([*CLI, "summarize", str(tmp_path / "fleet.jsonl"), "--out", str(tmp_path / "s.json"),
                           "--group-by", "difficulty"], capture_output=True, text=True, timeout=120, env=_env())
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["accounting"]["scored"] == 2 and summary["accounting"]["tampered"] == 1, summary["accounting"]
    assert summary["integrity"]["verified"] == 2 and summary["integrity"]["mismatch"] == 1
    assert summary["integrity"]["added_keys"] == {"tags": 2, "task_id": 2}
    assert "hard" in json.dumps(summary["groups"]) and "easy" in json.dumps(summary["groups"])


def test_a_trial_or_batch_instance_without_a_document_is_counted_not_dropped(tmp_path):
    """Trial 5, F10: a trial whose verifier timed out (``verifier/`` without ``result.json``)
    and an instance a batch lists with no document were in no class: "3 inputs: scored 3" over
    the survivors. They are now ``no_result`` inputs, named in ``problems``; a held batch lock
    is said."""
    import fcntl

    job = tmp_path / "job"
    for name in ("a__abc1234", "b__abc1234"):
        doc = _run(tmp_path / "runs" / name)
        (job / name / "verifier").mkdir(parents=True)
        (job / name / "verifier" / "result.json").write_text(json.dumps(doc))
    (job / "c__timeout" / "verifier").mkdir(parents=True)  # the verifier timed out: Harbor downloaded nothing
    (job / "c__timeout" / "result.json").write_text('{"trial_name": "c__timeout"}')
    proc = subprocess.run([*CLI, "summarize", str(job), "--out", str(tmp_path / "s.json")], capture_output=True,
                          text=True, timeout=120, env=_env())
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["accounting"]["inputs"] == 3 and summary["accounting"]["no_result"] == 1, summary["accounting"]
    problem = next(p for p in summary["problems"] if p["class"] == "no_result")
    assert problem["input"] == str(job / "c__timeout" / "verifier" / "result.json")
    assert "the verifier did not finish" in problem["error"]

    batch = tmp_path / "batch"  # a batch's --out: instance_tags.json lists i3, which has no document
    for name in ("i1", "i2"):
        (batch / name / "logs" / "verifier").mkdir(parents=True)
        (batch / name / "logs" / "verifier" / "result.json").write_text(json.dumps(_run(tmp_path / "bruns" / name)))
    (batch / "batch.json").write_text("{}")
    (batch / "instance_tags.json").write_text(json.dumps({"i1": {}, "i2": {}, "i3": {}}))
    with open(batch / ".batch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run([*CLI, "summarize", str(batch), "--out", str(tmp_path / "b.json")], capture_output=True,
                              text=True, timeout=120, env=_env())
    assert proc.returncode == 0, proc.stderr
    assert f"a batch is still running in {batch}" in proc.stderr, proc.stderr
    accounting = json.loads((tmp_path / "b.json").read_text())["accounting"]
    assert accounting["inputs"] == 3 and accounting["scored"] == 2 and accounting["no_result"] == 1, accounting
