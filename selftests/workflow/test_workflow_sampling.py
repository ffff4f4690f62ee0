"""Workflows sampled (issue 28): ppt_judge's page cells (rounds per page, re-asks regrouped per
page) and content passes on the example deck's real evidence, and answer_match's model
decision through the real command line — always against a simulator that flips each
row's answer per request (``--flip``), over HTTP with the real ``openai`` client."""

from __future__ import annotations

import json
import math
from collections import defaultdict

from run.test_e2e import DECK_ORACLE

from cowork_judge.core.sampling import lower_median
from cowork_judge.sim.policies import RequestFlip
from cowork_judge.workflow._contract import power_mean
from cowork_judge.workflow.answer_match.rows import answer_row
from cowork_judge.workflow.ppt_judge.aggregate import snap_down

from .conftest import example_rows

VISUAL = example_rows(content=False)
CONTENT = example_rows(visual=False)
GROUP = 4


def _by_page(samples):
    pages = defaultdict(list)
    for s in samples:
        pages[s.page].append(s)
    return pages


def test_page_cells_are_asked_twice_and_only_split_cells_again_regrouped_per_page(run_ppt):
    oracle = {c.id: {"hit": True, "level": 1.0} for c in VISUAL}
    run = run_ppt(VISUAL, oracle, samples=3, flip=RequestFlip(0.3, seed=4), settings={"mode": "grouped", "group_size": GROUP})
    third: dict[int, set[str]] = defaultdict(set)
    asked: dict[int, set[str]] = defaultdict(set)
    for rid, v in run.verdicts.items():
        if not v.samples:
            continue  # every page decided by the deterministic checks: nothing asked
        assert v.judged and v.agreement is not None
        cells = []
        for page, samples in _by_page(v.samples).items():
            asked[page].add(rid)
            first, second = samples[0].level, samples[1].level
            assert len(samples) == (3 if first != second else 2), (rid, page)  # 1.0 or flipped to 0: apart by the whole grid
            if len(samples) == 3:
                third[page].add(rid)
            cells.append(lower_median([s.level for s in samples]))
        if len(cells) == v.aggregate.pages_judged:  # every page asked (none decided by the checks)
            assert v.level == snap_down(power_mean(cells, v.aggregate.p))  # the row folds the REDUCED cells
    assert any(third.values()), "the seed flips some cell"
    for page in asked:
        requests = [e for e in run.requests if e.page == page]  # one worker: page first, a page's re-asks last
        reasks = requests[len(requests) - math.ceil(len(third[page]) / GROUP):] if third[page] else []
        assert sorted(r for e in reasks for r in e.row_ids) == sorted(third[page])  # regrouped across the page's groups
        assert all(len(e.row_ids) == GROUP for e in reasks[:-1])
        assert sum(len(e.row_ids) for e in requests) == 2 * len(asked[page]) + len(third[page])
    labels = [r["label"] for r in run.audit.named("calls")]
    assert any("/resample" in lb and lb.endswith("#s3") for lb in labels) and any(lb.endswith("#s2") for lb in labels)


def test_fixed_sampling_asks_every_page_cell_k_times(run_ppt):
    oracle = {c.id: {"hit": True, "level": 1.0} for c in VISUAL}
    once = run_ppt(VISUAL, oracle)
    run = run_ppt(VISUAL, oracle, samples=3, adaptive=False, flip=RequestFlip(0.2, seed=2))
    assert len(run.requests) == 3 * len(once.requests)
    for v in run.verdicts.values():
        for samples in _by_page(v.samples or ()).values():
            assert len(samples) == 3
    assert all(v.samples is None and v.agreement is None for v in once.verdicts.values())


def test_content_passes_are_sampled_and_the_row_keeps_every_pass_sample(run_ppt):
    oracle = {k: v for k, v in DECK_ORACLE.items() if k.startswith(("T1-", "T2-"))}
    run = run_ppt(CONTENT, oracle, samples=3, flip=RequestFlip(0.3, seed=8))
    some = False
    for rid, v in run.verdicts.items():
        if not v.samples:
            assert v.gate == "closed" or not v.judged, rid  # decided with no call
            continue
        assert {s.part for s in v.samples} <= {"A", "B", "type2"}
        passes = defaultdict(list)
        for s in v.samples:
            passes[(s.part, s.page)].append(s)
        for key, samples in passes.items():
            answers = [(s.hit, s.na) for s in samples if s.error_kind is None]
            assert len(samples) == (3 if answers[0] != answers[1] else 2), (rid, key)
            some = some or len(samples) == 3
        if rid.startswith("T1-") and ("A", None) in passes:
            hits = [s.hit for s in passes[("A", None)]]
            if hits.count(True) > hits.count(False):
                assert v.hit and "pass A" in v.reason  # a pass A majority hit decides the row
    assert some, "the seed flips some pass"
    requests_per_row = {r["row"]: r["calls"] for r in run.audit.named("content_rows")}
    assert all(requests_per_row[rid] == len(v.samples) for rid, v in run.verdicts.items() if v.samples)


def _answer_instance(root, message: str):
    tests, rollout = root / "tests", root / "rollout"
    tests.mkdir(parents=True)
    rubric = [answer_row("A1", "x = 2"), answer_row("A2", "the set of even numbers"), answer_row("A3", "y = e^x")]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rubric}))
    (tests / "task_prompt.md").write_text("# Task\n\nSolve the three problems.\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(message)
    return tests, rollout


def test_answer_match_decisions_are_sampled_with_the_row_grid_median(judge_run, tmp_path):
    tests, rollout = _answer_instance(tmp_path, "A1: x = 2. A2: the even integers. A3: y = exp(x).")
    oracle = {"A1": {"hit": True, "level": 1}, "A2": {"hit": True, "level": 0.5}, "A3": {"hit": False, "level": 0}}
    run = judge_run(tests, rollout, oracle=oracle, sim={"flip": RequestFlip(0.35, seed=5)},
                    env={"JUDGE_WORKFLOW_START_JITTER": "0", "JUDGE_SAMPLES": "3"})
    assert run.returncode == 0, run.stderr
    split = 0
    for rid, r in run.verdicts.items():
        levels = [s["level"] for s in r["samples"]]
        assert len(levels) == (3 if levels[0] != levels[1] else 2), rid
        split += len(levels) == 3
        assert r["level"] == lower_median(levels) and r["method"] == "workflow"
    assert run.model_requests == sum(len(r["samples"]) for r in run.verdicts.values())
    assert run.doc["details"]["sampling"]["samples"] == 3 and split
