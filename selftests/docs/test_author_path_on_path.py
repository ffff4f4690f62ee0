"""Trial 29 P-5: README's "For a task author, in brief" and harbor-task.md's prerequisites run bare `cowork-judge`,
`lint-rubric` and `harbor`, while the quick start installs into ``./.venv`` (and Harbor may have a venv of its own,
``~/.harbor``): a fresh shell ended ``cowork-judge: command not found`` (exit 127). Both pages now say how to put
them on ``PATH`` before the first bare command; README's two quick-start commands are unchanged
(`test_docs.test_the_readme_is_short_and_gives_the_two_commands`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ACTIVATE = "source .venv/bin/activate"
HARBOR = 'export PATH="$PATH:$HOME/.harbor/bin"'


def _before_first_command(text: str, heading: str, first: str) -> str:
    """The text of `text` from `heading` to the first line that runs `first`."""
    start = text.index(heading)
    return " ".join(text[start:text.index(f"\n{first}", start)].split())


def test_the_readme_author_block_says_how_to_put_the_commands_on_path():
    said = _before_first_command((REPO / "README.md").read_text(encoding="utf-8"), "## For a task author, in brief",
                                 "harbor init")
    assert ACTIVATE in said and 'export PATH="<checkout>/.venv/bin:$PATH"' in said and HARBOR in said, said


def test_harbor_task_prerequisites_say_how_to_put_the_commands_on_path():
    said = _before_first_command((REPO / "docs" / "harbor-task.md").read_text(encoding="utf-8"),
                                 "## The path, step by step", "harbor init")
    assert f"source <checkout>/{ACTIVATE.removeprefix('source ')}" in said and HARBOR in said, said


def test_the_harbor_line_keeps_the_venv_first(tmp_path):
    """Harbor's folder goes last on PATH, so the activated venv's `cowork-judge` is the one found."""
    for venv in ("checkout/.venv/bin", ".harbor/bin"):
        (tmp_path / venv).mkdir(parents=True)
        (tmp_path / venv / "cowork-judge").write_text(f"#!/bin/sh\necho {venv}\n")
        (tmp_path / venv / "cowork-judge").chmod(0o755)
    script = f'export PATH="{tmp_path}/checkout/.venv/bin:$PATH"; {HARBOR}; cowork-judge'
    proc = subprocess.run(["bash", "-c", script], env={"HOME": str(tmp_path), "PATH": os.defpath}, capture_output=True,
                          text=True, timeout=30)
    assert proc.stdout.strip() == "checkout/.venv/bin", proc.stdout + proc.stderr
