"""Trial 9 F11: the pass threshold (``extra_fields.passed``, the binary reward) compares the float sum of decimal
weights within `scoring.PASS_TOLERANCE`: 4 of 5 rows of weight 0.3 (0.7999999999999999) meet ``gte 0.8``; a score
really below the bar still fails, and ``gt`` treats a float sum equal to the bar as equal.

The repro runs a real ``cowork-judge run`` child process (code rows only: no judge endpoint)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import PASS_TOLERANCE, ScoringPolicy, meets_threshold, score
from cowork_judge.core.verdicts import Verdict

SRC = Path(__file__).resolve().parents[2] / "src"
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon")


def _rubric(weight: float, n: int) -> dict[str, object]:
    return {"rubrics": [{"id": f"C{i}", "description": f"mentions {w}", "weight": weight, "judge_method": "code",
                         "code_method_name": "text_contains", "code_method_params": {"text": w, "source": "response"}}
                        for i, w in enumerate((WORDS * 3)[:n])]}


@pytest.mark.parametrize("weight,n,k,threshold", [
    (0.3, 5, 4, 0.8), (0.3, 5, 1, 0.2), (0.3, 5, 2, 0.4), (0.7, 10, 8, 0.8), (0.7, 10, 3, 0.3), (0.1, 10, 7, 0.7)])
def test_a_float_sum_on_the_bar_passes_gte_and_fails_gt(weight, n, k, threshold):
    crit = normalize_rubric(_rubric(weight, n)).criteria
    vs = {c.id: Verdict(id=c.id, hit=i < k, judged=True) for i, c in enumerate(crit)}
    gte = score(crit, vs, ScoringPolicy(reward_mode="binary", pass_threshold=threshold, pass_compare="gte"))
    gt = score(crit, vs, ScoringPolicy(reward_mode="binary", pass_threshold=threshold, pass_compare="gt"))
    assert abs(gte.score_normalized - threshold) < 1e-12  # the float sum the trial saw, not rewritten
    assert (gte.passed, gte.reward) == (True, 1.0)
    assert (gt.passed, gt.reward) == (False, 0.0)


def test_just_below_the_bar_still_fails_and_just_above_passes():
    assert meets_threshold(0.8 - 1e-7, 0.8, "gte") is False
    assert meets_threshold(0.79, 0.8, "gte") is False
    assert meets_threshold(0.8 - PASS_TOLERANCE / 2, 0.8, "gte") is True
    assert meets_threshold(0.8 + 1e-7, 0.8, "gt") is True
    assert meets_threshold(0.8 + PASS_TOLERANCE / 2, 0.8, "gt") is False
    assert meets_threshold(0.0, 0.0, "gte") is True and meets_threshold(1.0, 1.0, "gte") is True
    assert meets_threshold(1.0, 1.0, "gt") is False


def test_the_trial_repro_run_passes_binary_0_8(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "logs" / "agent").mkdir(parents=True)
    (tmp_path / "logs" / "agent" / "final_answer.txt").write_text("alpha beta gamma delta\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "rubric.json").write_text(json.dumps(_rubric(0.3, 5)))
    (tmp_path / "tests" / "task_prompt.md").write_text("Name the first five Greek letters.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    env.update(PYTHONPATH=str(SRC), JUDGE_START_JITTER="0", JUDGE_REWARD_MODE="binary", JUDGE_PASS_THRESHOLD="0.8")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(tmp_path / "app"),
                           "--logs-dir", str(tmp_path / "logs"), "--tests-dir", str(tmp_path / "tests")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    verifier = tmp_path / "logs" / "verifier"
    doc = json.loads((verifier / "result.json").read_text())
    assert doc["extra_fields"]["passed"] is True, doc["extra_fields"]
    assert json.loads((verifier / "reward.json").read_text()) == {"reward": 1.0}
    rescore = subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", str(verifier / "result.json"), "--mode",
                              "binary", "--threshold", "0.8"], env=env, capture_output=True, text=True, timeout=120)
    assert "reward 1.0 → 1.0 (passed True → True" in rescore.stderr, rescore.stdout + rescore.stderr
