"""End to end: `cowork-judge run` on the example instance and HealthBench, through the real
openai client over HTTP against the simulator with oracle verdicts."""

from __future__ import annotations

import json
import os
from importlib import resources

import jsonschema
import pytest
from testkit import EXAMPLE_TESTS, HEALTHBENCH_EXAMPLE, ROLLOUTS, SIM_KEY

from cowork_judge.run.outputs import EXTRA_FIELD_KEYS

SCHEMA = json.loads(resources.files("cowork_judge").joinpath("schemas/result.schema.json").read_text())

DECK_ORACLE = {
    "A-HURDLE-NO-DECK": {"hit": False, "reason": "build_effective_agents.pptx is in output/"},
    "A-WORKFLOW-VS-AGENT": {"hit": True, "reason": "slide 2"},
    "A-PATTERNS": {"hit": True, "level": 0.55, "reason": "augmented LLM, chaining, routing, evaluator diagram"},
    "A-PATTERN-FIT": {"hit": True, "reason": "slide 5 says when chaining and routing fit"},
    "A-WHEN-TO-USE": {"hit": True, "reason": "slide 3"},
    "A-FRAMEWORKS-TOOLS": {"hit": True, "reason": "slide 4"},
    "A-PRINCIPLES": {"hit": True, "reason": "slide 7"},
    "A-READABILITY": {"hit": True, "level": 0.5, "reason": "slides 8-9 are diagram captions"},
    "A-STRUCTURE": {"hit": True, "reason": "title slide and a questions slide"},
    "A-FABRICATION": {"hit": False, "reason": "claims match the essay"},
}
# The code gates C-LOCATE-DECK and C-DECK-OPENABLE (weight 1 each) hit on the real deck.
# W = 1+1 + 3+4+2+2+2+2+3+1 = 21 (the hurdle row weighs 0); A-PATTERNS 0.55 snaps to 0.6.
# E = 1+1 + 3 + 4·0.6 + 2 + 2 + 2 + 2 + 3·0.5 + 1 = 17.9
DECK_REWARD = 17.9 / 21
# 10 agentic rows, JUDGE_BATCH=4 → 3 blocks; the simulator makes one tool round then answers.
DECK_CALLS = 6


def assert_documents(run) -> dict:
    """A reward file and a schema-valid result document with every extra field."""
    assert run.reward_text.strip()
    doc = run.doc
    jsonschema.validate(doc, SCHEMA)
    assert set(doc["extra_fields"]) == set(EXTRA_FIELD_KEYS)
    details = json.loads((run.verifier / "reward-details.json").read_text())
    assert details["reward"] == doc["task_score"] and len(details["rows"]) == len(doc["results"])
    assert (run.verifier / "judge.log").is_file()
    return doc


def test_deck_rollout_with_oracle(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE)
    doc = assert_documents(run)
    assert run.returncode == 0, run.stderr
    assert run.reward == pytest.approx(DECK_REWARD, abs=1e-12)
    assert doc["status"] == "success" and doc["exit_code"] is None and doc["fatal"] is False
    ef = doc["extra_fields"]
    assert ef["judge_coverage"] == 1.0 and ef["judge_unjudged"] == 0 and ef["judge_degraded"] is False
    assert ef["judge_calls"] == DECK_CALLS == run.model_requests
    assert ef["judge_called"] is True and ef["delivery_from_chat"] is False and ef["judge_tokens"] > 0
    v = run.verdicts
    assert v["A-PATTERNS"]["level"] == 0.6 and v["A-PATTERNS"]["contribution"] == pytest.approx(2.4)
    assert v["A-FABRICATION"]["hit"] is False and v["A-FABRICATION"]["contribution"] == 0
    assert next(c for c in doc["criteria"] if c["id"] == "A-PATTERNS")["level_raw"] == 0.55
    assert doc["details"]["delivery"]["files"] == ["build_effective_agents.pptx"]
    assert v["C-LOCATE-DECK"]["hit"] is True and v["C-LOCATE-DECK"]["method"] == "code"
    assert v["C-DECK-OPENABLE"]["hit"] is True and v["C-DECK-OPENABLE"]["gate"] == "open"
    assert v["A-PATTERN-FIT"]["gate"] == "open"
    assert ef["judge_methods"] == {"agentic": {"n": 10, "judged": 10, "coverage": 1.0}, "code": {"n": 2, "judged": 2, "coverage": 1.0}}
    assert doc["details"]["delivery"]["final_message_source"] == "trajectory"
    # every request carried exactly one block's rows, all 10 rows were asked exactly once
    asked = [i for e in run.sim.log.entries() if e.kind == "final" for i in e.row_ids]
    assert sorted(asked) == sorted(DECK_ORACLE)  # code rows never reach the model


