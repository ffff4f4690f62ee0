"""The original cowork-judge 1.3.x's deck packages are read natively (issue 34).

The original reads ``task_check_dir/type1_checklist.json`` and ``type2_checklist.json``
(``{"items": [...]}``) and a manifest without ``schema``; this project reads its own
``type1.json``/``type2.json``. The bundled example deck, rewritten with only the original's
files, loads the same checks, lints clean but for A012 (which names the files read) and —
judged by the real command line against the simulator's demo policy over HTTP — gets the
same reward and verdicts as the package in this project's format, at coverage 1.0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.workflow.ppt_judge.assets import load_task_checks

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "selftests" / "golden" / "examples" / "deck"


def original_package(dest: Path, *, keep_ours: bool = False, drop_groups: bool = False) -> Path:
    """The example deck's tests/ with its task_check_dir in the original 1.3.x format only
    (`keep_ours`: both formats; `drop_groups`: content rows without ``workflow_group``)."""
    tests = dest / "tests"
    shutil.copytree(REPO / "tests", tests)
    tcd = tests / "workflow_assets" / "ppt_judge" / "task_check_dir"
    t1 = json.loads((tcd / "type1.json").read_text())["checks"]
    t2 = json.loads((tcd / "type2.json").read_text())["checks"]
    items1 = [{**{k: v for k, v in c.items() if k != "kind"}, "check_kind": c["kind"], "verify_input": "doc only"} for c in t1]
    items2 = [{**{k: v for k, v in c.items() if k != "scope"}, "check_kind": "text_match",
               **({"scope": "deck_wide"} if c["scope"] == "deck_wide" else {})} for c in t2]
    (tcd / "type1_checklist.json").write_text(json.dumps({"items": items1}, indent=2))
    (tcd / "type2_checklist.json").write_text(json.dumps({"items": items2}, indent=2))
    manifest = json.loads((tcd / "manifest.json").read_text())
    manifest.pop("schema")
    manifest["deck_wide"] = []
    (tcd / "manifest.json").write_text(json.dumps(manifest, indent=2))
    if not keep_ours:
        (tcd / "type1.json").unlink()
        (tcd / "type2.json").unlink()
    if drop_groups:
        rubric = json.loads((tests / "rubric.json").read_text())
        rows = rubric["rubrics"] if isinstance(rubric, dict) else rubric
        for row in rows:
            if row.get("workflow_group") in ("type1", "type2"):
                row.pop("workflow_group")
        (tests / "rubric.json").write_text(json.dumps(rubric, indent=2))
    return tests


def test_the_original_files_load_the_same_checks(tmp_path):
    ours = load_task_checks(REPO / "tests" / "workflow_assets" / "ppt_judge")
    theirs = load_task_checks(original_package(tmp_path) / "workflow_assets" / "ppt_judge")
    assert theirs.problems == [] and theirs.broken == {} and theirs.files_broken == {}
    assert theirs.type1 == ours.type1 and theirs.type2 == ours.type2
    assert theirs.manifest is not None and theirs.manifest.pairs == ours.manifest.pairs
    assert "type1_checklist.json" in theirs.formats["type1"] and "type2_checklist.json" in theirs.formats["type2"]
    assert ours.formats == {"manifest": "manifest.json", "type1": "type1.json", "type2": "type2.json"}


def test_deck_wide_is_read_from_any_of_the_originals_signals(tmp_path):
    tests = original_package(tmp_path)
    tcd = tests / "workflow_assets" / "ppt_judge" / "task_check_dir"
    doc = json.loads((tcd / "type2_checklist.json").read_text())
    page_ids = [i["id"] for i in doc["items"] if i.get("scope") != "deck_wide"]
    doc["items"][[i["id"] for i in doc["items"]].index(page_ids[0])]["check_kind"] = "no_fabrication"
    (tcd / "type2_checklist.json").write_text(json.dumps(doc))
    manifest = json.loads((tcd / "manifest.json").read_text())
    manifest["deck_wide"] = [{"type2_id": page_ids[1], "paired_type1_id": "x"}]
    (tcd / "manifest.json").write_text(json.dumps(manifest))
    checks = load_task_checks(tests / "workflow_assets" / "ppt_judge")
    assert checks.type2[page_ids[0]].scope == "deck_wide" and checks.type2[page_ids[1]].scope == "deck_wide"
    assert checks.type2[page_ids[2]].scope == "page"


def _lint(tests: Path) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "cowork_judge.lint", str(tests)], capture_output=True, text=True,
                          check=False, timeout=120)
    if "No module named" in proc.stderr:
        proc = subprocess.run([str(Path(sys.executable).parent / "lint-rubric"), str(tests)], capture_output=True,
                              text=True, check=False, timeout=120)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize(("keep_ours", "drop_groups"), [(False, False), (False, True), (True, False)])
def test_lint_accepts_both_formats_and_says_which_it_read(tmp_path, keep_ours, drop_groups):
    _, out = _lint(original_package(tmp_path, keep_ours=keep_ours, drop_groups=drop_groups))
    assert "A010" not in out, out
    assert "A012" in out, out
    assert ("type1 from type1.json (and type1_checklist.json)" if keep_ours else "type1_checklist.json (cowork-judge 1.3.x)") in out
    _, clean = _lint(REPO / "tests")
    assert "A012" not in clean and "0 errors, 0 warnings" in clean


def test_a_missing_checklist_names_both_formats(tmp_path):
    tests = original_package(tmp_path)
    (tests / "workflow_assets" / "ppt_judge" / "task_check_dir" / "type2_checklist.json").unlink()
    checks = load_task_checks(tests / "workflow_assets" / "ppt_judge")
    assert "type2" in checks.files_broken and "type2_checklist.json" in checks.files_broken["type2"]


def _judge(tests: Path, logs: Path) -> dict:
    from cowork_judge.sim import DemoPolicy, SimServer

    rollout = REPO / "examples" / "rollouts" / "deck"
    shutil.copytree(rollout / "logs" / "agent", logs / "agent")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_", "ANTHROPIC_"))}
    with SimServer(DemoPolicy()) as server:
        env.update(JUDGE_API_KEY="sim-demo-key", JUDGE_BASE_URL=server.url, JUDGE_MODEL="simulated-judge",
                   JUDGE_START_JITTER="0", JUDGE_WORKFLOW_START_JITTER="0", PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(rollout / "app"),
                               "--logs-dir", str(logs), "--tests-dir", str(tests), "--alt-output-dir", str(rollout / "output")],
                              env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((logs / "verifier" / "result.json").read_text())


@pytest.mark.parametrize("drop_groups", [False, True])
def test_an_original_format_deck_package_is_judged_as_this_projects(tmp_path, drop_groups):
    if shutil.which("soffice") is None and shutil.which("libreoffice") is None:
        pytest.skip("LibreOffice is not installed: the deck rollout renders evidence")
    doc = _judge(original_package(tmp_path, drop_groups=drop_groups), tmp_path / "logs")
    golden = json.loads(GOLDEN.joinpath("result.json").read_text())
    assert doc["extra_fields"]["judge_coverage"] == 1.0 and doc["exit_code"] is None
    assert doc["task_score"] == golden["task_score"] == float(GOLDEN.joinpath("reward.txt").read_text())
    assert [(r["id"], r["hit"], r["level"], r["judged"]) for r in doc["results"]] == \
           [(r["id"], r["hit"], r["level"], r["judged"]) for r in golden["results"]]
