"""A real Harbor 0.26 job judged on the host by ``--verifier cowork_judge.harbor:RubricVerifier`` (issue 36).

The same eight tasks (four deck tasks: the example's code and agentic rows on the example deck, one
with nothing delivered, one in a separate verifier container; four chat tasks: the HealthBench
example's rows on two chat rollouts, one separate) run twice with the oracle agent and ``-n 4``
through the bubblewrap environment class (``harbor_env/``):

- job A in ``test.sh`` mode (the judge installed in each sandbox from the session's local index);
- job B in host mode (``--verifier cowork_judge.harbor:RubricVerifier``, the engine in this
  checkout's Python), plus three trials that fail on purpose: an environment whose ``exec`` raises under the
  verifier (a verifier exception), an environment whose download of ``/app/output`` raises,
  and one whose download outlasts the task's ``[verifier] timeout_sec``.

Checked: every trial of B has the reward of the same task in A and the judge's documents in its
verifier folder; the fault trials have the documented error reward (0, ``judge:scorer_error`` /
``judge:timeout``) and nothing else failed; the simulator's key is in no file of any environment
folder, no sandbox command line or environment, and nothing was installed under ``/opt/cowork-judge``.
Then the separate tasks' job is regraded with the verifier after a one-row rubric edit: only that
row is asked again (the verdict cache answers the rest).
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
from testkit import HEALTHBENCH_EXAMPLE, SIM_KEY, agentic_example

from cowork_judge import __version__
from cowork_judge.commands import main as cli
from cowork_judge.sim import DemoPolicy, SimServer
from install.harness import REPO

pytestmark = pytest.mark.slow

HARBOR = Path(os.environ.get("HARBOR_BIN") or REPO / ".venv-harbor" / "bin" / "harbor")
ENV_DIR = Path(__file__).with_name("harbor_env")
VERIFIER = "cowork_judge.harbor:RubricVerifier"
DOCUMENTS = ("reward.txt", "reward.json", "result.json", "reward-details.json", "ctrf.json", "judge.log")
DECK = REPO / "examples/rollouts/deck"
CHAT_ROLLOUTS = {"chat-a": HEALTHBENCH_EXAMPLE / "rollout", "chat-b": REPO / "examples/rollouts/chat"}

TASK_TOML = '''\
version = "1.0"

[verifier]
timeout_sec = {timeout}
{mode}
[agent]
timeout_sec = 300.0

[environment]
build_timeout_sec = 60.0
workdir = "/app"
'''

SOLVE = '''\
#!/bin/bash
set -eu
mkdir -p /logs/agent
# a chat agent (and a deck agent that delivered nothing) makes no /app/output: init's collect hook creates it, or Harbor
# records the artifact "failed" and `harbor jobs regrade` refuses the trial (trial 11)
if [ -d /solution/output ]; then mkdir -p /app/output && cp -r /solution/output/. /app/output/; fi
cp /solution/trajectory.json /logs/agent/trajectory.json
'''

JUDGED = {  # name → (kind, rollout, separate)
    "deck-a": ("deck", "deck", False),
    "deck-b": ("deck", "deck", False),
    "deck-empty": ("deck", "empty", False),
    "deck-sep": ("deck", "deck", True),
    "chat-a": ("chat", "chat-a", False),
    "chat-b": ("chat", "chat-b", False),
    "chat-c": ("chat", "chat-a", False),
    "chat-sep": ("chat", "chat-a", True),
}
FAULTS = {"fault-exception": "exec", "fault-download": "download", "fault-timeout": "slow-download"}
FAULT_TIMEOUT_SEC = 20.0


def make_task(root: Path, name: str, kind: str, rollout: str, *, separate: bool, index_url: str, fault: str | None = None,
              timeout: float = 600.0) -> Path:
    task = root / name
    (task / "environment").mkdir(parents=True)
    (task / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    if fault:
        (task / "environment" / "FAULT").write_text(fault + "\n")
    sol = task / "solution"
    sol.mkdir(parents=True)
    (sol / "solve.sh").write_text(SOLVE)
    if kind == "deck":
        (task / "instruction.md").write_text("Build a deck about effective agents and save it in /app/output.\n")
        agentic_example(task / "tests")
        if rollout == "deck":
            shutil.copytree(DECK / "app" / "output", sol / "output")
        shutil.copy2(REPO / f"examples/rollouts/{rollout}/logs/agent/trajectory.json", sol)
    else:
        (task / "instruction.md").write_text((HEALTHBENCH_EXAMPLE / "tests" / "task_prompt.md").read_text())
        shutil.copytree(HEALTHBENCH_EXAMPLE / "tests", task / "tests")
        (task / "tests" / "test.sh").unlink()
        shutil.copy2(CHAT_ROLLOUTS[rollout] / "logs" / "agent" / "trajectory.json", sol)
    (task / "task.toml").write_text(TASK_TOML.format(mode='environment_mode = "separate"\n' if separate else "", timeout=600.0))
    assert cli(["init", str(task), "--extras", "pptx"]) == 0
    env_lines = f'PIP_INDEX_URL = "{index_url}"\nPIP_CONFIG_FILE = "/dev/null"\nJUDGE_EVIDENCE = "0"\n'
    text = (task / "task.toml").read_text().replace("[verifier.env]\n", "[verifier.env]\n" + env_lines, 1)
    if fault is not None:  # init raised the limit: the fault trials get the short one back
        text = text.replace("timeout_sec = 2280.0", f"timeout_sec = {timeout}", 1)
    (task / "task.toml").write_text(text)
    return task


def harbor(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(HARBOR), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=3000)
    return proc


def trials(job_root: Path) -> dict[str, dict]:
    """task name → the trial's result.json (+ ``_dir``) of the one job under `job_root`."""
    out = {}
    for path in sorted(job_root.rglob("result.json")):
        try:
            doc = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(doc, dict) and "task_name" in doc and "verifier_result" in doc:
            out[doc["task_name"]] = doc | {"_dir": str(path.parent)}
    return out


