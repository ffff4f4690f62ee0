"""Router: serial segments, gates across segments (three rules), failure isolation,
per-method statistics. Agentic rows always go through the simulator over HTTP."""

from __future__ import annotations

import json
import shutil
import sys
import threading
import time

import pytest
from testkit import EXAMPLE_TESTS, ROLLOUTS, deck, make_ctx

from cowork_judge.code_methods import CODE_METHODS
from cowork_judge.core.coverage import account
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.engine.router import route

GRID = {f"{i / 20:g}": "grid" for i in range(21)}


def rows(*raw):
    return normalize_rubric(list(raw)).criteria


def write_tests(tmp_path, rubric, name="tests"):
    tests = tmp_path / name
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(rubric))
    shutil.copy(EXAMPLE_TESTS / "judge_instruction.md", tests)
    return tests


# --------------------------------------------------------------------------- whole pipeline, with the simulator


@pytest.fixture
def html_and_pptx_rollout(tmp_path):
    source = deck("45__PPTAgent__build_effective_agents.pptx")
    rollout = tmp_path / "rollout"
    out = rollout / "app" / "output"
    out.mkdir(parents=True)
    (out / "index.html").write_text("<html><body><section><h1>Agents</h1></section></body></html>")
    shutil.copy(source, out / "slides.pptx")
    (rollout / "logs" / "agent").mkdir(parents=True)
    return rollout


def test_all_segments_judge_the_same_deck(judge_run, tmp_path, html_and_pptx_rollout):
    rubric = {
        "workflow_config": {"stub": {"levels": {"W1": 0.55}, "hits": {"W2": True}, "write_page": True}},
        "rubrics": [
            {"id": "C-LOCATE", "description": "one deck", "weight": 1, "judge_method": "code",
             "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx", "html", "pdf"]}},
            {"id": "W1", "description": "layout", "weight": 2, "levels": GRID, "judge_method": "workflow",
             "workflow_name": "stub", "depends_on": ["C-LOCATE"]},
            {"id": "W2", "description": "no overflow", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"},
            {"id": "A1", "description": "explains agents", "weight": 2, "depends_on": ["C-LOCATE"]},
        ],
    }
    run = judge_run(write_tests(tmp_path, rubric), html_and_pptx_rollout, oracle={"A1": {"hit": True}})
    v = run.verdicts
    assert v["C-LOCATE"]["hit"] is True and "slides.pptx" in v["C-LOCATE"]["reason"]
    assert v["W1"]["level"] == 0.55 and "deck=slides.pptx" in v["W1"]["reason"] and v["W1"]["gate"] == "open"
    assert "deck=slides.pptx" in v["W2"]["reason"]
    ws = run.work / "blocks" / "block-01"
    artifacts = json.loads((ws / "evidence" / "artifacts.json").read_text())
    assert artifacts["deck_rel"] == "slides.pptx" and artifacts["deck_kind"] == "pptx"
    assert artifacts["deck_in_workspace"] == "output/slides.pptx" and (ws / artifacts["deck_in_workspace"]).is_file()
    assert (ws / "evidence" / "pages" / "stub" / "page-001.png").is_file()  # the workflow ran before the agent
    # W = 1 + 2 + 1 + 2; E = 1 + 2·0.55 + 1 + 2
    assert run.reward == pytest.approx(5.1 / 6)
    ef = run.doc["extra_fields"]
    assert ef["judge_methods"] == {
        "agentic": {"n": 1, "judged": 1, "coverage": 1.0},
        "code": {"n": 1, "judged": 1, "coverage": 1.0},
        "workflow": {"n": 2, "judged": 2, "coverage": 1.0},
    }
    assert [i for e in run.sim.log.entries() for i in e.row_ids] == ["A1", "A1"]


