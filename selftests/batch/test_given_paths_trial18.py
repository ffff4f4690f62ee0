"""Trial 18 P-6's family for ``cowork-judge batch``: ``batch .`` run inside one instance folder (``tests/`` and
``rollout/``) names the instance after the folder, as ``batch <instance>`` from above does; it used to take
``Path(".").name`` (empty) and refuse the instance as named ''. The real CLI in a subprocess, a code-only
rubric (no model call)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROW = {"id": "C1", "description": "a report", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
       "code_method_params": {"glob": "*.md"}}


def test_batch_dot_inside_an_instance_folder(tmp_path):
    inst = tmp_path / "my-inst"
    (inst / "tests").mkdir(parents=True)
    (inst / "rollout" / "app" / "output").mkdir(parents=True)
    (inst / "tests" / "rubric.json").write_text(json.dumps({"rubrics": [ROW]}))
    (inst / "rollout" / "app" / "output" / "report.md").write_text("# Report\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "batch", ".", "--out", str(tmp_path / "out")], cwd=inst,
                          capture_output=True, text=True, timeout=300, env={**env, "PWD": str(inst)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "instance name '' is empty" not in proc.stderr
    result = json.loads((tmp_path / "out" / "my-inst" / "logs" / "verifier" / "result.json").read_text())
    assert result["reward"] == 1.0
