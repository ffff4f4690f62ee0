"""Generic mode: judges that do not use our prompt get answers in their own schema's shape."""

from __future__ import annotations

import json

import pytest
from conftest import post_raw

from cowork_judge.sim import DemoPolicy, OraclePolicy, SimServer
from cowork_judge.sim.generic import extract_criteria

VERDICT_ENUM = {"enum": ["MET", "UNMET", "CANNOT_ASSESS"], "type": "string"}
SINGLE = {  # autorubric's CriterionJudgment, as pydantic writes it
    "$defs": {"CriterionVerdict": VERDICT_ENUM},
    "properties": {"criterion_status": {"$ref": "#/$defs/CriterionVerdict"}, "explanation": {"type": "string"},
                   "reasoning": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}},
    "required": ["criterion_status", "explanation"], "type": "object",
}
PER_ITEM = {  # autorubric's RubricJudgment (one call for every criterion)
    "$defs": {"CriterionVerdict": VERDICT_ENUM, "Judgment": {"type": "object", "properties": {
        "criterion_id": {"type": "string"},
        "criterion_status": {"anyOf": [{"$ref": "#/$defs/CriterionVerdict"}, {"type": "null"}]},
        "selected_option": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "explanation": {"type": "string"}}}},
    "properties": {"judgments": {"items": {"$ref": "#/$defs/Judgment"}, "type": "array"}}, "type": "object",
}
SINGLE_PROMPT = ("<criterion_type>\npositive\n</criterion_type>\n\n<criterion>\n{text}\n</criterion>\n\n"
                 "<submission>\nRevenue grew 5% over the quarter.\n</submission>")
PER_ITEM_PROMPT = ('<criteria>\n<rubric_criterion id="c0">\n<criterion>\nStates the revenue growth\n</criterion>\n'
                   '</rubric_criterion>\n<rubric_criterion id="c1">\n<criterion>\nShows a chart\n</criterion>\n'
                   '</rubric_criterion>\n</criteria>\n<submission>Revenue grew 5%.</submission>')


def _fmt(schema: dict) -> dict:
    return {"type": "json_schema", "json_schema": {"name": "judgment", "schema": schema}}


def _chat(sim: SimServer, client, user: str, **kwargs) -> object:
    with client(sim.url) as c:
        resp = c.chat.completions.create(model="m", messages=[
            {"role": "system", "content": "You grade one submission."}, {"role": "user", "content": user}], **kwargs)
    message = resp.choices[0].message
    return json.loads(message.tool_calls[0].function.arguments if message.tool_calls else message.content)


@pytest.mark.parametrize(
    ("oracle", "status"),
    [
        ({"The report states revenue growth": {"hit": True, "reason": "yes"}}, "MET"),  # exact text
        ({"  the report STATES revenue growth. ": {"hit": False, "reason": "no"}}, "UNMET"),  # normalized
        ({"1": {"hit": False, "na": True, "reason": "cannot tell"}}, "CANNOT_ASSESS"),  # by index
        ({"something else": {"hit": True}}, "UNMET"),  # not in oracle
    ],
)
def test_autorubric_single_criterion_schema(client, oracle, status):
    with SimServer(OraclePolicy.from_dict(oracle)) as sim:
        doc = _chat(sim, client, SINGLE_PROMPT.format(text="The report states revenue growth"),
                    response_format=_fmt(SINGLE))
    assert doc["criterion_status"] == status and set(doc) == {"criterion_status", "explanation", "reasoning"}
    assert doc["explanation"] == next(iter(oracle.values())).get("reason", "not in oracle")
    (entry,) = sim.log
    assert (entry.kind, entry.generic_shape, entry.status) == ("generic", "single", 200)


def test_autorubric_one_call_rubric_by_text_and_by_id(client):
    oracle = {"States the revenue growth": {"hit": True, "reason": "5%"}, "c1": {"hit": False, "reason": "none"}}
    with SimServer(OraclePolicy.from_dict(oracle)) as sim:
        doc = _chat(sim, client, PER_ITEM_PROMPT, response_format=_fmt(PER_ITEM))
    assert doc == {"judgments": [
        {"criterion_id": "c0", "criterion_status": "MET", "selected_option": None, "explanation": "5%"},
        {"criterion_id": "c1", "criterion_status": "UNMET", "selected_option": None, "explanation": "none"}]}
    assert sim.log[0].row_ids == ["States the revenue growth", "c1"] and sim.log[0].generic_shape == "list"


