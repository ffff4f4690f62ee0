"""The simulator answers the original cowork-judge 1.3.x's request shapes (issue 34) from the
same oracle as this project's, with the real openai client over HTTP.

The shapes: its CLI agent's Responses request (answer schema ``details.results`` with
``rubric_number``; the rubric is in ``rubric.json``, which the simulated model prints with
the agent's shell tool first) and its ppt_judge chat requests (page caption, presence,
recheck, compare-with-anchors, visual severities).
"""

from __future__ import annotations

import json

from cowork_judge.sim import OraclePolicy, SimServer

ORACLE = {
    "R1": {"hit": True, "reason": "found"},
    "R2": {"hit": False, "level": 0.5, "reason": "half"},
    "T1-A": {"hit": True, "pages": [3], "criterion": "The deck explains agents."},
    "T1-B": {"hit": False, "criterion": "The deck shows a roadmap."},
    "V-1": {"hit": True, "level": 0.65},
    "V-1@2": {"hit": True, "na": True},
}
RESULTS_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["details"], "properties": {
    "details": {"type": "object", "additionalProperties": False, "required": ["results"], "properties": {
        "results": {"type": "array", "items": {"type": "object", "additionalProperties": False,
                                               "required": ["rubric_number", "hit", "justification", "level"],
                                               "properties": {"rubric_number": {"type": "string"},
                                                              "hit": {"type": "boolean"},
                                                              "justification": {"type": "string"},
                                                              "level": {"type": "number"}}}}}}}}
