"""Trial 11 F5: ``gen-ppt-rubrics`` wrote rows from a task_check_dir whose manifest.json disagreed with its checks
(a third type1 check, manifest still counting 2) and said nothing; lint-rubric then ERRORed A010. It now names each
disagreement when it writes, with the check lint uses (`TaskChecks.manifest_disagreements`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lint.test_ppt_assets import T1, T2, files

from cowork_judge.commands.lint import main as lint_main

GATE = {"id": "C-LOCATE-DECK", "description": "Exactly one deck is among the deliverables.", "weight": 1,
        "judge_method": "code", "code_method_name": "locate_deck"}


def _task(tmp_path: Path, assets: dict[str, str]) -> Path:
    tests = tmp_path / "deck" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [GATE]}))
    (tests / "task_prompt.md").write_text("Make a slide deck of 8 slides about A; save it as a .pptx file.\n")
    for name, text in assets.items():
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text(text)
    return tests


def _gen(tests: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", str(tests), "--gate", "C-LOCATE-DECK"],
                          capture_output=True, text=True, timeout=120)


def test_a_manifest_behind_its_checks_is_named_when_the_rows_are_written(tmp_path, capsys):
    assets = files(t1=[T1, {**T1, "id": "T1-B", "mandatory": False}])
    manifest = json.loads(assets["workflow_assets/ppt_judge/task_check_dir/manifest.json"])
    manifest["counts"]["type1"], manifest["type1_only"] = 1, []  # written before T1-B was added
    assets["workflow_assets/ppt_judge/task_check_dir/manifest.json"] = json.dumps(manifest)
    tests = _task(tmp_path, assets)
    proc = _gen(tests)
    assert proc.returncode == 0, proc.stderr
    assert "wrote 2 type1 + 1 type2 content row(s)" in proc.stdout
    counts = "manifest.json: counts disagree with the checks: type1 says 1, found 2"
    only = "manifest.json: type1_only is [] but the type1 checks without a type2 are ['T1-B']"
    warnings = [line for line in proc.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 2 and counts in warnings[1] and only in warnings[0], proc.stderr
    assert all("lint-rubric reports A010" in w for w in warnings)
    capsys.readouterr()
    assert lint_main([str(tests), "--format", "json"]) == 1
    a010 = [f["message"] for f in json.loads(capsys.readouterr().out)["instances"][0]["findings"] if f["code"] == "A010"]
    fix = " (run gen-ppt-rubrics --fix-manifest to write them)"  # trial 28 P-6: lint names the flag
    assert all(m.endswith(fix) for m in a010) and all("--fix-manifest to write them" in w for w in warnings)
    assert sorted(m.removesuffix(fix) for m in a010) == sorted([counts.split(": ", 1)[1], only.split(": ", 1)[1]])


def test_a_manifest_in_step_gives_no_warning(tmp_path):
    proc = _gen(_task(tmp_path, files(t2=[T2])))
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
