"""Concurrent first installs into ONE judge home (issue 36): several trials of a Harbor job start
``test.sh`` at the same moment on a fresh ``/opt/cowork-judge`` shared by their sandboxes (a
fleet's shared volume, the bubblewrap environment's ``judge_home``). Each must end with the judge
installed once and its rollout judged: one trial installs, the others wait for it and reuse
the venv (no "ensurepip … returned non-zero", no half-built venv); a task with other extras gets its
own venv beside it instead of replacing the one another trial is judging from."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from testkit import SIM_KEY

from cowork_judge.sim import DemoPolicy, SimServer

pytestmark = pytest.mark.slow

EXTRAS = ("pptx", "pptx", "workflow")
"""One trial per entry, all at once: two of one task (the same extras), one of a task with other extras."""


def test_concurrent_cold_installs_into_one_home_all_judge(sandbox, tmp_path):
    home = tmp_path / "shared-home"  # cold: no venv yet
    server = SimServer(DemoPolicy(), api_key=SIM_KEY).start()
    try:
        env = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_MODEL": "sim-judge",
               "COWORK_INSTALL_TIMEOUT": "1200"}  # a loaded 2-core machine: a cold [workflow] install took > 300 s
        with ThreadPoolExecutor(len(EXTRAS)) as pool:
            runs = list(pool.map(lambda extras: sandbox(env=env | {"COWORK_JUDGE_EXTRAS": extras}, judge_home=home), EXTRAS))
    finally:
        server.stop()
    for run in runs:
        doc = json.loads(run.text("result.json") or "{}")
        assert run.returncode == 0 and doc.get("status") == "success", (run.output[-3000:], run.text("test-sh.log")[-3000:])
    judge = [json.loads(r.text("env_capabilities.json") or "{}").get("judge", {}) for r in runs]
    assert sum(1 for j in judge if j.get("reused") is False) == 2, judge  # one install per set of extras, the others waited
    assert len({j["venv"] for j in judge}) == 2 and judge[0]["venv"] == judge[1]["venv"], judge
    venvs = sorted(p.name for p in home.iterdir() if p.is_dir() and p.name.startswith("venv-"))
    assert len(venvs) == 2, sorted(p.name for p in home.iterdir())  # neither task's venv replaced under the other