def test_deck_workspace_and_audit(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE)
    blocks = sorted((run.work / "blocks").iterdir())
    assert [b.name for b in blocks] == ["block-01", "block-02", "block-03"]
    ws = blocks[0]
    sub = json.loads((ws / "rubric.json").read_text())["rubrics"]
    assert [r["id"] for r in sub] == ["A-HURDLE-NO-DECK", "A-WORKFLOW-VS-AGENT", "A-PATTERNS", "A-PATTERN-FIT"]
    assert sub[0]["polarity"] == "negative" and "hit=false" in sub[0]["hit_means"]
    assert sub[2]["level_choices"] == [0.0, 0.3, 0.6, 1.0]
    assert (ws / "judge_instruction.md").read_text() == (EXAMPLE_TESTS / "judge_instruction.md").read_text()
    assert (ws / "task_prompt.md").read_text() == (EXAMPLE_TESTS / "task_prompt.md").read_text()
    assert "build_effective_agents.pptx" in (ws / "model_response_text.txt").read_text()
    deck = ws / "output" / "build_effective_agents.pptx"
    assert deck.is_file() and os.stat(deck).st_nlink >= 2  # hard link, not a copy
    audit = run.verifier / "judge"
    turns = [json.loads(line) for line in (audit / "block-01" / "attempt-1.jsonl").read_text().splitlines()]
    assert turns[0]["request"][0]["role"] == "system" and "<rubric_rows>" in turns[0]["request"][1]["content"]
    assert turns[0]["reply"]["tool_calls"][0]["name"] == "list_files"
    assert turns[-1]["parsed"]["step"] == "json"
    saved = json.loads((audit / "block-01" / "verdicts.json").read_text())
    assert saved["A-PATTERNS"]["level"] == 0.6
    for path in list(run.verifier.rglob("*")) + list(run.work.rglob("*")):
        if path.is_file():
            assert SIM_KEY.encode() not in path.read_bytes(), path


def test_deck_evidence_is_rendered_once_and_shared_with_every_block(judge_run):
    import shutil

    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE, env={"JUDGE_EVIDENCE": "180"})
    doc = assert_documents(run)
    assert run.reward == pytest.approx(DECK_REWARD, abs=1e-12)
    assert doc["extra_fields"]["judge_evidence_pages"] == 10
    deck = doc["details"]["evidence"]["decks"][0]
    assert deck["deck"] == "build_effective_agents.pptx" and deck["status"] == "ok" and deck["structure_ok"] is True
    caps = json.loads((run.verifier / "env_capabilities.json").read_text())
    assert caps["soffice"]["available"] is True
    pages = sorted(p.name for p in (run.work / "evidence" / "pages" / "build_effective_agents.pptx").iterdir())
    assert pages == [f"page-{n:03d}.png" for n in range(1, 11)]
    for block in ("block-01", "block-02", "block-03"):
        page = run.work / "blocks" / block / "evidence" / "pages" / "build_effective_agents.pptx" / "page-001.png"
        assert page.is_file() and os.stat(page).st_nlink >= 4  # one file, hard-linked into every block
    digest = run.work / "blocks" / "block-01" / "evidence" / "build_effective_agents.pptx" / "digest.json"
    assert json.loads(digest.read_text())["structure_ok"] is True
    first_prompt = json.loads((run.verifier / "judge" / "block-01" / "attempt-1.jsonl").read_text().splitlines()[0])
    assert "10 rendered page image(s)" in first_prompt["request"][1]["content"]
    # a copy beside the verifier outputs (Harbor downloads only that folder; the work dir is deleted)
    kept = run.verifier / "evidence"
    assert (kept / "index.json").is_file() and not list(kept.rglob("*.pdf"))
    assert sorted(p.name for p in (kept / "pages" / "build_effective_agents.pptx").iterdir()) == pages
    assert doc["details"]["evidence"]["kept"]["images_dropped"] == 0
    from cowork_judge.fleet.job import load_job

    assert load_job(run.verifier).evidence_root == kept  # `cowork-judge report` finds the pages there


