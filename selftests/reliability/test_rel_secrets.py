"""Secrets never reach anything the judge writes (SPEC §22).

A distinctive fake key is used against a simulator that ECHOES the Authorization header in
its error messages (a leaky proxy, fault ``echo_key``), so the key really travels through
exception texts, retries, logs and unjudged-row reasons. Then every file the run wrote
(the verifier folder with result.json, judge.log and the audit folder, the block
workspaces) and its stdout/stderr are searched for the key and for its distinctive core.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit import ROLLOUTS, agentic_example

from cowork_judge.sim import DemoPolicy, FaultPlan
from reliability.matrix import BASE_ENV, BLOCKS
from reliability.recording import RecordingSim

FAKE_KEY = "sk-leakcheck-Zq7XbV3mP9tW2yK8nR4c"
CORE = "Zq7XbV3mP9tW2yK8nR4c"
OTHER_SECRET = "tok-other-service-Hh5Jj6Kk7Ll8"
SHORT_KEY = "k7Qz9w"  # shorter than the 8 characters of ordinary secret-looking values


def written_files(*roots: Path) -> list[Path]:
    return sorted(p for root in roots if root.exists() for p in root.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.mark.parametrize("key,core", [(FAKE_KEY, CORE), (SHORT_KEY, SHORT_KEY)], ids=["long-key", "short-key"])
def test_key_never_leaks_even_when_the_endpoint_echoes_it(judge_run, key, core, tmp_path):
    first = BLOCKS[0]
    # block-01 fails for good with the echo (two tries, then two per row alone), the next
    # block's first try too (absorbed by its retry), the rest answer normally
    script = ["echo_key"] * (2 + 2 * len(first)) + ["echo_key"]
    with RecordingSim(DemoPolicy(), faults=FaultPlan(script=script), api_key=key) as sim:
        run = judge_run(
            agentic_example(tmp_path / "tests"), ROLLOUTS / "deck", sim=False,
            env={**BASE_ENV, "JUDGE_API_KEY": key, "JUDGE_BASE_URL": sim.url, "JUDGE_MAX_TRIES": "2",
                 "OTHER_SERVICE_TOKEN": OTHER_SECRET},
        )
    assert sim.errors == []
    assert sim.log.count(fault="echo_key") == len(script)  # the key did travel back in error texts
    assert sim.log.count(kind="error") == 0  # every request carried the key (no 401)
    files = written_files(run.verifier, run.work)
    names = {p.relative_to(run.verifier).as_posix() for p in files if run.verifier in p.parents}
    assert {"result.json", "reward.txt", "reward-details.json", "judge.log"} <= names
    assert any(n.startswith("judge/block-01/") for n in names)  # the audit folder was written
    assert any(run.work in p.parents for p in files)  # and the block workspaces
    for path in files:
        data = path.read_bytes()
        assert core.encode() not in data, f"the key leaked into {path}"
        assert OTHER_SECRET.encode() not in data
    assert core not in run.stdout and core not in run.stderr
    # the leak path was exercised: the echoed key was replaced, not dropped silently
    assert "[REDACTED]" in (run.verifier / "judge.log").read_text()
    reasons = [r["reason"] for r in run.doc["results"] if r["id"] in {c.id for c in first}]
    assert all("[REDACTED]" in r and r.startswith("api_error") for r in reasons)
    assert run.doc["extra_fields"]["judge_error_kind"] == "api_error"
