"""Trial 41 P-4: ``try task --final-message task/solution`` (the folder instead of ``…/final_answer.txt``) was refused
with "is a folder, not a file" and no word of the ``final_answer.txt`` inside, while the opposite slip (``--rollout``
given that file) gets the exact command back. A folder given as ``--final-message``/``--trajectory`` now names the
answer file inside it (``final_answer.txt``, ``response.txt``, ``trajectory.json``) as the option to type. The real
``cowork-judge try`` in a child process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from install.test_try_output import try_cli
from install.test_try_trial4 import ANSWER, chat_task

CASES = [  # (option, file written in the folder or None, the option and file "did you mean" names, or None)
    ("--final-message", "final_answer.txt", "--final-message final_answer.txt"),
    ("--final-message", "response.txt", "--final-message response.txt"),
    ("--trajectory", "trajectory.json", "--trajectory trajectory.json"),
    ("--trajectory", "final_answer.txt", "--final-message final_answer.txt"),
    ("--final-message", "trajectory.json", "--trajectory trajectory.json"),
    ("--final-message", None, None),
]


@pytest.mark.parametrize(("option", "inside", "meant"), CASES)
def test_a_folder_given_as_the_message_names_the_file_inside(tmp_path: Path, option: str, inside: str | None,
                                                             meant: str | None) -> None:
    task = chat_task(tmp_path)
    folder = tmp_path / "given"
    folder.mkdir()
    (folder / "solve.sh").write_text("#!/bin/bash\n")
    if inside == "trajectory.json":
        (folder / inside).write_text(json.dumps({"steps": [{"source": "agent", "message": ANSWER}]}))
    elif inside is not None:
        (folder / inside).write_text(ANSWER)
    proc = try_cli(str(task), option, str(folder), cache=tmp_path / "cache", tmpdir=tmp_path / "tmp", timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{option} {folder}: is a folder, not a file" in proc.stderr, proc.stderr
    if meant is None:
        assert "did you mean" not in proc.stderr and "give the file of the agent's final message" in proc.stderr
    else:
        flag, name = meant.split()
        assert f"did you mean {flag} {folder / name}?" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
