"""Trial 22 note: ``JUDGE_BASE_URL`` with the full route pasted (``…/v1/chat/completions``) ended
``status: error``, every row ``request_rejected`` with a 404 on ``…/chat/completions/chat/completions``.
The configuration refuses a base URL ending in a route the judge adds itself (``/chat/completions``,
``/responses``, ``/messages``), naming the fix; ``try`` refuses to start and ``run`` judges nothing with it.
Through the real CLI in a child process, and `load_config`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import REPO, ROLLOUTS, clean_env

from cowork_judge.config.judge_config import load_config

KEY = "sk-route-test-key-0123456789"


@pytest.mark.parametrize("route", ["/chat/completions", "/responses", "/messages", "/chat/completions/"])
def test_a_base_url_ending_in_a_route_is_refused_naming_the_fix(route):
    loaded = load_config({"JUDGE_API_KEY": KEY, "JUDGE_BASE_URL": f"http://127.0.0.1:9/v1{route}"})
    assert loaded.config.base_url is None
    bare = route.rstrip("/")
    problem = loaded.refused["JUDGE_BASE_URL"]
    assert f"ends in the route {bare}" in problem and f"drop {bare}" in problem, problem
    assert any(w.startswith("JUDGE_BASE_URL ends in the route") for w in loaded.warnings), loaded.warnings


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/v1", "http://127.0.0.1:9", "https://gw.example/openai/v1/",
                                 "https://gw.example/messages-api/v1", "https://gw.example/responses/v1"])
def test_a_base_url_without_a_trailing_route_is_kept(url):
    loaded = load_config({"JUDGE_API_KEY": KEY, "JUDGE_BASE_URL": url})
    assert loaded.config.base_url == url.rstrip("/") and "JUDGE_BASE_URL" not in loaded.refused


def _task(root: Path) -> Path:
    task = root / "task"
    (task / "tests").mkdir(parents=True)
    (task / "tests" / "test.sh").write_text("#!/bin/bash\necho hi\n")
    rows = [{"id": "A1", "description": "The deck explains the topic.", "weight": 1}]
    (task / "tests" / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (task / "task.toml").write_text('[verifier]\ntimeout_sec = 600\n[verifier.env]\nJUDGE_API_KEY = "${JUDGE_API_KEY}"\n'
                                    'JUDGE_BASE_URL = "${JUDGE_BASE_URL}"\n')
    return task


def test_try_refuses_the_full_route_before_running(tmp_path):
    env = clean_env(JUDGE_API_KEY=KEY, JUDGE_BASE_URL="http://127.0.0.1:9/v1/chat/completions")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "try", str(_task(tmp_path)), "--rollout",
                           str(ROLLOUTS / "deck")], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "JUDGE_BASE_URL ends in the route /chat/completions" in proc.stderr, proc.stderr
    assert "Drop /chat/completions from JUDGE_BASE_URL (e.g. http://127.0.0.1:8000/v1)" in proc.stderr  # trial 29 P-2
    assert "reward" not in proc.stdout


def test_run_says_it_and_calls_no_endpoint(tmp_path):
    app, tests, logs = tmp_path / "app", tmp_path / "tests", tmp_path / "logs"
    (app / "output").mkdir(parents=True)
    (app / "output" / "report.md").write_text("# The report\nIt explains the topic.\n")
    tests.mkdir()
    rows = [{"id": "A1", "description": "The report explains the topic.", "weight": 1}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    env = clean_env(PYTHONPATH=str(REPO / "src"), PYTHONDONTWRITEBYTECODE="1", JUDGE_START_JITTER="0", JUDGE_EVIDENCE="0",
                    JUDGE_API_KEY=KEY, JUDGE_BASE_URL="http://127.0.0.1:9/v1/chat/completions")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                           "--tests-dir", str(tests)], env=env, capture_output=True, text=True, timeout=120)
    assert "JUDGE_BASE_URL ends in the route /chat/completions" in proc.stderr, proc.stderr
    doc = json.loads((logs / "verifier" / "result.json").read_text())
    kinds = {r.get("error_kind") for r in doc["results"]}
    assert "request_rejected" not in kinds and kinds <= {"no_credential"}, doc["results"]
