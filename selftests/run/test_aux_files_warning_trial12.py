"""A ``JUDGE_AUX_FILES`` entry the judge refuses (outside tests/, or missing) is a named warning in the result
document's ``details.warnings``, not only a log line (trial 12 F11: README, every degradation leaves a trace in
the result document). An entry that is copied is not warned about.

Real runs: ``python -m cowork_judge run`` against the simulator on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

from testkit import ROLLOUTS


def _tests(tmp_path: Path) -> Path:
    tests = tmp_path / "tests"
    tests.mkdir(parents=True)
    rows = [{"id": "A", "description": "The answer names Rayleigh scattering.", "weight": 1}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}), encoding="utf-8")
    (tests / "reference.md").write_text("Rayleigh scattering: shorter wavelengths scatter more.\n", encoding="utf-8")
    return tests


def test_refused_aux_files_are_named_in_the_result_document(judge_run, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("not a tests file\n")
    tests = _tests(tmp_path)
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}},
                    env={"JUDGE_AUX_FILES": f"reference.md,{outside},missing.md"})
    warnings = [w for w in run.doc["details"]["warnings"] if w.startswith("JUDGE_AUX_FILES: ")]
    assert len(warnings) == 2, run.doc["details"]["warnings"]
    assert str(outside) in warnings[0] and "outside the tests dir" in warnings[0], warnings
    assert "missing.md" in warnings[1] and "not found" in warnings[1], warnings
    assert all("not copied into any judge workspace" in w for w in warnings), warnings
    assert not [w for w in warnings if "reference.md" in w]


def test_aux_files_all_copied_leave_no_warning(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path), ROLLOUTS / "chat", oracle={"A": {"hit": True}},
                    env={"JUDGE_AUX_FILES": "reference.md"})
    assert not [w for w in run.doc["details"]["warnings"] if "JUDGE_AUX_FILES" in w], run.doc["details"]["warnings"]
