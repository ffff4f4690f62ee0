"""Trial 11 (suspected, confirmed in Harbor 0.26's source): a separate verifier's task declares ``/app/output`` as an
artifact; when the agent made no such folder (a chat task, a deck task that delivered nothing) Harbor records the
artifact ``failed`` and ``harbor jobs regrade`` refuses the trial ("collection failed in the source trial"). init's
collect hook now creates the folder first (the real Harbor run in ``test_harbor_host.py`` regrades a chat trial whose
agent made none), and init replaces the hook an earlier init wrote."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from cowork_judge.install.taskinit import AGENT_COPY_DIR, COLLECT_COMMAND, OLD_COLLECT_COMMANDS
from testkit import clean_env

TOML = '''version = "1.0"

[verifier]
timeout_sec = 2400.0
environment_mode = "separate"

[agent]
timeout_sec = 300.0
'''


def _task(tmp_path: Path, collect: str | None) -> Path:
    task = tmp_path / "task"
    (task / "tests").mkdir(parents=True)
    (task / "tests" / "rubric.json").write_text('{"rubrics": [{"id": "A", "description": "The answer is right.", "weight": 1}]}')
    (task / "tests" / "task_prompt.md").write_text("Why is the sky blue?\n")
    (task / "task.toml").write_text(TOML)
    assert _init(task).returncode == 0
    if collect is not None:
        (task / "task.toml").write_text((task / "task.toml").read_text().replace(COLLECT_COMMAND.replace('"', '\\"'),
                                                                                   collect.replace('"', '\\"')))
    return task


def _init(task: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task)], capture_output=True, text=True,
                          timeout=300, env=clean_env(), check=False)


def _hooks(task: Path) -> list[dict]:
    return tomllib.loads((task / "task.toml").read_text())["verifier"]["collect"]


def test_an_earlier_inits_hook_is_replaced_and_said(tmp_path: Path):
    task = _task(tmp_path, OLD_COLLECT_COMMANDS[0])
    assert _hooks(task) == [{"command": OLD_COLLECT_COMMANDS[0]}]
    proc = _init(task)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[[verifier.collect]] command updated: it also creates /app/output" in proc.stdout, proc.stdout
    assert _hooks(task) == [{"command": COLLECT_COMMAND}]
    again = _init(task)
    assert again.returncode == 0 and "already up to date" in again.stdout, again.stdout + again.stderr


def _run_hook(root: Path) -> subprocess.CompletedProcess[str]:
    """The hook, with its absolute paths moved under `root` (the agent's container, in miniature)."""
    command = COLLECT_COMMAND.replace("/app/output", f"{root}/app/output").replace("/logs/", f"{root}/logs/")
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60, check=False)


def test_the_hook_makes_the_output_folder_and_copies_the_final_message(tmp_path: Path):
    (tmp_path / "app").mkdir()
    (tmp_path / "logs" / "agent").mkdir(parents=True)
    (tmp_path / "logs" / "agent" / "final_answer.txt").write_text("Rayleigh scattering.\n")
    assert _run_hook(tmp_path).returncode == 0
    assert (tmp_path / "app" / "output").is_dir()
    copied = tmp_path / "logs" / AGENT_COPY_DIR.removeprefix("/logs/")
    assert (copied / "final_answer.txt").read_text() == "Rayleigh scattering.\n"


def test_the_hook_leaves_what_the_agent_put_at_the_output_path(tmp_path: Path):
    """A file or a link the agent left at /app/output is its doing: the hook neither replaces it nor stops there."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "output").write_text("not a folder\n")
    (tmp_path / "logs" / "agent").mkdir(parents=True)
    (tmp_path / "logs" / "agent" / "trajectory.json").write_text("{}")
    assert _run_hook(tmp_path).returncode == 0
    assert (tmp_path / "app" / "output").read_text() == "not a folder\n"
    assert (tmp_path / "logs" / AGENT_COPY_DIR.removeprefix("/logs/") / "trajectory.json").is_file()
