"""Trial 25 P-7: the report's "Where the points went" headed its share column "share of reward" and said "9
point(s) lost (75.0% of the reward)" on a run whose reward was 0.25: the share is points lost / W, the maximum
score. The page now says so. A real ``cowork-judge run`` (the simulator with an oracle over HTTP) and a real
``cowork-judge report``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROWS = [{"id": "A", "description": "The answer explains Rayleigh scattering.", "weight": 3},
        {"id": "B", "description": "The answer names the wavelength.", "weight": 3},
        {"id": "C", "description": "The answer names the colour of sunsets.", "weight": 3},
        {"id": "D", "description": "The answer names the physicist.", "weight": 3, "depends_on": ["A-TYPO"]}]
"""W = 12; A hit, B and C missed, D left unjudged (dep_missing, a typo in depends_on): reward 3 / 12 = 0.25, and D's
3 points lost are 25 % of W, not of the reward."""


def sky_package(tmp_path: Path, rows: list[dict]) -> tuple[Path, Path]:
    """(tests/, rollout/) under `tmp_path`: `rows` as the rubric of "Explain why the sky is blue." and a rollout whose
    final message (``logs/agent/final_answer.txt``) names Rayleigh scattering."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text("Explain why the sky is blue.\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Rayleigh scattering: short wavelengths scatter more.\n")
    return tests, rollout


def test_the_share_is_said_of_the_maximum_score_not_of_the_reward(judge_run, tmp_path):
    tests, rollout = sky_package(tmp_path, ROWS)
    run = judge_run(tests, rollout, oracle={rid: {"hit": rid == "A", "reason": "as asked"} for rid in "ABCD"})
    assert run.returncode == 1, run.stderr  # a depends_on typo is the task's defect: judge:scorer_error, as in the trial
    assert run.doc["task_score"] == 0.25 and run.doc["details"]["weight_total"] == 12
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    page = Path(proc.stdout.strip()).read_text(encoding="utf-8")
    costs = page.split("<h2>Where the points went</h2>")[1].split("<h2>")[0]
    assert "3 point(s) lost (25.0% of the maximum score W): D" in costs
    assert "share of W (max score)" in costs and "share = points lost / W, the maximum score" in costs
    assert "of the reward" not in page and "share of reward" not in page
