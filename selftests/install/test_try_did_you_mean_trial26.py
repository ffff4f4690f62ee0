"""Trial 26 P-2: ``try deck-task --rollout rollouts/good-dek`` (a typo for ``good-deck``) said "no such rollout
folder" and a paragraph on layouts, with no "did you mean" — while a mistyped task folder on the same command line
gets one. ``--rollout`` now gets the folder beside it spelled alike, ``--final-message`` and ``--trajectory`` the
file, from the same `close_sibling`; the layout help stays. The real ``cowork-judge try`` in a child process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from install.test_try_output import try_cli
from install.test_try_trial4 import ANSWER, chat_task

CASES = [  # (option, what is typed under tmp, "did you mean" under tmp or None, words that must stay)
    ("--rollout", "rollouts/good-dek", "rollouts/good-deck", "no such rollout folder"),
    ("--rollout", "rollouts/unrelated", None, "no such rollout folder"),
    ("--rollout", "rollouts/good-txt", None, "no such rollout folder"),  # a file is no rollout folder to offer
    ("--final-message", "answers/god.txt", "answers/good.txt", "no such file"),
    ("--final-message", "answers/dek", None, "no such file"),  # a folder is no message file to offer
    ("--trajectory", "logs/trajectry.json", "logs/trajectory.json", "no such file"),
]


def _tree(root: Path) -> None:
    """rollouts/good-deck/ (a flat rollout), rollouts/good.txt, answers/good.txt, answers/deck/, logs/trajectory.json."""
    (root / "rollouts" / "good-deck").mkdir(parents=True)
    (root / "rollouts" / "good-deck" / "notes.md").write_text("the deliverable\n")
    (root / "rollouts" / "good.txt").write_text(ANSWER)
    (root / "answers" / "deck").mkdir(parents=True)
    (root / "answers" / "good.txt").write_text(ANSWER)
    (root / "logs").mkdir()
    (root / "logs" / "trajectory.json").write_text(json.dumps({"steps": [{"source": "agent", "message": ANSWER}]}))


@pytest.mark.parametrize(("option", "typed", "meant", "kept"), CASES)
def test_a_mistyped_rollout_or_message_gets_did_you_mean(tmp_path, option, typed, meant, kept):
    task = chat_task(tmp_path)
    _tree(tmp_path)
    proc = try_cli(str(task), option, str(tmp_path / typed), cache=tmp_path / "cache", tmpdir=tmp_path / "tmp",
                   timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{tmp_path / typed}: {kept}" in proc.stderr, proc.stderr
    if meant is None:
        assert "did you mean" not in proc.stderr, proc.stderr
    else:
        assert f"did you mean {tmp_path / meant}?" in proc.stderr, proc.stderr
    if option == "--rollout":
        assert "any other folder is flat" in proc.stderr, proc.stderr  # the layout help is kept
    assert "Traceback" not in proc.stderr
