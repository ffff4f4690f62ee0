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
    # agentic rows (5: two blocks of JUDGE_BATCH=4)
    "A-HURDLE-NO-DECK": {"hit": False, "reason": "build_effective_agents.pptx is in output/"},
    "A-NARRATIVE": {"hit": True, "level": 0.55, "reason": "title, concepts, patterns, advice, principles, close"},
    "A-PATTERN-FIT": {"hit": True, "reason": "slide 5 says when chaining and routing fit"},
    "A-TOOL-DESIGN": {"hit": False, "reason": "only the ACI principle, no advice on tool design"},
    "A-FABRICATION": {"hit": False, "reason": "claims match the essay"},
    # content, type1: pass A (slide text) names the pages; "@page" answers are pass B's (page images)
    "T1-WORKFLOWS-AGENTS": {"hit": True, "pages": [2], "reason": "slide 2 distinguishes them"},
    "T1-WHEN-AGENTS": {"hit": True, "pages": [3]},
    "T1-AUGMENTED-LLM": {"hit": True, "pages": [5, 8]},
    "T1-PROMPT-CHAINING": {"hit": True, "pages": [5]},
    "T1-ROUTING": {"hit": True, "pages": [5]},
    "T1-PARALLELIZATION": {"hit": False, "reason": "no slide mentions it"},
    "T1-ORCHESTRATOR-WORKERS": {"hit": False, "reason": "no slide mentions it"},
    "T1-EVALUATOR-OPTIMIZER": {"hit": False, "pages": [9], "reason": "slide 9 names an evaluator; the loop is drawn"},
    "T1-EVALUATOR-OPTIMIZER@9": {"hit": True, "reason": "the diagram shows the generator-evaluator feedback loop"},
    "T1-FRAMEWORKS": {"hit": True, "pages": [4]},
    "T1-PRINCIPLES": {"hit": True, "pages": [7]},
    # content, type2: judged on the pages routed to them ("@page": that page's answer)
    "T2-WORKFLOWS-AGENTS": {"hit": True},
    "T2-WHEN-AGENTS": {"hit": True},
    "T2-SIMPLICITY-THROUGHOUT": {"hit": False, "na": True}, "T2-SIMPLICITY-THROUGHOUT@3": {"hit": True},
    "T2-AUGMENTED-LLM": {"hit": True}, "T2-AUGMENTED-LLM@8": {"hit": False, "na": True},
    "T2-EVALUATOR-OPTIMIZER": {"hit": True},
    "T2-FRAMEWORKS": {"hit": False, "reason": "Rivet and Vellum are GUI workflow builders, not tool-definition libraries"},
    "T2-PRINCIPLES": {"hit": True},
    # visual rows judged by the VLM (the five decided by the checks cost no call: no finding on this deck)
    "V-LAYOUT-OVERLAP": {"hit": True, "level": 1.0}, "V-LAYOUT-OVERLAP@4": {"hit": True, "level": 0.5},
    "V-LAYOUT-ALIGN": {"hit": True, "level": 1.0}, "V-LAYOUT-ALIGN@3": {"hit": True, "level": 0.5},
    "V-LAYOUT-ALIGN@7": {"hit": True, "level": 0.5},
    "V-LAYOUT-DENSITY": {"hit": True, "level": 0.8},
    "V-TYPE-CONSISTENT": {"hit": True, "level": 1.0}, "V-TYPE-CONSISTENT@9": {"hit": True, "level": 0.25},
    "V-TYPE-CONSISTENT@10": {"hit": True, "level": 0.25},
    "V-COLOUR-CONTRAST": {"hit": True, "level": 1.0},
    "V-COLOUR-HARMONY": {"hit": True, "level": 0.6},
    "V-IMAGE-QUALITY": {"hit": False, "na": True}, "V-IMAGE-QUALITY@8": {"hit": True, "level": 0.7},
    "V-IMAGE-QUALITY@9": {"hit": True, "level": 0.9},
    "V-IMAGE-CHARTS": {"hit": False, "na": True}, "V-IMAGE-CHARTS@8": {"hit": True, "level": 0.9},
    "V-IMAGE-CHARTS@9": {"hit": True, "level": 0.7},
    "V-IMAGE-RELEVANT": {"hit": False, "na": True},
}
"""The example instance's answers, by row and page (the simulator's oracle)."""
# By hand. Every gate (C-LOCATE-DECK, C-DECK-OPENABLE, weight 1 each) hits on the real deck.
#   code      W = 2                       E = 2
#   agentic   W = 4 + 2 + 2 = 8           E = 4·0.6 (0.55 snaps to 0.6) + 2 = 4.4     (hurdle weighs 0, deduction missed)
#   type1     W = 3·3 (mandatory) + 7·2 = 23
#             E = 23 − 2 − 2 = 19          (parallelization and orchestrator-workers missed; evaluator-optimizer
#                                          missed by pass A, found by pass B on page 9)
#   type2     W = 8·4 = 32                 E = 6·4 = 24 (parallelization short-circuits on its type1, frameworks
#                                          stated wrongly on page 4; simplicity: page 3 right, 5-6 N/A; augmented LLM:
#                                          page 5 right, 8 N/A)
#   visual    W = 4·6 + 10·3 = 54          E = 6·(1 + 0.85 + 1 + 1) + 3·(0.9 + 0.8 + 1 + 0.85 + 1 + 0.6 + 0.8 + 0.8 + 1 + 1)
#                                            = 23.1 + 26.25 = 49.35
#             (overlap, critical, p = -2: ((9·1 + 0.5⁻²)/10)^(-1/2) = 0.877, snapped down to 0.85; align
#             (8 + 2·0.5)/10; consistent (8 + 2·0.25)/10; quality and charts the mean
#             of pages 8-9, N/A elsewhere; relevant N/A everywhere, na_policy pass ⇒ 1; the five check-decided rows 1)
#   W = 2 + 8 + 23 + 32 + 54 = 119;  E = 2 + 4.4 + 19 + 24 + 49.35 = 98.75
DECK_REWARD = 98.75 / 119
DECK_PAGES = 10
DECK_CALLS_CONTENT = 10 + (3 + 3 + 1) + (1 + 1 + 3 + 2 + 0 + 1 + 1 + 1)
"""Σ_type1 (1 + pass B pages) + Σ_type2 routed pages: every type1 makes its pass A (10); pass B looks at the
3 text-poor pages (8, 9, 10) for the two type1 rows pass A missed with no candidate, and at page 9 alone for
evaluator-optimizer (pass A's candidate); type2 rows make one call per routed page (simplicity is deck_wide:
3 representative pages; augmented LLM: pages 5 and 8; parallelization: 0, short-circuited)."""
DECK_CALLS_VISUAL = DECK_PAGES * 4
"""P × Σ_g ⌈r_g / group_size⌉: 9 VLM rows in 4 clusters (layout 3, typography 1, colour 2, imagery 3), group_size 4."""
DECK_CALLS_AGENTIC = 2 * 2
"""⌈5 agentic rows / JUDGE_BATCH 4⌉ = 2 blocks; the simulator makes one tool round, then answers."""
DECK_CALLS = DECK_CALLS_CONTENT + DECK_CALLS_VISUAL + DECK_CALLS_AGENTIC  # 27 + 40 + 4 = 71
AGENTIC_REWARD = (2 + 4.4) / (2 + 8)
"""The example's code and agentic rows alone (`testkit.agentic_example`: what the install suites judge, with
JUDGE_EVIDENCE=0), same oracle: W = 2 + 8, E = 2 + 4.4 (see DECK_REWARD)."""
DECK_ENV = {"JUDGE_EVIDENCE": "180", "JUDGE_WORKFLOW_START_JITTER": "0"}
"""The example's ppt_judge rows judge the rendered deck: deck runs turn the evidence layer on."""


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
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=DECK_ENV, timeout=300)
    doc = assert_documents(run)
    assert run.returncode == 0, run.stderr
    assert run.reward == pytest.approx(DECK_REWARD, abs=1e-12)
    assert doc["status"] == "success" and doc["exit_code"] is None and doc["fatal"] is False
    ef = doc["extra_fields"]
    assert ef["judge_coverage"] == 1.0 and ef["judge_unjudged"] == 0 and ef["judge_degraded"] is False
    assert ef["judge_calls"] == DECK_CALLS == run.model_requests
    assert ef["judge_called"] is True and ef["delivery_from_chat"] is False and ef["judge_tokens"] > 0
    assert ef["judge_evidence_pages"] == DECK_PAGES
    v = run.verdicts
    assert v["A-NARRATIVE"]["level"] == 0.6 and v["A-NARRATIVE"]["contribution"] == pytest.approx(2.4)
    assert v["A-FABRICATION"]["hit"] is False and v["A-FABRICATION"]["contribution"] == 0
    assert next(c for c in doc["criteria"] if c["id"] == "A-NARRATIVE")["level_raw"] == 0.55
    assert doc["details"]["delivery"]["files"] == ["build_effective_agents.pptx"]
    assert v["C-LOCATE-DECK"]["hit"] is True and v["C-LOCATE-DECK"]["method"] == "code"
    assert v["C-DECK-OPENABLE"]["hit"] is True and v["C-DECK-OPENABLE"]["gate"] == "open"
    assert v["A-PATTERN-FIT"]["gate"] == "open"
    assert ef["judge_methods"] == {"agentic": {"n": 5, "judged": 5, "coverage": 1.0},
                                   "code": {"n": 2, "judged": 2, "coverage": 1.0},
                                   "workflow": {"n": 32, "judged": 32, "coverage": 1.0}}
    assert doc["details"]["delivery"]["final_message_source"] == "trajectory"
    # the agentic rows were asked exactly once each, in blocks; code rows never reach the model
    asked = [i for e in run.sim.log.entries() if e.kind == "final" for i in e.row_ids]
    agentic = [r["id"] for r in doc["results"] if r["method"] == "agentic"]
    assert sorted(i for i in asked if i in agentic) == sorted(agentic) and not [i for i in asked if i.startswith("C-")]
    # the three segments' calls, by the documented formula
    pages = [e for e in run.sim.log.entries() if e.page is not None]
    visual = [e for e in pages if all(i.startswith("V-") for i in e.row_ids)]
    assert len(visual) == DECK_CALLS_VISUAL and len(run.sim.log) - len(visual) - DECK_CALLS_AGENTIC == DECK_CALLS_CONTENT


