"""The content axis of ppt_judge on the example deck's real evidence, through the run's real
workflow transport against the simulator: calls per row from the request log, pass B only
turning misses into hits, the pages that decided a hit in its evidence, type2 routing and
its short-circuits, broken assets costing only their rows, failures and the budget costing
whole rows, and content judged before visual."""

from __future__ import annotations

import shutil

import pytest
from run.test_e2e import DECK_CALLS_CONTENT, DECK_ORACLE

from cowork_judge.sim import FaultPlan, LatencyModel
from cowork_judge.workflow.ppt_judge import content_pages

from .conftest import EXAMPLE_TESTS, example_rows

CONTENT = example_rows(visual=False)
ORACLE = {k: v for k, v in DECK_ORACLE.items() if k.startswith(("T1-", "T2-"))}
IMG = "evidence/pages/build_effective_agents.pptx/page-{:03d}.png"
# calls per row with DECK_ORACLE (module docstring of content.py): type1 = 1 + pass B pages, type2 = routed pages
CALLS = {
    "T1-WORKFLOWS-AGENTS": 1, "T1-WHEN-AGENTS": 1, "T1-AUGMENTED-LLM": 1, "T1-PROMPT-CHAINING": 1, "T1-ROUTING": 1,
    "T1-PARALLELIZATION": 1 + 3, "T1-ORCHESTRATOR-WORKERS": 1 + 3, "T1-EVALUATOR-OPTIMIZER": 1 + 1,
    "T1-FRAMEWORKS": 1, "T1-PRINCIPLES": 1,
    "T2-WORKFLOWS-AGENTS": 1, "T2-WHEN-AGENTS": 1, "T2-SIMPLICITY-THROUGHOUT": 3, "T2-AUGMENTED-LLM": 2,
    "T2-PARALLELIZATION": 0, "T2-EVALUATOR-OPTIMIZER": 1, "T2-FRAMEWORKS": 1, "T2-PRINCIPLES": 1,
}
HITS = {"T1-WORKFLOWS-AGENTS", "T1-WHEN-AGENTS", "T1-AUGMENTED-LLM", "T1-PROMPT-CHAINING", "T1-ROUTING",
        "T1-EVALUATOR-OPTIMIZER", "T1-FRAMEWORKS", "T1-PRINCIPLES", "T2-WORKFLOWS-AGENTS", "T2-WHEN-AGENTS",
        "T2-SIMPLICITY-THROUGHOUT", "T2-AUGMENTED-LLM", "T2-EVALUATOR-OPTIMIZER", "T2-PRINCIPLES"}


def test_every_row_costs_its_documented_calls_and_gets_its_verdict(run_ppt):
    run = run_ppt(CONTENT, ORACLE)
    assert sum(CALLS.values()) == DECK_CALLS_CONTENT == len(run.requests) == 27
    for rid, n in CALLS.items():
        assert len(run.calls_of(rid)) == n, (rid, [(e.page, e.row_ids) for e in run.calls_of(rid)])
        assert all(e.row_ids == [rid] for e in run.calls_of(rid))  # one row per content request
    assert {r for r, v in run.verdicts.items() if v.judged and v.hit} == HITS
    assert all(v.judged for v in run.verdicts.values())
    # one worker: every pass A (no page), then every pass B, then every type2 call
    kinds = ["A" if e.page is None else "B" if e.row_ids[0].startswith("T1-") else "2" for e in run.requests]
    assert kinds == ["A"] * 10 + ["B"] * 7 + ["2"] * 10
    assert [e.page for e in run.calls_of("T1-PARALLELIZATION")] == [None, 10, 8, 9]  # text-poor pages, fewest chars first
    assert [e.images for e in run.requests] == [0] * 10 + [1] * 17
    rows = {r["row"]: r for r in run.audit.named("content_rows")}
    assert {rid: r["calls"] for rid, r in rows.items()} == CALLS


def test_pass_b_turns_a_miss_into_a_hit_and_records_the_deciding_page(run_ppt):
    run = run_ppt(CONTENT, ORACLE)
    v = run.verdicts["T1-EVALUATOR-OPTIMIZER"]
    assert v.hit and "pass B, page image" in v.reason and v.evidence == [IMG.format(9)]
    assert [e.page for e in run.calls_of("T1-EVALUATOR-OPTIMIZER")] == [None, 9]  # pass A's candidate only
    a = run.verdicts["T1-AUGMENTED-LLM"]
    assert a.hit and "pass A, slide text" in a.reason and a.evidence == [IMG.format(5), IMG.format(8)]
    # its type2 is routed to exactly those pages, and cites the page that stated it correctly
    assert [e.page for e in run.calls_of("T2-AUGMENTED-LLM")] == [5, 8]
    assert run.verdicts["T2-AUGMENTED-LLM"].evidence == [IMG.format(5)]
    # deck_wide: the paired type1's page, then the densest pages (6: 436 characters, 5: 300)
    assert sorted(e.page for e in run.calls_of("T2-SIMPLICITY-THROUGHOUT")) == [3, 5, 6]