def test_gate_rules_across_segments(judge_run, tmp_path):
    rubric = {
        "workflow_config": {"stub": {"hits": {"W-INT-DEP": True, "W-BASE": False, "W-EXT": True}}},
        "rubrics": [
            {"id": "C-MISS", "description": "a pptx exists", "weight": 1, "judge_method": "code",
             "code_method_name": "file_exists", "code_method_params": {"glob": "*.pptx"}},
            {"id": "C-UNJUDGED", "description": "broken method", "weight": 1, "judge_method": "code",
             "code_method_name": "not_registered"},
            # rule 1: a workflow-internal dependency is the workflow's business (not gated by the router)
            {"id": "W-BASE", "description": "w", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"},
            {"id": "W-INT-DEP", "description": "w", "weight": 1, "judge_method": "workflow", "workflow_name": "stub",
             "depends_on": ["W-BASE"]},
            # rule 2: an external dependency judged and missed short-circuits, no call
            {"id": "W-EXT", "description": "w", "weight": 1, "judge_method": "workflow", "workflow_name": "stub",
             "depends_on": ["C-MISS"]},
            {"id": "A-GATED", "description": "a", "weight": 1, "depends_on": ["C-MISS"]},
            # rule 3: a dependency that was not judged propagates dep_unjudged
            {"id": "A-DEP-UNJ", "description": "a", "weight": 1, "depends_on": ["C-UNJUDGED"]},
            # deductions and hurdles ignore gates: always judged
            {"id": "A-NEG", "description": "fault", "weight": -1, "depends_on": ["C-MISS"]},
            {"id": "A-HURDLE", "description": "the report is missing", "weight": 0, "hurdle": True, "depends_on": ["C-MISS"]},
            {"id": "A-FREE", "description": "a", "weight": 1},
        ],
    }
    oracle = {"A-NEG": {"hit": True}, "A-HURDLE": {"hit": False}, "A-FREE": {"hit": True}, "A-GATED": {"hit": True}}
    run = judge_run(write_tests(tmp_path, rubric), ROLLOUTS / "chat", oracle=oracle)
    v = run.verdicts
    assert v["C-MISS"]["judged"] and v["C-MISS"]["hit"] is False
    assert v["C-UNJUDGED"]["judged"] is False and v["C-UNJUDGED"]["error_kind"] == "code_missing"
    assert "not_registered" in v["C-UNJUDGED"]["reason"] and "locate_deck" in v["C-UNJUDGED"]["reason"]
    assert v["W-INT-DEP"]["judged"] and v["W-INT-DEP"]["hit"] is True and v["W-INT-DEP"]["contribution"] == 0
    for rid in ("W-EXT", "A-GATED"):
        assert v[rid]["judged"] is True and v[rid]["hit"] is False and v[rid]["gate"] == "closed"
        assert v[rid]["reason"].startswith("[gate] C-MISS judged and missed")
    assert "deck=" not in v["W-EXT"]["reason"]  # the stub never saw it
    assert v["A-DEP-UNJ"]["judged"] is False and v["A-DEP-UNJ"]["error_kind"] == "dep_unjudged"
    assert v["A-NEG"]["judged"] and v["A-NEG"]["hit"] is True and v["A-NEG"]["contribution"] == -1
    asked = {i for e in run.sim.log.entries() for i in e.row_ids}
    assert asked == {"A-NEG", "A-HURDLE", "A-FREE"}
    # W = 8 positive rows of weight 1 (hurdle 0, A-NEG −1); E = W-INT-DEP gated 0 + A-FREE 1 − A-NEG 1 = 0
    assert run.doc["score_raw"] == 0.0
    ef = run.doc["extra_fields"]
    assert ef["judge_unjudged"] == 2 and ef["judge_error_kind"] == "code_missing"  # the router's specific cause
    assert ef["judge_coverage_by_method"] == {"agentic": 0.8, "code": 0.5, "workflow": 1.0}
    assert ef["judge_unjudged_weight_frac"] == pytest.approx(2 / 8)
    # trial 19 P-4: an unknown method is the rubric's fault on every rollout: systemic even on a positive row
    assert run.doc["exit_code"] == "judge:scorer_error"
    assert run.doc["exit_reason"].startswith("systemic judge failure: 2 of 10 rows not judged (code_missing 1, dep_unjudged 1): the "
                                             "rubric cannot be judged as written: 1 row(s) (C-UNJUDGED)")


def test_pure_code_rubric_needs_no_credentials_and_no_model(judge_run, tmp_path):
    rubric = {"rubrics": [
        {"id": "C1", "description": "a deck", "weight": 2, "judge_method": "code", "code_method_name": "locate_deck"},
        {"id": "C2", "description": "it opens", "weight": 1, "judge_method": "code", "code_method_name": "check_pptx_openable",
         "depends_on": ["C1"]},
        {"id": "C3", "description": "a summary in chat", "weight": 1, "judge_method": "code", "code_method_name": "word_count_between",
         "code_method_params": {"min_words": 20, "source": "response"}},
    ]}
    run = judge_run(write_tests(tmp_path, rubric), ROLLOUTS / "deck", sim=False)
    doc = run.doc
    assert run.returncode == 0 and doc["status"] == "success" and doc["exit_code"] is None
    assert run.reward == 1.0 and doc["extra_fields"]["judge_calls"] == 0 and doc["extra_fields"]["judge_called"] is False
    assert [r["hit"] for r in doc["results"]] == [True, True, True]


# --------------------------------------------------------------------------- in-process: code & workflow segments only


def test_code_method_failures_are_isolated(tmp_path, monkeypatch):
    def sleepy(ctx, seconds=5.0):
        time.sleep(seconds)
        return True, "slept", {}

    def broken(ctx):
        raise ValueError("cannot parse the thing")

    def liar(ctx):
        return "yes"

    monkeypatch.setitem(CODE_METHODS, "sleepy", sleepy)
    monkeypatch.setitem(CODE_METHODS, "broken", broken)
    monkeypatch.setitem(CODE_METHODS, "liar", liar)
    ctx = make_ctx(tmp_path, {"a.md": "# title\nsome words here"}, env={"JUDGE_CODE_TIMEOUT": "0.5"})
    crit = rows(
        {"id": "slow", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "sleepy"},
        {"id": "boom", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "broken"},
        {"id": "bad-params", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
         "code_method_params": {"pattern": "*.md"}},
        {"id": "liar", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "liar"},
        {"id": "ok", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
         "code_method_params": {"glob": "*.md"}},
    )
    t0 = time.monotonic()
    v = route(crit, ctx)
    assert time.monotonic() - t0 < 4.0  # the sleeping method was abandoned at its timeout
    assert (v["slow"].judged, v["slow"].error_kind) == (False, "code_timeout")
    assert v["boom"].error_kind == "code_error" and "ValueError: cannot parse the thing" in v["boom"].reason
    assert v["bad-params"].error_kind == "code_params" and "pattern" in v["bad-params"].reason
    assert v["liar"].error_kind == "code_error" and "not (hit, reason, artifacts)" in v["liar"].reason
    assert v["ok"].judged and v["ok"].hit is True


def test_workflow_failures_are_isolated(tmp_path, monkeypatch):
    crit = rows(
        {"id": "W1", "description": "x", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"},
        {"id": "W2", "description": "x", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"},
        {"id": "M1", "description": "x", "weight": 1, "judge_method": "workflow", "workflow_name": "no_such_flow"},
        {"id": "M2", "description": "x", "weight": 1, "judge_method": "workflow"},
        {"id": "C1", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
         "code_method_params": {"glob": "*"}},
    )
    v = route(crit, make_ctx(tmp_path / "a", {"a.md": "x"}, workflow_config={"stub": {"hits": {"W1": True}}}))
    assert v["W1"].hit is True
    assert v["W2"].error_kind == "workflow_error" and "no verdict" in v["W2"].reason
    assert v["M1"].error_kind == "workflow_missing" and "not installed" in v["M1"].reason
    assert v["M2"].error_kind == "workflow_missing"
    assert v["C1"].hit is True
    crashed = route(crit, make_ctx(tmp_path / "b", {"a.md": "x"}, workflow_config={"stub": {"raise": True}}))
    assert crashed["W1"].error_kind == "workflow_error" and "asked to raise" in crashed["W1"].reason
    assert crashed["C1"].hit is True


def test_workflow_overrunning_its_budget(tmp_path, monkeypatch):
    import cowork_judge.workflow.runner as runner

    monkeypatch.setattr(runner, "WORKFLOW_GRACE_SEC", 0.2)
    crit = rows({"id": "W1", "description": "x", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"})
    ctx = make_ctx(tmp_path, {"a.md": "x"}, env={"JUDGE_WORKFLOW_DEADLINE_SHARE": "0.001", "JUDGE_DEADLINE": "300"},
                   workflow_config={"stub": {"sleep_sec": 30, "hits": {"W1": True}}})
    before = set(threading.enumerate())
    t0 = time.monotonic()
    v = route(crit, ctx)
    assert time.monotonic() - t0 < 5
    assert v["W1"].error_kind == "timeout" and "budget" in v["W1"].reason
    # the overrunning workflow was told to stop and did: nothing of it runs on into the agentic segment
    assert [t for t in threading.enumerate() if t.is_alive() and t not in before] == []


@pytest.mark.parametrize(("name", "abi"), [("future_flow", 99), ("dict_ctx_flow", 1)])
def test_workflow_with_an_incompatible_abi_is_missing(tmp_path, monkeypatch, name, abi):
    """A future ABI and the old ABI 1 (an untyped dict ctx with no transport) are both
    refused before the workflow runs: its rows are workflow_missing, nothing crashes."""
    import cowork_judge.workflow as workflow_pkg

    pkg = tmp_path / "extra" / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(f"REQUIRES_ABI = {abi}\ndef run(criteria, ctx, budget_sec):\n    return ctx['boom']\n")
    monkeypatch.setattr(workflow_pkg, "__path__", [*workflow_pkg.__path__, str(tmp_path / "extra")])
    monkeypatch.delitem(sys.modules, f"cowork_judge.workflow.{name}", raising=False)
    crit = rows({"id": "F1", "description": "x", "weight": 1, "judge_method": "workflow", "workflow_name": name})
    v = route(crit, make_ctx(tmp_path, {"a.md": "x"}))
    assert v["F1"].error_kind == "workflow_missing" and f"requires ABI {abi}; this engine accepts [2]" in v["F1"].reason


def test_router_error_kind_overrides_except_deadline():
    from cowork_judge.core.verdicts import Verdict

    crit = rows(*({"id": f"r{i}", "description": "x", "weight": 1} for i in range(4)))
    vs = {"r0": Verdict.unjudged("r0", "code_timeout", "t"), "r1": Verdict.unjudged("r1", "dep_unjudged", "d"),
          "r2": Verdict.unjudged("r2", "dep_unjudged", "d"), "r3": Verdict(id="r3", hit=True, judged=True)}
    assert account(crit, vs, ScoringPolicy(systemic_fraction=0.4, systemic_min=2)).error_kind == "code_timeout"
    vs["r3"] = Verdict.unjudged("r3", "deadline", "late")
    report = account(crit, vs, ScoringPolicy(systemic_fraction=0.4, systemic_min=2))
    assert report.error_kind == "deadline" and report.exit_code == "judge:timeout"


# --------------------------------------------------------------------------- the router cannot run


def test_router_import_failure(tmp_path, monkeypatch):
    from cowork_judge.engine import judge
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.run.paths import RunPaths
    from cowork_judge.sim import OraclePolicy, SimServer

    monkeypatch.setitem(sys.modules, "cowork_judge.engine.router", None)  # "import cowork_judge.engine.router" now fails

    def run(tests, env):
        logs = tmp_path / f"logs-{tests.name}"
        paths = RunPaths.resolve(app_dir=ROLLOUTS / "deck" / "app", logs_dir=logs, tests_dir=tests, work_dir=logs / "work",
                                 alt_output_dir=tmp_path / "none")
        judge.main_run(paths, load_config(env), start=time.monotonic())
        return json.loads(paths.result_json.read_text())

    with SimServer(OraclePolicy.from_dict({"A1": {"hit": True}}), api_key="sk-router-test-000000") as server:
        env = {"JUDGE_API_KEY": "sk-router-test-000000", "JUDGE_BASE_URL": server.url, "JUDGE_START_JITTER": "0"}
        mixed = write_tests(tmp_path, {"rubrics": [
            {"id": "C1", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck"},
            {"id": "A1", "description": "y", "weight": 1}]}, "mixed")
        doc = run(mixed, env)
        assert doc["exit_code"] == "judge:scorer_error" and "router cannot run" in doc["exit_reason"]
        assert len(server.log) == 0
        agentic_only = write_tests(tmp_path, {"rubrics": [{"id": "A1", "description": "y", "weight": 1}]}, "agentic")
        doc = run(agentic_only, env)
        assert doc["status"] == "success" and doc["task_score"] == 1.0 and len(server.log) == 2
