"""Trial 28 P-6: after a check is added to type1.json, gen-ppt-rubrics and lint both printed the manifest's exact new
``counts``/``type1_only`` but nothing wrote them: the author hand-edited manifest.json after every checklist edit.
``gen-ppt-rubrics --fix-manifest`` writes the derived fields (every other key, and the key order, kept), says what
changed, does nothing when they agree, and refuses a manifest that is not a JSON object."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lint.test_ppt_assets import T1, T2, files

from .test_gen_ppt_manifest import _task

MANIFEST = "workflow_assets/ppt_judge/task_check_dir/manifest.json"


def _gen(tests: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", str(tests), "--gate", "C-LOCATE-DECK",
                           *more], capture_output=True, text=True, timeout=120, check=False)


def _behind(tmp_path: Path) -> Path:
    """A package whose manifest predates its second type1 check; its keys in an order of the author's own."""
    assets = files(t1=[T1, {**T1, "id": "T1-B", "mandatory": False}], t2=[T2])
    manifest = json.loads(assets[MANIFEST])
    manifest["counts"]["type1"], manifest["type1_only"] = 1, []
    order = ["type1_only", "subject", "counts", "anchor_index", "pairs", "schema"]
    assets[MANIFEST] = json.dumps({**{k: manifest[k] for k in order}, "subject": "kept"}, indent=2)
    return _task(tmp_path, assets)


def test_fix_manifest_writes_the_derived_fields_and_keeps_the_rest(tmp_path):
    tests = _behind(tmp_path)
    before = json.loads((tests / MANIFEST).read_text())
    proc = _gen(tests, "--fix-manifest")
    assert proc.returncode == 0, proc.stderr
    after = json.loads((tests / MANIFEST).read_text())
    assert list(after) == list(before) and after["subject"] == "kept" and after["anchor_index"] == before["anchor_index"]
    assert after["counts"] == {**before["counts"], "type1": 2} and after["type1_only"] == ["T1-B"]
    assert "updated counts.type1: 1 → 2; type1_only: [] → ['T1-B']" in proc.stdout and "warning" not in proc.stderr
    lint = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert "A010" not in lint.stdout, lint.stdout
    again = _gen(tests, "--fix-manifest")
    assert again.returncode == 0 and "manifest.json: no change (counts, pairs and type1_only agree" in again.stdout


def test_without_the_flag_the_warnings_name_it_and_nothing_is_written(tmp_path):
    tests = _behind(tmp_path)
    text = (tests / MANIFEST).read_text()
    proc = _gen(tests)
    assert proc.returncode == 0 and (tests / MANIFEST).read_text() == text
    warnings = [line for line in proc.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 2 and all("run gen-ppt-rubrics --fix-manifest to write them" in w for w in warnings)


def test_a_manifest_that_is_no_json_object_is_refused_untouched(tmp_path):
    tests = _behind(tmp_path)
    rubric = (tests / "rubric.json").read_text()
    (tests / MANIFEST).write_text("[1, 2]\n")
    proc = _gen(tests, "--fix-manifest")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "manifest.json" in proc.stderr, proc.stderr
    assert (tests / MANIFEST).read_text() == "[1, 2]\n" and (tests / "rubric.json").read_text() == rubric


def test_a_missing_manifest_is_refused_with_the_skeleton_fix_manifest_completes(tmp_path):
    """Trial 33 P-4: a forgotten manifest.json was refused with a bare "missing"; the refusal now gives the skeleton
    (schema, subject, empty counts and pairs), and --fix-manifest fills it in."""
    tests = _behind(tmp_path)
    (tests / MANIFEST).unlink()
    proc = _gen(tests, "--fix-manifest")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    start = proc.stderr.index("start it with ") + len("start it with ")
    skeleton, _ = json.JSONDecoder().raw_decode(proc.stderr[start:])
    assert skeleton["counts"] == {} and skeleton["pairs"] == {} and "--fix-manifest fills" in proc.stderr
    (tests / MANIFEST).write_text(json.dumps(skeleton))
    proc = _gen(tests, "--fix-manifest")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tests / MANIFEST).read_text())["counts"] == {"type1": 2, "type2": 1, "mandatory": 1, "anchors": 1}
