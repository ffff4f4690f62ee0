"""The original cowork-judge 1.3.6's readers read this project's outputs (issue 34).

Every run — the example rollouts judged by the real command line against the simulator over
HTTP, and the error paths (no rubric, a dead endpoint, test.sh's last-resort document) —
writes ``reward_exit_message.json`` with the original's ``exit_code``, ``exit_reason`` and
``extra_fields`` (its 19 keys beside this project's), ``judge_verdict.json`` whenever a
rubric was read, and the original's ``result.json`` fields beside this project's own.
A fleet script written for 1.3.6's outputs runs on them unchanged, and (slow) 1.3.6's own
``python -m cowork_judge.validate_contract``, installed from the registry into its own venv,
passes on every one of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testkit import original_python

from cowork_judge.core.legacy import LEGACY_EXTRA_KEYS
from cowork_judge.core.result import ExtraFields

REPO = Path(__file__).resolve().parents[2]

FLEET_SCRIPT = r'''
# A fleet's post-processing step written for cowork-judge 1.3.6's outputs (unchanged).
import json, sys
from pathlib import Path

vdir = Path(sys.argv[1])
result = json.loads((vdir / "result.json").read_text(encoding="utf-8"))
msg = json.loads((vdir / "reward_exit_message.json").read_text(encoding="utf-8"))
ef = msg["extra_fields"]
score = float(result["score"])
gained = sum(float(r["gained"]) for r in result["details"]["results"])
row = {
    "score": score, "hurdle": bool(result["is_hit_hurdle"]), "gained": round(gained, 4),
    "rows": len(result["details"]["results"]), "ok": ef["rubrics_api_success_num"] == ef["rubrics_total_num"],
    "error_rows": ef["judge_error_rows"], "weight_frac": ef["judge_scored_weight_frac"], "raw": ef["raw_score"],
    "mask": msg["exit_code"] is not None or ef["judge_degraded"], "passed": ef["passed"],
    "reward_txt": float((vdir / "reward.txt").read_text().strip()),
}
assert 0.0 <= score <= 1.0
print(json.dumps(row))
'''


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_", "ANTHROPIC_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def _demo(rollout: str, logs: Path) -> Path:
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "demo", "--rollout", rollout, "--logs-dir", str(logs)],
                          env=_env(), capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return logs / "verifier"


def _run(tmp: Path, tests_dir: Path, app: Path, agent_logs: Path | None, **env: str) -> Path:
    logs = tmp / "logs"
    if agent_logs is not None:
        (logs / "agent").mkdir(parents=True, exist_ok=True)
        for f in agent_logs.iterdir():
            (logs / "agent" / f.name).write_bytes(f.read_bytes())
    subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                    "--tests-dir", str(tests_dir), "--alt-output-dir", str(tmp / "no-alt")],
                   env=_env(**env), capture_output=True, text=True, timeout=300, check=False)
    return logs / "verifier"


def _shell_fallback(tmp: Path) -> Path:
    """test.sh's last-resort path (no judge could run): its own functions, as test_template does."""
    text = (REPO / "templates" / "test.sh").read_text()
    functions = text[: text.index("\ntrap ")]
    vdir = tmp / "shell" / "verifier"
    vdir.mkdir(parents=True)
    script = functions + ('\nINF_CODE="judge:api_error"; INF_REASON="pip: no matching distribution"; REQ="2.0.0"; SRC=package\n'
                          'fill_fallback > "$1/result.json"; fill_fallback fallback_exit_message > "$1/reward_exit_message.json"\n'
                          'printf "0.0\\n" > "$1/reward.txt"\n')
    subprocess.run(["bash", "-c", script, "bash", str(vdir)], check=True, env={"PATH": "/usr/bin:/bin", "JUDGE_MODEL": "m-x"})
    return vdir


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, Path]:
    """Verifier folders of every path: the example rollouts and the error paths."""
    tmp = tmp_path_factory.mktemp("legacy")
    rollouts = ["chat", "empty", "healthbench"]
    if shutil.which("soffice") or shutil.which("libreoffice"):  # the deck rollout renders evidence
        rollouts.append("deck")
    dirs = {name: _demo(name, tmp / name / "logs") for name in rollouts}
    no_rubric = tmp / "no-rubric-tests"
    no_rubric.mkdir()
    (tmp / "app" / "output").mkdir(parents=True)
    (tmp / "app" / "output" / "answer.md").write_text("an answer\n")
    dirs["no_rubric"] = _run(tmp / "no_rubric", no_rubric, tmp / "app", None)
    hb = REPO / "examples" / "healthbench-bbd759b4"
    (tmp / "empty-app").mkdir()
    dirs["dead_endpoint"] = _run(tmp / "dead", hb / "tests", tmp / "empty-app", hb / "rollout" / "logs" / "agent",
                                 JUDGE_BASE_URL="http://127.0.0.1:9/v1", JUDGE_API_KEY="sk-test", JUDGE_DEADLINE="60",
                                 JUDGE_MAX_TRIES="1")
    dirs["shell_fallback"] = _shell_fallback(tmp)
    return dirs


