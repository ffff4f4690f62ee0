"""The example instance end to end through the real command line (evidence on) against the
simulator, oracle by row and page: per-row calls from the request log, a type1 miss that
short-circuits its type2 with no request, the pages that decided each content verdict in
the audit, a broken anchor file costing only its rows, and ``cowork-judge demo``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
from run.test_e2e import DECK_CALLS, DECK_ENV, DECK_ORACLE, DECK_REWARD
from testkit import EXAMPLE_TESTS, ROLLOUTS

from cowork_judge.evidence import probe_capabilities

from .test_ppt_content import CALLS, IMG


@pytest.fixture(autouse=True)
def soffice():
    if not probe_capabilities().soffice.available:
        pytest.skip("LibreOffice is not installed")


def test_rows_cost_their_calls_and_a_missed_type1_costs_its_type2_nothing(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=DECK_ENV, timeout=300)
    assert run.reward == pytest.approx(DECK_REWARD, abs=1e-12) and len(run.sim.log) == DECK_CALLS
    entries = run.sim.log.entries()
    for rid, n in CALLS.items():
        assert sum(1 for e in entries if rid in e.row_ids) == n, rid
    v = run.verdicts
    assert v["T2-PARALLELIZATION"]["judged"] and v["T2-PARALLELIZATION"]["hit"] is False
    assert v["T2-PARALLELIZATION"]["reason"].startswith("[gate] T1-PARALLELIZATION")
    assert v["T2-PARALLELIZATION"]["gate"] == "closed"
    assert not [e for e in entries if "T2-PARALLELIZATION" in e.row_ids]
    # content before visual inside the workflow, and the workflow before the agentic segment
    kinds = ["content" if any(i.startswith("T") for i in e.row_ids) else "visual" if e.page is not None else "agentic"
             for e in sorted(entries, key=lambda e: e.seq)]
    assert kinds == ["content"] * 27 + ["visual"] * 40 + ["agentic"] * 4
    # the pages that decided each content verdict are its evidence (audit: judge/workflow/verdicts.json)
    saved = json.loads((run.verifier / "judge" / "workflow" / "verdicts.json").read_text())
    assert saved["T1-EVALUATOR-OPTIMIZER"]["evidence"] == [IMG.format(9)]
    assert saved["T1-AUGMENTED-LLM"]["evidence"] == [IMG.format(5), IMG.format(8)]
    assert saved["T2-FRAMEWORKS"]["evidence"] == [IMG.format(4)] and saved["T1-PARALLELIZATION"]["evidence"] == []
    audit = run.verifier / "judge" / "workflow-ppt_judge"
    rows = {json.loads(x)["row"]: json.loads(x) for x in (audit / "content_rows.jsonl").read_text().splitlines()}
    assert {r: x["calls"] for r, x in rows.items()} == CALLS


def test_a_broken_anchor_file_makes_only_its_rows_asset_broken(judge_run, tmp_path):
    tests = tmp_path / "tests"
    shutil.copytree(EXAMPLE_TESTS, tests)
    (tests / "workflow_assets" / "ppt_judge" / "task_check_dir" / "anchors" / "workflows-vs-agents.md").write_text("  \n")
    run = judge_run(tests, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=DECK_ENV, timeout=300)
    doc = run.doc
    broken = {r["id"] for r in doc["results"] if not r["judged"]}
    assert broken == {"T2-WORKFLOWS-AGENTS"}
    row = run.verdicts["T2-WORKFLOWS-AGENTS"]
    assert row["error_kind"] == "asset_broken" and "anchors/workflows-vs-agents.md" in row["reason"] and "empty" in row["reason"]
    # by hand: the row (weight 4, a hit in DECK_REWARD) now counts as a miss; one call fewer (its page 2)
    assert run.reward == pytest.approx((98.75 - 4) / 119, abs=1e-12)
    assert doc["extra_fields"]["judge_calls"] == len(run.sim.log) == DECK_CALLS - 1
    ef = doc["extra_fields"]
    assert ef["judge_coverage"] == pytest.approx(38 / 39) and ef["judge_error_kind"] == "asset_broken"
    assert doc["status"] == "success" and doc["exit_code"] is None and doc["exit_reason"]
    assert any("asset_broken" in w for w in (run.verifier / "judge.log").read_text().splitlines())


def test_the_demo_judges_code_content_visual_and_agentic_rows(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "demo", "--logs-dir", str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=300, env=env)
    seconds = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())
    ef = doc["extra_fields"]
    assert ef["judge_coverage_by_method"] == {"agentic": 1.0, "code": 1.0, "workflow": 1.0}
    groups = {c["id"]: c.get("workflow_group") for c in doc["criteria"]}
    judged = {r["id"] for r in doc["results"] if r["judged"]}
    assert {r for r, g in groups.items() if g in ("type1", "type2")} <= judged and len(judged) == 39
    assert all(r["reason"].startswith(("simulated judge", "[gate]", "covered", "not covered", "stated", "not stated"))
               or r["method"] != "workflow" or r["id"].startswith("V-") for r in doc["results"])
    assert ef["judge_calls"] > 44 and "model calls" in proc.stdout
    assert "start jitter" not in proc.stderr  # neither segment waits: the demo sets both jitters to 0
    assert seconds < 120, f"the demo took {seconds:.0f} s"
