"""Trial 42 P-3: a chat task's report page explained "Where the points went" in deck-page terms: the paragraph
about pages below level 1 and power means, a "pages that cost it" column of dashes, and every row that lost points
labelled "judged whole (no per-page levels)". A run where no row has per-page levels now shows none of them (a deck
run keeps them: `test_report_causes_e2e`). The real ``cowork-judge init`` and ``try --final-message`` (built-in simulator) and
the real ``cowork-judge report`` in child processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from testkit import write_task

CLI = [sys.executable, "-m", "cowork_judge"]
RUBRIC = [
    {"id": "C-RAYLEIGH", "description": "The answer names Rayleigh scattering.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
    {"id": "C-LENGTH", "description": "The answer is 80-250 words.", "weight": 1, "judge_method": "code",
     "code_method_name": "word_count_between", "code_method_params": {"min_words": 80, "max_words": 250,
                                                                      "source": "response"}},
    {"id": "A-SUNSET", "description": "The answer explains why sunsets are red.", "weight": 3},
]


def test_a_chat_runs_costs_carry_no_page_vocabulary(tmp_path):
    task = write_task(tmp_path / "chat-task", RUBRIC, "Explain why the sky is blue.\n",
                      instruction="Explain why the sky is blue.\n",
                      files={"task.toml": '[task]\nname = "acme/chat-task"\n\n[verifier]\nenvironment_mode = "separate"\n'})
    answer = tmp_path / "answer.txt"
    answer.write_text("The sky is blue because of the ocean.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    env.update(COWORK_JUDGE_CACHE=str(tmp_path / "cache"), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    init = subprocess.run([*CLI, "init", str(task)], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert init.returncode == 0, init.stdout + init.stderr
    tried = subprocess.run([*CLI, "try", str(task), "--final-message", str(answer)], env=env, capture_output=True,
                           text=True, timeout=600, check=False)
    found = re.search(r"^report page: cowork-judge report (\S+) ", tried.stdout, re.M)
    assert found, tried.stdout + tried.stderr
    proc = subprocess.run([*CLI, "report", found.group(1)], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    page = Path(proc.stdout.strip()).read_text(encoding="utf-8")
    costs = page.split("<h2>Where the points went</h2>")[1].split("<h2>")[0]
    assert "<code>C-RAYLEIGH</code>" in costs and "<code>A-SUNSET</code>" in costs  # the rows that lost points
    assert "share = points lost / W, the maximum score" in costs
    assert "Pages are those below level 1" not in costs and "power mean" not in costs
    assert "pages that cost it" not in costs
    assert "judged whole" not in costs
