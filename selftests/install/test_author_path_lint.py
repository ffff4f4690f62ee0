"""The deck example of ``docs/harbor-task.md`` lints clean as written (issue 39 item 20: it got ``WARN A002``,
no judge instruction, which the page never mentioned). Steps 1-5 of the page run with bash: ``harbor init``, the
task and the judge's instruction, the rubric and ``gen-ppt-rubrics``, ``cowork-judge init``, ``lint-rubric``
(on the tests folder as the page writes it, and on the task folder, issue 39 item 11)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from install.harness import REPO
from install.test_harbor_native import HARBOR, path_blocks


def test_the_pages_deck_example_lints_clean(tmp_path):
    if not HARBOR.is_file():
        pytest.skip(f"harbor is not installed at {HARBOR} (set HARBOR_BIN; .ci/run installs it under Python 3.12)")
    blocks = path_blocks()
    lint_at = next(i for i, b in enumerate(blocks) if b.strip().startswith("lint-rubric"))
    script = "\n".join(blocks[:lint_at + 1]) + "\nlint-rubric my-deck-task\n"
    assert "judge_instruction.md" in script and "A002" in (REPO / "docs" / "harbor-task.md").read_text()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "PIP_", "OPENAI_"))}
    env.update(PATH=f"{Path(sys.executable).parent}:{HARBOR.parent}:/usr/local/bin:/usr/bin:/bin",
               LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    summaries = [line for line in proc.stdout.splitlines() if line.startswith("1 instance:")]
    assert summaries == ["1 instance: 0 errors, 0 warnings"] * 2, proc.stdout[-3000:]
    assert "A002" not in proc.stdout and "my-deck-task is a task folder" in proc.stderr
