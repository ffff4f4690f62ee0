"""Trial 6 F22, the panel half (h39t6c left it): a panel judge's ``api_key_env``.

- The variable holding a key an HTTP header cannot carry (a line break, a non-ASCII character)
  was retried six times as "Connection error."; now the judge is refused once at start, the
  warning names the judge, the variable and the character's position (never the key), no
  request is sent for it, its samples are lost ``no_credential``, the other judge's verdicts stand.
- An ``api_key_env`` that is not a variable's name said only "must be the NAME of an environment
  variable"; now it names the judge and the first wrong character with its position (never the
  value, which may be a pasted key), and says the panel is not used.

Real ``python -m cowork_judge run`` subprocesses against the simulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RUBRIC = {"rubrics": [{"id": "A-SKY", "description": "The answer explains why the sky is blue.", "weight": 1}]}


def _task(tmp_path: Path) -> tuple[Path, Path]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Why is the sky blue?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Rayleigh scattering: the sky is blue.\n")
    return tests, rollout


def _everything_written(run) -> str:
    files = [p for p in run.verifier.rglob("*") if p.is_file()]
    return run.stdout + run.stderr + "".join(p.read_text(errors="replace") for p in files)


@pytest.mark.parametrize("key, said", [("sk-abc\ndef12345tail", "holds a line break at character 7 of 19"),
                                       ("sk-abcключ12345tail", "holds a non-ASCII character at character 7 of 19")])
def test_a_panel_key_no_http_header_can_carry_is_refused_once_naming_the_variable(judge_run, tmp_path: Path, key: str,
                                                                                  said: str):
    tests, rollout = _task(tmp_path)
    panel = [{"name": "a", "model": "m1", "api_key_env": "PANEL_A_KEY"}, {"name": "b", "model": "m2"}]
    run = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}},
                    env={"JUDGE_PANEL": json.dumps(panel), "PANEL_A_KEY": key})
    assert run.returncode == 0, run.stderr
    assert "Connection error" not in run.stderr and "attempt 2 failed" not in run.stderr, run.stderr
    assert {e.model for e in run.sim.log.entries()} == {"m2"}  # judge 'a' sent nothing
    (warning,) = [w for w in run.doc["details"]["warnings"] if "PANEL_A_KEY" in w]
    assert "judge 'a'" in warning and said in warning and "no_credential" in warning, warning
    (start,) = [x for x in run.stderr.splitlines() if "could not start" in x]
    assert "PANEL_A_KEY" in start and said in start and "is not set" not in start, start
    lost = run.doc["details"]["sampling"]["lost"]
    assert lost["judges"] == {"a": 1} and lost["error_kinds"] == {"no_credential": 1}, lost
    assert run.reward == 1.0  # judge 'b' answered; its verdict stands
    assert "12345tail" not in _everything_written(run)


@pytest.mark.parametrize("name, said", [("MY-KEY", "holds '-' at character 3 of 6"), ("1KEY", "starts with '1'"),
                                        ("sk-secretvalue12345", "holds '-' at character 3 of 19")])
def test_an_api_key_env_that_is_no_variable_name_is_named_with_its_character(judge_run, tmp_path: Path, name: str,
                                                                            said: str):
    tests, rollout = _task(tmp_path)
    panel = [{"name": "a", "model": "m1", "api_key_env": name}, {"name": "b", "model": "m2"}]
    run = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}}, env={"JUDGE_PANEL": json.dumps(panel)})
    assert run.returncode == 0, run.stderr
    (warning,) = [w for w in run.doc["details"]["warnings"] if "JUDGE_PANEL" in w]
    assert "judge 1 ('a')" in warning and f"api_key_env {said}" in warning, warning
    assert "panel is not used" in warning, warning
    assert "secretvalue12345" not in _everything_written(run)
    assert run.doc["details"]["settings_invalid"] == ["JUDGE_PANEL"]  # batch refuses it; a run says it