def test_deck_workspace_and_audit(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE)
    blocks = sorted((run.work / "blocks").iterdir())
    assert [b.name for b in blocks] == ["block-01", "block-02"]
    ws = blocks[0]
    sub = json.loads((ws / "rubric.json").read_text())["rubrics"]
    assert [r["id"] for r in sub] == ["A-HURDLE-NO-DECK", "A-NARRATIVE", "A-PATTERN-FIT", "A-TOOL-DESIGN"]
    assert sub[0]["polarity"] == "negative" and "hit=false" in sub[0]["hit_means"]
    assert sub[1]["level_choices"] == [0.0, 0.3, 0.6, 1.0]
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
    assert saved["A-NARRATIVE"]["level"] == 0.6
    for path in list(run.verifier.rglob("*")) + list(run.work.rglob("*")):
        if path.is_file():
            assert SIM_KEY.encode() not in path.read_bytes(), path


def test_deck_evidence_is_rendered_once_and_shared_with_every_block(judge_run):
    import shutil

    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=DECK_ENV, timeout=300)
    doc = assert_documents(run)
    assert run.reward == pytest.approx(DECK_REWARD, abs=1e-12)
    assert doc["extra_fields"]["judge_evidence_pages"] == 10
    deck = doc["details"]["evidence"]["decks"][0]
    assert deck["deck"] == "build_effective_agents.pptx" and deck["status"] == "ok" and deck["structure_ok"] is True
    caps = json.loads((run.verifier / "env_capabilities.json").read_text())
    assert caps["soffice"]["available"] is True
    pages = sorted(p.name for p in (run.work / "evidence" / "pages" / "build_effective_agents.pptx").iterdir())
    assert pages == [f"page-{n:03d}.png" for n in range(1, 11)]
    for block in ("block-01", "block-02"):
        page = run.work / "blocks" / block / "evidence" / "pages" / "build_effective_agents.pptx" / "page-001.png"
        assert page.is_file() and os.stat(page).st_nlink >= 3  # one file, hard-linked into every block
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
    run = judge_run(EXAMPLE_TESTS, None, oracle=DECK_ORACLE, app_dir=app, env={**DECK_ENV, "JUDGE_LENIENT_DELIVERY": "1"},
                    timeout=300)
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
    # the 3 positive agentic rows and the 32 ppt_judge rows are gated: judged, missed, no model call
    gated = [r for r in doc["results"] if r["method"] == "agentic" and r["reason"].startswith("[gate]")]
    assert len(gated) == 3 and all(r["judged"] and r["hit"] is False and r["gate"] == "closed" for r in gated)
    workflow = [r for r in doc["results"] if r["method"] == "workflow"]
    assert len(workflow) == 32 and all(r["judged"] and r["hit"] is False and r["reason"].startswith("[gate]") for r in workflow)
    # and they are in the audit folder like every other verdict (re-scoring, the watchdog)
    audited = json.loads((run.verifier / "judge" / "agentic-gated" / "verdicts.json").read_text())
    assert sorted(audited) == sorted(r["id"] for r in gated) and all(a["gate"] == "closed" for a in audited.values())
    # only the hurdle and the deduction (they ignore gates) reach the model: 1 block, 2 calls
    asked = sorted(i for e in run.sim.log.entries() for i in e.row_ids)
    assert asked == ["A-FABRICATION", "A-FABRICATION", "A-HURDLE-NO-DECK", "A-HURDLE-NO-DECK"]
    assert doc["extra_fields"]["judge_calls"] == 2 and doc["extra_fields"]["judge_coverage"] == 1.0
    # by hand: W = 119 (see DECK_REWARD); E = −3 (the deduction); the hurdle is fatal ⇒ reward 0
    assert doc["score_raw"] == pytest.approx(-3 / 119) and doc["fatal"] is True and run.reward == 0.0
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
    assert all(r["judged"] and r["method"] == "delivery" for r in doc["results"])
    # the example's hurdle "no deck" is what an empty delivery is: hit (fatal); every other row is not hit
    assert {r["id"] for r in doc["results"] if r["hit"]} == {"A-HURDLE-NO-DECK"} and doc["fatal"] is True


