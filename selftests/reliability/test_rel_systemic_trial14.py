"""When the judge's own failure decides a run, the run is systemic (``exit_code`` set, ``status:
error``) so a fleet masks the sample instead of training on it (docs/scoring.md "Systemic failure").

Trial 14 F2: a run cut by SIGTERM with ONE unjudged row was ``status: success`` with no
``exit_code`` (the 2-row floor of the share rule); a cut run is not a flaky row.
Trial 14 F9: a dead endpoint left the only model row — a hurdle — unjudged ``api_error``; under
``JUDGE_UNJUDGED_NEGATIVE=deduct`` it counted as hit and the run scored a clean-looking 0.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from testkit import SIM_KEY, clean_env

from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer

ANSWER = ("The sky is blue because of Rayleigh scattering: sunlight meets the molecules of the air, "
          "and short wavelengths scatter far more than long ones, so blue light reaches us from every direction.")


def _instance(root: Path, rows: list[dict[str, object]]) -> list[str]:
    tests, agent = root / "tests", root / "logs" / "agent"
    tests.mkdir(parents=True)
    agent.mkdir(parents=True)
    (root / "app" / "output").mkdir(parents=True)
    (tests / "task_prompt.md").write_text("Explain in your final message why the sky is blue.\n")
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (agent / "final_answer.txt").write_text(ANSWER + "\n")
    return [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"), "--logs-dir",
            str(root / "logs"), "--tests-dir", str(tests), "--work-dir", str(root / "work")]


CODE_ROW = {"id": "C-RAYLEIGH", "description": "The answer mentions Rayleigh scattering.", "weight": 1,
            "judge_method": "code", "code_method_name": "text_contains",
            "code_method_params": {"text": "Rayleigh", "source": "response"}}


def _document(root: Path) -> dict[str, object]:
    doc: dict[str, object] = json.loads((root / "logs" / "verifier" / "result.json").read_text())
    return doc


def test_sigterm_with_one_unjudged_row_is_systemic(tmp_path):
    agentic = {"id": "A-WAVE", "description": "The answer explains the wavelength dependence.", "weight": 3}
    cmd = _instance(tmp_path, [CODE_ROW, agentic])
    faults = FaultPlan(rates={"hang": 1.0}, hang_seconds=120)
    with SimServer(OraclePolicy.from_dict({}), api_key=SIM_KEY, faults=faults) as sim:
        env = clean_env(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0", JUDGE_DEADLINE="600",
                        PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for _ in range(900):  # ≤ 90 s: the agentic row's request is in flight (and hangs)
                if sim.in_flight or proc.poll() is not None:
                    break
                time.sleep(0.1)
            assert sim.in_flight, "the run never asked the endpoint"
            proc.send_signal(signal.SIGTERM)
            _, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM and "Traceback" not in stderr
    doc = _document(tmp_path)
    rows = {r["id"]: r for r in doc["results"]}  # type: ignore[attr-defined]
    assert rows["C-RAYLEIGH"]["judged"] and rows["A-WAVE"]["error_kind"] == "interrupted"
    assert doc["details"]["interrupted"] is True  # type: ignore[index]
    assert (doc["status"], doc["exit_code"]) == ("error", "judge:timeout")
    assert str(doc["exit_reason"]).startswith("systemic judge failure: 1 of 2 rows not judged (interrupted)")
    assert str(doc["exit_reason"]).endswith("the judge was stopped by SIGTERM")


def _dead_endpoint_run(root: Path, negative: dict[str, object], **knobs: str) -> tuple[int, dict[str, object]]:
    cmd = _instance(root, [CODE_ROW, negative])
    env = clean_env(JUDGE_API_KEY="sk-not-reachable", JUDGE_BASE_URL="http://127.0.0.1:9/v1", JUDGE_START_JITTER="0",
                    JUDGE_MAX_TRIES="1", JUDGE_RESPLIT="0", JUDGE_PER_TIMEOUT="5", PYTHONDONTWRITEBYTECODE="1", **knobs)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr
    return proc.returncode, _document(root)


HURDLE = {"id": "H-OFFTOPIC", "description": "The answer is off-topic or refuses to answer.", "weight": 0, "hurdle": True}
DEDUCTION = {"id": "D-WRONG", "description": "The answer claims the sky reflects the ocean.", "weight": -1}


def test_dead_endpoint_hurdle_counted_as_hit_is_systemic(tmp_path):
    rc, doc = _dead_endpoint_run(tmp_path, HURDLE)
    rows = {r["id"]: r for r in doc["results"]}  # type: ignore[attr-defined]
    assert rows["H-OFFTOPIC"]["error_kind"] == "api_error" and rows["H-OFFTOPIC"]["counted_hit"] is True
    assert rc == 1 and doc["task_score"] == 0.0  # JUDGE_UNJUDGED_NEGATIVE=deduct keeps its meaning: the hurdle is fatal
    assert (doc["status"], doc["exit_code"]) == ("error", "judge:api_error")
    assert "H-OFFTOPIC" in str(doc["exit_reason"]) and "JUDGE_UNJUDGED_NEGATIVE=deduct" in str(doc["exit_reason"])


def test_dead_endpoint_deduction_applied_is_systemic(tmp_path):
    rc, doc = _dead_endpoint_run(tmp_path, DEDUCTION)
    assert rc == 1 and doc["task_score"] == 0.0 and (doc["status"], doc["exit_code"]) == ("error", "judge:api_error")


def test_dead_endpoint_under_ignore_is_systemic_as_no_model_answered(tmp_path):
    """``ignore`` counts the unjudged hurdle as a miss, so the outage lowered nothing, but it raised the reward to
    the code rows' 1.0 with the hurdle never asked: the endpoint answered no row (trial 15 P-10), systemic."""
    rc, doc = _dead_endpoint_run(tmp_path, HURDLE, JUDGE_UNJUDGED_NEGATIVE="ignore")
    assert rc == 1 and doc["task_score"] == 1.0
    assert (doc["status"], doc["exit_code"]) == ("error", "judge:api_error")
    assert "the endpoint answered none" in str(doc["exit_reason"])


def test_deadline_with_one_unjudged_row_is_systemic(tmp_path):
    """The same cut by JUDGE_DEADLINE (trial 14 F6c): one row unjudged ``deadline`` ⇒ ``judge:timeout``."""
    agentic = {"id": "A-WAVE", "description": "The answer explains the wavelength dependence.", "weight": 3}
    cmd = _instance(tmp_path, [CODE_ROW, agentic])
    faults = FaultPlan(rates={"hang": 1.0}, hang_seconds=120)
    with SimServer(OraclePolicy.from_dict({}), api_key=SIM_KEY, faults=faults) as sim:
        env = clean_env(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0", JUDGE_DEADLINE="8",
                        PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    doc = _document(tmp_path)
    rows = {r["id"]: r for r in doc["results"]}  # type: ignore[attr-defined]
    assert rows["C-RAYLEIGH"]["judged"] and rows["A-WAVE"]["error_kind"] == "deadline"
    assert (doc["status"], doc["exit_code"]) == ("error", "judge:timeout")
    assert str(doc["exit_reason"]).startswith("systemic judge failure: 1 of 2 rows not judged (deadline)")
