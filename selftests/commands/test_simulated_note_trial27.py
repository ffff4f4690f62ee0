"""Trial 27 P-5 / P-8: the built-in simulator's note ("the reward checks the plumbing") is said where the reward is
read — under ``demo``'s reward only when the simulator was asked, with the ``fatal:`` line ``try`` prints, and in the
header of the report page of a run it judged."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

NOTE = "note: the built-in simulator judged this run, not a model."


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=180,
                          env=base)


def demo(logs: Path, rollout: str) -> str:
    proc = cli("demo", "--rollout", rollout, "--logs-dir", str(logs))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def page_head(verifier: Path) -> str:
    proc = cli("report", str(verifier))
    assert proc.returncode == 0, proc.stderr
    text = re.sub(r"<style.*?</style>", "", (verifier / "report.html").read_text(encoding="utf-8"), flags=re.S)
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)))
    return text[:text.find("W (positive weight)")]  # the header, above the score table


def test_demo_of_an_empty_rollout_says_the_fatal_hurdle_and_no_simulator_note(tmp_path):
    out = demo(tmp_path / "logs", "empty")
    lines = out.splitlines()
    fatal = next(i for i, line in enumerate(lines) if line.startswith("fatal: "))
    assert lines[fatal - 1] == "reward: 0.0"
    assert "A-HURDLE-NO-DECK counted as hit because nothing was delivered" in lines[fatal]
    assert NOTE not in out
    assert "plumbing" not in page_head(tmp_path / "logs" / "verifier")  # never asked: no note on the page either


def test_a_simulated_run_says_its_note_under_the_reward_and_in_the_report_header(tmp_path):
    out = demo(tmp_path / "logs", "chat")
    assert NOTE in out and "fatal: " not in out
    head = page_head(tmp_path / "logs" / "verifier")
    assert head.lstrip().startswith("Judge report")
    assert NOTE in head and "So the reward checks the task's plumbing, not the rollout" in head
