"""Trial 12 F7: ``batch`` copied a rollout's ``logs/agent/`` files into ``<out>/<name>/logs/agent/`` THROUGH a symbolic
link, so a ``final_answer.txt`` linking to the instance's own ``tests/rubric.json`` (or to a host file) was judged as the
agent's answer (reward 1.0), while ``run`` ignores a linked final-message file with a warning. The batch never follows
such a link: the run sees a link, as it would in the rollout, and says so in ``details.warnings``; the batch's
fingerprint does not read through it either.

The real ``batch`` CLI against the simulator on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testkit import SIM_KEY, clean_env

from cowork_judge.batch.instances import BatchInstance, fingerprint
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import DemoPolicy

SECRET = "Rayleigh scattering: the host's secret answer key."
RUBRIC = {"rubrics": [
    {"id": "C-WORD", "description": "The answer names Rayleigh scattering.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
]}


def _instance(root: Path, name: str, target: str, file: str = "final_answer.txt") -> Path:
    """An instance folder whose ``rollout/logs/agent/<file>`` is a link to `target`."""
    inst = root / "inst" / name
    (inst / "tests").mkdir(parents=True)
    (inst / "tests" / "rubric.json").write_text(json.dumps(RUBRIC))
    agent = inst / "rollout" / "logs" / "agent"
    agent.mkdir(parents=True)
    os.symlink(target, agent / file)
    return inst


def test_batch_does_not_follow_a_link_in_the_agent_logs(tmp_path: Path):
    secret = tmp_path / "host" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    _instance(tmp_path, "own-rubric", "../../../tests/rubric.json")  # the instance's own ground truth (has 'Rayleigh')
    _instance(tmp_path, "host-file", str(secret))  # an absolute link to a host file
    trajectory = tmp_path / "host" / "trajectory.json"
    trajectory.write_text(json.dumps({"schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a", "version": "1"},
                                      "steps": [{"step_id": 1, "source": "agent", "message": SECRET}]}))
    _instance(tmp_path, "trajectory", str(trajectory), "trajectory.json")
    with SimServer(DemoPolicy(), api_key=SIM_KEY) as server:
        env = clean_env(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_START_JITTER="0")
        done = subprocess.run([sys.executable, "-m", "cowork_judge", "batch", str(tmp_path / "inst"), "--out",
                               str(tmp_path / "out"), "--draws", "0"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for name, file in (("own-rubric", "final_answer.txt"), ("host-file", "final_answer.txt"),
                       ("trajectory", "trajectory.json")):
        folder = tmp_path / "out" / name
        copied = folder / "logs" / "agent" / file
        assert copied.is_symlink(), "the link itself is laid out, never a copy of what it points at"
        raw = (folder / "logs" / "verifier" / "result.json").read_text()
        doc = json.loads(raw)
        assert doc["reward"] == 0.0, (name, doc["details"]["criteria"])
        assert SECRET not in raw
        warnings = "\n".join(doc["details"]["warnings"])
        assert f"delivery: {file} is a symlink; ignored" in warnings, warnings


def test_the_fingerprint_does_not_read_through_a_link(tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("one")
    inst = _instance(tmp_path, "z", str(secret))
    one = BatchInstance(name="z", tests_dir=inst / "tests", agent_dir=inst / "rollout" / "logs" / "agent")
    before = fingerprint(one)
    secret.write_text("two: the host file changed, the rollout did not")
    assert fingerprint(one) == before
    (inst / "rollout" / "logs" / "agent" / "final_answer.txt").unlink()
    os.symlink(str(tmp_path / "elsewhere.txt"), inst / "rollout" / "logs" / "agent" / "final_answer.txt")
    assert fingerprint(one) != before  # the link's target is what the rollout holds: another link, another fingerprint
