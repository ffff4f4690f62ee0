"""Trial 26 P-3: rehearsing with ``cowork-judge sim --oracle FILE``, a mistyped oracle key (``A-DOSES`` for the
row ``A-DOSE``) answered the row hit=false "not in oracle": the reward silently lower, status success, and only the
simulator's console said "did you mean". The verdict's reason now carries the hint itself, and ``try`` prints one
warning line naming the rows the oracle has no entry for (read from result.json's rows, not from the oracle file).

The end-to-end test runs the real ``cowork-judge sim --oracle`` (a child process on a free port) and the real
``cowork-judge try`` (sandboxed) against it."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path

from install.test_try_output import shared_cache, try_cli
from install.test_try_trial4 import ANSWER, chat_task

WARNING = ("cowork-judge try: the oracle has no entry for row(s) A-DOSE (did you mean 'A-DOSES'?) (judged a miss): "
           "check the oracle's keys against the rubric's row ids")


def try_against_oracle(tmp_path: Path, oracle: dict[str, object], task: Path | None = None,
                       sim_log: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``cowork-judge try`` of the chat task's good answer (`task`, else trial 4's chat task made under `tmp_path`),
    judged by ``sim --oracle`` holding `oracle` (its console, stderr, written to `sim_log` when given)."""
    task = task if task is not None else chat_task(tmp_path)
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    path = tmp_path / "oracle.json"
    path.write_text(json.dumps(oracle))
    console = sim_log.open("w") if sim_log is not None else subprocess.DEVNULL
    with subprocess.Popen([sys.executable, "-m", "cowork_judge", "sim", "--port", "0", "--oracle", str(path)],
                          stdout=subprocess.PIPE, stderr=console, text=True) as sim:
        try:
            ready, _, _ = select.select([sim.stdout], [], [], 30)
            assert ready and sim.stdout is not None
            url = sim.stdout.readline().strip().rsplit(" ", 1)[-1]
            assert url.startswith("http://"), url
            return try_cli(str(task), "--final-message", str(answer), "--out", str(tmp_path / "out"),
                           cache=shared_cache(tmp_path / "cache"), tmpdir=tmp_path / "tmp",
                           env={"JUDGE_BASE_URL": url, "JUDGE_API_KEY": "sk-sim-rehearsal"})
        finally:
            sim.terminate()
            sim.wait(timeout=10)
            if sim_log is not None:
                console.close()  # type: ignore[union-attr]


def test_try_names_the_row_a_mistyped_oracle_key_left_out(tmp_path, sandbox_ready):
    proc = try_against_oracle(tmp_path, {"A-DOSES": {"hit": True, "reason": "gives the dose"}})
    said = proc.stdout + proc.stderr
    assert proc.returncode == 0, said
    assert WARNING in proc.stderr, said
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    row = next(r for r in doc["results"] if r["id"] == "A-DOSE")
    assert row["hit"] is False and row["reason"] == "not in oracle (did you mean 'A-DOSES'?)", row


def test_a_complete_oracle_gets_no_such_line(tmp_path, sandbox_ready):
    proc = try_against_oracle(tmp_path, {"A-DOSE": {"hit": True, "reason": "gives the dose"}})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the oracle has no entry" not in proc.stdout + proc.stderr
