"""The host verifier's pieces that need no Harbor (`cowork_judge.harbor.staging`): the staged folders, the engine's
environment, the engine process and its limit, the error documents, the rewards read back (issue 36)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from testkit import EXAMPLE_TESTS, ROLLOUTS, SIM_KEY

from cowork_judge.harbor import staging
from cowork_judge.sim import DemoPolicy, SimServer


def test_importing_the_package_face_needs_no_harbor():
    import subprocess

    code = ("import sys, cowork_judge, cowork_judge.harbor, cowork_judge.harbor.staging; "
            "assert 'harbor' not in sys.modules, sorted(m for m in sys.modules if m.startswith('harbor'))")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_stage_copies_tests_and_agent_logs_without_links(tmp_path):
    tests, step_tests, agent = tmp_path / "tests", tmp_path / "step-tests", tmp_path / "agent"
    for folder in (tests, step_tests, agent):
        folder.mkdir()
    (tests / "rubric.json").write_text("task")
    (tests / "task_prompt.md").write_text("prompt")
    (step_tests / "rubric.json").write_text("step")  # a step's own tests win
    (agent / "trajectory.json").write_text("{}")
    secret = tmp_path / "host-secret"
    secret.write_text(SIM_KEY)
    (agent / "final_answer.txt").symlink_to(secret)  # planted by the agent: never followed on the host
    folders = staging.stage(tmp_path / "trial", [tests, step_tests, tmp_path / "missing"], agent)
    assert (folders.tests / "rubric.json").read_text() == "step"
    assert (folders.tests / "task_prompt.md").read_text() == "prompt"
    assert (folders.agent / "trajectory.json").is_file() and not os.path.lexists(folders.agent / "final_answer.txt")
    assert not folders.output.exists()  # only a download makes it: an absent /app/output stays absent
    for folder in (folders.app, folders.alt_output, folders.verifier, folders.work):
        assert folder.is_dir()


def test_drop_links_removes_links_in_a_download(tmp_path):
    out = tmp_path / "output"
    (out / "sub").mkdir(parents=True)
    (out / "deck.pptx").write_bytes(b"x")
    (out / "sub" / "link").symlink_to("/etc/passwd")
    (out / "dirlink").symlink_to(tmp_path)
    assert sorted(staging.drop_links(out)) == ["dirlink", "sub/link"]
    assert sorted(p.name for p in out.rglob("*")) == ["deck.pptx", "sub"]


def test_judge_environment_takes_the_tasks_settings_and_no_other_judge_knob():
    host = {"PATH": "/usr/bin", "HOME": "/root", "JUDGE_MODEL": "host-model", "OPENAI_API_KEY": "sk-host",
            "AWS_SECRET_ACCESS_KEY": "nope", "PYTHONPATH": "/src"}
    env = staging.judge_environment({"JUDGE_MODEL": "task-model", "JUDGE_START_JITTER": "180"}, host)
    assert env == {"PATH": "/usr/bin", "HOME": "/root", "PYTHONPATH": "/src", "JUDGE_MODEL": "task-model",
                   "JUDGE_START_JITTER": "0", "JUDGE_WORKFLOW_START_JITTER": "0"}


def test_error_reward_writes_the_documented_error_documents(tmp_path):
    verifier = tmp_path / "trial" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.json").write_text('{"reward": 0.9}')  # a stale reward of an earlier run: never left beside
    (verifier / "ctrf.json").write_text("{}")
    staging.error_reward(verifier, exit_code="judge:timeout", reason="too slow", seconds=3.5)
    assert json.loads((verifier / "reward.json").read_text()) == {"reward": 0.0}
    assert (verifier / "reward.txt").read_text().strip() in ("0", "0.0")
    doc = json.loads((verifier / "result.json").read_text())
    assert (doc["status"], doc["exit_code"], doc["exit_reason"], doc["task_score"]) == ("error", "judge:timeout", "too slow", 0.0)
    from importlib import resources

    schema = json.loads(resources.files("cowork_judge").joinpath("schemas/result.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert not (verifier / "ctrf.json").exists()
    assert staging.read_rewards(verifier) == {"reward": 0.0}


def test_read_rewards(tmp_path):
    assert staging.read_rewards(tmp_path) is None
    (tmp_path / "reward.txt").write_text("0.25\n")
    assert staging.read_rewards(tmp_path) == {"reward": 0.25}
    (tmp_path / "reward.json").write_text('{"reward": NaN}')  # not finite: the text file's number
    assert staging.read_rewards(tmp_path) == {"reward": 0.25}
    (tmp_path / "reward.json").write_text('{"reward": 0.5}')
    assert staging.read_rewards(tmp_path) == {"reward": 0.5}
    (tmp_path / "reward.json").unlink()
    (tmp_path / "reward.txt").write_text("SKIPPED\n")
    with pytest.raises(staging.SkippedReward):
        staging.read_rewards(tmp_path)


def test_the_engine_judges_a_staged_trial_and_publishes_its_documents(tmp_path):
    """The engine as the verifier runs it (`judge_command` in a process of its own) on the deck rollout,
    the simulator as the endpoint; then `publish` into a trial folder."""
    server = SimServer(DemoPolicy(), api_key=SIM_KEY).start()
    try:
        folders = staging.stage(tmp_path / "stage", [EXAMPLE_TESTS], ROLLOUTS / "deck" / "logs" / "agent")
        staging.copy_plain(ROLLOUTS / "deck" / "app" / "output", folders.output)
        env = staging.judge_environment({"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_MODEL": "sim",
                                         "JUDGE_EVIDENCE": "0"}, {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        run = asyncio.run(staging.run_engine(staging.judge_command(sys.executable, folders), env, cwd=tmp_path,
                                             output=folders.verifier / "test-stdout.txt", timeout_sec=300))
    finally:
        server.stop()
    assert run.returncode is not None
    trial = tmp_path / "trial" / "verifier"
    staging.publish(folders.verifier, trial)
    doc = json.loads((trial / "result.json").read_text())
    assert staging.read_rewards(trial) == {"reward": doc["task_score"]}
    for name in ("reward.txt", "reward-details.json", "ctrf.json", "judge.log", "test-stdout.txt"):
        assert (trial / name).is_file(), name
    assert (trial / "judge").is_dir()


def test_run_engine_stops_the_whole_process_group_at_its_limit(tmp_path):
    pidfile = tmp_path / "child.pid"
    code = (f"import subprocess, time; p = subprocess.Popen(['sleep', '60']); open({str(pidfile)!r}, 'w').write(str(p.pid)); "
            "time.sleep(60)")
    start = time.monotonic()
    run = asyncio.run(staging.run_engine([sys.executable, "-c", code], dict(os.environ), cwd=tmp_path,
                                         output=tmp_path / "out.txt", timeout_sec=1.5))
    assert run.returncode is None and time.monotonic() - start < 15
    child = int(pidfile.read_text())
    time.sleep(0.2)
    try:
        os.kill(child, 0)
        state = Path(f"/proc/{child}/stat").read_text().split()[2]
        assert state == "Z", f"the engine's child {child} outlived the limit"
    except ProcessLookupError:
        pass


def test_judge_slots_is_one_semaphore_per_loop():
    async def twice() -> bool:
        return staging.judge_slots(3) is staging.judge_slots(5)

    assert asyncio.run(twice())
    assert staging.machine_slots() >= 2


def test_the_job_store_is_one_private_redis_for_every_trial(tmp_path):
    import shutil
    import subprocess

    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server on PATH")
    redis = pytest.importorskip("redis")
    store = staging.JobStore()
    try:
        url = store.url(sys.executable)
        assert url and url.startswith("unix://") and store.url(sys.executable) == url  # started once
        sock = Path(url.removeprefix("unix://"))
        assert oct(sock.stat().st_mode & 0o777) == "0o700"
        client = redis.Redis(unix_socket_path=str(sock))
        assert client.ping()
        watcher = store._proc
        assert watcher is not None
    finally:
        store.stop()
    assert not sock.exists()
    time.sleep(0.5)
    assert subprocess.run(["pgrep", "-f", str(sock)], capture_output=True).stdout == b""  # the server is gone too
    assert staging.JobStore().url("/nonexistent/python") is None


def test_the_job_store_stops_when_its_process_dies(tmp_path):
    import shutil
    import subprocess

    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server on PATH")
    pytest.importorskip("redis")
    code = ("import sys, time; from cowork_judge.harbor import staging; "
            "print(staging.job_store.url(sys.executable), flush=True); time.sleep(120)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    url = proc.stdout.readline().strip()
    assert url.startswith("unix://"), url
    proc.kill()  # SIGKILL: no atexit
    proc.wait()
    proc.stdout.close()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and subprocess.run(["pgrep", "-f", url.removeprefix("unix://")],
                                                          capture_output=True).stdout:
        time.sleep(0.5)
    assert subprocess.run(["pgrep", "-f", url.removeprefix("unix://")], capture_output=True).stdout == b""
    folder = Path(url.removeprefix("unix://")).parent  # the server's private folder goes with it (no atexit ran)
    while time.monotonic() < deadline and folder.exists():
        time.sleep(0.2)
    assert not folder.exists()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="no LibreOffice (soffice) on PATH")
def test_a_deck_judged_on_the_host_renders_its_evidence_and_names_the_trials_paths(tmp_path):
    """Host mode, evidence on (the example's ppt_judge rows judge the rendered deck): the deck is
    rendered with the host's LibreOffice and every workflow row is judged; the published documents
    name ``/tests/…`` and ``/app/output/…`` as test.sh mode does, never the private staging folder."""
    server = SimServer(DemoPolicy(), api_key=SIM_KEY).start()
    try:
        folders = staging.stage(tmp_path / "stage", [EXAMPLE_TESTS], ROLLOUTS / "deck" / "logs" / "agent")
        staging.copy_plain(ROLLOUTS / "deck" / "app" / "output", folders.output)
        env = staging.judge_environment({"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_MODEL": "sim"},
                                        {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
        run = asyncio.run(staging.run_engine(staging.judge_command(sys.executable, folders), env, cwd=tmp_path,
                                             output=folders.verifier / "test-stdout.txt", timeout_sec=600))
    finally:
        server.stop()
    assert run.returncode == 0, (folders.verifier / "test-stdout.txt").read_text()[-3000:]
    assert staging.show_trial_paths(folders) >= 2  # result.json and judge.log at least
    trial = tmp_path / "trial" / "verifier"
    staging.publish(folders.verifier, trial)
    doc = json.loads((trial / "result.json").read_text())
    assert doc["status"] == "success" and doc["details"]["evidence"]["pages_rendered"] == 10, doc["details"]["evidence"]
    workflow = [r for r in doc["results"] if r["method"] == "workflow"]
    assert workflow and all(r["judged"] for r in workflow), [r.get("error_kind") for r in workflow]
    assert doc["details"]["instruction_source"] == "/tests/judge_instruction.md"
    staged = [host.encode() for host, _ in staging.trial_paths(folders)]  # the scratch work dir is a temp path in both modes
    leaks = [str(p.relative_to(trial)) for p in trial.rglob("*") if p.is_file() and any(s in p.read_bytes() for s in staged)]
    assert not leaks
    assert "written to /logs/verifier/reward.txt" in (trial / "judge.log").read_text()


def test_show_trial_paths_replaces_whole_path_prefixes_only(tmp_path):
    folders = staging.stage(tmp_path / "stage", [], None)
    root = str(folders.root)
    text = (f'{{"a": "{root}/tests/judge_instruction.md", "b": "{root}/app", "c": "{root}/apps/x", '
            f'"d": "{root}/alt-output/f.md", "e": "{root}/logs/verifier/judge", "f": 0.123}}')
    (folders.verifier / "result.json").write_text(text)
    (folders.verifier / "reward.txt").write_text(f"0.5 {root}/app\n")
    (folders.verifier / "page.png").write_bytes(f"{root}/app".encode())
    assert staging.show_trial_paths(folders) == 1
    assert json.loads((folders.verifier / "result.json").read_text()) == {
        "a": "/tests/judge_instruction.md", "b": "/app", "c": f"{root}/apps/x", "d": "/output/f.md", "e": "/logs/verifier/judge",
        "f": 0.123}
    assert (folders.verifier / "reward.txt").read_text() == f"0.5 {root}/app\n"
    assert (folders.verifier / "page.png").read_bytes() == f"{root}/app".encode()