def test_pass_b_never_turns_a_hit_into_a_miss(run_ppt):
    oracle = {"T1-ROUTING": {"hit": True, "pages": [5]}, "T1-ROUTING@5": {"hit": False},
              "T1-PARALLELIZATION": {"hit": False, "pages": [5]}, "T1-PARALLELIZATION@5": {"hit": False}}
    rows = [c for c in CONTENT if c.id in oracle]
    run = run_ppt(rows, oracle)
    assert run.verdicts["T1-ROUTING"].hit is True and len(run.calls_of("T1-ROUTING")) == 1  # a hit is final: no pass B
    v = run.verdicts["T1-PARALLELIZATION"]
    assert v.judged and v.hit is False and v.evidence == [] and "pass B looked at page(s) 5" in v.reason


def test_a_type1_miss_short_circuits_its_type2_with_no_call(run_ppt):
    run = run_ppt(CONTENT, ORACLE)
    v = run.verdicts["T2-PARALLELIZATION"]
    assert v.judged and v.hit is False and v.gate == "closed" and v.reason == "[gate] T1-PARALLELIZATION was judged and missed"
    assert run.calls_of("T2-PARALLELIZATION") == []
    wrong = run.verdicts["T2-FRAMEWORKS"]
    assert wrong.judged and not wrong.hit and "stated wrongly on page(s) 4" in wrong.reason and wrong.evidence == [IMG.format(4)]


def test_a_failed_pass_a_leaves_its_row_unjudged_and_its_type2_dep_unjudged(run_ppt):
    # one worker, one try: the first request (T1-WORKFLOWS-AGENTS's pass A) fails for good
    run = run_ppt(CONTENT, ORACLE, faults=FaultPlan(script=["http_5xx"]), tries=1)
    t1, t2 = run.verdicts["T1-WORKFLOWS-AGENTS"], run.verdicts["T2-WORKFLOWS-AGENTS"]
    assert not t1.judged and t1.error_kind == "vlm_error" and "pass A" in t1.reason
    assert not t2.judged and t2.error_kind == "dep_unjudged" and run.calls_of("T2-WORKFLOWS-AGENTS") == []
    assert len(run.requests) == DECK_CALLS_CONTENT - 1  # the failed call, and no type2 call
    assert all(v.judged for r, v in run.verdicts.items() if r not in ("T1-WORKFLOWS-AGENTS", "T2-WORKFLOWS-AGENTS"))


def test_a_failed_pass_b_page_leaves_a_miss_unjudged_but_cannot_undo_a_hit(run_ppt):
    rows = [c for c in CONTENT if c.id in ("T1-PARALLELIZATION", "T1-EVALUATOR-OPTIMIZER")]
    oracle = {"T1-PARALLELIZATION": {"hit": False}, "T1-EVALUATOR-OPTIMIZER": {"hit": False, "pages": [9, 8]},
              "T1-EVALUATOR-OPTIMIZER@9": {"hit": True}}
    # requests: A(parallel), A(evaluator), B(parallel p10) fails, B(parallel p8), B(parallel p9), B(eval p9), B(eval p8) fails
    run = run_ppt(rows, oracle, faults=FaultPlan(script=["ok", "ok", "http_5xx", "ok", "ok", "ok", "http_5xx"]), tries=1)
    p = run.verdicts["T1-PARALLELIZATION"]
    assert not p.judged and p.error_kind == "vlm_error" and "could not look at every page" in p.reason
    e = run.verdicts["T1-EVALUATOR-OPTIMIZER"]
    assert e.judged and e.hit and e.evidence == [IMG.format(9)]


def test_a_broken_anchor_file_makes_only_its_rows_asset_broken(run_ppt, tmp_path):
    assets = tmp_path / "ppt_judge"
    shutil.copytree(EXAMPLE_TESTS / "workflow_assets" / "ppt_judge", assets)
    (assets / "task_check_dir" / "anchors" / "frameworks.md").write_bytes(b"\xff\xfe\x00 not text")
    run = run_ppt(CONTENT, ORACLE, assets_dir=assets)
    broken = {r for r, v in run.verdicts.items() if v.error_kind == "asset_broken"}
    assert broken == {"T2-FRAMEWORKS"} and "anchors/frameworks.md" in run.verdicts["T2-FRAMEWORKS"].reason
    assert run.calls_of("T2-FRAMEWORKS") == [] and len(run.requests) == DECK_CALLS_CONTENT - 1
    assert all(v.judged for r, v in run.verdicts.items() if r != "T2-FRAMEWORKS")


