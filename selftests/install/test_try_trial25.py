"""Trial 25 findings of ``cowork-judge try`` (and thin ``init``), through the real commands.

- P-2: a ``--final-message``/``--trajectory`` file that lies inside the flat ``--rollout`` folder (or a subfolder, or
  a link to it there) is read as the final message only, not copied to ``/app/output`` as a deliverable too (a
  trial's final message is never there), and one line says so;
- P-5: try (under its ``index:`` line) and thin init (once, when it adds ``COWORK_WHEEL_URL``) say that a
  ``harbor run`` from a shell without ``COWORK_WHEEL_URL`` installs the judge from pip's configured index;
- P-3: a rehearsal against ``cowork-judge sim`` with JUDGE_MODEL unset records the simulator's model as
  ``judge_model``, not task.toml's default ``gpt-5.5``; a real endpoint is never asked.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cowork_judge.commands._endpoint import simulator_model
from cowork_judge.install import dryrun
from cowork_judge.sim import DemoPolicy, SimServer
from install.test_try_chat_only import ANSWER, chat_task
from install.test_try_output import CLI, REHEARSAL_KEY, inited_task, shared_cache, try_cli

ROWS = [
    {"id": "C-PARACETAMOL", "description": "The answer names paracetamol.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "paracetamol"}},
    {"id": "A-DOSE", "description": "The answer gives the adult paracetamol dose of 500 mg to 1 g every 4 to 6 hours.",
     "weight": 2},
]
"""A code row left at the default ``source`` (the deliverable files) and an agentic row."""
PROMPT = "A patient asks which fever medicine to take, and how much.\n"
TRIAL_INDEX = "(COWORK_WHEEL_URL unset) installs cowork-judge=="
"""What try and thin init say of a trial's install from pip's configured index (P-5)."""


def _staged_output(tmp_path: Path, rollout: dryrun.Rollout, mode: str = "shared") -> list[str]:
    task = dryrun.read_task(chat_task(tmp_path, mode))
    staged = dryrun.stage(task, rollout, tmp_path / "out")
    return sorted(str(p.relative_to(staged.app / "output")) for p in (staged.app / "output").rglob("*"))


# ------------------------------------------------------------------ P-2: fast (read and stage)

@pytest.mark.parametrize("mode", ["shared", "separate"])
def test_a_message_in_a_subfolder_of_the_rollout_is_not_staged_as_a_deliverable(tmp_path, mode):
    rollout_dir = tmp_path / "rollout"
    (rollout_dir / "notes").mkdir(parents=True)
    (rollout_dir / "notes" / "answer.txt").write_text(ANSWER)
    (rollout_dir / "deck.md").write_text("# slides\n")
    rollout = dryrun.read_rollout(rollout_dir, final_message=rollout_dir / "notes" / "answer.txt")
    assert _staged_output(tmp_path, rollout, mode) == ["deck.md", "notes"]
    line = dryrun.message_entry_line(rollout)
    assert line.startswith("notes/answer.txt is read as the final message (--final-message), not as a deliverable")


def test_a_link_to_the_message_and_a_trajectory_inside_are_not_staged(tmp_path):
    rollout_dir, elsewhere = tmp_path / "rollout", tmp_path / "elsewhere"
    rollout_dir.mkdir()
    elsewhere.mkdir()
    traj = {"schema_version": "ATIF-v1.4", "steps": [{"step_id": 1, "source": "agent", "message": ANSWER}]}
    (elsewhere / "trajectory.json").write_text(json.dumps(traj))
    (rollout_dir / "trajectory.json").symlink_to(elsewhere / "trajectory.json")  # the message, linked in
    (rollout_dir / "report.md").write_text("a deliverable\n")
    rollout = dryrun.read_rollout(rollout_dir, trajectory=elsewhere / "trajectory.json")
    assert _staged_output(tmp_path, rollout) == ["report.md"]
    assert not dryrun.links_leaving_output(rollout)  # never copied, so never named as a link the judge skips
    assert "(--trajectory), not as a deliverable" in dryrun.message_entry_line(rollout)


def test_a_message_outside_the_rollout_changes_nothing(tmp_path):
    rollout_dir = tmp_path / "rollout"
    rollout_dir.mkdir()
    (rollout_dir / "answer.txt").write_text("a deliverable that happens to be called answer.txt\n")
    message = tmp_path / "message.txt"
    message.write_text(ANSWER)
    rollout = dryrun.read_rollout(rollout_dir, final_message=message)
    assert _staged_output(tmp_path, rollout) == ["answer.txt"] and dryrun.message_entry_line(rollout) == ""


# ------------------------------------------------------------------ P-3: fast (the probe)

def test_the_simulator_is_told_from_another_loopback_endpoint(tmp_path):
    with SimServer(DemoPolicy()) as sim:
        assert simulator_model(sim.url, "any-key") == "sim-judge"

    class OtherModels(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = json.dumps({"data": [{"id": "gpt-5.5", "object": "model", "owned_by": "openai"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), OtherModels)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert simulator_model(f"http://127.0.0.1:{server.server_port}/v1", "k") is None  # a local proxy: left as is
    finally:
        server.shutdown()
        server.server_close()
    assert simulator_model("https://judge.example.com/v1", "k") is None  # never asked: not loopback


# ------------------------------------------------------------------ P-5: thin init (fast)

def _init(task: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "PIP_"))} | env
    return subprocess.run([*CLI, "init", str(task)], env=full, capture_output=True, text=True, timeout=120)


def test_thin_init_says_once_that_a_trial_installs_from_pips_index(tmp_path):
    from testkit import write_task

    from install.test_try_output import SHORT_TOML

    task = write_task(tmp_path / "task", ROWS, PROMPT, instruction=PROMPT, files={"task.toml": SHORT_TOML})
    first = _init(task, {})
    assert first.returncode == 0, first.stdout + first.stderr
    said = [line for line in first.stdout.splitlines() if TRIAL_INDEX in line]
    assert len(said) == 1 and said[0].startswith("warning: a `harbor run` from this shell")
    assert "the public registry's cowork-judge is the original system (1.2.0–1.3.6)" in said[0]
    again = _init(task, {})
    assert again.returncode == 0 and TRIAL_INDEX not in again.stdout  # once: the line is in task.toml now
    other = write_task(tmp_path / "other", ROWS, PROMPT, instruction=PROMPT, files={"task.toml": SHORT_TOML})
    with_index = _init(other, {"COWORK_WHEEL_URL": "https://pypi.acme-corp.net/simple/"})  # (not pypi.example.com: a placeholder, warned of since trial 42)
    assert with_index.returncode == 0 and TRIAL_INDEX not in with_index.stdout


# ------------------------------------------------------------------ the real dry runs (slow)

@pytest.fixture(scope="module")
def task_and_cache(tmp_path_factory, sandbox_ready) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("try-trial25")
    return inited_task(root / "task", ROWS, PROMPT), shared_cache(root / "cache")


@pytest.mark.slow
def test_p2_a_final_message_inside_the_rollout_is_judged_as_a_trial_judges_it(task_and_cache, tmp_path):
    task, cache = task_and_cache
    rollout_dir = tmp_path / "chat-folder"
    rollout_dir.mkdir()
    (rollout_dir / "answer.txt").write_text(ANSWER)
    proc = try_cli(str(task), "--rollout", str(rollout_dir), "--final-message", str(rollout_dir / "answer.txt"),
                   "--out", str(tmp_path / "in"), cache=cache, tmpdir=tmp_path / "tmp")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert ("answer.txt is read as the final message (--final-message), not as a deliverable: it is not copied to "
            "/app/output") in proc.stdout
    doc = json.loads((tmp_path / "in" / "logs" / "verifier" / "result.json").read_text())
    assert doc["details"]["delivery"]["files"] == []  # main: ['answer.txt'], judged twice
    assert "C-PARACETAMOL searches the deliverable files" in proc.stdout  # the warning a real trial gives
    # P-5: the dry run injects its own index, and says what a trial from this shell would install from
    lines = proc.stdout.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("  index: "))
    assert TRIAL_INDEX in lines[index + 1] and "every trial ends with the error reward" in lines[index + 1]
    # the same answer as a trial sees it (the message alone) scores the same; COWORK_WHEEL_URL set: no P-5 line
    alone = try_cli(str(task), "--final-message", str(rollout_dir / "answer.txt"), "--out", str(tmp_path / "alone"),
                    cache=cache, tmpdir=tmp_path / "tmp", env={"COWORK_WHEEL_URL": "https://pypi.acme-corp.net/simple/"})
    assert alone.returncode == 0, alone.stdout[-3000:] + alone.stderr[-3000:]
    assert TRIAL_INDEX not in alone.stdout
    rewards = [(tmp_path / o / "logs" / "verifier" / "reward.txt").read_text() for o in ("in", "alone")]
    assert rewards[0] == rewards[1]


@pytest.mark.slow
def test_p3_a_rehearsal_against_the_simulator_records_the_simulators_model(task_and_cache, tmp_path):
    task, cache = task_and_cache
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    with SimServer(DemoPolicy()) as sim:
        env = {"JUDGE_BASE_URL": sim.url, "JUDGE_API_KEY": REHEARSAL_KEY, "COWORK_WHEEL_URL": "https://x.example/simple/"}
        proc = try_cli(str(task), "--final-message", str(answer), "--out", str(tmp_path / "sim"), cache=cache,
                       tmpdir=tmp_path / "tmp", env=env)
        own = try_cli(str(task), "--final-message", str(answer), "--out", str(tmp_path / "own"), cache=cache,
                      tmpdir=tmp_path / "tmp", env={**env, "JUDGE_MODEL": "my-model"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "model: the endpoint answers as `cowork-judge sim`" in proc.stdout and "not gpt-5.5" in proc.stdout
    doc = json.loads((tmp_path / "sim" / "logs" / "verifier" / "result.json").read_text())
    assert doc["judge_model"] == "sim-judge"  # main: gpt-5.5
    assert own.returncode == 0 and "answers as `cowork-judge sim`" not in own.stdout  # the caller's model is kept
    assert json.loads((tmp_path / "own" / "logs" / "verifier" / "result.json").read_text())["judge_model"] == "my-model"