TOOLS = [{"type": "function", "name": "exec_command",
          "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}}]
RUBRIC_DOC = {"rubrics": [
    {"id": "R1", "description": "States the revenue", "weight": 2, "polarity": "positive"},
    {"id": "R2", "description": "Charts are readable", "weight": 1, "type": "gradient",
     "level_choices": ["0", "0.5", "1"]},
    {"id": "R3", "description": "Not in the oracle", "weight": 1, "polarity": "negative"},
]}
SYSTEM = "You are a strict presentation deck verifier. Answer with JSON only, no markdown fences."


def _agent_input(prompt: str = "Judge every rubric in rubric.json of this folder.") -> list[dict]:
    return [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}]


def _text_format() -> dict:
    return {"format": {"type": "json_schema", "name": "codex_output_schema", "schema": RESULTS_SCHEMA, "strict": True}}


def test_the_agent_reads_rubric_json_then_answers_every_row_by_rubric_number(client):
    with SimServer(OraclePolicy.from_dict(ORACLE)) as sim, client(sim.url) as c:
        history = _agent_input()
        (call,) = c.responses.create(model="m", input=history, tools=TOOLS, text=_text_format()).output
        assert call.type == "function_call" and json.loads(call.arguments) == {"cmd": "cat rubric.json"}
        history += [{"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
                    {"type": "function_call_output", "call_id": call.call_id,
                     "output": "Exit code: 0\nOutput:\n" + json.dumps(RUBRIC_DOC, indent=2)}]
        answer = json.loads(c.responses.create(model="m", input=history, tools=TOOLS, text=_text_format()).output_text)
    results = answer["details"]["results"]
    assert [r["rubric_number"] for r in results] == ["R1", "R2", "R3"]
    assert [(r["hit"], r["level"]) for r in results] == [(True, 1.0), (True, 0.5), (False, 0.0)]
    assert results[0]["justification"] == "found"
    assert [(e.kind, e.original) for e in sim.log] == [("tool", "agentic"), ("original", "agentic")]
    assert sim.log[1].row_ids == ["R1", "R2", "R3"]


def test_an_inline_rubric_is_answered_without_a_tool_turn(client):
    prompt = "Judge these rubrics.\n```json\n" + json.dumps(RUBRIC_DOC) + "\n```\n"
    with SimServer(OraclePolicy.from_dict(ORACLE)) as sim, client(sim.url) as c:
        resp = c.responses.create(model="m", input=_agent_input(prompt), tools=TOOLS, text=_text_format())
    assert [r["rubric_number"] for r in json.loads(resp.output_text)["details"]["results"]] == ["R1", "R2", "R3"]


def _chat(c, prompt: str) -> dict:
    resp = c.chat.completions.create(model="m", messages=[{"role": "system", "content": SYSTEM},
                                                          {"role": "user", "content": [{"type": "text", "text": prompt}]}])
    return json.loads(resp.choices[0].message.content)


def test_ppt_judge_questions_are_answered_from_the_oracle_by_their_text(client):
    captions = "Page 1 [title]: Title | tags: a\nPage 3 [overview]: Agents | tags: b\n"
    presence = ("Verify PRESENCE of content in a presentation deck.\n\nChecklist question:\n{q}\n\n"
                "Deck caption list (page, section_guess, summary, tags):\n---\n" + captions + "---\n")
    compare = ("Compare slide content on page(s) [3, 4] against ground-truth anchor files.\n\nCheck kind: text_match\n"
               "Question: {q}\n\nGround truth from anchor files (authoritative):\n---\nanchor\n---\n")
    with SimServer(OraclePolicy.from_dict(ORACLE)) as sim, client(sim.url) as c:
        tag = _chat(c, "Analyze slide page 4 of a presentation deck screenshot.\n\nRespond JSON only")
        yes = _chat(c, presence.format(q="The deck explains agents."))
        no = _chat(c, presence.format(q="The deck shows a roadmap."))
        unknown = _chat(c, presence.format(q="A question no oracle entry names."))
        recheck = _chat(c, "Verify PRESENCE of content by LOOKING AT the attached slide page image(s).\n\n"
                           "Checklist question:\nThe deck explains agents.\n\n"
                           "Attached pages (1-based, in the order shown): [2, 3]\n")
        cmp = _chat(c, compare.format(q="The deck explains agents."))
    assert tag["page"] == 4 and tag["tags"] and tag["section_guess"]
    assert (yes["verdict"], yes["slide_pages"]) == ("yes", [3])
    assert (no["verdict"], no["slide_pages"]) == ("no", [])
    assert unknown["verdict"] == "no"
    assert (recheck["verdict"], recheck["slide_pages"]) == ("yes", [3])
    assert (cmp["verdict"], cmp["slide_pages"]) == ("yes", [3, 4])
    assert [e.original for e in sim.log] == ["tag", "presence", "presence", "presence", "recheck", "compare"]
    assert sim.log[1].row_ids == ["T1-A"]


def test_visual_rows_get_the_originals_severities_per_page(client):
    prompt = ("There is 1 image (deck page {n}).\n\nScore the following 2 rubrics. rubric_id: question\n\n"
              "- V-1: Text is readable\n- V-2: Colours are consistent\n\nReturn JSON: a \"scores\" object")
    with SimServer(OraclePolicy.from_dict(ORACLE)) as sim, client(sim.url) as c:
        page1 = _chat(c, prompt.format(n=1))["scores"]
        page2 = _chat(c, prompt.format(n=2))["scores"]
    assert (page1["V-1"]["score"], page1["V-2"]["score"]) == (2, 0)  # 0.65 → 2 of 3; not in the oracle → 0
    assert page2["V-1"]["score"] == "NA"
    assert sim.log[0].row_ids == ["V-1", "V-2"]


def test_this_projects_request_quoting_the_originals_phrases_stays_ours(client):
    rows = [{"id": "T1-A", "description": "The deck explains agents.", "type": "binary", "polarity": "positive"}]
    prompt = ("Evidence: Verify PRESENCE of content in a presentation deck.\n\nChecklist question:\nx\n\n"
              "Deck caption list\n<rubric_rows>\n" + json.dumps(rows) + "\n</rubric_rows>")
    with SimServer(OraclePolicy.from_dict(ORACLE)) as sim, client(sim.url) as c:
        answer = _chat(c, prompt)
    assert answer == {"verdicts": [{"id": "T1-A", "hit": True, "pages": [3], "reason": "oracle"}]}
    assert (sim.log[0].kind, sim.log[0].original) == ("final", None)
