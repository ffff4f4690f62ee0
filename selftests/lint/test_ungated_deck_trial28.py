"""Trial 28 P-5: a deck task (init picks the deck extras: its prompt names a .pptx) whose rubric has model-judged
rows but no deck gate (no ``locate_deck`` row in their ``depends_on``). Given no deck and only a final message
claiming the slides, the run judged those rows on the claims, and lint said ``0 errors, 0 warnings``. Now lint
warns (M015, WARN: exit 0), naming the rows, what happens at run time and the fix; the docs' gated deck example,
the repository's own deck package and a chat task stay silent. The real `lint-rubric` main and CLI."""

from __future__ import annotations

import json
import re

from testkit import REPO, lint_stdout

from cowork_judge.commands.lint import main

DECK_PROMPT = ("Make a slide deck (5-12 slides) teaching photosynthesis to 8th graders. "
               "Save it as a .pptx file in /app/output/.\n")
P5_ROWS = [
    {"id": "A-EQUATION", "description": "The deck states the overall equation of photosynthesis.", "weight": 3},
    {"id": "A-LOOK", "description": "Every slide is readable: no text overflows or overlaps.", "weight": 2},
]


def _findings(make_instance, capsys, rubric, prompt=DECK_PROMPT) -> tuple[int, list[dict]]:
    tests = make_instance(rubric=rubric, prompt=prompt)
    code = main([str(tests), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)["instances"][0]["findings"]


def test_the_trial_rubric_shape_is_a_warning_naming_the_rows_and_the_fix(make_instance, capsys):
    code, found = _findings(make_instance, capsys, P5_ROWS)
    said = [f for f in found if f["code"] == "M015"]
    assert len(said) == 1 and said[0]["level"] == "WARN", found
    message = said[0]["message"]
    assert "A-EQUATION, A-LOOK" in message
    assert "with no deck delivered, these rows are judged on the agent's final message" in message
    assert "locate_deck" in message and "Use a gate, not a hurdle" in message and "docs/rubric.md" in message
    assert code == 0, found  # a WARN: lint still exits 0


def test_a_row_gated_only_through_another_row_is_gated(make_instance, capsys):
    """The gate counts through the depends_on closure; an ungated row beside gated ones is named alone."""
    rubric = [{"id": "C-DECK", "description": "Exactly one deck is among the deliverables.", "weight": 1,
               "judge_method": "code", "code_method_name": "locate_deck"},
              {**P5_ROWS[0], "depends_on": ["C-DECK"]}, {**P5_ROWS[1], "depends_on": ["A-EQUATION"]},
              {"id": "A-EXTRA", "description": "The deck ends with a quiz.", "weight": 1}]
    _, found = _findings(make_instance, capsys, rubric)
    said = [f["message"] for f in found if f["code"] == "M015"]
    assert len(said) == 1 and "row(s) A-EXTRA are not gated" in said[0], found


def test_the_docs_deck_example_is_silent(make_instance, capsys):
    """docs/harbor-task.md step 3's rubric, read from the page itself."""
    page = (REPO / "docs" / "harbor-task.md").read_text(encoding="utf-8")
    block = re.search(r"cat > my-deck-task/tests/rubric.json <<'EOF'\n(.*?)\nEOF", page, re.S)
    assert block is not None
    _, found = _findings(make_instance, capsys, json.loads(block.group(1)))
    assert not [f for f in found if f["code"] == "M015"], found


def test_a_chat_task_is_silent(make_instance, capsys):
    _, found = _findings(make_instance, capsys, P5_ROWS, prompt="A patient asks which fever medicine to take.\n")
    assert not [f for f in found if f["code"] == "M015"], found


def test_the_repository_packages_are_silent():
    for tests in (REPO / "tests", REPO / "examples" / "healthbench-bbd759b4" / "tests"):
        assert "M015" not in lint_stdout(tests), tests