def test_numbered_list_under_a_heading_with_scores_and_summary(client):
    prompt = ("Steps:\n1. Read the submission\n2. Grade each criterion\n3. Answer in JSON\n\n"
              "Grading criteria:\n1. **Mentions revenue** (2 points)\n2. [ ] Uses a chart\n\nSubmission: revenue +5%")
    schema = {"type": "object", "properties": {
        "results": {"type": "array", "items": {"type": "object", "properties": {
            "criterion": {"type": "string"}, "passed": {"type": "boolean"},
            "score": {"type": "integer", "minimum": 0, "maximum": 5}, "reason": {"type": "string"}}}},
        "overall_score": {"type": "number"}, "summary": {"type": "string"}}}
    oracle = {"mentions revenue": {"hit": True, "reason": "r"}, "2": {"hit": True, "level": 0.6, "reason": "c"}}
    with SimServer(OraclePolicy.from_dict(oracle)) as sim:
        doc = _chat(sim, client, prompt, response_format=_fmt(schema))
    assert doc["results"] == [
        {"criterion": "Mentions revenue", "passed": True, "score": 5, "reason": "r"},
        {"criterion": "Uses a chart", "passed": True, "score": 3, "reason": "c"}]
    assert doc["overall_score"] == pytest.approx(0.8) and doc["summary"] == "2 of 2 criteria met"


def test_keyed_schema_takes_criteria_from_property_names(client):
    schema = {"type": "object", "properties": {"clarity": {"type": "boolean"},
                                               "accuracy": {"type": "boolean", "description": "Figures are correct"}}}
    oracle = {"clarity": {"hit": True}, "Figures are correct": {"hit": False}}
    with SimServer(OraclePolicy.from_dict(oracle)) as sim:
        doc = _chat(sim, client, "Grade this essay.", response_format=_fmt(schema))
    assert doc == {"clarity": True, "accuracy": False} and sim.log[0].generic_shape == "keyed"
    assert sim.log[0].row_ids == ["clarity", "Figures are correct"]


def test_forced_function_tool_carries_the_answer(client):
    tool = {"type": "function", "function": {"name": "Grade", "parameters": SINGLE}}
    with SimServer(OraclePolicy.from_dict({"Has a title": {"hit": True, "reason": "ok"}})) as sim:
        doc = _chat(sim, client, SINGLE_PROMPT.format(text="Has a title"), tools=[tool],
                    tool_choice={"type": "function", "function": {"name": "Grade"}})
    assert doc["criterion_status"] == "MET"
    assert sim.log[0].kind == "generic" and sim.log[0].tool_call is None


def test_no_schema_bulleted_criteria_get_the_text_shape(client):
    prompt = "Check the answer against:\n- States the capital\n- Names the river\n\nAnswer: Paris on the Seine."
    with SimServer(OraclePolicy.from_dict({"States the capital": {"hit": True}})) as sim:
        doc = _chat(sim, client, prompt)
    assert [(c["criterion"], c["criterion_status"], c["met"], c["score"]) for c in doc["criteria"]] == [
        ("States the capital", "MET", True, 1.0), ("Names the river", "UNMET", False, 0.0)]
    assert doc["score"] == 0.5 and sim.log[0].generic_shape == "text"


def test_unknown_schema_is_filled_best_effort_without_400(client):
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}},
                                               "count": {"type": "integer"}, "mode": {"enum": ["a", "b"]},
                                               "extra": {"type": ["string", "null"]}}}
    with SimServer(DemoPolicy()) as sim:
        doc = _chat(sim, client, "Summarise the text.", response_format=_fmt(schema))
    assert doc == {"tags": [], "count": 0, "mode": "a", "extra": None}
    assert (sim.log[0].kind, sim.log[0].generic_shape, sim.log[0].status) == ("generic", "unknown", 200)


def test_demo_policy_does_not_see_the_criterion_text_itself(client):
    with SimServer(DemoPolicy()) as sim:
        miss = _chat(sim, client, SINGLE_PROMPT.format(text="Discusses dividend policy thoroughly"),
                     response_format=_fmt(SINGLE))
        hit = _chat(sim, client, SINGLE_PROMPT.format(text="Reports revenue growth over the quarter"),
                    response_format=_fmt(SINGLE))
    assert (miss["criterion_status"], hit["criterion_status"]) == ("UNMET", "MET")


