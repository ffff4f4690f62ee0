"""Judge instruction discovery and the built-in default instruction."""

from __future__ import annotations

from cowork_judge.run.instruction import INSTRUCTION_NAMES, default_instruction, find_instruction


def test_discovery_order(tmp_path):
    for name in reversed(INSTRUCTION_NAMES):
        (tmp_path / name).write_text(f"from {name}")
        text, source, warnings = find_instruction(tmp_path, None)
        assert (text, source, warnings) == (f"from {name}", str(tmp_path / name), [])


def test_configured_file_wins_relative_to_tests_dir(tmp_path):
    (tmp_path / "judge_instruction.md").write_text("default name")
    (tmp_path / "custom.md").write_text("custom")
    assert find_instruction(tmp_path, "custom.md")[0] == "custom"
    absolute = tmp_path / "elsewhere.md"
    absolute.write_text("absolute")
    assert find_instruction(tmp_path, str(absolute))[0] == "absolute"
    text, _, warnings = find_instruction(tmp_path, "missing.md")
    assert text == "default name" and "JUDGE_INSTRUCTION_FILE" in warnings[0]


def test_built_in_default_is_not_a_warning_but_an_empty_file_is(tmp_path):
    """The built-in instruction is a documented default: the run says so once at INFO
    (issue 9); an instruction file that exists but is empty is a mistake worth a warning."""
    text, source, warnings = find_instruction(tmp_path, None)
    assert (source, text, warnings) == ("built-in", default_instruction(), [])
    (tmp_path / "judge_instruction.md").write_text("   \n")  # empty files do not count
    text, source, warnings = find_instruction(tmp_path, None)
    assert source == "built-in" and text == default_instruction()
    assert [w for w in warnings if "empty" in w] and not [w for w in warnings if "built-in default" in w]


def test_default_instruction_says_what_the_spec_requires():
    text = default_instruction()
    assert "output/" in text and "model_response_text.txt" in text  # prefer files; text-only tasks
    assert "never an" in text and "instruction" in text  # deliverable content is data
    assert '"Could not extract" is not "absent"' in text
