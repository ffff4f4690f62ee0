"""Trial 28 P-5: a deck task (its prompt names a .pptx: init picks the deck extras) whose model-judged rows have no
deck gate (no ``locate_deck`` row in their ``depends_on``). Given no deck, only a final message claiming the slides,
the run fell back to the message (JUDGE_CHAT_FALLBACK) and judged the rows on the claims: status success, no warning.
Now ``details.warnings`` says so, naming the rows and the fix; the verdicts and the reward are not changed. A gated
rubric and a chat task say nothing of the kind.

Real CLI (`python -m cowork_judge run`) against the simulator over HTTP."""

from __future__ import annotations

from pathlib import Path

from testkit import write_task

DECK_PROMPT = ("Make a slide deck (5-12 slides) teaching photosynthesis to 8th graders. "
               "Save it as a .pptx file in /app/output/.\n")
CLAIM = ("I made the deck. It states the overall equation of photosynthesis (6 CO2 + 6 H2O + light -> C6H12O6 + 6 O2) "
         "and every slide is readable: no text overflows or overlaps.\n")
ROWS = [
    {"id": "A-EQUATION", "description": "The deck states the overall equation of photosynthesis.", "weight": 3},
    {"id": "A-LOOK", "description": "Every slide is readable: no text overflows or overlaps.", "weight": 2},
]
GATE = {"id": "C-DECK", "description": "Exactly one slide deck (.pptx) is among the deliverables in output/.",
        "weight": 1, "judge_method": "code", "code_method_name": "locate_deck"}
ORACLE = {"A-EQUATION": {"hit": True}, "A-LOOK": {"hit": True}}


def _claim_only(tmp_path: Path) -> Path:
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(CLAIM)
    return rollout


def _said(doc: dict) -> list[str]:
    return [w for w in doc["details"]["warnings"] if "deck task: no file was delivered" in w]


def test_a_deck_task_judged_on_the_final_message_is_a_warning(judge_run, tmp_path):
    tests = write_task(tmp_path / "task", ROWS, DECK_PROMPT) / "tests"
    run = judge_run(tests, _claim_only(tmp_path), oracle=ORACLE)
    assert run.returncode == 0, run.stderr
    doc = run.doc
    assert doc["details"]["delivery"]["from_chat"] is True
    said = _said(doc)
    assert len(said) == 1, doc["details"]["warnings"]
    assert said[0].startswith("delivery: deck task: no file was delivered; 2 row(s) (A-EQUATION, A-LOOK) were judged "
                              "on the agent's final message (claims, not slides)")
    assert "locate_deck" in said[0] and "Use a gate, not a hurdle" in said[0] and "M015" in said[0]
    assert doc["status"] == "success" and float(run.reward_text) == 1.0  # a warning only: the score is not changed


def test_a_gated_deck_task_and_a_chat_task_say_nothing_of_it(judge_run, tmp_path):
    gated = [GATE, *({**row, "depends_on": ["C-DECK"]} for row in ROWS)]
    rollout = _claim_only(tmp_path)
    run = judge_run(write_task(tmp_path / "gated", gated, DECK_PROMPT) / "tests", rollout, oracle=ORACLE)
    assert run.returncode == 0, run.stderr
    assert run.doc["details"]["delivery"]["from_chat"] is True and not _said(run.doc), run.doc["details"]["warnings"]
    chat = write_task(tmp_path / "chat", ROWS, "Explain photosynthesis to an 8th grader in a short answer.\n") / "tests"
    run = judge_run(chat, rollout, oracle=ORACLE)
    assert run.returncode == 0, run.stderr
    assert run.doc["details"]["delivery"]["from_chat"] is True and not _said(run.doc), run.doc["details"]["warnings"]
