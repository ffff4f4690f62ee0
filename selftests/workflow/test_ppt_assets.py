"""ppt_judge's task_check_dir: the format (JSON Schema and loader agree), and what a bad asset
costs — only the checks it touches, each with a reason, never an exception."""

from __future__ import annotations

import json
import os
import shutil
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from testkit import EXAMPLE_TESTS

from cowork_judge.workflow.ppt_judge.assets import (
    MAX_ANCHOR_BYTES,
    TASK_CHECK_DIR,
    load_task_checks,
)

EXAMPLE_ASSETS = EXAMPLE_TESTS / "workflow_assets" / "ppt_judge"
SCHEMA = json.loads(resources.files("cowork_judge").joinpath("schemas/ppt_task_check.schema.json").read_text())


def copy(tmp_path: Path) -> Path:
    """The example's ppt_judge asset folder, copied (returns the folder holding task_check_dir)."""
    dest = tmp_path / "ppt_judge"
    shutil.copytree(EXAMPLE_ASSETS, dest)
    return dest


def edit(folder: Path, name: str, change) -> None:
    path = folder / TASK_CHECK_DIR / name
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_the_example_checklist_loads_clean_and_matches_the_json_schema():
    checks = load_task_checks(EXAMPLE_ASSETS)
    assert checks.present and checks.problems == [] and checks.broken == {}
    assert len(checks.type1) == 10 and len(checks.type2) == 8
    names = ("building-blocks", "frameworks", "principles", "when-to-use-agents", "workflows-vs-agents")
    assert sorted(checks.anchors) == [f"anchors/{n}.md" for n in names]
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for name in ("manifest.json", "type1.json", "type2.json"):
        jsonschema.validate(json.loads((EXAMPLE_ASSETS / TASK_CHECK_DIR / name).read_text()), SCHEMA)
    # T2-PRINCIPLES names no anchor: manifest.anchor_index is its fallback
    assert checks.type2["T2-PRINCIPLES"].anchor_refs == [] and checks.anchor_refs(checks.type2["T2-PRINCIPLES"]) == [
        "anchors/principles.md"]
    assert {p.name for p in checks.used_files()} == {"manifest.json", "type1.json", "type2.json", "building-blocks.md",
                                                     "frameworks.md", "principles.md", "when-to-use-agents.md",
                                                     "workflows-vs-agents.md"}


@pytest.mark.parametrize("doc", [
    {"schema": "cowork-judge/ppt-type1-checks@1", "checks": [{"id": "T1", "question": "q", "section": "s"}]},  # no kind
    {"schema": "cowork-judge/ppt-type1-checks@1", "checks": [{"id": "V-X", "question": "q", "section": "s", "kind": "k"}]},
    {"schema": "cowork-judge/ppt-type1-checks@1", "checks": [{"id": "T1", "question": "", "section": "s", "kind": "k"}]},
    {"schema": "cowork-judge/ppt-type2-checks@1", "checks": [{"id": "T2", "question": "q", "paired_type1_id": "T1",
                                                              "scope": "everywhere"}]},
    {"schema": "cowork-judge/ppt-type2-checks@1", "checks": [{"id": "T2", "question": "q", "paired_type1_id": "T1",
                                                              "anchor_refs": ["../../rubric.json"]}]},
    {"schema": "cowork-judge/ppt-type2-checks@1", "checks": [{"id": "T2", "question": "q", "paired_type1_id": "T1",
                                                              "weight": 4}]},
])
def test_the_schema_and_the_loader_refuse_the_same_checks(tmp_path, doc):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, SCHEMA)
    folder = tmp_path / "ppt_judge" / TASK_CHECK_DIR
    (folder / "anchors").mkdir(parents=True)
    (folder / "anchors" / "a.md").write_text("truth")
    t1 = {"schema": "cowork-judge/ppt-type1-checks@1", "checks": [{"id": "T1", "question": "q", "section": "s", "kind": "k"}]}
    t2 = {"schema": "cowork-judge/ppt-type2-checks@1", "checks": []}
    files = {"type1.json": t1, "type2.json": t2, **({"type1.json": doc} if "type1" in doc["schema"] else {"type2.json": doc})}
    for name, content in files.items():
        (folder / name).write_text(json.dumps(content))
    checks = load_task_checks(folder.parent)
    bad = doc["checks"][0]["id"]
    assert bad in checks.broken and bad not in checks.type1 and bad not in checks.type2
    assert any(p.check == bad for p in checks.problems)


