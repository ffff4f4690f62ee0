"""``cowork-judge demo`` with a loopback JUDGE_BASE_URL where nothing listens (a stopped ``cowork-judge sim``):
every row failed after the retries, as ``try`` did before trial 23 P-6. demo now probes the loopback endpoint
with try's function (`_endpoint.nothing_listens`) and refuses at once, exit 2, naming the port and the ways out.
The real CLI in a child process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from cowork_judge.sim import DemoPolicy, SimServer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _demo(logs: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "cowork_judge", "demo", "--rollout", "chat", "--logs-dir", str(logs)],
                          capture_output=True, text=True, timeout=300, env={**base, **env})


def test_demo_refuses_a_loopback_endpoint_where_nothing_listens(tmp_path):
    port = _free_port()
    proc = _demo(tmp_path / "logs", JUDGE_BASE_URL=f"http://127.0.0.1:{port}/v1", JUDGE_API_KEY="x")
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert (f"cowork-judge demo: error: nothing listens at 127.0.0.1:{port} (JUDGE_BASE_URL): start "
            f"`cowork-judge sim --port {port}`" in proc.stderr), proc.stderr
    assert "unset JUDGE_BASE_URL/JUDGE_API_KEY to use the built-in simulator" in proc.stderr
    assert "Traceback" not in proc.stderr and "reward" not in proc.stdout
    assert not (tmp_path / "logs").exists()  # nothing judged, nothing written


def test_the_openai_fallback_is_named_as_the_caller_set_it(tmp_path):
    port = _free_port()
    proc = _demo(tmp_path / "logs", OPENAI_BASE_URL=f"http://localhost:{port}/v1", OPENAI_API_KEY="x")
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"nothing listens at localhost:{port} (OPENAI_BASE_URL)" in proc.stderr, proc.stderr
    assert "unset OPENAI_BASE_URL/OPENAI_API_KEY" in proc.stderr


def test_demo_judges_with_a_loopback_endpoint_that_listens(tmp_path):
    with SimServer(DemoPolicy()) as sim:
        proc = _demo(tmp_path / "logs", JUDGE_BASE_URL=sim.url, JUDGE_API_KEY="sk-demo-probe-key-0123")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "nothing listens" not in proc.stderr and "built-in simulator at" not in proc.stdout
    doc = json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())
    assert doc["status"] == "success" and doc["extra_fields"]["judge_calls"] > 0
