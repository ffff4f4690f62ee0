"""Trial 7 F7: in the ``id → row`` mapping form, a row whose own ``"id"`` differs from its key
silently took the inner id (labels, oracle keys, ``depends_on`` and calibrate pair rows by id, so
one written against the key silently missed it). The inner id still names the row (as before: the
score is unchanged), and the run's warnings and lint's R024 name both ids."""

from __future__ import annotations

import json
from pathlib import Path

from cowork_judge.lint.instance import lint_instance

from .conftest import BASE_ROWS

WAVE = "The answer explains that shorter wavelengths scatter more strongly."


def _mapping(inner_id: str | None) -> dict[str, dict[str, object]]:
    out = {str(r["id"]): {k: v for k, v in r.items() if k != "id"} for r in BASE_ROWS}
    wave: dict[str, object] = {"description": WAVE, "weight": 2, "depends_on": ["C-DECK"]}  # gated (M015)
    if inner_id is not None:
        wave["id"] = inner_id
    out["A-WAVELENGTH"] = wave
    return out


def test_lint_names_a_mapping_key_that_differs_from_the_rows_id(make_instance):
    findings = lint_instance(make_instance(rubric=_mapping("OTHER"))).findings
    said = [(f.code, f.row, f.message) for f in findings]
    assert [(code, row) for code, row, _ in said] == [("R024", "OTHER")], said
    assert "'A-WAVELENGTH'" in said[0][2] and "'OTHER'" in said[0][2], said


def test_lint_is_silent_when_the_key_and_the_id_agree(make_instance):
    assert lint_instance(make_instance(rubric=_mapping("A-WAVELENGTH"))).findings == []
    assert lint_instance(make_instance(rubric=_mapping(None))).findings == []


def test_the_run_warns_naming_both_ids(judge_run, tmp_path: Path):
    tests = tmp_path / "tests"
    tests.mkdir()
    rubric = {"A-WAVELENGTH": {"id": "OTHER", "description": WAVE, "weight": 2},
              "A-CLARITY": {"description": "The answer is clear.", "weight": 1}}
    (tests / "rubric.json").write_text(json.dumps(rubric))
    (tests / "task_prompt.md").write_text("Why is the sky blue?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Shorter wavelengths scatter more.\n")
    run = judge_run(tests, rollout, oracle={"OTHER": {"hit": True}, "A-CLARITY": {"hit": True}})
    assert run.returncode == 0, run.stderr
    assert set(run.verdicts) == {"OTHER", "A-CLARITY"}  # the inner id names the row, as before
    assert run.reward == 1.0
    (warning,) = [w for w in run.doc["details"]["warnings"] if "A-WAVELENGTH" in w]
    assert "'OTHER'" in warning and "key" in warning, warning
    assert "A-WAVELENGTH" in run.stderr