def test_every_path_writes_the_exit_message_with_the_originals_keys(outputs):
    for name, vdir in outputs.items():
        msg = json.loads((vdir / "reward_exit_message.json").read_text())
        assert set(msg) == {"task_score", "exit_code", "exit_reason", "extra_fields"}, name
        assert set(LEGACY_EXTRA_KEYS) <= set(msg["extra_fields"]), name
        assert set(ExtraFields.model_fields) <= set(msg["extra_fields"]), name
        assert len(LEGACY_EXTRA_KEYS) == 19
        result = json.loads((vdir / "result.json").read_text())
        for key in ("metric_id", "score", "is_hit_hurdle", "score_normalized", "reward"):
            assert key in result, (name, key)
        assert "timings" in result["usage"] and isinstance(result["details"]["results"], list), name
        assert msg["exit_code"] == result["exit_code"], name


def test_the_error_paths_say_what_failed(outputs):
    msg = json.loads((outputs["no_rubric"] / "reward_exit_message.json").read_text())
    assert msg["exit_code"] == "judge:scorer_error" and msg["extra_fields"]["rubrics_total_num"] == 0
    assert not (outputs["no_rubric"] / "judge_verdict.json").exists()  # no rubric was read
    dead = json.loads((outputs["dead_endpoint"] / "reward_exit_message.json").read_text())
    assert dead["exit_code"] == "judge:api_error", dead["exit_reason"]
    assert dead["extra_fields"]["judge_error_rows"] == dead["extra_fields"]["rubrics_total_num"] > 0
    assert dead["extra_fields"]["rubrics_api_success_num"] == 0
    verdict = json.loads((outputs["dead_endpoint"] / "judge_verdict.json").read_text())
    assert all(c["reason"].startswith("[judge]") and c["judged"] is False for c in verdict["details"]["criteria"])
    shell = json.loads((outputs["shell_fallback"] / "reward_exit_message.json").read_text())
    assert shell["exit_code"] == "judge:api_error" and shell["extra_fields"]["judge_model"] == "m-x"
    assert json.loads((outputs["shell_fallback"] / "result.json").read_text())["usage"]["model"] == "m-x"


def test_rows_carry_the_originals_fields_with_their_meaning(outputs):
    result = json.loads((outputs["healthbench"] / "result.json").read_text())
    msg = json.loads((outputs["healthbench"] / "reward_exit_message.json").read_text())
    rows = {r["id"]: r for r in result["results"]}
    descriptions = {c["id"]: c["description"] for c in result["criteria"]}
    assert len(result["details"]["results"]) == len(rows) > 0
    for legacy in result["details"]["results"]:
        row = rows[legacy["rubric_number"]]
        assert legacy["rubric_detail"] == descriptions[row["id"]]
        assert legacy["gained"] == round(row["contribution"], 4) and legacy["weight"] == row["weight"]
        assert legacy["justification"] == row["reason"] and legacy["hit"] is (row["hit"] is True)
    assert result["score"] == result["score_normalized"] and result["reward"] == result["task_score"]
    assert result["is_hit_hurdle"] is result["fatal"]
    assert msg["extra_fields"]["raw_score"] == round(result["details"]["earned"], 4)
    assert msg["extra_fields"]["rubrics_api_success_num"] == sum(r["judged"] for r in result["results"])
    verdict = json.loads((outputs["healthbench"] / "judge_verdict.json").read_text())
    assert [c["id"] for c in verdict["details"]["criteria"]] == list(rows)


def test_a_fleet_script_written_for_1_3_6_runs_unchanged(outputs, tmp_path):
    script = tmp_path / "fleet.py"
    script.write_text(FLEET_SCRIPT)
    for name, vdir in outputs.items():
        proc = subprocess.run([sys.executable, "-I", str(script), str(vdir)], capture_output=True, text=True, check=False)
        assert proc.returncode == 0, (name, proc.stderr[-2000:])
        row = json.loads(proc.stdout)
        assert row["score"] == row["reward_txt"] or name in ("dead_endpoint",), (name, row)


@pytest.mark.slow
def test_the_originals_validate_contract_passes_on_every_output(outputs):
    python = original_python()
    for name, vdir in outputs.items():
        proc = subprocess.run([str(python), "-m", "cowork_judge.validate_contract", str(vdir)],
                              capture_output=True, text=True, timeout=60, check=False,
                              env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})  # 1.3.6's own package
        report = json.loads(proc.stdout)
        assert proc.returncode == 0 and report["passed"], (name, report)
        assert report.get("exit_message") == "ok" and report.get("result_json") == "ok", (name, report)
