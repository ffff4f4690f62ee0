"""Trial 9 F2: ``try --final-message LINK`` / ``--trajectory LINK`` (a symbolic link to a real file the operator
names on the command line) was staged as a link: a separate verifier's collect hook dropped it ("regular files,
not links"), a shared one got a dangling link, and the answer was judged "nothing delivered" (reward 0, exit 0).
The option names the operator's own input, not the agent's deliverable: it is read through the link."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pathlib import PurePath

from cowork_judge.install import dryrun
from cowork_judge.install.taskinit import AGENT_COPY_DIR
from install.test_try_chat_only import ANSWER, chat_task
from install.test_try_trial4 import chat_task as hooked_chat_task


def _message(tmp_path, option):
    """The file the option names and a link to it in another folder (as `ln -s good.txt good-link.txt`)."""
    real = tmp_path / "real" / ("answer.txt" if option == "final_message" else "trajectory.json")
    real.parent.mkdir()
    real.write_text(ANSWER if option == "final_message" else json.dumps(
        {"schema_version": "ATIF-v1.4", "steps": [{"step_id": 1, "source": "agent", "message": ANSWER}]}))
    link = tmp_path / "links" / ("good-link" + real.suffix)
    link.parent.mkdir()
    link.symlink_to(real)
    return link


@pytest.mark.parametrize("option", ["final_message", "trajectory"])
@pytest.mark.parametrize("mode", ["shared", "separate", "collect-hook"])
@pytest.mark.parametrize("with_rollout", [False, True])
def test_a_message_option_naming_a_link_is_read_through_it(tmp_path, option, mode, with_rollout):
    link = _message(tmp_path, option)
    folder = None
    if with_rollout:  # a flat rollout with one deliverable, the message given beside it
        folder = tmp_path / "rollout"
        folder.mkdir()
        (folder / "notes.md").write_text("notes")
    rollout = dryrun.read_rollout(folder, **{option: link})
    task = hooked_chat_task(tmp_path) if mode == "collect-hook" else chat_task(tmp_path, mode)
    staged = dryrun.stage(dryrun.read_task(task), rollout, tmp_path / "out")
    placed = (staged.logs / PurePath(AGENT_COPY_DIR).relative_to("/logs") / "trajectory.json" if mode == "collect-hook"
              else staged.logs / "agent" / "trajectory.json")
    assert placed.is_file() and not placed.is_symlink(), (staged.placed, staged.left_out, staged.warnings)
    assert json.loads(placed.read_text())["steps"][-1]["message"] == ANSWER
    assert not [w for w in staged.left_out if "trajectory.json" in w], staged.left_out


def test_a_dangling_message_link_is_refused_naming_it(tmp_path):
    link = tmp_path / "gone-link.txt"
    link.symlink_to(tmp_path / "gone.txt")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "try", str(chat_task(tmp_path)), "--final-message",
                           str(link)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert str(link) in proc.stderr and "symbolic link" in proc.stderr, proc.stderr