def _log(proc: subprocess.CompletedProcess | None) -> str:
    return "" if proc is None else f"\nstdout:\n{proc.stdout[-5000:]}\nstderr:\n{proc.stderr[-5000:]}"


@pytest.fixture(scope="module")
def jobs(tmp_path_factory, package_index, judge_home):
    if not HARBOR.is_file():
        pytest.skip(f"harbor is not installed at {HARBOR} (set HARBOR_BIN; .ci/run installs it under Python 3.12)")
    root = tmp_path_factory.mktemp("host")
    tasks, faults, sep = root / "tasks", root / "faults", root / "sep"
    for name, (kind, rollout, separate) in JUDGED.items():
        make_task(tasks, name, kind, rollout, separate=separate, index_url=package_index.url)
        if separate:
            make_task(sep, name, kind, rollout, separate=True, index_url=package_index.url)
    for name, fault in FAULTS.items():
        make_task(faults, name, "deck", "deck", separate=False, index_url=package_index.url, fault=fault, timeout=FAULT_TIMEOUT_SEC)
    host_tasks = root / "host-tasks"  # job B: the judged tasks and the fault tasks in one dataset
    shutil.copytree(tasks, host_tasks)
    shutil.copytree(faults, host_tasks, dirs_exist_ok=True)
    server = SimServer(DemoPolicy(), api_key=SIM_KEY).start()
    base = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "PIP_", "OPENAI_"))}
    base.update(PYTHONPATH=f"{REPO / 'src'}:{ENV_DIR}", LITELLM_LOCAL_MODEL_COST_MAP="True", JUDGE_API_KEY=SIM_KEY,
                JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_START_JITTER="0", COWORK_JUDGE_VERSION=__version__,
                COWORK_JUDGE_VERSION_SOURCE="injection", COWORK_WHEEL_URL=package_index.url)
    out: dict = {"root": root, "sep_tasks": sep}
    try:
        # A: test.sh mode (the judge installed in each sandbox); one trial first installs the judge into the shared
        # judge home (concurrent cold installs into one /opt/cowork-judge race: a fleet's image bakes the judge in)
        env_a = base | {"BWRAP_ENV_JUDGE_HOME": str(judge_home)}
        harbor(["run", "-p", str(tasks / "deck-a"), "-a", "oracle", "-n", "1", "-e", "bwrap_env:BwrapEnvironment",
                "--ek", f"judge_home={judge_home}", "--ek", f"base_dir={root / 'env-warm'}", "-o", str(root / "jobs-warm"), "-y"],
               env_a, root)
        out["proc_a"] = harbor(["run", "-p", str(tasks), "-a", "oracle", "-n", "4", "-e", "bwrap_env:BwrapEnvironment",
                                "--ek", f"judge_home={judge_home}", "--ek", f"base_dir={root / 'env-a'}", "-o", str(root / "jobs-a"),
                                "-y"], env_a, root)
        # B: host mode; a fresh judge home that must stay empty, environments kept for the key search
        home_b, log_b, cache = root / "judge-home-b", root / "exec-log-b.jsonl", root / "verdicts"
        env_b = base | {"BWRAP_ENV_EXEC_LOG": str(log_b), "JUDGE_VERDICT_CACHE": str(cache)}
        out["proc_b"] = harbor(["run", "-p", str(host_tasks), "-a", "oracle", "-n", "4", "-e", "faulty_env:FaultyBwrapEnvironment",
                                "--ek", f"judge_home={home_b}", "--ek", f"base_dir={root / 'env-b'}", "--no-delete",
                                "-o", str(root / "jobs-b"), "--verifier", VERIFIER,
                                "--verifier-kwarg", f"python={sys.executable}", "-y"], env_b, root)
        out.update(home_b=home_b, exec_log=log_b, env_b=root / "env-b")
        # R: the separate tasks in host mode with the verdict cache, then a one-row edit and a regrade
        out["proc_r"] = harbor(["run", "-p", str(sep), "-a", "oracle", "-n", "2", "-e", "faulty_env:FaultyBwrapEnvironment",
                                "--ek", f"judge_home={home_b}", "--ek", f"base_dir={root / 'env-r'}", "-o", str(root / "jobs-r"),
                                "--verifier", VERIFIER, "--verifier-kwarg", f"python={sys.executable}", "-y"], env_b, root)
        rubric_path = sep / "deck-sep" / "tests" / "rubric.json"
        rubric = json.loads(rubric_path.read_text())
        row = next(r for r in rubric["rubrics"] if r.get("judge_method", "agentic") == "agentic" and r.get("weight", 0) > 0
                   and r["id"] not in {g for x in rubric["rubrics"] for g in x.get("depends_on", [])})
        row["description"] = "The deck quotes the quarterly revenue figures of three named shipping companies."
        rubric_path.write_text(json.dumps(rubric, indent=2) + "\n")
        mark = len(server.log.entries())
        job_r = next(p for p in (root / "jobs-r").iterdir() if p.is_dir())
        out["proc_regrade"] = harbor(["jobs", "regrade", str(job_r), "-p", str(sep), "-e", "faulty_env:FaultyBwrapEnvironment",
                                      "-o", str(root / "jobs-g"), "--verifier", VERIFIER, "--verifier-kwarg", f"python={sys.executable}", "-y"],
                                     env_b | {"BWRAP_ENV_JUDGE_HOME": str(home_b), "BWRAP_ENV_BASE": str(root / "env-g")}, root)
        out["regrade_rows"] = [rid for e in server.log.entries()[mark:] for rid in e.row_ids]
        out["edited"] = row["id"]
        out["job_r"] = job_r
    finally:
        server.stop()
    out["a"] = trials(root / "jobs-a")
    out["b"] = trials(root / "jobs-b")
    out["r"] = trials(job_r)
    out["regraded"] = trials(root / "jobs-g")
    return out