NOTHING_RUBRIC = {"rubrics": [
    {"id": "A-SPEED", "description": "The answer gives the speed in metres per second.", "weight": 2},
    {"id": "A-WRONG-UNIT", "description": "The answer contains a wrong unit conversion.", "weight": -1},
    {"id": "H-EMPTY", "description": "The response is empty or refuses to answer.", "weight": 0, "hurdle": True}]}


@pytest.mark.parametrize("answer, reward, fatal", [("", 0.0, True), ("Answer: 25 m/s (90 km/h / 3.6).", 1.0, False)])
def test_an_empty_answer_trips_the_hurdle_that_names_it(judge_run, tmp_path, answer, reward, fatal):
    """Trial 3 L3: an empty answer recorded the hurdle "the response is empty" as not hit. With nothing
    delivered every hurdle is hit (fatal), a deduction is not hit, a positive row misses; the reward is
    0 as before, and a delivered answer is judged as before (the change is the nothing-delivered path's)."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(NOTHING_RUBRIC))
    (tests / "task_prompt.md").write_text("A car travels 90 km/h. What is its speed in m/s?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.4", "steps": [
        {"step_id": 1, "source": "agent", "message": answer}]}))
    run = judge_run(tests, rollout, oracle={"A-SPEED": {"hit": True}, "A-WRONG-UNIT": {"hit": False}, "H-EMPTY": {"hit": False}})
    doc = assert_documents(run)
    rows = {r["id"]: r for r in doc["results"]}
    assert run.reward == reward and doc["fatal"] is fatal and doc["is_hit_hurdle"] is fatal
    assert doc["extra_fields"]["delivery_missing"] is fatal and doc["score_raw"] == reward
    assert rows["H-EMPTY"]["hit"] is fatal and rows["H-EMPTY"]["counted_hit"] is fatal
    assert rows["A-WRONG-UNIT"]["hit"] is False and rows["A-WRONG-UNIT"]["contribution"] == 0.0
    if fatal:
        assert run.model_requests == 0 and rows["A-SPEED"]["hit"] is False
        assert rows["H-EMPTY"]["reason"].startswith("[no delivery] nothing was delivered") and "hurdle counts as hit" in rows["H-EMPTY"]["reason"]
        ctrf = json.loads((run.verifier / "ctrf.json").read_text())
        assert [t["status"] for t in ctrf["results"]["tests"] if t["name"].startswith("H-EMPTY")] == ["failed"]


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
    from cowork_judge.authoring.importers import healthbench as hb

    source = json.loads((HEALTHBENCH_EXAMPLE / "source.json").read_text())
    assert json.loads((HEALTHBENCH_EXAMPLE / "tests" / "rubric.json").read_text()) == {"rubrics": hb.rubric_rows(source)}
    assert (HEALTHBENCH_EXAMPLE / "tests" / "task_prompt.md").read_text() == hb.task_prompt(source)
    traj = json.loads((HEALTHBENCH_EXAMPLE / "rollout" / "logs" / "agent" / "trajectory.json").read_text())
    assert traj["steps"][-1]["message"] == hb.ideal_completion(source)
    assert "canary" in source


def test_plain_json_fallback_when_response_format_is_rejected(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE, sim={"reject_json_schema": True}, env=DECK_ENV,
                    timeout=300)
    doc = assert_documents(run)
    assert run.reward == pytest.approx(DECK_REWARD, abs=1e-12) and doc["extra_fields"]["judge_coverage"] == 1.0
    rejected = [e for e in run.sim.log.entries() if e.kind == "error"]
    # the first rejection switches the transport to plain JSON; only requests already in flight can be
    # rejected too: at most JUDGE_WORKFLOW_CONCURRENCY = 4 (the workflow's transport) + JUDGE_CONCURRENCY = 2
    assert 1 <= len(rejected) <= 6
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
    # a *file* where the block workspaces go: building a block workspace fails mid-run (a work dir that is itself a
    # file, or cannot be made, is refused before the run: trial 13 F5, selftests/commands/test_run_trial13.py)
    work = tmp_path / "work"
    work.mkdir()
    (work / "blocks").write_text("x")
    run = judge_run(HEALTHBENCH_EXAMPLE / "tests", HEALTHBENCH_EXAMPLE / "rollout", oracle=HB_ORACLE, work_dir=work)
    doc = assert_documents(run)
    assert run.returncode == 1
    assert doc["status"] == "error" and doc["exit_code"] == "judge:scorer_error"
    ef = doc["extra_fields"]
    assert ef["judge_error_kind"] == "backend_error" and ef["judge_coverage"] == 0.0 and ef["judge_unjudged"] == 6
    # unjudged deductions still deduct: E = −6, W = 32
    assert doc["score_raw"] == pytest.approx(-6 / 32) and run.reward == 0.0 and run.model_requests == 0


def test_internal_failure_anywhere_still_writes_a_reward(tmp_path, monkeypatch):
    from cowork_judge.engine import judge
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.run.paths import RunPaths

    def explode(*args, **kwargs):
        raise RuntimeError("scoring exploded")

    monkeypatch.setattr(judge, "collect_delivery", explode)
    paths = RunPaths.resolve(app_dir=tmp_path / "app", logs_dir=tmp_path / "logs", tests_dir=EXAMPLE_TESTS,
                             work_dir=tmp_path / "work")
    paths.app_dir.mkdir()  # a missing app dir is an error document of its own, before the delivery is collected
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
