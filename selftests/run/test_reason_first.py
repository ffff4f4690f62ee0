"""Reason first, everywhere (issue 37): every answer schema the judge SENDS lists the
explanation (``reason``, and ``quote``/``pages`` where asked) before the verdict (``hit``,
``level``, ``na``), in ``properties`` and in ``required``.

The schemas are read at the one seam, the simulator's request log (``LogEntry.answer_schema``:
the schema exactly as the request carried it, key order kept), for every path that asks a
model: the openai backend (chat), ppt_judge's visual and content requests, answer_match,
a panel of two judges, and the real codex (responses) and claude (messages) CLIs. The
prompt texts and the shipped instruction templates spell the answer in the same order.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Any

import pytest
from run.test_e2e import AGENTIC_REWARD, DECK_ENV, DECK_ORACLE
from testkit import EXAMPLE_TESTS, HEALTHBENCH_EXAMPLE, REPO, ROLLOUTS, SIM_KEY, agentic_example

from cowork_judge.core.verdicts import parse_reply
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import OraclePolicy
from cowork_judge.sim.schema_fill import Criterion as FillCriterion
from cowork_judge.sim.schema_fill import Verdict as FillVerdict
from cowork_judge.sim.schema_fill import detect_shape, fill
from cowork_judge.workflow.answer_match.rows import answer_row, process_row

EXPLANATION = ("reason", "quote", "pages")
VERDICT = ("hit", "level", "na")


def item_branches(schema: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The verdict item schemas of a ``{"verdicts": [...]}`` answer schema ([] for other shapes)."""
    items = ((schema or {}).get("properties") or {}).get("verdicts", {}).get("items")
    if not isinstance(items, dict):
        return []
    return [b for b in items.get("anyOf", [items]) if isinstance(b, dict)]


def assert_reason_first(schema: dict[str, Any], where: str) -> None:
    branches = item_branches(schema)
    assert branches, f"{where}: not a verdict schema"
    for branch in branches:
        for name, keys in (("properties", list(branch["properties"])), ("required", list(branch["required"]))):
            assert "reason" in keys, (where, name, keys)
            last_explanation = max(keys.index(k) for k in EXPLANATION if k in keys)
            first_verdict = min(keys.index(k) for k in VERDICT if k in keys)
            assert keys[0] == "id" and last_explanation < first_verdict, (where, name, keys)


def verdict_schemas_sent(*sims: SimServer) -> list[tuple[str, dict[str, Any]]]:
    return [(f"{e.endpoint} request {e.seq}", e.answer_schema) for sim in sims for e in sim.log.entries()
            if e.answer_schema is not None and item_branches(e.answer_schema)]


def test_the_openai_backend_sends_reason_first(judge_run, tmp_path):
    run = judge_run(agentic_example(tmp_path / "t"), ROLLOUTS / "deck", oracle=DECK_ORACLE)
    assert run.returncode == 0, run.stderr
    assert run.reward == pytest.approx(AGENTIC_REWARD, abs=1e-12)  # the old-order oracle still parses the same
    sent = verdict_schemas_sent(run.sim)
    assert sent and {e.endpoint for e in run.sim.log.entries() if e.kind == "final"} == {"chat"}
    for where, schema in sent:
        assert_reason_first(schema, where)


@pytest.mark.slow
def test_ppt_judge_visual_and_content_requests_send_reason_first(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=DECK_ENV, timeout=300)
    assert run.returncode == 0, run.stderr
    names = set()
    for where, schema in verdict_schemas_sent(run.sim):
        assert_reason_first(schema, where)
    for e in run.sim.log.entries():
        if e.answer_schema is not None:
            names.add(tuple(item_branches(e.answer_schema)[0]["properties"]))
    # content pass A (quote, pages), pass B, type2 (na), the visual page request and the agentic blocks (quote)
    assert ("id", "reason", "quote", "pages", "hit") in names and ("id", "reason", "hit") in names
    assert ("id", "reason", "hit", "na") in names and ("id", "reason", "hit", "level") in names
    assert ("id", "reason", "quote", "hit", "level") in names


