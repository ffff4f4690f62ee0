"""Trial 5 F8: one run's document exported twice is counted once, two runs that judged alike twice.

Every run writes a random ``details.run_id`` under its seal. Two real ``cowork-judge run`` of a task
whose agent delivered nothing differ only in their timings, so a summarizer cannot tell a copy from a
coincidence by content; with the run id, ``summarize`` classes the second copy of one run ``duplicate``
("the same run's document as <input>") and keeps both runs; a re-score of the run under another policy is
another document. Documents without a run id (written before 2.0) are
never taken for copies.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from cowork_judge.core.integrity import seal

RUBRIC = {"rubrics": [{"id": "C1", "description": "a report", "weight": 1, "judge_method": "code",
                       "code_method_name": "file_exists", "code_method_params": {"glob": "*.md"}}]}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=120)


def _two_empty_runs(judge_run, tmp_path: Path) -> list[Path]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    runs = [judge_run(tests, None, sim=False) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    return [r.verifier / "result.json" for r in runs]


def _line(path: Path) -> str:
    return json.dumps(json.loads(path.read_text()), ensure_ascii=False) + "\n"


def test_a_copy_of_one_run_is_a_duplicate_and_two_alike_runs_both_count(judge_run, tmp_path: Path):
    first, second = _two_empty_runs(judge_run, tmp_path)
    ids = [json.loads(p.read_text())["details"]["run_id"] for p in (first, second)]
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids) and ids[0] != ids[1]
    docs = tmp_path / "docs.jsonl"
    docs.write_text(_line(first) + _line(first) + _line(second))
    proc = _cli("summarize", str(docs), "--out", str(tmp_path / "summary.json"))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["accounting"]["delivery_missing"] == 2 and summary["accounting"]["duplicate"] == 1
    (problem,) = summary["problems"]
    assert problem["input"].endswith("docs.jsonl:2") and problem["class"] == "duplicate"
    assert "the same run's document as" in problem["error"] and problem["error"].count("docs.jsonl:1") == 1
    assert "docs.jsonl:2" in proc.stderr  # named on the console too


def test_the_run_id_is_under_the_seal_and_rescore_keeps_it(judge_run, tmp_path: Path):
    first, _ = _two_empty_runs(judge_run, tmp_path)
    doc = json.loads(first.read_text())
    forged = dict(doc, details={**doc["details"], "run_id": "0" * 32})
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    proc = _cli("summarize", str(tmp_path / "forged.json"), "--out", str(tmp_path / "s.json"))
    assert json.loads((tmp_path / "s.json").read_text())["accounting"]["tampered"] == 1, proc.stderr
    again = _cli("rescore", str(first), "--mode", "binary", "--threshold", "0.5", "--out", str(tmp_path / "binary.json"))
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "binary.json").read_text())["details"]["run_id"] == doc["details"]["run_id"]
    same = _cli("rescore", str(first), "--out", str(tmp_path / "same.json"))  # no option: the document itself
    assert same.returncode == 0, same.stderr
    both = _cli("summarize", str(first), str(tmp_path / "same.json"), str(tmp_path / "binary.json"), "--out", str(tmp_path / "b.json"))
    summary = json.loads((tmp_path / "b.json").read_text())
    assert summary["accounting"]["duplicate"] == 1 and summary["accounting"]["delivery_missing"] == 2, both.stderr
    assert [p["input"] for p in summary["problems"]] == [str(tmp_path / "same.json")]
    assert summary["scoring"]["mixed"] is True  # the binary re-score is counted, under its own policy


def test_documents_without_a_run_id_are_never_taken_for_copies(judge_run, tmp_path: Path):
    first, _ = _two_empty_runs(judge_run, tmp_path)
    doc = json.loads(first.read_text())
    del doc["details"]["run_id"]
    doc.pop("integrity")
    old = json.loads(seal(json.dumps(doc)))  # as a 1.x/0.2 judge wrote it: sealed, no run id
    docs = tmp_path / "old.jsonl"
    docs.write_text((json.dumps(old) + "\n") * 2)
    proc = _cli("summarize", str(docs), "--out", str(tmp_path / "summary.json"))
    assert proc.returncode == 0, proc.stderr
    accounting = json.loads((tmp_path / "summary.json").read_text())["accounting"]
    assert accounting["delivery_missing"] == 2 and accounting["duplicate"] == 0
