"""Trial 38 P-2: a deck task whose prompt asks for the deck in words ("Save it as a PowerPoint presentation", "a
PPTX") and whose rows are all model-judged. Only a dotted suffix (".pptx") counted, so `cowork-judge init` picked no
deck extras, `lint-rubric` was clean and every run ended ``status: error`` with each row unjudged ``extras_missing``.
Now one classifier (`evidence.deck_request.asks_for_deck`) reads the request in words for init, lint and the run;
a chat task that talks about PowerPoint stays a chat task. The real ``cowork-judge init`` in a subprocess and the real
``lint-rubric`` main; the classifier's figures on two blind prompt sets are in docs/lint-rubric.md
(`bench/task_kind/deck_request.py`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from install.test_init import harbor_init

from cowork_judge.code_methods.task_kind import looks_like_chat_task
from cowork_judge.commands.lint import main as lint_main
from cowork_judge.evidence.deck_request import asks_for_deck

BENCH = Path(__file__).resolve().parents[2] / "bench" / "task_kind"
ROWS = [
    {"id": "A-FOUR-STAGES", "description": "The deck explains evaporation, condensation, precipitation and collection.",
     "weight": 3},
    {"id": "A-READABLE", "description": "The slides are readable: short bullets, no overflowing text.", "weight": 2},
    {"id": "H-PLACEHOLDER", "description": "The deck contains leftover placeholder text (Lorem ipsum, TODO).",
     "weight": 0, "hurdle": True},
]
TRIAL_PROMPTS = [  # the trial's four phrasings, none with a dotted suffix
    "Make a slide deck (5-12 slides) that explains the water cycle to a grade-6 class.\n"
    "Save it as a PowerPoint presentation in /app/output/.\n",
    "Explain the water cycle to a grade-6 class. Save it as a PPTX in /app/output/.\n",
    "Explain the water cycle to a grade-6 class. Save it as a PowerPoint (pptx) deck in /app/output/.\n",
    "Explain the water cycle to a grade-6 class. Save the slides as a PowerPoint file in /app/output/.\n",
]
CHAT_PROMPT = "How do I add speaker notes to a slide in PowerPoint? Answer in a few sentences.\n"


@pytest.mark.parametrize("prompt", TRIAL_PROMPTS)
def test_the_trials_phrasings_ask_for_a_deck(prompt):
    assert asks_for_deck(prompt)


@pytest.mark.parametrize("prompt", [
    CHAT_PROMPT,
    "Can PowerPoint export a deck as a video? Which settings matter?",
    "Draft an outline for a 10-slide presentation on tides. Reply in your message; I'll build the deck myself.",
    "Explain the water cycle. Do not make slides or a PowerPoint file; answer in your final message.",
    "Write the speaker notes for tomorrow's talk to notes.md; the slides are done.",
    "我在做一个关于新能源汽车的PPT，能给我推荐一个结构吗？直接在这里回答就行。",
])
def test_talk_about_decks_is_no_request_for_one(prompt):
    """A question, the user's own deck, a prohibition, another deliverable: none asks the agent for a deck."""
    assert not asks_for_deck(prompt)


def test_a_chinese_request_and_a_dotted_suffix_still_count():
    assert asks_for_deck("请把这份会议纪要整理成一个演示文稿（pptx格式），输出到 output 文件夹。")
    assert asks_for_deck("Save it as water.pptx in /app/output/.")
    assert not asks_for_deck("Do not deliver a .pptx; answer in chat.")  # the suffix inside a prohibition


def test_the_blind_rounds_read_as_published():
    """The figures docs/lint-rubric.md publishes for the two blind sets (round 1 after tuning, round 2 blind)."""
    one = json.loads((BENCH / "blind_deck_trial38.json").read_text(encoding="utf-8"))
    two = json.loads((BENCH / "blind_deck_trial38_round2.json").read_text(encoding="utf-8"))
    count = lambda prompts: sum(asks_for_deck(p) for p in prompts)  # noqa: E731
    assert (count(one["deck_no_suffix"]), count(one["deck_suffix"]), count(one["chat_about_decks"]),
            count(one["other_file_mentions_decks"])) == (40, 10, 0, 5)
    assert (count(two["deck_no_suffix"]), count(two["chat_about_decks"]),
            count(two["other_file_mentions_decks"])) == (29, 0, 1)


def _task(tmp_path: Path, prompt: str) -> Path:
    task = harbor_init(tmp_path)
    (task / "instruction.md").write_text(prompt, encoding="utf-8")
    (task / "tests" / "task_prompt.md").write_text(prompt, encoding="utf-8")
    (task / "tests" / "rubric.json").write_text(json.dumps({"rubrics": ROWS}), encoding="utf-8")
    return task


def _init_extras(task: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return next(line for line in proc.stdout.splitlines() if line.startswith("extras:"))


def _lint_codes(task: Path, capsys) -> list[str]:
    capsys.readouterr()
    lint_main([str(task / "tests"), "--format", "json"])
    return [f["code"] for f in json.loads(capsys.readouterr().out)["instances"][0]["findings"]]


def test_init_and_lint_read_the_trials_task_as_a_deck_task(tmp_path, capsys):
    """The trial's task: init gives the verifier the rendering extra, lint warns M015 (no deck gate), not M006."""
    task = _task(tmp_path, TRIAL_PROMPTS[0])
    assert _init_extras(task).startswith("extras: workflow"), _init_extras(task)
    codes = _lint_codes(task, capsys)
    assert "M015" in codes and "M006" not in codes, codes


def test_a_chat_task_about_powerpoint_stays_a_chat_task(tmp_path, capsys):
    """The same rows under a how-to question about PowerPoint: init picks no deck extras, lint says no M015, and the
    chat heuristic (M006's) still reads it as a chat task."""
    task = _task(tmp_path, CHAT_PROMPT)
    assert _init_extras(task).startswith("extras: none"), _init_extras(task)
    assert "M015" not in _lint_codes(task, capsys)
    assert looks_like_chat_task([("agentic", None, {})], [CHAT_PROMPT])
