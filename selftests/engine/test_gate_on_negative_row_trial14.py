"""Trial 14 F3: a positive row that ``depends_on`` a hurdle or a deduction ("credit A only when
the answer has no fatal fault and no error") was gated on the negative row's RAW hit, so the gate
closed exactly when the answer was clean (the fault judged absent) and opened when the fault was
there. A dependency on a hurdle or a deduction is now met when that row is judged and NOT hit.

Both gate paths, with real ``cowork-judge run`` processes against the simulator over HTTP:
the scorer's gate (rows judged in the same agentic block, credit withheld at scoring) and the
router's pre-ask gate (code rows decided before the agentic row, which is then not sent)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from testkit import EXAMPLE_TESTS, ROLLOUTS

SAME_BLOCK = [
    {"id": "H", "description": "The answer is off-topic (not about the sky).", "weight": 0, "hurdle": True},
    {"id": "D", "description": "The answer contains a factual error.", "weight": -1},
    {"id": "A", "description": "The answer explains Rayleigh scattering.", "weight": 2, "depends_on": ["H", "D"]},
    {"id": "B", "description": "The answer mentions wavelength.", "weight": 1},
]


def _tests(root: Path, rows: list[dict[str, Any]]) -> Path:
    tests = root / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "judge_instruction.md").write_text((EXAMPLE_TESTS / "judge_instruction.md").read_text())
    return tests


def test_a_clean_answer_opens_a_gate_on_a_hurdle_and_a_deduction(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, SAME_BLOCK), ROLLOUTS / "chat",
                    oracle={"H": {"hit": False}, "D": {"hit": False}, "A": {"hit": True}, "B": {"hit": True}})
    assert run.returncode == 0, run.stderr
    a = run.verdicts["A"]
    assert a["hit"] is True and a["gate"] == "open" and not a["reason"].startswith("[gate]"), a
    assert a["contribution"] == pytest.approx(2.0), a
    assert run.reward == pytest.approx(1.0)  # was 0.333: A's credit withheld on a clean answer


def test_a_present_fault_withholds_the_credit_and_says_why(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, SAME_BLOCK), ROLLOUTS / "chat",
                    oracle={"H": {"hit": False}, "D": {"hit": True}, "A": {"hit": True}, "B": {"hit": True}})
    assert run.returncode == 0, run.stderr
    a = run.verdicts["A"]
    assert a["gate"] == "closed" and a["contribution"] == 0.0, a
    assert a["reason"].startswith("[gate] credit withheld: D was judged and hit"), a["reason"]
    assert "fault is present" in a["reason"]
    assert run.reward == pytest.approx(0.0)  # (0 − 1 + 1) / 3


CODE_GATES = [  # "found" code methods: their hit is the fault (allowed on negative rows)
    {"id": "H-SECRET", "description": "The notes leak an API key.", "weight": 0, "hurdle": True,
     "judge_method": "code", "code_method_name": "regex_match", "code_method_params": {"pattern": "sk-[A-Za-z0-9]{20,}"}},
    {"id": "D-LOREM", "description": "The notes contain lorem ipsum.", "weight": -1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "lorem ipsum"}},
    {"id": "A", "description": "The notes explain evaporation.", "weight": 2, "depends_on": ["H-SECRET", "D-LOREM"]},
    {"id": "B", "description": "The notes mention clouds.", "weight": 1},
]


def _notes(text: str) -> Any:
    def setup(root: Path) -> None:
        (root / "app" / "output").mkdir(parents=True, exist_ok=True)
        (root / "app" / "output" / "notes.md").write_text(text)
    return setup


def test_the_pre_ask_gate_sends_the_row_when_the_code_faults_are_absent(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, CODE_GATES), oracle={"A": {"hit": True}, "B": {"hit": True}},
                    setup=_notes("Evaporation: the sun heats water, the vapour rises and forms clouds.\n"))
    assert run.returncode == 0, run.stderr
    v = run.verdicts
    assert v["H-SECRET"]["hit"] is False and v["D-LOREM"]["hit"] is False
    assert v["A"]["hit"] is True and v["A"]["gate"] == "open", v["A"]  # was "[gate] … judged and missed", never asked
    asked = {i for e in run.sim.log.entries() for i in e.row_ids}
    assert "A" in asked
    assert run.reward == pytest.approx(1.0)


def test_the_pre_ask_gate_closes_when_a_code_fault_is_present(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path, CODE_GATES), oracle={"A": {"hit": True}, "B": {"hit": True}},
                    setup=_notes("Lorem ipsum. Evaporation: the sun heats water and it forms clouds.\n"))
    assert run.returncode == 0, run.stderr
    v = run.verdicts
    assert v["D-LOREM"]["hit"] is True
    a = v["A"]
    assert a["judged"] is True and a["hit"] is False and a["gate"] == "closed", a
    assert a["reason"].startswith("[gate] D-LOREM judged and hit"), a["reason"]
    asked = {i for e in run.sim.log.entries() for i in e.row_ids}
    assert "A" not in asked and "B" in asked
    assert run.reward == pytest.approx(0.0)  # (0 − 1 + 1) / 3


def test_rescore_reads_a_new_gate_on_a_negative_row_the_same_way(judge_run, tmp_path):
    """`rescore --rubric` adding ``depends_on: [H, D]`` to stored clean verdicts: the gate is met."""
    ungated = [{k: v for k, v in r.items() if k != "depends_on"} for r in SAME_BLOCK]
    stored = judge_run(_tests(tmp_path / "old", ungated), ROLLOUTS / "chat",
                       oracle={"H": {"hit": False}, "D": {"hit": False}, "A": {"hit": True}, "B": {"hit": True}})
    assert stored.returncode == 0, stored.stderr
    new = _tests(tmp_path / "new", SAME_BLOCK)
    out = tmp_path / "rescored.json"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", str(stored.verifier / "result.json"),
                           "--rubric", str(new / "rubric.json"), "--out", str(out)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    a = next(r for r in doc["results"] if r["id"] == "A")
    assert a["gate"] == "open" and a["contribution"] == pytest.approx(2.0), a
    assert doc["reward"] == pytest.approx(1.0)  # was 0.333