def test_lenient_delivery_deck_at_the_app_root_gets_its_evidence(judge_run, tmp_path):
    import shutil

    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    app = tmp_path / "lenient-app"
    app.mkdir()
    shutil.copy(ROLLOUTS / "deck" / "app" / "output" / "build_effective_agents.pptx", app / "slides.pptx")
    run = judge_run(EXAMPLE_TESTS, None, oracle=DECK_ORACLE, app_dir=app,
                    env={"JUDGE_EVIDENCE": "180", "JUDGE_LENIENT_DELIVERY": "1"})
    doc = assert_documents(run)
    assert run.verdicts["C-LOCATE-DECK"]["hit"] is True and run.verdicts["C-DECK-OPENABLE"]["hit"] is True
    # the located deck (outside output/) is the one rendered: same file for every segment
    assert doc["extra_fields"]["judge_evidence_pages"] == 10
    assert [d["deck"] for d in doc["details"]["evidence"]["decks"]] == ["slides.pptx"]
    assert run.reward == pytest.approx(DECK_REWARD, abs=1e-12)


def test_chat_only_rollout_gates_and_hurdle(judge_run):
    oracle = {k: {"hit": True} for k in DECK_ORACLE}
    oracle["A-HURDLE-NO-DECK"] = {"hit": True, "reason": "no .pptx in output/, only an outline in chat"}
    oracle["A-FABRICATION"] = {"hit": True, "reason": "attributes a date the essay does not give"}
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "chat", oracle=oracle)
    doc = assert_documents(run)
    v = run.verdicts
    # no deck: both code gates miss (the second one short-circuits on the first)
    assert v["C-LOCATE-DECK"]["hit"] is False and v["C-LOCATE-DECK"]["judged"] is True
    assert v["C-DECK-OPENABLE"]["hit"] is False and v["C-DECK-OPENABLE"]["reason"].startswith("[gate]")
    # the 8 positive agentic rows are gated: judged, missed, no model call
    gated = [r for r in doc["results"] if r["method"] == "agentic" and r["reason"].startswith("[gate]")]
    assert len(gated) == 8 and all(r["judged"] and r["hit"] is False and r["gate"] == "closed" for r in gated)
    # and they are in the audit folder like every other verdict (re-scoring, the watchdog)
    audited = json.loads((run.verifier / "judge" / "agentic-gated" / "verdicts.json").read_text())
    assert sorted(audited) == sorted(r["id"] for r in gated) and all(a["gate"] == "closed" for a in audited.values())
    # only the hurdle and the deduction (they ignore gates) reach the model: 1 block, 2 calls
    asked = sorted(i for e in run.sim.log.entries() for i in e.row_ids)
    assert asked == ["A-FABRICATION", "A-FABRICATION", "A-HURDLE-NO-DECK", "A-HURDLE-NO-DECK"]
    assert doc["extra_fields"]["judge_calls"] == 2 and doc["extra_fields"]["judge_coverage"] == 1.0
    # by hand: W = 21; E = −3 (the deduction); the hurdle is fatal ⇒ reward 0
    assert doc["score_raw"] == pytest.approx(-3 / 21) and doc["fatal"] is True and run.reward == 0.0
    assert doc["status"] == "success" and doc["exit_code"] is None
    assert doc["extra_fields"]["delivery_from_chat"] is True


def test_chat_only_rollout_without_the_hurdle_firing(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "chat", oracle={"A-HURDLE-NO-DECK": {"hit": False}, "A-FABRICATION": {"hit": False}})
    doc = assert_documents(run)
    assert doc["fatal"] is False and doc["score_raw"] == 0.0 and run.reward == 0.0 and run.model_requests == 2


