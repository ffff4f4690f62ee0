"""Trial 37 P-2: lint warned A002 ("no judge instruction") on a rubric whose model rows are all workflow rows
(ppt_judge, answer_match, trajectory_judge), which ask with their own prompts and never read judge_instruction.md:
the author wrote a file no model call ever carried. A002 now needs an agentic row (the one reader of the file)."""

from __future__ import annotations

import json

from cowork_judge.commands.lint import main

DECK = {"id": "C-DECK", "description": "Exactly one deck is among the deliverables.", "weight": 1,
        "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}}
MATCH = {"id": "W-ANSWER", "description": "The answer matches the reference.", "weight": 1, "judge_method": "workflow",
         "workflow_name": "answer_match", "answer_match": {"reference": "42"}}
AGENTIC = {"id": "A-CONTENT", "description": "The deck explains the three findings of the report.", "weight": 3}


def _codes(make_instance, capsys, rows) -> list[str]:
    main([str(make_instance(rubric=rows, instruction=None)), "--format", "json"])
    return [f["code"] for f in json.loads(capsys.readouterr().out)["instances"][0]["findings"]]


def test_no_instruction_is_said_only_where_an_agentic_row_reads_it(make_instance, capsys):
    assert "A002" not in _codes(make_instance, capsys, [DECK, MATCH])
    assert "A002" in _codes(make_instance, capsys, [DECK, MATCH, AGENTIC])
