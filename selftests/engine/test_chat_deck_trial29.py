"""Trial 29 P-6: the run's ``delivery: deck task: no file was delivered; N row(s) … were judged on the agent's final
message`` counted ungated ppt_judge rows too, which with no deck are a judged miss without a model call ("[deck] no
deck was delivered"), not judged on the message. Now it names only the rows that read the message (the agentic ones).

Real CLI (`python -m cowork_judge run`) against the simulator over HTTP."""

from __future__ import annotations

from pathlib import Path

from testkit import write_task

DECK_PROMPT = ("Make a slide deck (5-12 slides) teaching photosynthesis to 8th graders. "
               "Save it as a .pptx file in /app/output/.\n")
ROWS = [
    {"id": "A-EQUATION", "description": "The deck states the overall equation of photosynthesis.", "weight": 3},
    {"id": "A-LOOK", "description": "Every slide is readable: no text overflows or overlaps.", "weight": 2},
]
ORACLE = {"A-EQUATION": {"hit": True}, "A-LOOK": {"hit": True}}

VISUAL = {"id": "V-LOOK", "description": "Nothing on the slide is clipped or cut off.", "weight": 1,
          "judge_method": "workflow", "workflow_name": "ppt_judge", "workflow_group": "layout", "na_policy": "fail"}


def _claim_only(tmp_path: Path) -> Path:
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("I made the deck; every slide is readable.\n")
    return rollout


def _said(doc: dict) -> list[str]:
    return [w for w in doc["details"]["warnings"] if "deck task: no file was delivered" in w]


def test_the_warning_names_only_the_rows_judged_on_the_message(judge_run, tmp_path):
    tests = write_task(tmp_path / "task", [*ROWS, VISUAL], DECK_PROMPT) / "tests"
    run = judge_run(tests, _claim_only(tmp_path), oracle=ORACLE)
    assert run.returncode == 0, run.stderr
    visual = [r for r in run.doc["results"] if r["id"] == "V-LOOK"]
    assert visual and visual[0]["reason"].startswith("[deck] no deck was delivered"), visual
    said = _said(run.doc)
    assert len(said) == 1, run.doc["details"]["warnings"]
    assert said[0].startswith("delivery: deck task: no file was delivered; 2 row(s) (A-EQUATION, A-LOOK) were judged "
                              "on the agent's final message"), said
