"""``cowork-judge try`` on a chat-only rollout with JUDGE_CHAT_FALLBACK=0 passed by task.toml's [verifier.env] (a real
child process, sandboxed, against a simulator over HTTP).

The judge found the final message and, the fallback being off, scored the run as nothing delivered on purpose; try
said "no output file and no final message reached the judge … check --final-message", a plumbing hint for a message
that did reach it. It now says the message was not judged because JUDGE_CHAT_FALLBACK is off, read from result.json's
``details.delivery`` (``missing`` with a ``final_message_source``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cowork_judge.sim import DemoPolicy, SimServer
from install.test_try_output import CLI, REHEARSAL_KEY, inited_task, shared_cache, try_cli

ROWS = [{"id": "A-TCP", "description": "The answer says TCP provides reliable, ordered delivery.", "weight": 2}]
UNJUDGED_LINE = ("nothing delivered: no output file, and the final message (read from trajectory) is not judged "
                 "(JUDGE_CHAT_FALLBACK is off")


def _try_chat_only(root: Path, fallback: str) -> subprocess.CompletedProcess:
    """``try`` of a chat task whose [verifier.env] passes JUDGE_CHAT_FALLBACK (``init --env``), set to `fallback`."""
    task = inited_task(root / "task", ROWS, "Explain the difference between TCP and UDP.\n")
    init = subprocess.run([*CLI, "init", "--env", "JUDGE_CHAT_FALLBACK", str(task), "--force"],
                          capture_output=True, text=True, timeout=120)
    assert init.returncode == 0, init.stdout + init.stderr
    answer = root / "answer.txt"
    answer.write_text("TCP provides reliable, ordered delivery; UDP does not.\n")
    with SimServer(DemoPolicy()) as sim:
        return try_cli(str(task), "--final-message", str(answer), "--out", str(root / "out"),
                       cache=shared_cache(root / "cache"), tmpdir=root / "tmp",
                       env={"JUDGE_BASE_URL": sim.url, "JUDGE_API_KEY": REHEARSAL_KEY, "JUDGE_CHAT_FALLBACK": fallback})


def test_a_final_message_not_judged_under_chat_fallback_off_is_said_so(tmp_path, sandbox_ready):
    proc = _try_chat_only(tmp_path, "0")
    said = proc.stdout + proc.stderr
    assert proc.returncode == 0, said[-3000:]
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert doc["extra_fields"]["delivery_missing"] is True  # the judge's decision, unchanged
    assert doc["details"]["delivery"]["final_message_source"] == "trajectory"
    assert "reward: 0.0" in proc.stdout
    assert UNJUDGED_LINE in proc.stderr, said[-3000:]
    assert "no final message reached the judge" not in said and "check --rollout" not in said, said[-3000:]


def test_the_same_message_with_the_fallback_on_is_judged_and_no_such_line(tmp_path, sandbox_ready):
    proc = _try_chat_only(tmp_path, "1")
    said = proc.stdout + proc.stderr
    assert proc.returncode == 0, said[-3000:]
    assert "coverage: 1.000 (1 of 1 rows judged)" in proc.stdout
    assert "nothing delivered" not in said and "JUDGE_CHAT_FALLBACK is off" not in said, said[-3000:]
