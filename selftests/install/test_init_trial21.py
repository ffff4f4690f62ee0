"""Trial 21 P-1 and P-2 at init and lint (real ``python -m cowork_judge`` child processes on a task
``harbor init`` made).

P-1: on a deck task whose extras are none (init ran before the rubric), ``init --extras pptx`` is a conflict that
said "without --extras init keeps the task's" — false: plain init raises the extras to what the rubric's rows need.
The conflict now says what plain init writes, and plain init does write it.

P-2: ``{"rubric": [...]}`` (one letter short of ``rubrics``) was read as an ``id → row`` mapping with one row named
``rubric``: lint and the run said "row 'rubric': a row must be an object, got list" with no hint, and init chose
"extras: none (from tests/rubric.json)" from no rows at all. Both now say what happened: a did-you-mean in the
engine's message (lint R003, the run), and init refuses as it does for invalid JSON."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from install.test_init import harbor_init

AGENTIC = [{"id": "A-STAGES", "description": "The deck explains each stage of the water cycle.", "weight": 3},
           {"id": "A-AUDIENCE", "description": "The slides suit a class of ten-year-olds.", "weight": 2}]
LOCATE = {"id": "G-LOCATE", "description": "A deck is delivered.", "weight": 0, "judge_method": "code",
          "code_method_name": "locate_deck"}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=120)


def _extras(task: Path) -> str:
    return str(tomllib.loads((task / "task.toml").read_text())["verifier"]["env"]["COWORK_JUDGE_EXTRAS"])


def _task(tmp_path: Path, rubric: Any = None) -> Path:
    """A Harbor task on which init ran before the rubric was written (extras none), then `rubric` written."""
    task = harbor_init(tmp_path)
    first = _cli("init", str(task))
    assert first.returncode == 0, first.stdout + first.stderr
    assert _extras(task) == "${COWORK_JUDGE_EXTRAS:-}"
    if rubric is not None:
        (task / "tests" / "rubric.json").write_text(json.dumps(rubric))
        (task / "tests" / "task_prompt.md").write_text("Make a deck about the water cycle for a school class.\n")
    return task


def test_the_extras_conflict_says_what_plain_init_does_and_plain_init_does_it(tmp_path):
    task = _task(tmp_path, {"rubrics": [LOCATE, *AGENTIC]})
    before = (task / "task.toml").read_text()
    pptx = _cli("init", str(task), "--extras", "pptx")  # the advice the run's warning gave on main
    assert pptx.returncode == 1, pptx.stdout + pptx.stderr
    conflict = next(line for line in pptx.stderr.splitlines() if "but --extras asks for 'pptx'" in line)
    assert "keeps the task's" not in conflict
    assert "`cowork-judge init <task>` without --extras writes 'workflow', what the rubric's rows need" in conflict
    assert (task / "task.toml").read_text() == before
    plain = _cli("init", str(task))  # what the conflict says, done
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "'${COWORK_JUDGE_EXTRAS:-}' → '${COWORK_JUDGE_EXTRAS:-workflow}' (the rubric's rows need it)" in plain.stdout
    assert _extras(task) == "${COWORK_JUDGE_EXTRAS:-workflow}"


def test_a_conflict_on_extras_the_rubric_already_has_says_init_keeps_them(tmp_path):
    task = _task(tmp_path, {"rubrics": [LOCATE, *AGENTIC]})
    assert _cli("init", str(task)).returncode == 0  # now workflow
    pptx = _cli("init", str(task), "--extras", "pptx")
    assert pptx.returncode == 1
    assert "without --extras init keeps the task's, which cover the rubric's rows" in pptx.stderr


def test_a_misspelt_rubrics_key_is_named_by_init_and_lint(tmp_path):
    task = _task(tmp_path, {"rubric": [LOCATE, *AGENTIC]})
    before = (task / "task.toml").read_text()
    hint = "a row must be an object, got list; did you mean 'rubrics'? (rows go in a list under 'rubrics', 'criteria' or 'items')"
    init = _cli("init", str(task))
    assert init.returncode != 0, init.stdout + init.stderr
    assert f"tests/rubric.json is not read as rows: row 'rubric': {hint}" in init.stderr
    assert "extras: none" not in init.stdout + init.stderr
    assert (task / "task.toml").read_text() == before
    lint = _cli("lint", str(task / "tests"))
    assert f"ERROR R003 row 'rubric': the engine refuses this row: {hint}" in lint.stdout, lint.stdout + lint.stderr


def test_a_near_miss_beside_another_key_and_a_plain_id_mapping(tmp_path):
    """`criterias` beside a `title` still gets the did-you-mean (a near miss); an id → row mapping of real rows is
    read by init as the engine reads it (main chose extras none from it)."""
    task = _task(tmp_path, {"title": {"id": "T", "description": "x"}, "criterias": [LOCATE]})
    init = _cli("init", str(task), "--extras", "workflow", "--force")
    assert "row 'criterias': a row must be an object, got list; did you mean 'criteria'?" in init.stdout, init.stdout
    assert "(lint-rubric reports R003)" in init.stdout
    mapping = {row["id"]: {k: v for k, v in row.items() if k != "id"} for row in (LOCATE, *AGENTIC)}
    task = _task(tmp_path / "second", mapping)
    init = _cli("init", str(task))
    assert init.returncode == 0, init.stdout + init.stderr
    assert _extras(task) == "${COWORK_JUDGE_EXTRAS:-workflow}"


def test_a_rubric_without_rows_yet_is_said_so(tmp_path):
    task = _task(tmp_path, {"rubrics": []})
    init = _cli("init", str(task))
    assert init.returncode == 0, init.stdout + init.stderr
    assert "extras: none (tests/rubric.json has no rows yet; run init again after writing them)" in init.stdout
