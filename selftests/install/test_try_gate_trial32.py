"""Trial 32 P-2: a deck task tried without its deck (``--rollout`` forgotten, ``--final-message`` alone) printed
reward 0.0, coverage 1.000, status success and no reason; the gate's reason ("no deck among the deliverables") was
only in result.json. ``try`` now says, under the reward, each positive code gate that missed and how many rows it
closed. A real ``cowork-judge try`` (child process, sandboxed, simulator over HTTP)."""

from __future__ import annotations

from pathlib import Path

from install.test_try_output import inited_task, try_on_sim

ROWS = [
    {"id": "C-LOCATE-DECK", "description": "Exactly one deck was delivered.", "weight": 1,
     "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}},
    {"id": "C-DECK-OPENABLE", "description": "The deck opens.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
     "judge_method": "code", "code_method_name": "check_deck_openable"},
    {"id": "C-SLIDE-COUNT", "description": "6 to 12 slides.", "weight": 1, "depends_on": ["C-DECK-OPENABLE"],
     "judge_method": "code", "code_method_name": "page_count_between", "code_method_params": {"min_pages": 6, "max_pages": 12}},
]


def test_a_closed_deck_gate_is_named_under_the_reward(tmp_path: Path) -> None:
    task = inited_task(tmp_path / "tasks" / "my-deck", ROWS, "Make a short deck about photosynthesis.\n")
    answer = tmp_path / "answer.txt"
    answer.write_text("Here is the deck about photosynthesis.\n")
    proc = try_on_sim(task, tmp_path, "--final-message", str(answer))
    out = proc.stdout + proc.stderr
    assert "reward: 0.0" in out, out
    line = next((ln for ln in out.splitlines() if "gate C-LOCATE-DECK missed:" in ln), "")
    assert "no deck among the deliverables" in line and line.endswith("; 1 row(s) depend on it"), out
    assert "gate C-DECK-OPENABLE" not in out, out  # closed by the first gate: only that one is named
