"""``cowork-judge try`` as a new user meets it (issue 39): what it says about the task, the rollout and the result,
and what it leaves on disk. Real ``cowork-judge try`` child processes; the sandboxed runs (bubblewrap, the judge
installed from the local index, the simulator) are slow-marked and share one judge home per module.

- Harbor's placeholder ``tests/test.sh`` (a task before ``cowork-judge init``) is refused, naming ``init`` (#8);
- a rubric whose rows carry misspelt keys (``wieght``, ``judge_methd``) prints the result's warnings (#10);
- ``--rollout <task>/solution`` is said to look like a solution folder, with the command line meant (#17);
- only what the user asked to keep stays in the temp folder, and every path printed exists (#18).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import ROLLOUTS, write_task

from cowork_judge.sim import DemoPolicy, SimServer
from install.harness import CACHE_ROOT, REPO

CLI = [sys.executable, "-m", "cowork_judge"]

HARBOR_PLACEHOLDER = """#!/bin/bash

# Install test dependencies in tests/Dockerfile.
# This script runs from the working directory and writes the reward.

# CTRF produces a standard test report in JSON format which is useful for logging.
if pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""
"""``tests/test.sh`` as ``harbor init acme/deck -t`` (Harbor 0.26, separate verifier) writes it."""


def try_cli(*args: str, cache: Path, tmpdir: Path | None, env: dict[str, str] | None = None,
            timeout: float = 900) -> subprocess.CompletedProcess:
    """``cowork-judge try ARGS`` in a child process with its own cache and temp folder (``TMPDIR``; None: this
    process's), none of the caller's JUDGE_/COWORK_/OPENAI_ settings, and no ``--out`` unless given."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    full["COWORK_JUDGE_CACHE"] = str(cache)
    if tmpdir is not None:
        tmpdir.mkdir(parents=True, exist_ok=True)
        full["TMPDIR"] = str(tmpdir)
    full.update(env or {})
    return subprocess.run([*CLI, "try", *args], env=full, capture_output=True, text=True, timeout=timeout)


def shared_cache(root: Path) -> Path:
    """A cache folder of its own whose wheels/ is the suite's download cache (one download per machine)."""
    (CACHE_ROOT / "wheels").mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    (root / "wheels").symlink_to(CACHE_ROOT / "wheels")
    return root


REHEARSAL_KEY = "sk-sim-rehearsal"
"""The rehearsal key docs/harbor-task.md and docs/simulator.md name."""
SHORT_TOML = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 600.0\n'
"""A task.toml with nothing but a 600 s verifier timeout (``cowork-judge init`` completes it)."""