def test_every_host_trial_has_its_test_sh_reward(jobs):
    a, b = jobs["a"], jobs["b"]
    assert set(a) == set(JUDGED), _log(jobs.get("proc_a"))
    assert set(JUDGED) <= set(b), _log(jobs.get("proc_b"))
    for name in JUDGED:
        assert a[name].get("exception_info") is None, (name, a[name].get("exception_info"))
        assert b[name].get("exception_info") is None, (name, b[name].get("exception_info"))
        doc_a = json.loads((Path(a[name]["_dir"]) / "verifier" / "result.json").read_text())
        doc_b = json.loads((Path(b[name]["_dir"]) / "verifier" / "result.json").read_text())
        assert doc_a["status"] == doc_b["status"] and doc_a["exit_code"] == doc_b["exit_code"], (name, doc_a["exit_reason"],
                                                                                               doc_b["exit_reason"])
        assert b[name]["verifier_result"]["rewards"] == a[name]["verifier_result"]["rewards"], name
        assert b[name]["verifier_result"]["rewards"] == json.loads((Path(b[name]["_dir"]) / "verifier" / "reward.json").read_text())
        assert {r["id"]: (r["judged"], r["hit"]) for r in doc_a["results"]} == {r["id"]: (r["judged"], r["hit"])
                                                                               for r in doc_b["results"]}, name
    rewards = {n: b[n]["verifier_result"]["rewards"]["reward"] for n in JUDGED}
    assert rewards["deck-empty"] == 0.0 and rewards["deck-a"] > 0 and rewards["chat-a"] > 0  # not all alike
    assert rewards["chat-sep"] == rewards["chat-a"]  # the separate verifier got the trajectory (the collect hook)


def test_every_host_trial_has_the_judges_documents(jobs):
    for name in JUDGED:
        verifier = Path(jobs["b"][name]["_dir"]) / "verifier"
        missing = [d for d in DOCUMENTS if not (verifier / d).is_file()]
        assert not missing, (name, missing, sorted(p.name for p in verifier.iterdir()))
        if name != "deck-empty":  # nothing delivered: no model call, no audit
            assert (verifier / "judge").is_dir(), name


