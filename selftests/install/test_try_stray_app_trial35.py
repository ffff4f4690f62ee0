"""Trial 35 P-4: a container-layout rollout with its deck in ``app/`` rather than ``app/output/`` (one folder level
missing) got only "/app (besides /app/output) of the rollout is not an artifact of this task" (a shared verifier:
nothing), then reward 0.0 and "no deck among the deliverables". ``try`` now names the files left in ``app/`` and the
``mv`` that fixes it, before the run and again under the reward. A real ``cowork-judge try`` (child process,
sandboxed, simulator over HTTP), and `dryrun.stage` for the "… and N more" and an ``app/output/`` that holds a file."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
from testkit import write_task

from cowork_judge.install import dryrun
from install.test_try_gate_trial32 import ROWS
from install.test_try_output import CLI, SHORT_TOML, try_on_sim

SEPARATE_TOML = SHORT_TOML + 'environment_mode = "separate"\n'


def deck_task(root: Path, toml: str) -> Path:
    """A deck task (`ROWS`: locate_deck gate first) after ``cowork-judge init``, with `toml` as task.toml."""
    prompt = "Make a short deck about photosynthesis.\n"
    write_task(root, ROWS, prompt, instruction=prompt, files={"task.toml": toml})
    proc = subprocess.run([*CLI, "init", str(root)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root


def rollout_with(root: Path, names: list[str]) -> Path:
    """A container-layout rollout at `root` whose `names` lie directly in ``app/`` (no ``app/output/``)."""
    (root / "app").mkdir(parents=True)
    for name in names:
        (root / "app" / name).write_bytes(b"PK\x03\x04 not a real deck")
    (root / "logs" / "agent").mkdir(parents=True)
    (root / "logs" / "agent" / "final_answer.txt").write_text("The deck is saved.\n")
    return root


@pytest.mark.parametrize("toml", [SEPARATE_TOML, SHORT_TOML], ids=["separate", "shared"])
def test_a_deck_left_in_app_is_named_with_the_mv_that_fixes_it(tmp_path: Path, toml: str) -> None:
    task = deck_task(tmp_path / "tasks" / "my-deck", toml)
    rollout = rollout_with(tmp_path / "rollouts" / "c", ["good.pptx"])
    proc = try_on_sim(task, tmp_path, "--rollout", str(rollout))
    out = proc.stdout + proc.stderr
    assert "reward: 0.0" in out and "gate C-LOCATE-DECK missed" in out, out
    app = rollout / "app"
    line = (f"app/good.pptx is outside app/output/, where the agent's deliverables go (the judge reads nothing else "
            f"of /app): mkdir -p {shlex.quote(str(app / 'output'))} && mv {shlex.quote(str(app / 'good.pptx'))} "
            f"{shlex.quote(str(app / 'output'))}/")
    assert f"cowork-judge try: {line}" in proc.stderr, proc.stderr
    assert f"(said of the rollout before the run) {line}" in proc.stderr, proc.stderr


def test_decks_come_first_the_rest_is_counted_and_a_delivery_in_output_silences_it(tmp_path: Path) -> None:
    task = dryrun.read_task(deck_task(tmp_path / "task", SEPARATE_TOML))
    rollout = rollout_with(tmp_path / "r", ["a.txt", "b.md", "deck.PPTX", "c.csv", ".hidden"])
    staged = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "out")
    assert staged.stray_app.startswith("app/deck.PPTX, app/a.txt, app/b.md … and 1 more file(s) are outside app/output/")
    assert ".hidden" not in staged.stray_app and "c.csv" not in staged.stray_app
    (rollout / "app" / "output").mkdir()
    (rollout / "app" / "output" / "deck.pptx").write_bytes(b"x")
    staged = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "out2")
    assert staged.stray_app == ""