def test_chat_only_rollout_without_chat_fallback_is_nothing_delivered(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "chat", oracle={}, env={"JUDGE_CHAT_FALLBACK": "0"})
    doc = assert_documents(run)
    assert run.reward == 0.0 and run.model_requests == 0 and doc["extra_fields"]["delivery_missing"] is True


def test_empty_rollout_scores_zero_without_a_model_call(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "empty", oracle=DECK_ORACLE)
    doc = assert_documents(run)
    assert run.returncode == 0
    assert run.reward == 0.0 and run.model_requests == 0
    assert doc["status"] == "success" and doc["exit_code"] is None
    ef = doc["extra_fields"]
    assert ef["judge_called"] is False and ef["delivery_missing"] is True and ef["judge_calls"] == 0
    assert all(r["judged"] and r["hit"] is False and r["method"] == "delivery" for r in doc["results"])


def test_empty_rollout_needs_no_credentials(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "empty", sim=False)
    doc = assert_documents(run)
    assert run.reward == 0.0 and doc["exit_code"] is None and doc["extra_fields"]["delivery_missing"] is True


HB_ORACLE = {
    "HB01": {"hit": True}, "HB02": {"hit": True}, "HB03": {"hit": False}, "HB04": {"hit": True},
    "HB05": {"hit": True}, "HB06": {"hit": True, "reason": "no mention of thyroid disease"},
}


def test_healthbench_chat_answer(judge_run):
    run = judge_run(HEALTHBENCH_EXAMPLE / "tests", HEALTHBENCH_EXAMPLE / "rollout", oracle=HB_ORACLE)
    doc = assert_documents(run)
    # HealthBench: (8 + 7 + 6 + 5 − 6) / (8 + 7 + 6 + 6 + 5) = 20 / 32
    assert run.reward == pytest.approx(20 / 32, abs=1e-12)
    assert doc["extra_fields"]["delivery_from_chat"] is True and run.model_requests == 4  # 6 rows → 2 blocks
    assert run.verdicts["HB06"]["contribution"] == -6
    first = next(e for e in run.sim.log.entries())
    assert first.row_ids and set(first.row_ids) <= set(HB_ORACLE)


def test_healthbench_instance_is_generated_from_its_source():
    from cowork_judge.fleet.importers import healthbench as hb

    source = json.loads((HEALTHBENCH_EXAMPLE / "source.json").read_text())
    assert json.loads((HEALTHBENCH_EXAMPLE / "tests" / "rubric.json").read_text()) == {"rubrics": hb.rubric_rows(source)}
    assert (HEALTHBENCH_EXAMPLE / "tests" / "task_prompt.md").read_text() == hb.task_prompt(source)
    traj = json.loads((HEALTHBENCH_EXAMPLE / "rollout" / "logs" / "agent" / "trajectory.json").read_text())
    assert traj["steps"][-1]["message"] == hb.ideal_completion(source)
    assert "canary" in source


def test_plain_json_fallback_when_response_format_is_rejected(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE, sim={"reject_json_schema": True})
    doc = assert_documents(run)
    assert run.reward == pytest.approx(DECK_REWARD, abs=1e-12) and doc["extra_fields"]["judge_coverage"] == 1.0
    rejected = [e for e in run.sim.log.entries() if e.kind == "error"]
    # the first rejection switches the whole run to plain JSON; only requests already in
    # flight (at most JUDGE_CONCURRENCY = 2) can be rejected too
    assert 1 <= len(rejected) <= 2
    assert all(e.kind == "error" for e in run.sim.log.entries() if e.response_format == "json_schema")
    assert doc["extra_fields"]["judge_calls"] == DECK_CALLS + len(rejected)
    assert "rejected response_format" in (run.verifier / "judge.log").read_text()


