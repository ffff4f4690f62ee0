"""The example instance (``tests/``) is the complete mixed example: code gates, the visual rows
of the template, content rows from its task_check_dir, agentic rows — generated, not
hand-edited, and clean under lint-rubric."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from testkit import EXAMPLE_TESTS

from cowork_judge.authoring.gen_ppt_rubrics import CONTENT_WEIGHTS, load_template
from cowork_judge.commands import main
from cowork_judge.commands.lint import main as lint_main
from cowork_judge.core.rubric import load_rubric
from cowork_judge.lint.instance import lint_instance
from cowork_judge.workflow.ppt_judge.assets import load_task_checks

RUBRIC = load_rubric(EXAMPLE_TESTS / "rubric.json")
ROWS = RUBRIC.criteria
CHECKS = load_task_checks(EXAMPLE_TESTS / "workflow_assets" / "ppt_judge")
GATES = ("C-LOCATE-DECK", "C-DECK-OPENABLE")


def axis(c) -> str:
    if c.judge_method != "workflow":
        return c.judge_method
    return "content" if c.workflow.group in ("type1", "type2") else "visual"


def test_rows_per_axis():
    assert Counter(axis(c) for c in ROWS) == {"code": 2, "agentic": 5, "content": 18, "visual": 14}
    assert Counter(c.workflow.group for c in ROWS if axis(c) == "content") == {"type1": 10, "type2": 8}
    assert RUBRIC.warnings == ()
    assert [c.id for c in ROWS if c.hurdle] == ["A-HURDLE-NO-DECK"] and [c.id for c in ROWS if c.weight < 0] == ["A-FABRICATION"]
    assert any(c.graded for c in ROWS if axis(c) == "agentic")  # a graded agentic row (level snapping end to end)


def test_visual_rows_cover_every_cluster_verbatim_and_critical_rows_weigh_more():
    template = load_template()
    visual = {c.id: c for c in ROWS if axis(c) == "visual"}
    assert list(visual) == [q.id for q in template.rubrics]
    assert {c.workflow.group for c in visual.values()} == set(template.clusters)
    for q in template.rubrics:
        c = visual[q.id]
        assert c.description == q.question and c.workflow.group == q.cluster
        assert c.weight == template.weights["critical" if q.critical else "normal"]
    critical = {visual[q.id].weight for q in template.rubrics if q.critical}
    normal = {visual[q.id].weight for q in template.rubrics if not q.critical}
    assert min(critical) > max(normal)


def test_content_rows_are_the_checklist_verbatim_type2_heavier_than_type1():
    content = {c.id: c for c in ROWS if axis(c) == "content"}
    assert set(content) == set(CHECKS.type1) | set(CHECKS.type2) and CHECKS.problems == []
    for t1 in CHECKS.type1.values():
        c = content[t1.id]
        assert c.description == t1.question and c.workflow.group == "type1"
        assert c.weight == CONTENT_WEIGHTS["mandatory" if t1.mandatory else "type1"]
        assert c.tag == f"content/coverage/{t1.section}/{t1.kind}" and c.depends_on == GATES
    for t2 in CHECKS.type2.values():
        c = content[t2.id]
        assert c.description == t2.question and c.workflow.group == "type2" and c.weight == CONTENT_WEIGHTS["type2"]
        assert c.depends_on == (t2.paired_type1_id, *GATES)
    type1 = [c.weight for c in content.values() if c.workflow.group == "type1"]
    type2 = [c.weight for c in content.values() if c.workflow.group == "type2"]
    assert min(type2) > max(type1) and sorted(set(type1)) == [2.0, 3.0]
    assert sum(c.mandatory for c in CHECKS.type1.values()) == 3
    # both kinds of type2 scope, and the anchor_index fallback, are exercised by the example
    assert {c.scope for c in CHECKS.type2.values()} == {"page", "deck_wide"}
    assert any(not c.anchor_refs for c in CHECKS.type2.values())
    # the anchors are the essay's own subject matter, each naming its source
    assert all("Building effective agents" in text for text in CHECKS.anchors.values())


def test_every_ppt_row_is_gated_on_the_code_gates_and_the_axes_weigh_about_the_same():
    for c in ROWS:
        if c.judge_method == "workflow":
            assert set(GATES) <= set(c.depends_on), c.id
    visual = sum(c.weight for c in ROWS if axis(c) == "visual")
    content = sum(c.weight for c in ROWS if axis(c) == "content")
    assert (visual, content) == (54.0, 55.0)


def test_the_rubric_is_generated_not_hand_edited(tmp_path, capsys):
    tests = tmp_path / "tests"
    shutil.copytree(EXAMPLE_TESTS, tests)
    before = (tests / "rubric.json").read_bytes()
    assert main(["gen-ppt-rubrics", str(tests), "--gate", *GATES, "--no-balance"]) == 0
    assert (tests / "rubric.json").read_bytes() == before and "no change" in capsys.readouterr().out


def test_the_instance_lints_clean():
    report = lint_instance(EXAMPLE_TESTS, display="tests")
    assert [f.line() for f in report.findings if f.level == "ERROR" or f.code.startswith("A")] == []
    assert report.facts is not None and report.facts.workflows == frozenset({"ppt_judge"})
    assert json.loads((EXAMPLE_TESTS / "rubric.json").read_text())["workflow_config"]["ppt_judge"]["mode"] == "grouped"


def test_a_broken_copy_of_the_example_does_not_lint_clean(tmp_path, capsys):
    assert lint_main([str(EXAMPLE_TESTS)]) in (0, 1)  # 1 only for task.toml/test.sh findings outside this check
    assert " A0" not in capsys.readouterr().out
    tests = tmp_path / "inst" / "tests"
    shutil.copytree(EXAMPLE_TESTS, tests)
    (tests / "workflow_assets" / "ppt_judge" / "task_check_dir" / "anchors" / "principles.md").unlink()
    assert lint_main([str(tests), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    got = sorted((f["code"], f["row"], Path(f["file"]).name) for f in doc["instances"][0]["findings"]
                 if f["code"].startswith("A"))  # (the copy has no task.toml: T010, M012 are about that)
    assert got == [("A010", "T2-PRINCIPLES", "principles.md"), ("A010", "T2-SIMPLICITY-THROUGHOUT", "principles.md")]
