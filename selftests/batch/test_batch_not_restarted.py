"""Left over from trial 7 F2: a resume stopped before it restarted some instances. Its own ``summary.json`` counts
them ``no_result`` (their ``result.json`` is an earlier run's, judged under the settings the resume replaced), but
``summarize <out>`` counted those earlier documents as scored. ``batch.json`` now names the instances it never
started (``not_started``) and ``summarize`` of the folder counts a document there older than that record as the
batch does. Real ``python -m cowork_judge`` processes against the simulator."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from batch.test_batch_trial7_out import _chat_instances, _cli, _sim_env, _start_batch, _wait_for
from testkit import SIM_KEY

from cowork_judge.sim import LatencyModel, SimServer
from cowork_judge.sim.policies import DemoPolicy


def test_summarize_counts_the_earlier_documents_of_a_stopped_resume_as_the_batch_does(tmp_path: Path):
    instances = _chat_instances(tmp_path / "inst", 6)
    out = tmp_path / "out"
    server = SimServer(DemoPolicy(), api_key=SIM_KEY).start()
    try:
        first = _cli("batch", str(instances), "--out", str(out), "--draws", "0", env=_sim_env(server))
    finally:
        server.stop()
    assert first.returncode == 0, first.stderr
    slow = SimServer(DemoPolicy(), api_key=SIM_KEY, latency=LatencyModel.uniform(4000, jitter_frac=0.0, seed=1)).start()
    try:  # another judge model: every instance is judged again; stopped while the first two wait
        proc = _start_batch(instances, out, {**_sim_env(slow), "JUDGE_MODEL": "sim-judge-2"})
        _wait_for(lambda: slow.log.arrivals >= 1, proc, "model request")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        slow.stop()
    assert proc.returncode == 143, err
    record = json.loads((out / "batch.json").read_text())
    assert len(record["not_started"]) >= 4 and set(record["not_started"]) <= set(record["not_complete"]), record
    for name in record["not_started"]:  # the earlier run's document is still there
        assert (out / name / "logs" / "verifier" / "result.json").is_file()
    own = json.loads((out / "summary.json").read_text())["accounting"]
    again = _cli("summarize", str(out), "--out", str(tmp_path / "s.json"), "--draws", "0")
    assert again.returncode == 0, again.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["accounting"] == own, (summary["accounting"], own)
    stale = [p for p in summary["problems"] if "from an earlier run and not counted" in (p["error"] or "")]
    assert len(stale) == len(record["not_started"]), summary["problems"]
