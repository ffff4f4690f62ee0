"""`install.solve_script`: the one reader of a task's solve.sh and the one parse of its copy commands, which the dry
run (``try`` on a ``solution/`` folder: trials 28, 29, 36) and lint A007 (trial 35 P-6) both read, each with its own
policy. The parse itself here, and the dry run's reading of a ``solution/`` folder on what it now reads as lint did
(lint's side: ``selftests/lint/test_a007_parse.py``)."""

from __future__ import annotations

import os
import time

import pytest

from cowork_judge.install import dryrun
from cowork_judge.install.solve_script import CopyCommand, copy_commands, read_solve_sh


def _one(script: str) -> CopyCommand:
    found = copy_commands(script)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(("script", "program", "sources", "target", "options"), [
    ("cp /solution/a.pptx /app/output/", "cp", ("/solution/a.pptx",), "/app/output/", ()),
    ("/bin/cp -rf -- /solution/out/. /app/output", "/bin/cp", ("/solution/out/.",), "/app/output", ("-rf", "--")),
    ("mv a b c /app/output/", "mv", ("a", "b", "c"), "/app/output/", ()),
    ("cp \"/solution/my deck.pptx\" '/app/output/'", "cp", ("/solution/my deck.pptx",), "/app/output/", ()),
    ("install -m 644 -o root /solution/x.txt /logs/agent/final_answer.txt", "install", ("/solution/x.txt",),
     "/logs/agent/final_answer.txt", ("-m", "-o")),
    ("cat /solution/x.txt > /logs/agent/final_answer.txt", "cat", ("/solution/x.txt",), "/logs/agent/final_answer.txt",
     ()),
    ("cat -v < x.txt >> /logs/agent/response.txt", "cat", ("x.txt",), "/logs/agent/response.txt", ("-v",)),
    ("cp -t /app/output /solution/a /solution/b", "cp", ("/app/output", "/solution/a"), "/solution/b", ("-t",)),
    ("cp /solution/a /app/output/ > /dev/null", "cp", ("/solution/a",), "/app/output/", ()),
    ("cp /solution/a", "cp", ("/solution/a",), "", ()),
    ("cp $SRC/*.pptx ~/x /app/output/", "cp", ("$SRC/*.pptx", "~/x"), "/app/output/", ()),  # nothing expanded
    ("cp /solution/deck#2.pptx /app/output/", "cp", ("/solution/deck#2.pptx",), "/app/output/", ()),  # one word
])
def test_the_parts_of_a_copy_command(script, program, sources, target, options):
    command = _one(script)
    assert (command.program, command.sources, command.target, command.options) == (program, sources, target, options)
    assert command.tool == program.rsplit("/", 1)[-1] and (command.line, command.end_line, command.sudo) == (1, 1, False)


def test_sudo_is_stripped_and_said():
    command = _one("sudo cp /solution/a /app/output/")
    assert (command.program, command.sudo, command.sources) == ("cp", True, ("/solution/a",))


@pytest.mark.parametrize("script", ["echo hi", "mkdir -p /app/output", "sudo", "ln -s /solution/a /app/output/a",
                                    "cp 'open /app/output/", "# cp /solution/a /app/output/", ""])
def test_no_copy_command(script):
    assert copy_commands(script) == []


def test_commands_split_at_every_separator_and_keep_their_line():
    script = ("#!/bin/bash\nset -e\n(cd /solution && cp a.pptx /app/output/); mv b c || cp d e | cat f > g & "
              "cp h i;; install j k\n")
    found = copy_commands(script)
    assert [(c.tool, c.sources, c.target, c.line) for c in found] == [
        ("cp", ("a.pptx",), "/app/output/", 3), ("mv", ("b",), "c", 3), ("cp", ("d",), "e", 3),
        ("cat", ("f",), "g", 3), ("cp", ("h",), "i", 3), ("install", ("j",), "k", 3)]


def test_a_continued_line_is_one_command_spanning_its_lines():
    script = "mkdir -p /app/output && \\\n  cp /solution/a \\\n     /app/output/\ncp /solution/b /app/output/\n"
    first, second = copy_commands(script)
    assert (first.sources, first.target, first.line, first.end_line) == (("/solution/a",), "/app/output/", 2, 3)
    assert (second.sources, second.line, second.end_line) == (("/solution/b",), 4, 4)


def test_a_quoted_word_across_a_continuation_reads_it_as_one_space():
    command = _one("cp '/solution/my\\\ndeck.pptx' /app/output/\n")
    assert command.sources == ("/solution/my deck.pptx",) and (command.line, command.end_line) == (1, 2)


@pytest.mark.parametrize("comment", ["# copy the deck \\", "echo start # copy the deck \\", "true\t# note\\"])
def test_a_backslash_ending_a_comment_continues_nothing(comment):
    command = _one(f"{comment}\ncp /solution/a.pptx /app/output/\n")
    assert (command.sources, command.line, command.end_line) == (("/solution/a.pptx",), 2, 2)


def test_quotes_and_escapes_hide_a_hash():
    found = copy_commands("cp \"/solution/a #1\" /app/output/ # the deck\ncp /solution/b\\ \\#2 /app/output/\n")
    assert [c.sources for c in found] == [("/solution/a #1",), ("/solution/b #2",)]


def test_max_lines_counts_logical_lines():
    script = "cp a \\\n  /app/output/\n" + "echo hi\n" * 3 + "cp b /app/output/\n"
    assert [c.sources for c in copy_commands(script, max_lines=4)] == [("a",)]
    assert [c.sources for c in copy_commands(script, max_lines=5)] == [("a",), ("b",)]


def test_read_solve_sh_reads_a_regular_file_up_to_its_limit(tmp_path):
    (tmp_path / "solve.sh").write_bytes(b"cp a b\n\xff\xfe" + b"x" * 50)
    assert read_solve_sh(tmp_path, limit=6) == "cp a b"
    assert read_solve_sh(tmp_path, limit=10) == "cp a b\n\ufffd\ufffdx"
    assert read_solve_sh(tmp_path / "missing", limit=10) == ""


def test_read_solve_sh_never_opens_a_fifo_or_a_folder(tmp_path):
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / "solve.sh")  # opening it would block until a writer came
    (tmp_path / "folder" / "solve.sh").mkdir(parents=True)
    started = time.monotonic()
    assert read_solve_sh(tmp_path / "fifo", limit=10) == "" and read_solve_sh(tmp_path / "folder", limit=10) == ""
    assert time.monotonic() - started < 5


def _solution(tmp_path, solve: str, files: dict[str, str]):
    solution = tmp_path / "task" / "solution"
    solution.mkdir(parents=True)
    (solution / "solve.sh").write_text(solve)
    for name, text in files.items():
        (solution / name).write_text(text)
    return solution


@pytest.mark.parametrize("solve", [
    "#!/bin/bash\n# the reference answer \\\ncp /solution/answer.txt /logs/agent/final_answer.txt\n",
    "#!/bin/bash\n(mkdir -p /logs/agent); cp /solution/answer.txt /logs/agent/final_answer.txt\n",
])
def test_try_reads_the_answer_copy_after_a_comment_or_a_run_of_separators(tmp_path, solve):
    """A comment ending in a backslash used to swallow the next line, and ``);`` used to be read as a word, so the
    dry run did not see the copy of the answer (the same parse now as lint's, which read both)."""
    solution = _solution(tmp_path, solve, {"answer.txt": "Take paracetamol.\n"})
    misread = dryrun.read_rollout(solution).misread
    assert f"is tried with: --final-message {solution / 'answer.txt'}" in misread, misread
