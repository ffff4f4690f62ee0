"""Trial 26 P-1: ``cowork-judge report DIR`` on a kept verifier folder whose name is not ``verifier``
(``cp -a <out>/logs/verifier runs/good-deck-sim``) showed no page images (blaming a removed work dir) and no final
message (blaming "a judge older than this report"), although ``DIR/evidence/pages/…`` and
``DIR/judge/final_message.json`` were there: the folder's parent was taken as the logs dir and ``verifier/`` appended
again. The folder given IS the verifier folder whatever its name. Real runs (``cowork-judge run`` against the simulator
over HTTP, real LibreOffice for the deck) and the real ``report`` command in a subprocess."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from fleet.test_report_e2e import ORACLE as DECK_ORACLE, deck_task
from fleet.test_report_final_message_trial22 import MESSAGE, ORACLE as CHAT_ORACLE, RUBRIC as CHAT_RUBRIC, rollout, section
from testkit import write_task


def report(folder: Path) -> tuple[subprocess.CompletedProcess, str]:
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(folder)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc, (folder / "report.html").read_text(encoding="utf-8")


def test_a_kept_deck_run_under_a_name_of_its_own_shows_its_pages(judge_run, tmp_path):
    tests, deck_rollout = deck_task(tmp_path)
    run = judge_run(tests, deck_rollout, oracle=DECK_ORACLE, env={"JUDGE_EVIDENCE": "180"}, timeout=300)
    assert run.returncode == 0, run.stderr
    kept = tmp_path / "runs" / "good-deck-sim"
    shutil.copytree(run.verifier, kept, symlinks=True)
    assert sorted((kept / "evidence" / "pages").rglob("*.png")) or sorted((kept / "evidence" / "pages").rglob("*.jp*g"))
    proc, page = report(kept)
    assert "page images not found" not in proc.stderr and "work dir is removed" not in page, proc.stderr
    assert len(re.findall(r'<img src="data:image/(?:jpeg|png);base64,', page)) == 3
    assert not (tmp_path / "runs" / "verifier").exists()  # nothing looked up or written beside it


def test_a_kept_chat_run_under_a_name_of_its_own_shows_its_final_message(judge_run, tmp_path):
    tests = write_task(tmp_path / "task", CHAT_RUBRIC, "How long does sunlight take to reach the Earth?\n") / "tests"
    run = judge_run(tests, rollout(tmp_path, MESSAGE), oracle=CHAT_ORACLE)
    assert run.returncode == 0, run.stderr
    kept = tmp_path / "chat-kept"
    shutil.copytree(run.verifier, kept, symlinks=True)
    assert (kept / "judge" / "final_message.json").is_file()
    _, page = report(kept)
    part = section(page)
    assert "not kept in this folder" not in part and "a judge older than this report" not in part, part
    assert "Sunlight takes about 8.3 minutes" in part
