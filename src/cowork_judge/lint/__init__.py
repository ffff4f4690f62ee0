"""``lint-rubric``: check a task package before it ships (SPEC §15).

The failures that matter in a fleet are silent — a wrong score, a gate that never closes,
a hurdle a judge reads backwards — so every check here looks for one of them in the files
of ``<instance>/tests`` (and the ``task.toml`` beside it) without executing anything from
the package. Modules, one concern each:

- `codes`: the check registry (stable codes, levels, titles) and `Finding`;
- `reading`: capped, never-raising file readers; `document`: the rubric as raw rows plus
  the engine's normalized view;
- `rubric_checks` (ids, weights, levels, hurdles), `polarity` (the hurdle-wording
  heuristic), `row_wording` (a weight that contradicts the row's wording), `deps` (``depends_on``), `methods` (code methods, workflows),
  `tasktoml`, `testsh`, `assets` (workflow assets, instruction, the ppt_judge hook);
- `instance` (`lint_instance`), `batch` (``--batch`` and family checks), `fix`
  (``--fix-closure``), `report` (text and JSON).
"""

from cowork_judge.lint.codes import CHECKS, Finding
from cowork_judge.lint.instance import Facts, InstanceReport, lint_instance

__all__ = ["CHECKS", "Facts", "Finding", "InstanceReport", "lint_instance"]
