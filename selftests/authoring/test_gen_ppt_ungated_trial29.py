"""Trial 29 P-6: ``gen-ppt-rubrics`` without ``--gate`` on a deck task whose rubric has a ``locate_deck`` row wrote 14
ungated visual rows silently ("gates: none"), and lint's M015 then said those rows "are judged on the agent's final
message", which ppt_judge rows never are (with no deck they are a judged miss, no model call). What does happen is
that a rollout leaving two decks and locating none ends ``status: error`` (the rows unjudged ``workflow_error``),
where the gated rubric gives a judged 0. Now gen-ppt-rubrics warns naming ``--gate <the locate_deck id>``, and M015
says that consequence for the ppt_judge rows and keeps the final-message wording for the agentic rows only.
Real CLI in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from testkit import write_task

PROMPT = "Make a 5-10 slide deck introducing photosynthesis. Save it as a .pptx file in /app/output/.\n"
ROWS = [
    {"id": "C-LOCATE-DECK", "description": "Exactly one .pptx deck is among the deliverables.", "weight": 1,
     "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}},
    {"id": "A-CONTENT", "description": "The deck explains photosynthesis correctly for 8th-grade students.",
     "weight": 4, "depends_on": ["C-LOCATE-DECK"]},
]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _task(root: Path, rows: list[dict]) -> Path:
    return write_task(root / "deck", rows, PROMPT, instruction=PROMPT, indent=1, files={
        "tests/judge_instruction.md": "You judge a slide deck about photosynthesis.\n",
        "tests/test.sh": "#!/bin/bash\npip install 'cowork-judge[pptx,workflow]'\n"})


def test_gen_without_gate_warns_and_m015_says_what_ungated_ppt_judge_rows_do(tmp_path):
    task = _task(tmp_path, ROWS)
    gen = _cli("gen-ppt-rubrics", str(task), "--no-checklist")
    assert gen.returncode == 0, gen.stderr
    (warned,) = [x for x in gen.stderr.splitlines() if x.startswith("warning: the ppt_judge rows are not gated")]
    assert "--gate C-LOCATE-DECK" in warned and "workflow_error" in warned, gen.stderr
    m015 = [x for x in _cli("lint", str(task)).stdout.splitlines() if " M015" in x]
    assert len(m015) == 1, m015
    assert "ppt_judge row(s) V-LAYOUT-CLIPPED" in m015[0] and "final message" not in m015[0], m015
    assert "status error" in m015[0] and "gen-ppt-rubrics <task> --gate C-LOCATE-DECK" in m015[0], m015


def test_gen_with_gate_is_silent_and_an_ungated_agentic_row_keeps_the_message_wording(tmp_path):
    task = _task(tmp_path, [*ROWS, {"id": "A-EXTRA", "description": "The deck ends with a quiz.", "weight": 1}])
    gen = _cli("gen-ppt-rubrics", str(task), "--no-checklist", "--gate", "C-LOCATE-DECK")
    assert gen.returncode == 0 and "not gated" not in gen.stderr, gen.stderr
    (m015,) = [x for x in _cli("lint", str(task)).stdout.splitlines() if " M015" in x]
    assert "row(s) A-EXTRA are not gated" in m015 and "judged on the agent's final message" in m015, m015
