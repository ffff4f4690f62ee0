"""lint-rubric's ppt_judge asset checks (A010 ERROR, A011 WARN): a clean checklist lints with no
finding; each way of breaking it is reported where it is, and files the judge never reads are A001."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cowork_judge.lint.instance import lint_instance

from .conftest import BASE_ROWS, BASE_SH, rows

TCD = "workflow_assets/ppt_judge/task_check_dir"
T1 = {"id": "T1-A", "question": "The deck explains A.", "mandatory": True, "search_hints": ["a"], "section": "s", "kind": "k"}
T2 = {"id": "T2-A", "question": "The deck states A correctly.", "paired_type1_id": "T1-A", "scope": "page",
      "anchor_refs": ["anchors/a.md"]}
ROW1 = {"id": "T1-A", "description": T1["question"], "weight": 3.0, "judge_method": "workflow", "workflow_name": "ppt_judge",
        "workflow_group": "type1", "depends_on": ["C-DECK"]}
ROW2 = {"id": "T2-A", "description": T2["question"], "weight": 4.0, "judge_method": "workflow", "workflow_name": "ppt_judge",
        "workflow_group": "type2", "depends_on": ["T1-A", "C-DECK"]}


def files(t1: list[dict] | None = None, t2: list[dict] | None = None, manifest: dict | None = None,
          anchors: dict[str, str] | None = None) -> dict[str, str]:
    t1 = [T1] if t1 is None else t1
    t2 = [T2] if t2 is None else t2
    m = {"schema": "cowork-judge/ppt-task-check-manifest@1", "subject": "A",
         "counts": {"type1": len(t1), "type2": len(t2), "mandatory": sum(bool(c.get("mandatory")) for c in t1),
                    "anchors": len({r for c in t2 for r in c.get("anchor_refs", [])})},
         "pairs": {c["id"]: c["paired_type1_id"] for c in t2},
         "type1_only": [c["id"] for c in t1 if c["id"] not in {x["paired_type1_id"] for x in t2}], "anchor_index": {}}
    out = {f"{TCD}/manifest.json": json.dumps({**m, **(manifest or {})}),
           f"{TCD}/type1.json": json.dumps({"schema": "cowork-judge/ppt-type1-checks@1", "checks": t1}),
           f"{TCD}/type2.json": json.dumps({"schema": "cowork-judge/ppt-type2-checks@1", "checks": t2})}
    for name, text in (anchors if anchors is not None else {"a.md": "A is the first letter."}).items():
        out[f"{TCD}/anchors/{name}"] = text
    return out


def findings(make_instance, *, rubric: list[dict[str, Any]] | None = None, **kw: Any) -> list[tuple[str, str | None, str]]:
    kw.setdefault("sh", BASE_SH)  # ppt_judge needs it (M012)
    tests = make_instance(rubric=rubric if rubric is not None else rows(extra=[ROW1, ROW2]), **kw)
    return [(f.code, f.row, f.message) for f in lint_instance(tests).findings]


def test_a_clean_checklist_has_no_finding(make_instance):
    assert findings(make_instance, files=files()) == []


def test_an_empty_checklist_is_how_a_visual_only_deck_task_says_so(make_instance):
    visual = {"id": "V-X", "description": "Slides are legible.", "weight": 3, "judge_method": "workflow",
              "workflow_name": "ppt_judge", "type": "gradient", "levels": {"1": "yes", "0": "no"},
              "depends_on": ["C-DECK"]}
    assert findings(make_instance, rubric=rows(extra=[visual]), files=files(t1=[], t2=[], anchors={})) == []
    (got,) = findings(make_instance, rubric=rows(extra=[visual]))  # trial 18 P-1: the run judges it; lint warns
    assert got[0] == "A014" and "no task_check_dir" in got[2] and "asset_broken" not in got[2]


@pytest.mark.parametrize("what, kw, code, row, words", [
    ("a missing anchor", {"files": files(anchors={})}, "A010", "T2-A", "missing"),
    ("an empty anchor", {"files": files(anchors={"a.md": " \n"})}, "A010", "T2-A", "empty"),
    ("a check with no content row", {"files": files(t1=[T1, {**T1, "id": "T1-B", "mandatory": False}])},
     "A010", None, "check T1-B has no content row"),
    ("a content row with no check", {"rubric": rows(extra=[ROW1, ROW2, {**ROW1, "id": "T1-Z"}]), "files": files()},
     "A010", "T1-Z", "has no check"),
    ("a row of the wrong kind", {"rubric": rows(extra=[ROW1, {**ROW2, "workflow_group": "type1"}]), "files": files()},
     "A010", "T2-A", "declares it a type2 check"),
    ("depends_on without the pair", {"rubric": rows(extra=[ROW1, {**ROW2, "depends_on": ["C-DECK"]}]), "files": files()},
     "A010", "T2-A", "lacks its paired type1"),
    ("manifest pairs disagree", {"files": files(manifest={"pairs": {"T2-A": "T1-Q"}})}, "A010", None, "pairs['T2-A']"),
    ("manifest counts disagree", {"files": files(manifest={"counts": {"type1": 2, "type2": 1, "mandatory": 1,
                                                                      "anchors": 1}})}, "A010", None, "type1 says 2"),
    ("type1_only disagrees", {"files": files(manifest={"type1_only": ["T1-A"]})}, "A010", None, "type1_only"),
    ("an invalid check", {"files": files(t1=[{**T1, "mandatory": "yes"}])}, "A010", "T1-A", "mandatory"),
    ("a type2 paired with nothing", {"files": files(t2=[{**T2, "paired_type1_id": "T1-Q"}],
                                                    manifest={"pairs": {"T2-A": "T1-Q"}})},
     "A010", "T2-A", "is no type1 check"),
    ("an edited question", {"rubric": rows(extra=[{**ROW1, "description": "The deck explains A well."}, ROW2]),
                            "files": files()}, "A011", "T1-A", "verbatim"),
])
def test_each_break_is_found(make_instance, what, kw, code, row, words):
    got = findings(make_instance, **kw)
    assert any(c == code and r == row and words in m for c, r, m in got), (what, got)
    assert all(c in ("A010", "A011", "D001", "D003") for c, _, _ in got), (what, got)


def test_files_the_judge_never_reads_are_unused(make_instance):
    extra = {f"{TCD}/generation-log.json": "{}", f"{TCD}/anchors/unused.md": "x", "workflow_assets/ppt_judge/notes.txt": "y"}
    got = findings(make_instance, files={**files(), **extra})
    assert sorted((c, m) for c, _, m in got) == [("A001", "no workflow uses this file")] * 3


def test_base_rows_have_no_ppt_rows():
    assert not [r for r in BASE_ROWS if r.get("workflow_name") == "ppt_judge"]


def test_an_anchor_cited_through_a_symlink_uses_its_target(make_instance):
    """Issue 26: a symlinked anchor was reported unused (A001) though the judge reads it through the link."""
    kw = files()
    target_text = kw.pop(f"{TCD}/anchors/a.md")
    tests = make_instance(rubric=rows(extra=[ROW1, ROW2]), files={**kw, f"{TCD}/shared/a.md": target_text},
                          sh=BASE_SH)
    link = tests / TCD / "anchors" / "a.md"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(Path("..") / "shared" / "a.md")
    got = [(f.code, f.file, f.message) for f in lint_instance(tests).findings]
    assert got == [], got