def test_responses_and_messages_endpoints_use_the_generic_mode_too():
    oracle = OraclePolicy.from_dict({"Has a title": {"hit": True, "reason": "titled"}})
    with SimServer(oracle) as sim:
        _, _, raw = post_raw(sim.url, "/responses", {
            "input": SINGLE_PROMPT.format(text="Has a title"),
            "text": {"format": {"type": "json_schema", "name": "j", "schema": SINGLE}}})
        responses_doc = json.loads(json.loads(raw)["output"][0]["content"][0]["text"])
        _, _, raw = post_raw(sim.root_url, "/v1/messages", {
            "max_tokens": 100, "messages": [{"role": "user", "content": SINGLE_PROMPT.format(text="Has a title")}],
            "output_config": {"format": {"type": "json_schema", "schema": SINGLE}}})
        messages_doc = json.loads(json.loads(raw)["content"][0]["text"])
    assert responses_doc["criterion_status"] == messages_doc["criterion_status"] == "MET"
    assert [(e.endpoint, e.kind) for e in sim.log] == [("responses", "generic"), ("messages", "generic")]


def test_rows_with_a_foreign_schema_answer_in_that_schema(client):
    """claude's session-title side request holds our rows but asks for {"title": ...}."""
    schema = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    user = '<session>\n<rubric_rows>[{"id": "A1", "description": "States growth"}]</rubric_rows>\n</session>'
    with SimServer(OraclePolicy.from_dict({"A1": {"hit": True}})) as sim:
        doc = _chat(sim, client, user, response_format=_fmt(schema))
    assert doc == {"title": "States growth"} and sim.log[0].row_ids == ["A1"] and sim.log[0].kind == "generic"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Criteria:\n1) First one\n2) Second (weight: 3)\n", ["First one", "Second"]),
        ("Rubric\n(1) Alpha\n(2) Beta\n\nNotes:\n- x\n- y\n- z", ["Alpha", "Beta"]),
        ("- a b\n- c d\n\n1. one\n2. two\n3. three", ["one", "two", "three"]),  # no heading: longest list
        ("Criterion 1: Is concise\nCriterion 2: Is polite", ["Is concise", "Is polite"]),
        ("Requirements:\n* [x] Has tests\n  that pass\n* Has docs", ["Has tests that pass", "Has docs"]),
        ("Nothing listed here.", []),
    ],
)
def test_extract_criteria_from_prompt_lists(text, expected):
    assert [c.text for c in extract_criteria(text)] == expected


RK_SINGLE = {"type": "object", "properties": {"score": {"type": "string", "enum": ["yes", "no"]},
                                              "reasoning": {"type": "string"}}, "required": ["score", "reasoning"]}


@pytest.mark.parametrize(("finding", "score"), [(2, "yes"), (3, "no")])
def test_one_verdict_schema_takes_the_criterion_not_the_reports_bullets(client, finding, score):
    """rewardkit's individual mode: the criterion is one bullet of the system prompt, the
    graded file (a bulleted report) is the user message. The schema asks for ONE verdict,
    so the list in the report is data: the criterion is the oracle text in the prompt."""
    oracle = {f"The report states finding {i}: region {i} grew.": {"hit": i % 2 == 0, "reason": f"r{i}"} for i in (1, 2, 3)}
    system = ("You are an evaluation judge. Evaluate the provided file contents against the following criteria.\n\n"
              f"- 'R{finding}': The report states finding {finding}: region {finding} grew. (score: yes or no)\n")
    report = "# Report\n\n" + "\n".join(f"- Finding {i}: region {i} reported growth." for i in range(1, 6))
    with SimServer(OraclePolicy.from_dict(oracle)) as sim, client(sim.url) as c:
        resp = c.chat.completions.create(model="m", response_format=_fmt(RK_SINGLE), messages=[
            {"role": "system", "content": system}, {"role": "user", "content": report}])
        entry = sim.log.entries()[-1]
    doc = json.loads(resp.choices[0].message.content)
    assert doc["score"] == score and entry.generic_shape == "single"
    assert entry.row_ids == [f"The report states finding {finding}: region {finding} grew."]