def test_no_credentials(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", sim=False)
    doc = assert_documents(run)
    assert run.returncode == 1
    assert run.reward == 0.0 and doc["status"] == "error" and doc["exit_code"] == "judge:no_credential"
    # the code rows need no model: they still run; only the model rows are unjudged no_credential
    code = [r for r in doc["results"] if r["method"] == "code"]
    assert len(code) == 2 and all(r["judged"] and r["hit"] is True for r in code)
    assert all(r["error_kind"] == "no_credential" and not r["judged"] for r in doc["results"] if r["method"] != "code")
    assert doc["extra_fields"]["judge_called"] is False and doc["score_raw"] is None


def test_bad_rubric_is_scorer_error(judge_run, tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text('{"rubrics": [{"id": "a", "weight": 1}]}')
    run = judge_run(tests, ROLLOUTS / "deck", oracle={})
    doc = assert_documents(run)
    assert doc["exit_code"] == "judge:scorer_error" and "row 'a': field 'description'" in doc["exit_reason"]
    assert run.reward == 0.0 and run.model_requests == 0


def test_crashed_backend_loses_only_its_rows_and_flags_the_run(judge_run, tmp_path):
    # a *file* where the work dir should be: building a block workspace fails mid-run
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    run = judge_run(HEALTHBENCH_EXAMPLE / "tests", HEALTHBENCH_EXAMPLE / "rollout", oracle=HB_ORACLE, work_dir=blocker / "work")
    doc = assert_documents(run)
    assert run.returncode == 1
    assert doc["status"] == "error" and doc["exit_code"] == "judge:scorer_error"
    ef = doc["extra_fields"]
    assert ef["judge_error_kind"] == "backend_error" and ef["judge_coverage"] == 0.0 and ef["judge_unjudged"] == 6
    # unjudged deductions still deduct: E = −6, W = 32
    assert doc["score_raw"] == pytest.approx(-6 / 32) and run.reward == 0.0 and run.model_requests == 0


def test_internal_failure_anywhere_still_writes_a_reward(tmp_path, monkeypatch):
    from cowork_judge.run import judge
    from cowork_judge.run.config import load_config
    from cowork_judge.run.paths import RunPaths

    def explode(*args, **kwargs):
        raise RuntimeError("scoring exploded")

    monkeypatch.setattr(judge, "collect_delivery", explode)
    paths = RunPaths.resolve(app_dir=tmp_path / "app", logs_dir=tmp_path / "logs", tests_dir=EXAMPLE_TESTS,
                             work_dir=tmp_path / "work")
    doc = judge.main_run(paths, load_config({}), start=0.0)
    written = json.loads(paths.result_json.read_text())
    jsonschema.validate(written, SCHEMA)
    assert doc is not None and written["exit_code"] == "judge:scorer_error"
    assert "RuntimeError: scoring exploded" in written["exit_reason"]
    assert paths.reward_txt.read_text() == "0.0\n"
    assert "Traceback" in paths.judge_log.read_text()


def test_code_and_workflow_rows_are_never_judged_by_the_agent(judge_run, tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    rubric = {
        "rubrics": [
            {"id": "C1", "description": "a deck exists", "weight": 1, "judge_method": "code", "code_method_name": "no_such_method"},
            {"id": "W1", "description": "layout is clean", "weight": 1, "judge_method": "workflow", "workflow_name": "no_such_workflow"},
            {"id": "A1", "description": "explains agents", "weight": 2},
        ]
    }
    (tests / "rubric.json").write_text(json.dumps(rubric))
    run = judge_run(tests, ROLLOUTS / "deck", oracle={"A1": {"hit": True}})
    assert_documents(run)
    asked = {i for e in run.sim.log.entries() for i in e.row_ids}
    assert asked == {"A1"}
    v = run.verdicts
    assert v["C1"]["judged"] is False and v["C1"]["error_kind"] in ("code_missing", "code_error")
    assert v["W1"]["judged"] is False and v["W1"]["error_kind"] == "workflow_missing"
    assert run.reward == 0.5


def test_skip_writes_skipped(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle={}, env={"JUDGE_SKIP": "1"})
    assert run.reward_text == "SKIPPED\n"
    doc = run.doc
    jsonschema.validate(doc, SCHEMA)
    assert doc["status"] == "skipped" and doc["task_score"] is None and run.model_requests == 0
