"""A JUDGE_PANEL judge's ``base_url`` gets the checks JUDGE_BASE_URL gets (`endpoint_problem`). Before, a panel
judge written ``…/v1/chat/completions`` sent every call to ``…/chat/completions/chat/completions`` (404s, its samples
lost ``request_rejected``), and one with no scheme failed every attempt as a connection error. Now the judge's
base_url is ignored with a warning naming the judge, as JUDGE_BASE_URL is: it has no endpoint and no key, its
samples are lost ``no_credential`` with no request sent, and it never falls back to the run's endpoint.
`load_config`, and a real ``cowork-judge run`` against the simulator over HTTP."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from cowork_judge.config.judge_config import load_config

KEY = "sk-panel-route-key-0123456789"
GATEWAY_KEY = "sk-panel-gateway-key-0123456789"


@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:9/v1/chat/completions", "base_url ends in the route /chat/completions"),
    ("https://gw.example/v1/messages/", "base_url ends in the route /messages"),
    ("127.0.0.1:9/v1", "base_url has no scheme"),
    ("ftp://gw.example/v1", "base_url has the scheme 'ftp'"),
])
def test_a_panel_base_url_that_is_no_endpoint_is_ignored_naming_the_judge(url, says):
    panel = [{"name": "good", "model": "m1"}, {"name": "bad", "model": "m2", "base_url": url, "api_key_env": "GW_KEY"}]
    loaded = load_config({"JUDGE_API_KEY": KEY, "JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "GW_KEY": GATEWAY_KEY,
                          "JUDGE_PANEL": json.dumps(panel)})
    good, bad = loaded.config.panel
    (line,) = [w for w in loaded.warnings if w.startswith("JUDGE_PANEL judge 'bad': base_url")]
    assert says in line and "it is ignored" in line and "no_credential" in line, line
    assert bad.url_refused is not None and says in bad.url_refused
    assert bad.api_key is None  # its key goes nowhere
    assert good.url_refused is None and good.api_key is not None and good.api_key.get_secret_value() == KEY
    assert GATEWAY_KEY not in " ".join(loaded.warnings)


def test_a_panel_base_url_without_a_trailing_route_is_kept():
    panel = [{"name": "gw", "model": "m", "base_url": "https://gw.example/responses/v1/", "api_key_env": "GW_KEY"}]
    loaded = load_config({"JUDGE_API_KEY": KEY, "JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "GW_KEY": GATEWAY_KEY,
                          "JUDGE_PANEL": json.dumps(panel)})
    (judge,) = loaded.config.panel
    assert judge.url_refused is None and judge.base_url == "https://gw.example/responses/v1"
    assert not [w for w in loaded.warnings if "base_url" in w], loaded.warnings


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_run_sends_no_request_for_the_judge_and_names_why_its_samples_are_lost(judge_run, tmp_path: Path):
    tests = tmp_path / "tests"
    tests.mkdir()
    rubric = {"rubrics": [{"id": "A-SKY", "description": "The answer explains why the sky is blue.", "weight": 1}]}
    (tests / "rubric.json").write_text(json.dumps(rubric))
    (tests / "task_prompt.md").write_text("Why is the sky blue?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Rayleigh scattering: the sky is blue.\n")
    port = _free_port()
    pasted = f"http://127.0.0.1:{port}/v1/chat/completions"  # the simulator's own endpoint, with the route pasted
    panel = [{"name": "a", "model": "m1"}, {"name": "b", "model": "m2", "base_url": pasted, "api_key_env": "B_KEY"}]
    run = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}}, sim={"port": port},
                    env={"JUDGE_PANEL": json.dumps(panel), "B_KEY": "sk-sim-b-key-0123456789"})
    assert run.returncode == 0, run.stderr
    assert "JUDGE_PANEL judge 'b': base_url ends in the route /chat/completions" in run.stderr, run.stderr
    (line,) = [x for x in run.stderr.splitlines() if "could not start" in x]
    assert "judge 'b'" in line and "base_url ends in the route /chat/completions" in line, line
    assert run.sim is not None
    assert not [r for r in run.sim.other_requests if "/chat/completions/chat/completions" in r[1]], run.sim.other_requests
    doc = json.loads((run.verifier / "result.json").read_text())
    assert doc["details"]["sampling"]["lost"]["judges"] == {"b": 1}
    assert doc["results"][0]["hit"] is True  # judge a's verdict stands
