"""``cowork-judge gen-ppt-rubrics``, content side: rows from the instance's task_check_dir
(weights 3/2/4, depends_on, tags, questions verbatim), ``--content`` alone, idempotence,
other rows untouched, and a broken checklist never written into a rubric."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from testkit import EXAMPLE_TESTS

from cowork_judge.authoring.gen_ppt_rubrics import GenError, generate_content
from cowork_judge.commands import main
from cowork_judge.workflow.ppt_judge.assets import TASK_CHECK_DIR, load_task_checks

ASSETS = EXAMPLE_TESTS / "workflow_assets" / "ppt_judge"
GATES = ["C-LOCATE-DECK", "C-DECK-OPENABLE"]


def instance(tmp_path: Path, *, keep_ppt: bool = True) -> Path:
    tests = tmp_path / "tests"
    shutil.copytree(EXAMPLE_TESTS, tests)
    if not keep_ppt:
        doc = json.loads((tests / "rubric.json").read_text())
        doc["rubrics"] = [r for r in doc["rubrics"] if r.get("workflow_name") != "ppt_judge"]
        (tests / "rubric.json").write_text(json.dumps(doc, indent=2))
    return tests


def rows(tests: Path) -> list[dict]:
    return json.loads((tests / "rubric.json").read_text())["rubrics"]


def test_content_rows_from_the_checklist(tmp_path, capsys):
    tests = instance(tmp_path, keep_ppt=False)
    before = rows(tests)
    assert main(["gen-ppt-rubrics", str(tests), "--content", "--gate", "C-DECK-OPENABLE"]) == 0
    assert "10 type1 + 8 type2 content row(s) (replacing 0)" in capsys.readouterr().out
    after = rows(tests)
    assert [r for r in after if r.get("workflow_name") != "ppt_judge"] == before  # untouched, in order
    assert not [r for r in after if r["id"].startswith("V-")]  # --content writes no visual row
    checks = load_task_checks(ASSETS)
    content = {r["id"]: r for r in after if r.get("workflow_group") in ("type1", "type2")}
    assert list(content) == [*checks.type1, *checks.type2]  # type1 in file order, then type2
    for c in checks.type1.values():
        assert content[c.id] == {"id": c.id, "description": c.question, "weight": 3.0 if c.mandatory else 2.0,
                                 "judge_method": "workflow", "workflow_name": "ppt_judge", "workflow_group": "type1",
                                 "depends_on": ["C-DECK-OPENABLE", "C-LOCATE-DECK"],
                                 "tag": f"content/coverage/{c.section}/{c.kind}"}
    for c in checks.type2.values():
        pair = checks.type1[c.paired_type1_id]
        assert content[c.id]["description"] == c.question and content[c.id]["weight"] == 4.0
        assert content[c.id]["depends_on"] == [pair.id, "C-DECK-OPENABLE", "C-LOCATE-DECK"]  # the pair, then the gates
        assert content[c.id]["tag"] == f"content/correctness/{pair.section}/{pair.kind}"


def test_it_is_idempotent_keeps_gates_and_refreshes_only_its_side(tmp_path, capsys):
    tests = instance(tmp_path)
    first = (tests / "rubric.json").read_bytes()
    assert main(["gen-ppt-rubrics", str(tests), "--content"]) == 0  # gates kept from the existing content rows
    assert (tests / "rubric.json").read_bytes() == first and "no change" in capsys.readouterr().out
    # an edited question reaches its row and only its row; visual rows are left as they are, even hand-edited ones
    doc = json.loads((tests / "rubric.json").read_text())
    doc["rubrics"] = [{**r, "weight": 9.0} if r["id"] == "V-LAYOUT-ALIGN" else r for r in doc["rubrics"]]
    (tests / "rubric.json").write_text(json.dumps(doc, indent=2))
    t1 = tests / "workflow_assets" / "ppt_judge" / TASK_CHECK_DIR / "type1.json"
    checks = json.loads(t1.read_text())
    checks["checks"][4]["question"] = "The deck presents routing."
    t1.write_text(json.dumps(checks))
    assert main(["gen-ppt-rubrics", str(tests), "--content"]) == 0
    after = {r["id"]: r for r in rows(tests)}
    assert after["T1-ROUTING"]["description"] == "The deck presents routing." and after["V-LAYOUT-ALIGN"]["weight"] == 9.0
    changed = [i for i, r in after.items() if r != {x["id"]: x for x in doc["rubrics"]}[i]]
    assert changed == ["T1-ROUTING"]
    assert main(["gen-ppt-rubrics", str(tests), "--no-balance"]) == 2  # the hand-edited weight is named, not lost
    assert "V-LAYOUT-ALIGN: weight 9.0 → 3.0" in capsys.readouterr().err
    assert main(["gen-ppt-rubrics", str(tests), "--no-balance", "--force"]) == 0  # the visual row is the template's again
    assert {r["id"]: r for r in rows(tests)}["V-LAYOUT-ALIGN"]["weight"] == 3.0


def test_new_content_rows_go_before_the_visual_rows(tmp_path):
    doc = {"rubrics": [{"id": "C", "description": "gate", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck"},
                       {"id": "V-X", "description": "old visual", "weight": 1, "judge_method": "workflow",
                        "workflow_name": "ppt_judge", "depends_on": ["C"]},
                       {"id": "A", "description": "agentic", "weight": 2}]}
    out = generate_content(doc, load_task_checks(ASSETS))
    ids = [r["id"] for r in out.document["rubrics"]]
    assert ids[0] == "C" and ids[-2:] == ["V-X", "A"] and len(ids) == 21
    assert out.gates == ["C"] and "visual rows' gates" in out.notes[0]  # no content row yet: the visual rows' gates


@pytest.mark.parametrize("damage, message", [
    (lambda d: (d / "anchors" / "frameworks.md").unlink(), "anchors/frameworks.md"),
    (lambda d: (d / "type1.json").write_text("[]"), "type1.json"),
    (lambda d: shutil.rmtree(d), "no task_check_dir"),
])
def test_a_broken_checklist_is_never_written(tmp_path, capsys, damage, message):
    tests = instance(tmp_path)
    original = (tests / "rubric.json").read_bytes()
    damage(tests / "workflow_assets" / "ppt_judge" / TASK_CHECK_DIR)
    assert main(["gen-ppt-rubrics", str(tests), "--content"]) == 2
    assert message in capsys.readouterr().err and (tests / "rubric.json").read_bytes() == original


def test_bad_arguments_and_id_clashes(tmp_path, capsys):
    tests = instance(tmp_path)
    assert main(["gen-ppt-rubrics", str(tests), "--content", "--balance", "1"]) == 2
    assert "--balance scales the visual rows" in capsys.readouterr().err
    with pytest.raises(GenError, match="already used by other rows of the rubric: T1-ROUTING"):
        generate_content([{"id": "T1-ROUTING", "description": "agentic twin", "weight": 1}], load_task_checks(ASSETS))
    with pytest.raises(GenError, match="names no row"):
        generate_content(None, load_task_checks(ASSETS), gates=["C-NOPE"])


def test_without_a_checklist_the_default_run_writes_the_visual_side_only(tmp_path, capsys):
    tests = instance(tmp_path, keep_ppt=False)
    shutil.rmtree(tests / "workflow_assets")
    assert main(["gen-ppt-rubrics", str(tests), "--gate", *GATES, "--no-balance"]) == 0
    out = capsys.readouterr().out
    assert "14 visual row(s)" in out and "content row" not in out
    assert not [r for r in rows(tests) if r.get("workflow_group") in ("type1", "type2")]
