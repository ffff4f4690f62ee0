"""Trial 43 P-4 through the real CLI in a subprocess: on a task where ``cowork-judge init`` was forgotten (Harbor's
placeholder test.sh), ``lint-rubric <task>`` lists the S002 that names that one command before the T-findings,
each a hand edit of what it writes (S002 came last). The JSON report keeps the same findings."""

from __future__ import annotations

import json

from install.test_given_paths_trial18 import _task, cli
from install.test_init_trial17 import RUBRIC


def test_lint_lists_the_init_fix_before_the_task_toml_findings(tmp_path):
    task = _task(tmp_path)
    (task / "tests" / "rubric.json").write_text(RUBRIC)
    proc = cli("lint", task.name, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    codes = [line.split()[2].rstrip(":") for line in proc.stdout.splitlines() if line.startswith(f"{task.name}/")]
    assert codes[0] == "S002" and "`cowork-judge init <task folder>`" in proc.stdout.splitlines()[0], proc.stdout
    assert {"T002", "T003", "T004"} <= set(codes), proc.stdout
    report = json.loads(cli("lint", task.name, "--format", "json", cwd=tmp_path).stdout)
    found = [f["code"] for f in report["instances"][0]["findings"]]
    assert sorted(found) == sorted(codes), (found, codes)