def test_no_assets_make_every_content_row_asset_broken_and_visual_rows_still_judged(run_ppt, tmp_path):
    visual = [c for c in example_rows(content=False) if c.id == "V-COLOUR-HARMONY"]
    run = run_ppt(CONTENT + visual, {**ORACLE, "V-COLOUR-HARMONY": {"hit": True, "level": 0.6}}, assets_dir=tmp_path / "none")
    assert {v.error_kind for r, v in run.verdicts.items() if r.startswith("T")} == {"asset_broken"}
    assert run.verdicts["V-COLOUR-HARMONY"].level == 0.6 and len(run.requests) == 10  # one colour call per page
    assert "no task_check_dir" in run.verdicts["T1-ROUTING"].reason


def test_content_runs_before_visual_and_the_budget_loses_content_rows_whole_visual_pages_not_rows(run_ppt):
    checked = {"V-LAYOUT-CLIPPED", "V-TYPE-GARBLED", "V-TYPE-SIZE", "V-COMPLETE-BLANK", "V-COMPLETE-PLACEHOLDER"}
    visual = [c for c in example_rows(content=False) if c.id not in checked]  # 9 rows the VLM judges
    oracle = {**ORACLE, **{c.id: {"hit": True, "level": 1.0} for c in visual}}
    latency = LatencyModel.uniform(300)
    timed = run_ppt(CONTENT, ORACLE, latency=latency)  # how long the content axis takes here, alone
    # split mode: 90 visual calls (27 s) cannot fit in what the content axis leaves (~half its time + 1 s)
    run = run_ppt(CONTENT + visual, oracle, latency=latency, budget=1.5 * timed.seconds + 1.0, settings={"mode": "split"})
    content_seq = [e.seq for e in run.requests if any(i.startswith("T") for i in e.row_ids)]
    visual_seq = [e.seq for e in run.requests if any(i.startswith("V-") for i in e.row_ids)]
    assert len(content_seq) == DECK_CALLS_CONTENT and visual_seq and max(content_seq) < min(visual_seq)
    assert all(v.judged for r, v in run.verdicts.items() if r.startswith("T"))
    judged_visual = [run.verdicts[c.id] for c in visual if run.verdicts[c.id].judged]
    assert judged_visual, "the visual axis got no page at all"
    for v in judged_visual:  # judged on the first pages, the last ones lost to the budget
        assert v.level == 1.0 and "pages not judged (timeout: page" in v.reason and "-10)" in v.reason, v.reason
    # a budget too short for the content axis: rows are decided whole or lost whole, never judged on a part
    short = run_ppt(CONTENT + visual, oracle, latency=LatencyModel.uniform(400), budget=1.2)
    lost = {r for r, v in short.verdicts.items() if not v.judged}
    assert lost and {short.verdicts[r].error_kind for r in lost} <= {"timeout", "dep_unjudged"}
    assert {c.id for c in visual} <= lost  # content first: nothing was left for the visual axis
    for rid, v in short.verdicts.items():
        if rid.startswith("T1-") and v.judged:
            assert len(short.calls_of(rid)) == CALLS[rid]


def test_a_deck_fault_misses_type1_and_gates_type2_an_environment_problem_is_unjudged(run_ppt, tmp_path):
    from cowork_judge.workflow.ppt_judge.assets import load_task_checks
    from cowork_judge.workflow.ppt_judge.content import problem_verdicts

    checks = load_task_checks(EXAMPLE_TESTS / "workflow_assets" / "ppt_judge")
    fault = problem_verdicts(CONTENT, checks, deck_fault=True, kind=None, reason="the deck has no slides")
    assert fault["T1-ROUTING"].judged and fault["T1-ROUTING"].hit is False and fault["T1-ROUTING"].reason.startswith("[deck]")
    assert fault["T2-FRAMEWORKS"].reason == "[gate] T1-FRAMEWORKS was judged and missed"
    env = problem_verdicts(CONTENT, checks, deck_fault=False, kind="render_env", reason="no LibreOffice")
    assert env["T1-ROUTING"].error_kind == "render_env" and env["T2-FRAMEWORKS"].error_kind == "dep_unjudged"


def test_the_bounds_are_what_the_readme_says():
    assert (content_pages.MAX_PASS_B_PAGES, content_pages.MAX_DECISION_PAGES, content_pages.DECK_WIDE_PAGES) == (3, 3, 3)


@pytest.mark.parametrize("reply, kind", [("not json at all", "parse_error"), ("", "parse_error")])
def test_an_unreadable_reply_loses_only_that_row(run_ppt, reply, kind):
    rows = [c for c in CONTENT if c.id in ("T1-ROUTING", "T2-WORKFLOWS-AGENTS", "T1-WORKFLOWS-AGENTS")]
    fault = "malformed_json" if reply else "empty"
    run = run_ppt(rows, ORACLE, faults=FaultPlan(script=[fault]))  # the first request: T1-WORKFLOWS-AGENTS's pass A
    assert run.verdicts["T1-WORKFLOWS-AGENTS"].error_kind == kind
    assert run.verdicts["T2-WORKFLOWS-AGENTS"].error_kind == "dep_unjudged"
    assert run.verdicts["T1-ROUTING"].judged and run.verdicts["T1-ROUTING"].hit
