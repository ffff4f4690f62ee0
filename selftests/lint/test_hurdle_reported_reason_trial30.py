"""Trial 30 P-2: R021 ("no violation wording found") warned on a hurdle correctly worded as a fault with the plain
reporting verb "says" — "The answer says the sky is blue because it reflects the ocean." — while the same row with
"claims" was silent. A reporting verb (says, states, tells, presents, describes) right after the deliverable that
carries its own reason or certainty (because, since, due to, as fact…) now reads as the fault; a bare report ("The
answer says the sky is blue.") could be the requirement and keeps R021, and a requirement cue keeps R020."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testkit import clean_env

ROWS = {"H-SAYS": "The answer says the sky is blue because it reflects the ocean.",
        "H-STATES": "The response states that the sky is blue due to the ocean's reflection.",
        "H-FACT": "The report presents the 2030 revenue estimate as fact.",
        "H-BARE": "The answer says the sky is blue.",
        "H-CORRECT": "The answer correctly states that the sky is blue because of Rayleigh scattering."}


def lint_wording(tmp_path: Path, prompt: str, rubric: list[dict]) -> tuple[list[dict], str]:
    """Lint a chat package of `rubric` through the real CLI (``--format json``): (its findings, stdout)."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "task_prompt.md").write_text(prompt)
    (tests / "judge_instruction.md").write_text("Judge the final message.\n")
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rubric}))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests), "--format", "json"],
                          capture_output=True, text=True, timeout=300, env=clean_env(), check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)["instances"][0]["findings"], proc.stdout


def test_lint_cli_reads_a_reported_reason_as_the_fault(tmp_path: Path):
    rubric = [{"id": "A", "description": "The answer names Rayleigh scattering.", "weight": 1}]
    rubric += [{"id": rid, "description": text, "weight": 0, "hurdle": True} for rid, text in ROWS.items()]
    findings, out = lint_wording(tmp_path, "Explain why the sky is blue.\n", rubric)
    wording = {f["row"]: f["code"] for f in findings if f["code"] in ("R020", "R021")}
    assert wording == {"H-BARE": "R021", "H-CORRECT": "R020"}, out
