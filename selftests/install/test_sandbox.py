"""The real ``bash /tests/test.sh`` in bubblewrap: install from a local PEP 503 index, judge a
rollout against the simulator, and leave a reward on every failure path (SPEC §14)."""

from __future__ import annotations

import json
import time
from importlib import resources

import jsonschema
import pytest
from run.test_e2e import AGENTIC_REWARD, DECK_ORACLE
from testkit import SIM_KEY

from cowork_judge import __version__
from cowork_judge.sim import OraclePolicy, SimServer
from install.harness import SandboxRun, build_wheel, free_port

pytestmark = pytest.mark.slow

SCHEMA = json.loads(resources.files("cowork_judge").joinpath("schemas/result.schema.json").read_text())


@pytest.fixture
def sim():
    server = SimServer(OraclePolicy.from_dict(DECK_ORACLE), api_key=SIM_KEY).start()
    yield server
    server.stop()


def sim_env(server: SimServer) -> dict[str, str]:
    return {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_MODEL": "sim-judge"}


def documents(run: SandboxRun) -> tuple[str, dict, dict]:
    """reward.txt, reward.json and a schema-checked result.json."""
    reward_txt = run.text("reward.txt").strip()
    assert reward_txt, run.text("test-stdout.txt")
    doc = json.loads(run.text("result.json"))
    jsonschema.validate(doc, SCHEMA)
    reward_json = json.loads(run.text("reward.json")) if run.text("reward.json") else {}
    return reward_txt, reward_json, doc


def capabilities(run: SandboxRun) -> dict:
    caps = json.loads(run.text("env_capabilities.json"))
    assert caps["schema"] == "cowork-judge/env-capabilities@1"
    assert {"soffice", "chromium", "pymupdf", "playwright", "python_pptx", "cjk_fonts"} <= set(caps)
    return caps


def assert_failed(run: SandboxRun, exit_code: str, reason_start: str) -> dict:
    reward_txt, reward_json, doc = documents(run)
    assert reward_txt == "0.0" and reward_json == {"reward": 0.0}, run.text("test-stdout.txt")
    assert doc["status"] == "error" and doc["exit_code"] == exit_code and doc["task_score"] == 0.0
    assert doc["exit_reason"].startswith(reason_start), doc["exit_reason"]
    capabilities(run)
    return doc


def test_judges_a_deck_with_the_injected_version_then_reuses_the_install(sandbox, sim, package_index, tmp_path):
    env = {**sim_env(sim), "COWORK_JUDGE_VERSION": __version__, "COWORK_JUDGE_VERSION_SOURCE": "injection"}
    home = tmp_path / "cold-judge-home"  # its own: the session's shared home may already hold this version
    t0 = time.monotonic()
    cold = sandbox(env, judge_home=home)
    cold_sec = time.monotonic() - t0
    reward_txt, reward_json, doc = documents(cold)
    assert float(reward_txt) == pytest.approx(AGENTIC_REWARD, abs=1e-12)
    assert reward_json == {"reward": float(reward_txt)} and list(reward_json) == ["reward"]
    assert doc["status"] == "success" and doc["exit_code"] is None
    assert doc["requested_version"] == __version__ and doc["version_source"] == "injection" and doc["version"] == __version__
    caps = capabilities(cold)
    assert caps["judge"]["installed"] is True and caps["judge"]["reused"] is False and caps["python_version"]
    assert caps["python_pptx"]["available"] is True  # the [pptx] extra came from the index
    assert any(p.startswith("/simple/cowork-judge/") for p in package_index.requests)
    # warm: the venv is reused without network (the index URL now points at a closed port)
    t0 = time.monotonic()
    warm = sandbox({**env, "COWORK_WHEEL_URL": f"http://127.0.0.1:{free_port()}/simple/",
                    "PIP_INDEX_URL": f"http://127.0.0.1:{free_port()}/simple/"}, cwd="/", judge_home=home)
    warm_sec = time.monotonic() - t0
    print(f"\ntest.sh with the deck rollout: cold {cold_sec:.1f} s (pip {caps['judge']['install_seconds']} s), "
          f"warm {warm_sec:.1f} s (venv reused)")
    reward_txt, _, doc = documents(warm)
    assert float(reward_txt) == pytest.approx(AGENTIC_REWARD, abs=1e-12)
    assert capabilities(warm)["judge"]["reused"] is True and "reusing" in warm.text("test-sh.log")


def test_a_judge_baked_into_a_read_only_image_is_found_without_network(sandbox, sim, judge_home):
    """`init --image` bakes the judge into /opt/cowork-judge/venv-<v>-py<X.Y> (with its stamp); a verifier that
    cannot write there, with no index reachable, must still find it (simulated: installed beforehand, mounted ro)."""
    env = {**sim_env(sim), "COWORK_JUDGE_VERSION": __version__, "COWORK_JUDGE_VERSION_SOURCE": "injection"}
    assert float(documents(sandbox(env))[0]) == pytest.approx(AGENTIC_REWARD, abs=1e-12)  # the "image build"
    dead = f"http://127.0.0.1:{free_port()}/simple/"
    baked = sandbox({**env, "COWORK_WHEEL_URL": dead, "PIP_INDEX_URL": dead}, judge_home=None,
                    extra_binds=[(judge_home, "/opt/cowork-judge")])  # read-only bind
    reward_txt, _, doc = documents(baked)
    assert float(reward_txt) == pytest.approx(AGENTIC_REWARD, abs=1e-12) and doc["status"] == "success"
    assert capabilities(baked)["judge"]["venv"].startswith("/opt/cowork-judge/") and "no network" in baked.text("test-sh.log")


@pytest.mark.parametrize("env, source", [
    ({}, "package"),
    ({"COWORK_JUDGE_VERSION": __version__, "COWORK_JUDGE_VERSION_SOURCE": "placeholder"}, "placeholder"),
    ({"COWORK_JUDGE_VERSION": __version__}, "injection"),  # a host that injects the version alone
])
def test_version_source_is_recorded(sandbox, env, source):
    run = sandbox(env, rollout="empty")  # nothing delivered: reward 0 without a model call
    reward_txt, reward_json, doc = documents(run)
    assert reward_txt == "0.0" and reward_json == {"reward": 0.0}
    assert doc["status"] == "success" and doc["extra_fields"]["delivery_missing"] is True
    assert doc["requested_version"] == __version__ and doc["version_source"] == source


def test_no_python(sandbox):
    run = sandbox(hide_python=True)
    doc = assert_failed(run, "judge:scorer_error", "no usable Python")
    assert doc["version_source"] == "package" and doc["requested_version"] == __version__
    assert json.loads(run.text("env_capabilities.json"))["python_version"] is None


def test_python_older_than_310(sandbox):
    run = sandbox(fake_python_version="3.8.18")
    doc = assert_failed(run, "judge:scorer_error", "no usable Python")
    assert "python3=3.8.18" in doc["exit_reason"]


def test_index_unreachable(sandbox):
    dead = f"http://127.0.0.1:{free_port()}/simple/"
    run = sandbox({"COWORK_WHEEL_URL": dead, "PIP_INDEX_URL": dead, "COWORK_JUDGE_HOME": "/tmp/fresh-home"})
    assert_failed(run, "judge:api_error", "the package index could not be reached")


def test_requested_version_missing(sandbox):
    run = sandbox({"COWORK_JUDGE_VERSION": "9.9.9", "COWORK_JUDGE_VERSION_SOURCE": "injection"})
    doc = assert_failed(run, "judge:scorer_error", "the requested cowork-judge version is not on the package index")
    assert doc["requested_version"] == "9.9.9" and doc["version_source"] == "injection"


def test_not_a_version(sandbox):
    assert_failed(sandbox({"COWORK_JUDGE_VERSION": "0.1.0 --index-url http://evil"}), "judge:scorer_error",
                  "COWORK_JUDGE_VERSION is not a version number")


def test_judge_crash(sandbox, tmp_path_factory, package_index, dependency_wheels):
    # a broken release: the run command cannot even be imported
    crash_version = f"{__version__}+crash"
    wheel = build_wheel(tmp_path_factory.mktemp("crash"), version=crash_version, patch={
        "src/cowork_judge/commands/run.py": 'raise ImportError("cannot import name \'main_run\' (simulated broken release)")\n'})
    from install.harness import PackageIndex
    index = PackageIndex(tmp_path_factory.mktemp("crash-index"), [wheel, *dependency_wheels])
    try:
        run = sandbox({"COWORK_WHEEL_URL": index.url, "PIP_INDEX_URL": index.url, "COWORK_JUDGE_VERSION": crash_version})
    finally:
        index.stop()
    doc = assert_failed(run, "judge:scorer_error", "the judge crashed")
    assert "ImportError" in doc["exit_reason"] or "Traceback" in doc["exit_reason"]


def test_custom_entry_failing(sandbox):
    run = sandbox({"CUSTOM_JUDGE_ENTRY": "my_judge.sh"},
                  tests_files={"my_judge.sh": "#!/bin/bash\necho 'my judge: cannot parse the deck' >&2\nexit 3\n"})
    doc = assert_failed(run, "judge:scorer_error", "the judge crashed")
    assert "exited with status 3" in doc["exit_reason"]


def test_custom_entry_missing(sandbox):
    run = sandbox({"CUSTOM_JUDGE_ENTRY": "nope.sh"})
    assert_failed(run, "judge:scorer_error", "the custom judge entry (CUSTOM_JUDGE_ENTRY) does not exist")


def test_custom_entry_success_gets_a_reward_json(sandbox):
    entry = ("import os, cowork_judge\n"
             "open('/logs/verifier/reward.txt', 'w').write('0.25\\n')\n"
             "assert os.environ['COWORK_JUDGE_VERSION_SOURCE'] == 'package'\n")
    run = sandbox({"CUSTOM_JUDGE_ENTRY": "/tests/entry.py"}, tests_files={"entry.py": entry})
    assert run.text("reward.txt").strip() == "0.25" and json.loads(run.text("reward.json")) == {"reward": 0.25}


def test_judge_skip(sandbox):
    run = sandbox({"JUDGE_SKIP": "1"})
    assert run.text("reward.txt").strip() == "SKIPPED" and not (run.verifier / "reward.json").exists()
    assert json.loads(run.text("result.json"))["status"] == "skipped"


def test_judge_skip_with_a_failed_install_is_still_skipped(sandbox):
    run = sandbox({"JUDGE_SKIP": "true"}, hide_python=True)
    assert run.text("reward.txt").strip() == "SKIPPED" and not (run.verifier / "reward.json").exists()
    doc = json.loads(run.text("result.json"))
    jsonschema.validate(doc, SCHEMA)
    assert doc["status"] == "error" and doc["exit_code"] == "judge:scorer_error"