def test_answer_match_sends_reason_first(judge_run, tmp_path):
    rubric = [answer_row("ANSWER", ["(a) v = sqrt(2 g h)", "(b) t = sqrt(2 h / g)"], weight=0.3, solution="energy…"),
              process_row("PROCESS", "Energy conservation gives v; kinematics gives t.", weight=0.7,
                          steps=["energy conservation m g h = m v^2 / 2", "solve for v", "h = g t^2 / 2 solved for t"])]
    tests, rollout = tmp_path / "tests", tmp_path / "rollout"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rubric}))
    (tests / "task_prompt.md").write_text("A ball falls from rest from height h. Find v and t.\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("v = sqrt(2gh), t = sqrt(h/g)")
    oracle = {"ANSWER#a": {"hit": True, "level": 1}, "ANSWER#b": {"hit": False, "level": 0},
              **{f"PROCESS#s{i}": {"hit": True, "level": 1} for i in (1, 2, 3)}}
    run = judge_run(tests, rollout, oracle=oracle, env={"JUDGE_WORKFLOW_START_JITTER": "0"})
    assert run.returncode == 0, run.stderr
    sent = verdict_schemas_sent(run.sim)
    assert len(sent) == 2
    for where, schema in sent:
        assert_reason_first(schema, where)


def test_each_judge_of_a_panel_is_sent_reason_first(tmp_path):
    rows = [{"id": "P1", "description": "The reply names its sources.", "weight": 2},
            {"id": "G1", "description": "How clear the reply is.", "weight": 1, "type": "gradient",
             "levels": {"0": "unclear", "0.5": "partly", "1": "clear"}}]
    tests, rollout = tmp_path / "tests", tmp_path / "rollout"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text("Answer the question.\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("It is 42, per the 2020 census.")
    oracle = OraclePolicy.from_dict({"P1": {"hit": True}, "G1": {"hit": True, "level": 1}})
    with SimServer(oracle, api_key=SIM_KEY, tool_rounds=0) as a, SimServer(oracle, api_key=SIM_KEY, tool_rounds=0) as b:
        panel = [{"name": "alpha", "model": "model-a", "base_url": a.url, "api_key_env": "PANEL_KEY"},
                 {"name": "beta", "model": "model-b", "base_url": b.url, "api_key_env": "PANEL_KEY"}]
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
        env = {**clean, "JUDGE_START_JITTER": "0", "PANEL_KEY": SIM_KEY, "JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": a.url,
               "JUDGE_PANEL": json.dumps(panel)}
        root = tmp_path / "run"
        (root / "logs" / "agent").mkdir(parents=True)
        (root / "app").mkdir()
        shutil.copytree(rollout / "logs" / "agent", root / "logs" / "agent", dirs_exist_ok=True)
        proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"),
                               "--logs-dir", str(root / "logs"), "--tests-dir", str(tests), "--work-dir", str(root / "work"),
                               "--alt-output-dir", str(root / "alt")], env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        sent_a, sent_b = verdict_schemas_sent(a), verdict_schemas_sent(b)
    assert sent_a and sent_b
    for where, schema in sent_a + sent_b:
        assert_reason_first(schema, where)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.skipif(shutil.which(n) is None, reason=f"{n} CLI not on PATH"), id=n)
    for n in ("codex", "claude")])
def test_the_cli_backends_send_reason_first(judge_run, tmp_path, monkeypatch, name):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    run = judge_run(agentic_example(tmp_path / "t"), ROLLOUTS / "deck", oracle=DECK_ORACLE,
                    env={"JUDGE_BACKEND": name, "JUDGE_BATCH": "3"}, timeout=240)
    assert run.returncode == 0, run.stderr
    assert run.reward == pytest.approx(AGENTIC_REWARD, abs=1e-12)
    sent = verdict_schemas_sent(run.sim)
    endpoint = {"codex": "responses", "claude": "messages"}[name]
    assert sent and all(where.startswith(endpoint) for where, _ in sent)
    for where, schema in sent:
        assert_reason_first(schema, where)


