"""Trial 9 F6: rubric strings where a number, a boolean or a list belongs are read the same way in every field:
``"weight": "3"`` was read with a warning (R009) while ``"pass_level": "0.6"``, ``"hurdle": "false"`` and
``"depends_on": "C"`` were read silently (lint clean). Each is now read as before, with a warning naming the field,
the value and how it was read; a non-boolean string such as ``"yes"`` stays an error. The lint check is a real
``cowork-judge lint`` child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.core.rubric import RubricError, normalize_rubric

SRC = Path(__file__).resolve().parents[2] / "src"
GRADED = {"type": "gradient", "levels": {"0": "none", "0.5": "half", "1": "all"}}


def _rubric(**b_fields: object) -> dict[str, object]:
    return {"rubrics": [{"id": "A", "description": "the answer names the capital", "weight": 1},
                        {"id": "B", "description": "the answer explains why", "weight": 1, **b_fields}]}


@pytest.mark.parametrize("fields,warning,check", [
    ({"pass_level": "0.6", **GRADED, "levels": {"0": "none", "0.6": "most", "1": "all"}},
     "row 'B': pass_level given as a string '0.6'; read as 0.6", lambda b: b.pass_level == 0.6),
    ({"hurdle": "false"}, "row 'B': hurdle given as a string 'false'; read as false", lambda b: b.hurdle is False),
    ({"hurdle": "True", "weight": 0}, "row 'B': hurdle given as a string 'True'; read as true", lambda b: b.hurdle is True),
    ({"depends_on": "A"}, "row 'B': depends_on given as a single id 'A', not a list; read as ['A']",
     lambda b: b.depends_on == ("A",)),
    ({"weight": "3"}, "row 'B': weight given as a string '3'; read as 3.0", lambda b: b.weight == 3.0),
])
def test_a_string_value_is_read_as_before_with_a_warning(fields, warning, check):
    rubric = normalize_rubric(_rubric(**fields))
    assert warning in rubric.warnings, rubric.warnings
    assert check(rubric.criteria[1])


def test_the_typed_values_stay_silent_and_a_non_boolean_string_is_an_error():
    rubric = normalize_rubric(_rubric(**GRADED, pass_level=0.5, hurdle=False, depends_on=["A"]))
    assert not rubric.warnings, rubric.warnings
    with pytest.raises(RubricError, match="hurdle"):
        normalize_rubric(_rubric(hurdle="yes"))


def test_lint_rubric_warns_for_each_string_field(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "task_prompt.md").write_text("Name the capital of France and say why.\n")
    path = tmp_path / "tests" / "rubric.json"
    path.write_text(json.dumps({"rubrics": [
        {"id": "A", "description": "the answer names the capital", "weight": 1},
        {"id": "B", "description": "the answer explains why", "weight": 1, "depends_on": "A", "hurdle": "false",
         "pass_level": "0.5", **GRADED}]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    env["PYTHONPATH"] = str(SRC)
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(path.parent)], env=env,
                          capture_output=True, text=True, timeout=120)
    warns = [line for line in proc.stdout.splitlines() if " WARN R009 " in line]
    for field in ("pass_level given as a string", "hurdle given as a string", "depends_on given as a single id"):
        assert any(field in line for line in warns), proc.stdout + proc.stderr