def inited_task(task: Path, rows: list[dict], prompt: str) -> Path:
    """A task folder at `task` (returned) after ``cowork-judge init`` (a child process, asserted to succeed): `rows`
    as tests/rubric.json, `prompt` as instruction.md and tests/task_prompt.md, `SHORT_TOML` as task.toml."""
    write_task(task, rows, prompt, instruction=prompt, files={"task.toml": SHORT_TOML})
    proc = subprocess.run([*CLI, "init", str(task)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return task


def try_on_sim(task: Path, root: Path, *args: str) -> subprocess.CompletedProcess:
    """``cowork-judge try TASK ARGS --out ROOT/out`` (`try_cli`: cache ``root/cache``, temp ``root/tmp``) against a
    `DemoPolicy` simulator with `REHEARSAL_KEY`."""
    with SimServer(DemoPolicy()) as sim:
        return try_cli(str(task), *args, "--out", str(root / "out"), cache=shared_cache(root / "cache"),
                       tmpdir=root / "tmp", env={"JUDGE_BASE_URL": sim.url, "JUDGE_API_KEY": REHEARSAL_KEY})


def example_task(root: Path, rubric: dict | None = None) -> Path:
    """A copy of this repository's example task (task.toml, tests/), optionally with another rubric."""
    shutil.copytree(REPO / "tests", root / "tests")
    shutil.copy2(REPO / "task.toml", root / "task.toml")
    if rubric is not None:
        (root / "tests" / "rubric.json").write_text(json.dumps(rubric, indent=1))
    return root


def printed_paths(proc: subprocess.CompletedProcess, under: Path) -> list[Path]:
    """Every absolute path under `under` the command printed."""
    return [Path(p.rstrip(".,;:)")) for p in re.findall(re.escape(str(under)) + r"[^\s'\"`]*", proc.stdout + proc.stderr)]


@pytest.fixture(scope="module")
def cache(tmp_path_factory, sandbox_ready) -> Path:
    return shared_cache(tmp_path_factory.mktemp("try-output-cache") / "cache")


# ------------------------------------------------------------------ 8: Harbor's placeholder test.sh

def test_harbors_placeholder_test_sh_is_refused_naming_init(tmp_path):
    task = example_task(tmp_path / "task")
    (task / "tests" / "test.sh").write_text(HARBOR_PLACEHOLDER)
    proc = try_cli(str(task), "--rollout", str(ROLLOUTS / "chat"), cache=tmp_path / "cache", tmpdir=tmp_path / "tmp")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "tests/test.sh is Harbor's placeholder" in proc.stderr and f"cowork-judge init {task}" in proc.stderr
    assert "status None" not in proc.stderr and "test-sh.log" not in proc.stderr
    assert not any((tmp_path / "tmp").iterdir())  # refused before anything was laid out


@pytest.mark.slow
def test_a_test_sh_that_does_not_run_the_judge_is_named_and_only_existing_logs_are_pointed_at(cache, tmp_path):
    task = example_task(tmp_path / "task")
    (task / "tests" / "test.sh").write_text("#!/bin/bash\necho 'my own verifier'\necho 1 > /logs/verifier/reward.txt\n")
    proc = try_cli(str(task), "--rollout", str(ROLLOUTS / "chat"), "--out", str(tmp_path / "out"), cache=cache,
                   tmpdir=tmp_path / "tmp")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "reward: 1" in proc.stdout and "no result.json, so the judge did not run" in proc.stderr
    assert "status None" not in proc.stderr and "test-sh.log" not in proc.stderr
    assert all(p.exists() for p in printed_paths(proc, tmp_path / "out")), proc.stderr


# ------------------------------------------------------------------ 10: the result's warnings

@pytest.mark.slow
def test_misspelt_row_keys_print_the_results_warnings(cache, tmp_path):
    rubric = json.loads((REPO / "tests" / "rubric.json").read_text())
    rows = rubric["rubrics"] if isinstance(rubric, dict) else rubric
    rows[0]["wieght"] = rows[0].pop("weight")
    rows[1]["judge_methd"] = "llm"
    task = example_task(tmp_path / "task", rubric)
    proc = try_cli(str(task), "--rollout", str(ROLLOUTS / "empty"), cache=cache, tmpdir=tmp_path / "tmp")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "status: success" in proc.stdout
    block = proc.stdout[proc.stdout.index("warnings ("):proc.stdout.index("documents (")]
    assert "unknown field 'wieght'" in block and "did you mean 'weight'" in block
    assert "unknown field 'judge_methd'" in block and "no weight (other rows have one); it counts 0" in block


# ------------------------------------------------------------------ 17: a solution folder given as the rollout

@pytest.mark.slow
def test_a_solution_folder_as_the_rollout_is_named_with_the_command_meant(cache, tmp_path):
    task = example_task(tmp_path / "task")
    solution = task / "solution"
    (solution / "output").mkdir(parents=True)
    (solution / "output" / "notes.md").write_text("# Building effective agents\n")
    (solution / "solve.sh").write_text("#!/bin/bash\ncp /solution/output/* /app/output/\n")
    (solution / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.4", "session_id": "ref", "agent": {
        "name": "ref", "version": "1"}, "steps": [{"step_id": 1, "source": "agent", "message": "Saved in /app/output/."}]}))
    proc = try_cli(str(task), "--rollout", str(solution), "--out", str(tmp_path / "out"), cache=cache,
                   tmpdir=tmp_path / "tmp")
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "looks like a task's solution/ folder" in proc.stderr and "solve.sh and trajectory.json too" in proc.stderr
    assert f"--rollout {solution / 'output'} --trajectory {solution / 'trajectory.json'}" in proc.stderr
    assert (tmp_path / "out" / "app" / "output" / "solve.sh").is_file()  # read as asked, flat: the warning is the point


# ------------------------------------------------------------------ 18: what is left on disk

@pytest.mark.slow
def test_by_default_only_the_documents_stay_in_the_temp_folder(cache, tmp_path):
    rollout = tmp_path / "rollout"
    shutil.copytree(ROLLOUTS / "deck", rollout)
    (rollout / "app" / "output" / "big.bin").write_bytes(b"\0" * 20_000_000)  # a large deliverable, copied to /app
    tmpdir = tmp_path / "tmp"
    proc = try_cli(str(REPO), "--rollout", str(rollout), cache=cache, tmpdir=tmpdir)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    [out] = [p for p in tmpdir.iterdir() if p.name.startswith("cowork-judge-try-")]
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_dir() and "verifier" not in p.parts) == ["logs"]
    assert (out / "logs" / "verifier" / "result.json").is_file()
    assert f"kept: the documents in {out / 'logs' / 'verifier'}" in proc.stdout and "are removed" in proc.stdout
    paths = printed_paths(proc, tmpdir)
    assert paths and all(p.exists() for p in paths), [p for p in paths if not p.exists()]


@pytest.mark.slow
def test_keep_keeps_the_copies_and_says_where(cache, tmp_path):
    tmpdir = tmp_path / "tmp"
    proc = try_cli(str(REPO), "--rollout", str(ROLLOUTS / "empty"), "--keep", cache=cache, tmpdir=tmpdir)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    [out] = [p for p in tmpdir.iterdir() if p.name.startswith("cowork-judge-try-")]
    assert (out / "app").is_dir() and (out / "tests" / "rubric.json").is_file() and (out / "logs" / "agent").is_dir()
    assert f"kept: {out} (app/, logs/ and tests/" in proc.stdout


def test_a_refusal_prints_no_path_that_does_not_exist(tmp_path):
    task = example_task(tmp_path / "task")
    toml = (task / "task.toml").read_text().replace('JUDGE_MODEL = "${JUDGE_MODEL:-gpt-5.5}"',
                                                    'JUDGE_MODEL = "${TRY_OUTPUT_UNSET_MODEL}"')
    (task / "task.toml").write_text(toml)
    tmpdir = tmp_path / "tmp"
    proc = try_cli(str(task), "--rollout", str(ROLLOUTS / "chat"), cache=tmp_path / "cache", tmpdir=tmpdir)
    assert proc.returncode == 2 and "Harbor would refuse this trial" in proc.stderr, proc.stdout + proc.stderr
    assert printed_paths(proc, tmpdir) == [] and list(tmpdir.iterdir()) == []