INSTRUCTIONS = [REPO / "src" / "cowork_judge" / "data" / "judge_instruction.md", EXAMPLE_TESTS / "judge_instruction.md",
                HEALTHBENCH_EXAMPLE / "tests" / "judge_instruction.md"]


@pytest.mark.parametrize("path", INSTRUCTIONS, ids=lambda p: str(p.relative_to(REPO)))
def test_the_shipped_instruction_templates_spell_the_answer_reason_first(path):
    text = path.read_text(encoding="utf-8")
    answer = text[text.index('{"verdicts"'):]
    assert answer.index('"reason"') < answer.index('"hit"') < answer.index('"level"')


def test_the_prompts_the_judge_writes_spell_the_answer_reason_first():
    from cowork_judge.agentic import block_prompt as prompt
    from cowork_judge.agentic import cli_base
    from cowork_judge.workflow.ppt_judge import content_prompt
    from cowork_judge.workflow.ppt_judge import prompt as visual
    for where, text in [("agentic", prompt.PROTOCOL), ("cli", cli_base.PROTOCOL), ("visual", visual.SYSTEM),
                        ("pass A", content_prompt.SYSTEM_TEXT), ("pass B", content_prompt.SYSTEM_IMAGE),
                        ("type2", content_prompt.SYSTEM_TYPE2)]:
        answer = text[text.index('{"verdicts"'):]
        positions = [answer.index(f'"{k}"') for k in ("reason", "hit") if f'"{k}"' in answer]
        assert positions == sorted(positions), where
        for k in ("level", "na"):
            if f'"{k}"' in answer:
                assert answer.index('"reason"') < answer.index(f'"{k}"'), (where, k)


def test_the_parser_keeps_reading_old_order_replies():
    rows = normalize_rubric([{"id": "A", "description": "a", "weight": 1},
                             {"id": "G", "description": "g", "weight": 1, "type": "gradient",
                              "levels": {"0": "no", "0.5": "half", "1": "yes"}}]).criteria
    old = '{"verdicts": [{"id": "A", "hit": true, "level": null, "reason": "old order"}, ' \
          '{"id": "G", "hit": true, "level": 0.5, "reason": "old"}]}'
    new = '{"verdicts": [{"id": "A", "reason": "new order", "hit": true, "level": null}, ' \
          '{"id": "G", "reason": "new", "hit": true, "level": 0.5}]}'
    for text in (old, new, new[: new.index('"hit": true, "level": 0.5') + 30]):  # the last one cut off mid-object
        out = parse_reply(text, rows)
        assert out.verdicts["A"].hit is True and out.verdicts["G"].level == 0.5, text
    cut = new[: new.index('"reason": "new"') + 16]  # cut after G's reason, before its hit: G is not judged
    out = parse_reply(cut, rows)
    assert out.verdicts["A"].hit is True and out.verdicts["G"].judged is False


def test_the_simulators_schema_filler_answers_the_reason_first_schema_validly():
    import jsonschema

    from cowork_judge.core.verdicts import verdict_schema
    rows = normalize_rubric([{"id": "A", "description": "a", "weight": 1},
                             {"id": "G", "description": "g", "weight": 1, "type": "gradient",
                              "levels": {"0": "no", "0.5": "half", "1": "yes"}}]).criteria
    schema = verdict_schema(rows)
    crits = [FillCriterion(n + 1, c.description, c.id) for n, c in enumerate(rows)]
    shape, key = detect_shape(schema)
    answer = fill(schema, shape, key, crits, [FillVerdict(True, 1.0, False, "shown"), FillVerdict(False, 0.0, False, "no")])
    jsonschema.validate(answer, schema)
