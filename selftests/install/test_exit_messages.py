"""The exit-message table: every failure class, in Python and in test.sh's bash copy alike."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import get_args

import pytest

from cowork_judge.commands import main as cli
from cowork_judge.core.error_kinds import ExitCode
from cowork_judge.install.exit_messages import RULES, infer, infer_from_dir, render_shell_table
from cowork_judge.install.template import RULES_BLOCK, read_block
from install.harness import REPO
from install.snippets import CASES

TEMPLATE = REPO / "templates" / "test.sh"


def bash_infer(verifier: Path) -> tuple[str, str]:
    """Run the template's own infer_embedded (its functions, without main) on a folder."""
    text = TEMPLATE.read_text()
    functions = text[: text.index("\ntrap ")]
    script = functions + '\nVERIFIER_DIR="$1"; infer_embedded; printf "%s\\t%s" "$INF_CODE" "$INF_REASON"\n'
    proc = subprocess.run(["bash", "-c", script, "bash", str(verifier)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    code, reason = proc.stdout.split("\t", 1)
    return code, reason


def write_logs(folder: Path, logs: dict[str, str | bytes]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in logs.items():
        (folder / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    return folder


@pytest.mark.parametrize("name", list(CASES))
def test_every_failure_class_is_classified_alike_in_python_and_bash(tmp_path, name):
    logs, code, rule = CASES[name]
    folder = write_logs(tmp_path / "verifier", logs)
    result = infer_from_dir(folder)
    assert (result.exit_code, result.rule) == (code, rule)
    assert "\n" not in result.exit_reason and result.exit_reason
    assert bash_infer(folder) == (result.exit_code, result.exit_reason)


def test_codes_are_the_four_of_the_spec_and_the_template_embeds_this_table():
    allowed = set(get_args(ExitCode))
    assert {r.exit_code for r in RULES} <= allowed and len(allowed) == 4
    assert read_block(TEMPLATE.read_text(), RULES_BLOCK) == render_shell_table()


def test_every_rule_pattern_means_the_same_to_grep_and_python(tmp_path):
    # each rule's own reason text never matches an earlier rule by accident, and grep -E accepts every pattern
    for rule in RULES:
        proc = subprocess.run(["grep", "-a", "-i", "-E", "-e", rule.pattern], input="", capture_output=True, text=True)
        assert proc.returncode == 1, (rule.name, proc.stderr)  # 1 = no match (2 would be a bad pattern)
        re.compile(rule.pattern)


def test_non_ascii_and_long_lines_are_quoted_the_same_way(tmp_path):
    line = "Traceback (most recent call last): café \t " + "x" * 500 + "\r"
    folder = write_logs(tmp_path / "v", {"judge.log": ("intro ü\n" + line + "\n").encode("utf-8")})
    result = infer_from_dir(folder)
    assert result.rule == "crash" and len(result.exit_reason) <= len(result.exit_reason.split(": ", 1)[0]) + 2 + 300
    assert bash_infer(folder) == (result.exit_code, result.exit_reason)


def test_first_rule_wins_over_a_later_line(tmp_path):
    # a traceback printed after the credential error does not hide it
    result = infer(["ERROR no judge credentials: set JUDGE_API_KEY\nTraceback (most recent call last):\n"])
    assert result.rule == "no_credential"


def test_command_prints_code_and_reason(tmp_path, capsys):
    folder = write_logs(tmp_path / "v", CASES["rate limit"][0])
    assert cli(["exit-message", str(folder)]) == 0
    code, reason = capsys.readouterr().out.rstrip("\n").split("\t")
    assert code == "judge:api_error" and reason.startswith("the judge endpoint rate-limited the run: openai.RateLimitError")
    assert cli(["exit-message", str(folder), "--json"]) == 0
    assert '"rule": "rate_limit"' in capsys.readouterr().out


def test_command_on_a_missing_folder_is_a_clear_error(tmp_path, capsys):
    assert cli(["exit-message", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert cli(["exit-message"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_an_empty_folder_is_the_default(tmp_path):
    assert infer_from_dir(tmp_path).rule == "default"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_copy_on_an_empty_folder(tmp_path):
    assert bash_infer(tmp_path)[0] == "judge:scorer_error"
