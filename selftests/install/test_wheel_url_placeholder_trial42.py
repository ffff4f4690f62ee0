"""Trial 42 P-2 (real ``python -m cowork_judge`` child processes): step 8's third export,
``COWORK_WHEEL_URL=https://pypi.example.com/simple/``, is a placeholder as much as ``judge.example.com`` is.

- thin ``init`` with it exported said nothing (its "COWORK_WHEEL_URL unset" warning went away), though a
  ``harbor run`` from that shell gives every trial the error reward: it now warns, naming the host;
- ``try --index-url https://pypi.example.com/simple/`` let pip retry 4 times (~8 s) and printed pip's whole log;
  it is now refused at once (exit 2), naming the host, before anything is built or downloaded.

Both read the one reserved-host rule (`core.hosts.placeholder_host`) that refuses ``JUDGE_BASE_URL``.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from install.test_try_output import CLI, SHORT_TOML, inited_task, try_cli

PLACEHOLDER_INDEX = "https://pypi.example.com/simple/"
"""docs/harbor-task.md step 8's ``COWORK_WHEEL_URL``, as written."""
ROWS = [{"id": "A-TCP", "description": "The answer says TCP is reliable.", "weight": 1}]


def _init(task: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "PIP_"))} | env
    return subprocess.run([*CLI, "init", str(task)], env=full, capture_output=True, text=True, timeout=120)


def test_init_warns_of_step_8s_placeholder_index(tmp_path):
    from testkit import write_task

    task = write_task(tmp_path / "task", ROWS, "Explain TCP.\n", instruction="Explain TCP.\n",
                      files={"task.toml": SHORT_TOML})
    proc = _init(task, {"COWORK_WHEEL_URL": PLACEHOLDER_INDEX})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    said = [line for line in proc.stdout.splitlines() if "pypi.example.com" in line]
    assert len(said) == 1, proc.stdout
    assert said[0].startswith("warning: a `harbor run` from this shell installs the judge from COWORK_WHEEL_URL, "
                              "whose host pypi.example.com is reserved for examples (RFC 2606)")
    assert "a placeholder: every trial would end with the error reward" in said[0]
    assert "export COWORK_WHEEL_URL=<your index>" in said[0]
    other = write_task(tmp_path / "other", ROWS, "Explain TCP.\n", instruction="Explain TCP.\n",
                       files={"task.toml": SHORT_TOML})
    real = _init(other, {"COWORK_WHEEL_URL": "https://pypi.acme-corp.net/simple/"})
    assert real.returncode == 0 and "reserved for examples" not in real.stdout and "warning:" not in real.stdout


def test_try_refuses_step_8s_placeholder_index_url_at_once(tmp_path):
    task = inited_task(tmp_path / "my-chat", ROWS, "Explain TCP.\n")
    (tmp_path / "answer.txt").write_text("TCP is reliable.\n")
    t0 = time.monotonic()
    proc = try_cli(str(task), "--final-message", str(tmp_path / "answer.txt"), "--index-url", PLACEHOLDER_INDEX,
                   cache=tmp_path / "cache", tmpdir=tmp_path, timeout=120)
    seconds = time.monotonic() - t0
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert ("error: --index-url names pypi.example.com, a host reserved for examples (RFC 2606), as in the docs' "
            "step 8: pass the index your fleet installs the judge from") in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and "pip" not in proc.stderr.replace("pypi", "") and "Retrying" not in proc.stderr
    assert seconds < 20, seconds  # no pip retries
    assert not (tmp_path / "cache").exists()  # refused before any wheel was built or downloaded
