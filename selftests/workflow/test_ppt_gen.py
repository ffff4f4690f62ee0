"""``cowork-judge gen-ppt-rubrics``: the visual template, rows written from it verbatim,
other rows untouched, gates closed transitively, balance, dry run, idempotence."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from testkit import EXAMPLE_TESTS

from cowork_judge.authoring.gen_ppt_rubrics import GenError, TemplateError, generate, grid_levels, load_template, template_path
from cowork_judge.commands import main
from cowork_judge.core.rubric import load_rubric
from cowork_judge.workflow._contract import GRID_21
from cowork_judge.workflow.ppt_judge.decided import DECIDING_KINDS

CRITICAL = {"V-LAYOUT-CLIPPED", "V-LAYOUT-OVERLAP", "V-TYPE-GARBLED", "V-COMPLETE-BLANK"}


def instance(tmp_path: Path) -> Path:
    """The example instance without its ppt_judge rows and assets: the visual side alone
    (the content side, from task_check_dir, is tested in test_ppt_gen_content.py)."""
    tests = tmp_path / "tests"
    shutil.copytree(EXAMPLE_TESTS, tests, ignore=shutil.ignore_patterns("workflow_assets"))
    doc = json.loads((tests / "rubric.json").read_text())
    doc["rubrics"] = [r for r in doc["rubrics"] if r.get("workflow_name") != "ppt_judge"]
    (tests / "rubric.json").write_text(json.dumps(doc, indent=2))
    return tests


def test_the_template_has_fourteen_questions_over_five_clusters_and_critical_ones_weigh_more():
    t = load_template()
    assert len(t.rubrics) == 14 and t.clusters == ["layout", "typography", "colour", "imagery", "completeness"]
    assert {r.cluster for r in t.rubrics} == set(t.clusters)
    assert {r.id for r in t.rubrics if r.critical} == CRITICAL
    assert t.weights["critical"] > t.weights["normal"]
    na_pass = [r for r in t.rubrics if r.na_policy == "pass"]
    assert len(na_pass) >= 3 and all("N/A when" in r.question for r in na_pass)
    # the rows the checks decide about text fail on a deck with no text at all (trial 14 F5); the rest stay unset
    na_fail = {r.id for r in t.rubrics if r.na_policy == "fail"}
    assert na_fail == {"V-LAYOUT-CLIPPED", "V-TYPE-GARBLED", "V-TYPE-SIZE", "V-COMPLETE-PLACEHOLDER"}
    assert all(r.na_policy is None for r in t.rubrics if "N/A when" not in r.question and r.id not in na_fail)
    decided = [r for r in t.rubrics if r.decided_by]
    assert len(decided) == 6 and all(set(r.decided_by["checks"]) <= set(DECIDING_KINDS) for r in decided)
    # every critical row folds its pages with a power mean of p <= 0 (a page at 0 gives the row 0), and each critical
    # layout row is decided by the measured kinds that prove it
    assert all(r.page_mean_p is not None and r.page_mean_p <= 0 for r in t.rubrics if r.critical)
    kinds = {r.id: set(r.decided_by["checks"]) for r in decided}
    assert kinds["V-LAYOUT-CLIPPED"] == {"text_overflow", "off_slide"} and kinds["V-LAYOUT-OVERLAP"] == {"text_overlap"}


def test_a_broken_template_is_an_error_not_a_traceback(tmp_path):
    doc = json.loads(template_path().read_text())
    doc["rubrics"][0]["decided_by"] = {"checks": ["empty_deck"]}
    bad = tmp_path / "t.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(TemplateError, match="may not decide a row"):
        load_template(bad)
    with pytest.raises(TemplateError, match="cannot read"):
        load_template(tmp_path / "missing.json")


def test_rows_are_written_verbatim_and_the_rest_is_untouched(tmp_path, capsys):
    tests = instance(tmp_path)
    before = json.loads((tests / "rubric.json").read_text())["rubrics"]
    assert main(["gen-ppt-rubrics", str(tests), "--gate", "C-DECK-OPENABLE", "--no-balance"]) == 0
    after = json.loads((tests / "rubric.json").read_text())["rubrics"]
    visual = [r for r in after if r["id"].startswith("V-")]
    assert [r for r in after if not r["id"].startswith("V-")] == before  # every other row, unchanged, in order
    t = load_template()
    assert [r["id"] for r in visual] == [q.id for q in t.rubrics]
    for row, q in zip(visual, t.rubrics):
        assert row["description"] == q.question and row["workflow_group"] == q.cluster
        assert row["weight"] == (6.0 if q.critical else 3.0)
        assert row["judge_method"] == "workflow" and row["workflow_name"] == "ppt_judge" and row["type"] == "gradient"
        assert row.get("na_policy") == q.na_policy and row.get("decided_by") == q.decided_by
        assert row.get("page_mean_p") == (-2.0 if q.critical else None)  # written into every critical row
        assert row["depends_on"] == ["C-DECK-OPENABLE", "C-LOCATE-DECK"]  # closed: the gate's own gate added
        assert [float(k) for k in row["levels"]] == sorted(GRID_21, reverse=True)
    rubric = load_rubric(tests / "rubric.json")
    assert rubric.warnings == ()
    assert all(c.level_choices == GRID_21 for c in rubric.criteria if c.id.startswith("V-"))  # grid levels survive scoring
    assert "transitively" in capsys.readouterr().err


def test_it_is_idempotent_and_keeps_the_gates_when_run_again(tmp_path, capsys):
    tests = instance(tmp_path)
    assert main(["gen-ppt-rubrics", str(tests), "--gate", "C-LOCATE-DECK", "C-DECK-OPENABLE", "--no-balance"]) == 0
    first = (tests / "rubric.json").read_bytes()
    assert main(["gen-ppt-rubrics", str(tests), "--gate", "C-LOCATE-DECK", "C-DECK-OPENABLE", "--no-balance"]) == 0
    assert (tests / "rubric.json").read_bytes() == first and "no change" in capsys.readouterr().out
    assert main(["gen-ppt-rubrics", str(tests), "--no-balance"]) == 0  # no --gate: the existing visual rows' gates are kept
    assert (tests / "rubric.json").read_bytes() == first


def test_dry_run_prints_the_diff_and_writes_nothing(tmp_path, capsys):
    tests = instance(tmp_path)
    original = (tests / "rubric.json").read_bytes()
    assert main(["gen-ppt-rubrics", str(tests), "--dry-run", "--no-balance"]) == 0
    out = capsys.readouterr().out
    assert (tests / "rubric.json").read_bytes() == original
    assert '+      "id": "V-LAYOUT-CLIPPED",' in out and out.startswith("---")


def test_balance_scales_visual_weights_to_the_content_ratio(tmp_path):
    tests = instance(tmp_path)
    assert main(["gen-ppt-rubrics", str(tests), "--balance", "0.5"]) == 0
    rows = json.loads((tests / "rubric.json").read_text())["rubrics"]
    content = sum(r["weight"] for r in rows if not r["id"].startswith("V-") and r.get("judge_method") != "code"
                  and not r.get("hurdle") and r["weight"] > 0)
    visual = sum(r["weight"] for r in rows if r["id"].startswith("V-"))
    assert visual / content == pytest.approx(0.5, abs=1e-3)
    critical = {r["weight"] for r in rows if r["id"] in CRITICAL}
    normal = {r["weight"] for r in rows if r["id"].startswith("V-") and r["id"] not in CRITICAL}
    assert len(critical) == len(normal) == 1 and critical.pop() == pytest.approx(2 * normal.pop(), abs=1e-3)


def test_balance_is_the_default(tmp_path, capsys):
    """Issue 26: without a flag the template's 14 visual rows (Σ 54) outweighed the author's rows; now 1 : 1."""
    tests = instance(tmp_path)
    assert main(["gen-ppt-rubrics", str(tests)]) == 0
    rows = json.loads((tests / "rubric.json").read_text())["rubrics"]
    content = sum(r["weight"] for r in rows if not r["id"].startswith("V-") and r.get("judge_method") != "code"
                  and not r.get("hurdle") and r["weight"] > 0)
    visual = sum(r["weight"] for r in rows if r["id"].startswith("V-"))
    assert visual / content == pytest.approx(1.0, abs=1e-3)
    assert "balance 1:" in capsys.readouterr().err
    fresh = tmp_path / "fresh" / "tests"
    fresh.mkdir(parents=True)  # no content rows: nothing to balance against, the template's weights stay
    assert main(["gen-ppt-rubrics", str(fresh)]) == 0
    assert "no content weight to balance against" in capsys.readouterr().err
    assert sum(r["weight"] for r in json.loads((fresh / "rubric.json").read_text())["rubrics"]) == 54
    assert main(["gen-ppt-rubrics", str(tests), "--no-balance", "--balance", "2"]) == 2


@pytest.mark.parametrize("args, message", [
    (["--gate", "C-NOPE"], "names no row"),
    (["--balance", "0"], "positive"),
    (["--balance", "-1"], "positive"),
])
def test_bad_arguments_exit_2_with_a_message(tmp_path, capsys, args, message):
    tests = instance(tmp_path)
    original = (tests / "rubric.json").read_bytes()
    assert main(["gen-ppt-rubrics", str(tests), *args]) == 2
    assert message in capsys.readouterr().err and (tests / "rubric.json").read_bytes() == original


def test_shapes(tmp_path):
    t = load_template()
    bare = generate([{"id": "A", "description": "x", "weight": 2}], t)
    assert isinstance(bare.document, list) and bare.document[0]["id"] == "A" and len(bare.document) == 15
    new = generate(None, t)
    assert list(new.document) == ["rubrics"] and len(new.document["rubrics"]) == 14
    with pytest.raises(GenError, match="id → row mapping"):
        generate({"A": {"description": "x"}}, t)
    with pytest.raises(GenError, match="no positive content weight"):
        generate(None, t, balance=1.0)
    assert main(["gen-ppt-rubrics", str(tmp_path / "missing")]) == 2


def test_visual_rows_are_replaced_in_place():
    t = load_template()
    rows = [{"id": "C", "description": "gate", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck"},
            {"id": "V-OLD", "description": "old", "weight": 1, "judge_method": "workflow", "workflow_name": "ppt_judge"},
            {"id": "K-CONTENT", "description": "content row", "weight": 4, "judge_method": "workflow",
             "workflow_name": "ppt_judge"},
            {"id": "A", "description": "agentic", "weight": 2}]
    out = generate({"rubrics": rows, "workflow_config": {"ppt_judge": {"mode": "split"}}}, t)
    ids = [r["id"] for r in out.document["rubrics"]]
    assert ids[0] == "C" and ids[1:15] == [q.id for q in t.rubrics] and ids[15:] == ["K-CONTENT", "A"]
    assert out.replaced == 1 and out.document["workflow_config"] == {"ppt_judge": {"mode": "split"}}
    assert grid_levels(t)["0.5"] == t.levels["0.5"] and grid_levels(t)["0.55"] == t.level_filler