def test_a_missing_anchor_breaks_only_the_type2_checks_that_cite_it(tmp_path):
    folder = copy(tmp_path)
    (folder / TASK_CHECK_DIR / "anchors" / "frameworks.md").unlink()
    checks = load_task_checks(folder)
    assert set(checks.broken) == {"T2-FRAMEWORKS"} and "anchors/frameworks.md" in checks.broken["T2-FRAMEWORKS"]
    assert "missing" in checks.broken["T2-FRAMEWORKS"]
    assert len(checks.type1) == 10 and len(checks.type2) == 7
    assert checks.why_unusable("T2-FRAMEWORKS", "type2") == checks.broken["T2-FRAMEWORKS"]
    assert checks.why_unusable("T1-FRAMEWORKS", "type1") is None


@pytest.mark.parametrize("damage, words", [
    (lambda p: p.write_bytes(b"\xff\xfe not utf-8"), "not UTF-8"),
    (lambda p: p.write_text("   \n"), "empty"),
    (lambda p: p.write_text("x" * (MAX_ANCHOR_BYTES + 1)), "over the"),
    (lambda p: (p.unlink(), p.mkdir()), "not a regular file"),
    (lambda p: (p.unlink(), os.symlink("/etc/hostname", p)), "outside task_check_dir"),
])
def test_a_bad_anchor_file_is_a_named_problem(tmp_path, damage, words):
    folder = copy(tmp_path)
    damage(folder / TASK_CHECK_DIR / "anchors" / "building-blocks.md")
    checks = load_task_checks(folder)
    assert set(checks.broken) == {"T2-AUGMENTED-LLM", "T2-PARALLELIZATION", "T2-EVALUATOR-OPTIMIZER"}
    assert all(words in why for why in checks.broken.values()), checks.broken


def test_an_unreadable_type1_file_breaks_the_type1_checks_not_the_type2_assets(tmp_path):
    folder = copy(tmp_path)
    (folder / TASK_CHECK_DIR / "type1.json").write_text("{not json")
    checks = load_task_checks(folder)
    assert checks.type1 == {} and "type1" in checks.files_broken and "not valid JSON" in checks.files_broken["type1"]
    assert checks.why_unusable("T1-ROUTING", "type1") == checks.files_broken["type1"]
    # the type2 checks pair with ids the broken file no longer declares: they are broken too, with that reason
    assert all("is no type1 check" in checks.broken[t] for t in checks.broken)


def test_duplicates_prefixes_pairs_and_missing_files(tmp_path):
    folder = copy(tmp_path)
    edit(folder, "type2.json", lambda d: d["checks"].append({**d["checks"][0], "id": "T1-ROUTING"}))
    edit(folder, "type2.json", lambda d: d["checks"][1].update(paired_type1_id="T2-WORKFLOWS-AGENTS"))
    checks = load_task_checks(folder)
    assert "declared twice" in checks.broken["T1-ROUTING"] and "T1-ROUTING" not in checks.type1
    assert "is a type2 check" in checks.broken["T2-WHEN-AGENTS"]
    (folder / TASK_CHECK_DIR / "manifest.json").unlink()
    checks = load_task_checks(folder)
    assert any(p.file == "manifest.json" and p.message.startswith("missing: start it with") for p in checks.problems)
    assert "T2-PRINCIPLES" in checks.broken  # its anchors came from manifest.anchor_index
    (folder / TASK_CHECK_DIR / "type2.json").unlink()
    why = load_task_checks(folder).files_broken["type2"]  # no manifest saying type2: 0, so it is missing (trial 25 P-4)
    assert "missing (neither type2.json nor the original's type2_checklist.json); a deck with coverage" in why


def test_no_folder_and_a_row_of_the_wrong_kind(tmp_path):
    checks = load_task_checks(tmp_path / "nothing")
    assert not checks.present and "no task_check_dir" in checks.why_unusable("T1-X", "type1")
    assert load_task_checks(None).present is False
    example = load_task_checks(EXAMPLE_ASSETS)
    assert "declares it a type2 check" in example.why_unusable("T2-FRAMEWORKS", "type1")
    assert "no type1 check with this id" in example.why_unusable("T1-NOPE", "type1")