def test_every_host_trial_takes_its_requests_from_the_jobs_one_limiter(jobs):
    stores, asked = set(), 0
    for name in JUDGED:
        log = (Path(jobs["b"][name]["_dir"]) / "verifier" / "judge.log").read_text()
        calls = re.search(r"coverage [0-9.]+, (\d+) model call\(s\)", log)
        if calls is None or calls.group(1) == "0":  # nothing delivered, or every verdict from the job's cache
            continue
        asked += 1
        found = re.findall(r"limiter: the fleet's shared store at (unix:\S+)", log)
        assert found, (name, log[-2000:])
        stores.update(found)
        doc = json.loads((Path(jobs["b"][name]["_dir"]) / "verifier" / "result.json").read_text())
        assert not [w for w in doc["details"]["warnings"] if "limiter" in w or "store" in w], doc["details"]["warnings"]
    assert asked >= 2 and len(stores) == 1, stores  # one store for the whole job: one limiter per endpoint, model and key


def test_the_fault_trials_get_the_error_reward_and_the_others_are_judged(jobs):
    b = jobs["b"]
    assert set(FAULTS) <= set(b), _log(jobs.get("proc_b"))
    expected = {"fault-exception": ("judge:scorer_error", "simulated environment failure"),
                "fault-download": ("judge:scorer_error", "cannot download /app/output"),
                "fault-timeout": ("judge:timeout", "time limit")}
    for name, (code, words) in expected.items():
        trial = b[name]
        assert trial.get("exception_info") is None, (name, trial.get("exception_info"))
        assert trial["verifier_result"]["rewards"] == {"reward": 0.0}, name
        verifier = Path(trial["_dir"]) / "verifier"
        doc = json.loads((verifier / "result.json").read_text())
        assert doc["status"] == "error" and doc["exit_code"] == code and words in doc["exit_reason"], (name, doc["exit_reason"])
        assert (verifier / "reward.txt").read_text().strip() in ("0", "0.0")
    assert all(b[n].get("exception_info") is None for n in JUDGED)


def test_the_key_never_enters_a_sandbox_and_nothing_is_installed(jobs):
    assert jobs["env_b"].is_dir() and any(jobs["env_b"].iterdir())  # --no-delete kept the environments
    leaks = []
    for path in jobs["env_b"].rglob("*"):
        if path.is_file() and not path.is_symlink() and SIM_KEY.encode() in path.read_bytes():
            leaks.append(str(path))
    assert not leaks
    records = [json.loads(line) for line in jobs["exec_log"].read_text().splitlines()]
    assert records and not [r for r in records if SIM_KEY in json.dumps(r)]
    installs = re.compile(r"test\.sh|\bpip\b|cowork-judge(?!-agent)|cowork_judge|/opt/")  # the collect hook's folder is not the judge
    assert not [r["command"] for r in records if installs.search(r["command"])]
    assert not jobs["home_b"].exists() or not any(jobs["home_b"].iterdir())


def test_regrade_after_a_one_row_edit_asks_only_that_row(jobs):
    r, regraded = jobs["r"], jobs["regraded"]
    assert set(r) == {"deck-sep", "chat-sep"}, _log(jobs.get("proc_r"))
    assert set(regraded) == {"deck-sep", "chat-sep"}, _log(jobs.get("proc_regrade"))
    assert jobs["regrade_rows"] and set(jobs["regrade_rows"]) == {jobs["edited"]}, jobs["regrade_rows"]
    old = json.loads((Path(r["deck-sep"]["_dir"]) / "verifier" / "result.json").read_text())
    new = json.loads((Path(regraded["deck-sep"]["_dir"]) / "verifier" / "result.json").read_text())
    assert {x["id"] for x in new["results"] if x["cached"]} == {x["id"] for x in new["results"]
                                                                if x["method"] in ("agentic", "workflow")} - {jobs["edited"]}
    assert regraded["deck-sep"]["verifier_result"]["rewards"]["reward"] == pytest.approx(new["task_score"], abs=1e-12)
    assert regraded["chat-sep"]["verifier_result"] == r["chat-sep"]["verifier_result"]
    chat = json.loads((Path(regraded["chat-sep"]["_dir"]) / "verifier" / "result.json").read_text())
    assert all(x["cached"] for x in chat["results"])  # the agent's answer on disk is the one judged (nothing scrubbed)
    assert old["task_score"] >= new["task_score"]
