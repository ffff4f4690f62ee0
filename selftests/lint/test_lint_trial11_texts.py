"""Trial 11 F13: lint reports the judge instruction and the task prompt the run cannot read cleanly —
with the run's own reader and choice (`run.instruction`), so the two agree: a UTF-16 file with its
byte-order mark is fine; UTF-16 without it (binary to the one reader) is passed over (A002 when it is
the only instruction: the built-in default is used); undecodable bytes are named (A003, A004); a
missing or empty task_prompt.md of a model-judged rubric is A004."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cowork_judge.lint.instance import lint_instance
from cowork_judge.run.instruction import find_instruction, task_prompt_text

INSTRUCTION = "Judge the deck in output/ against each row. Réponds en français.\n"
PROMPT = "Summarise the quarterly report - en français, s'il vous plaît.\n"
ENCODINGS = {
    "utf-8": INSTRUCTION.encode(),
    "utf-16 with its mark": INSTRUCTION.encode("utf-16"),
    "utf-32 with its mark": INSTRUCTION.encode("utf-32"),
    "utf-16 without its mark": INSTRUCTION.encode("utf-16-le"),
    "latin-1": INSTRUCTION.encode("latin-1"),
    "empty": b" \n",
}


def _codes(tests, code):
    return [f for f in lint_instance(tests).findings if f.code == code]


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_lint_and_run_agree_on_the_instruction(make_instance, name):
    tests = make_instance(instruction=None)
    (tests / "judge_instruction.md").write_bytes(ENCODINGS[name])
    text, source, warnings = find_instruction(tests, None)
    a002, a003 = _codes(tests, "A002"), _codes(tests, "A003")
    assert bool(a002) == (source == "built-in"), (name, source, a002)
    assert len(a003) + len(a002) == len(warnings), (name, warnings, a002, a003)
    if name in ("utf-8", "utf-16 with its mark", "utf-32 with its mark"):
        assert text == INSTRUCTION and not warnings and not a002 and not a003
    if name == "utf-16 without its mark":  # lint said nothing; the run used the built-in instruction
        assert len(a002) == 1 and "judge_instruction.md cannot be read (not text: a NUL byte" in a002[0].message
        assert "built-in default" in a002[0].message
    if name == "latin-1":  # the run uses it with U+FFFD; lint says so, with the offset
        offset = ENCODINGS[name].index(b"\xe9")
        assert source.endswith("judge_instruction.md") and "R\ufffdponds" in text
        assert len(a003) == 1 and a003[0].file.endswith("tests/judge_instruction.md")
        assert f"is not UTF-8 (first undecodable byte at offset {offset}: 0xe9)" in a003[0].message


def test_an_instruction_passed_over_for_another_is_a003(make_instance):
    tests = make_instance(instruction=None, files={"judge_prompt.md": "Judge each row.\n"})
    (tests / "judge_instruction.md").write_bytes(INSTRUCTION.encode("utf-16-le"))  # no mark
    a003 = _codes(tests, "A003")
    assert [f.file.rsplit("/", 1)[-1] for f in a003] == ["judge_instruction.md"]
    assert "passes it over and reads" in a003[0].message and a003[0].message.endswith("tests/judge_prompt.md instead")
    assert find_instruction(tests, None)[1] == str(tests / "judge_prompt.md")


@pytest.mark.parametrize("name,data,expected", [
    ("utf-8", PROMPT.encode(), None),
    ("utf-16 with its mark", PROMPT.encode("utf-16"), None),
    ("missing", None, "no task_prompt.md in"),
    ("empty", b"\n\n", "task_prompt.md is empty"),
    ("utf-16 without its mark", PROMPT.encode("utf-16-le"), "task_prompt.md cannot be read (not text"),
    ("latin-1", PROMPT.encode("latin-1"), "task_prompt.md is not UTF-8 (first undecodable byte at offset 40: 0xe7)"),
])
def test_a_task_prompt_the_judge_cannot_read_cleanly_is_a004(make_instance, name, data, expected):
    tests = make_instance(prompt=None)
    if data is not None:
        (tests / "task_prompt.md").write_bytes(data)
    a004 = _codes(tests, "A004")
    _, warnings = task_prompt_text(tests / "task_prompt.md", needs_model=True)
    assert len(a004) == len(warnings) == (0 if expected is None else 1), (name, a004, warnings)
    if expected is not None:
        assert expected in a004[0].message and a004[0].file.endswith("tests/task_prompt.md"), a004[0].line()


def test_a_code_only_rubric_needs_no_task_prompt(make_instance):
    rows = [{"id": "C", "description": "A deck is delivered.", "weight": 1, "judge_method": "code",
             "code_method_name": "locate_deck", "code_method_params": {}}]
    tests = make_instance(rubric=rows, prompt=None, instruction=None)
    assert not _codes(tests, "A004") and not _codes(tests, "A002")


def test_the_cli_reports_the_reproduction_of_the_trial(make_instance):
    """The trial's two commands: a UTF-16 (no mark) instruction and no task_prompt.md, through the real CLI."""
    tests = make_instance(prompt=None, instruction=None)
    (tests / "judge_instruction.md").write_bytes(INSTRUCTION.encode("utf-16-le"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_"))}
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr  # warnings: exit 0 (1 with --strict)
    assert "WARN A002" in proc.stdout and "WARN A004" in proc.stdout, proc.stdout
