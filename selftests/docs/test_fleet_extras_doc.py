"""rate-limits.md's ``task.toml`` snippet for the shared store (user trial, defect 16): applied
to a deck task after `cowork-judge init`, it keeps the extras init chose from the rubric (the
``workflow`` extra its ``ppt_judge`` rows need) and adds ``fleet-redis``; init run again keeps it."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from cowork_judge.commands import main as cli
from cowork_judge.install import extras

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "performance" / "rate-limits.md"
DECK_RUBRIC = REPO / "tests" / "rubric.json"
LINE = re.compile(r'^COWORK_JUDGE_EXTRAS = "\$\{COWORK_JUDGE_EXTRAS:-([^}]*)\}".*$', re.M)


def test_the_fleet_snippet_keeps_the_extras_init_chose(tmp_path, capsys):
    snippets = LINE.findall(PAGE.read_text(encoding="utf-8"))
    assert snippets, "rate-limits.md no longer shows how to add fleet-redis"
    root = tmp_path / "task"
    (root / "tests").mkdir(parents=True)
    (root / "task.toml").write_text('version = "1.0"\n\n[agent]\ntimeout_sec = 600.0\n')
    (root / "tests" / "rubric.json").write_text(DECK_RUBRIC.read_text())
    assert cli(["init", str(root)]) == 0
    toml = (root / "task.toml").read_text()
    chosen = tomllib.loads(toml)["verifier"]["env"]["COWORK_JUDGE_EXTRAS"]
    assert chosen == "${COWORK_JUDGE_EXTRAS:-workflow}"  # what the deck rows need
    need = extras.required(*extras.routes_of(json.loads(DECK_RUBRIC.read_text())))
    for value in snippets:
        names = value.split(",")
        assert "fleet-redis" in names and not extras.missing(names, need), (value, need)
        assert names[:1] == ["workflow"], f"the snippet {value!r} does not start from init's extras"
        edited = LINE.sub(lambda _: f'COWORK_JUDGE_EXTRAS = "${{COWORK_JUDGE_EXTRAS:-{value}}}"', toml)
        (root / "task.toml").write_text(edited)
        assert cli(["init", str(root)]) == 0  # init again: the operator's line stands
        assert tomllib.loads((root / "task.toml").read_text())["verifier"]["env"]["COWORK_JUDGE_EXTRAS"] == (
            f"${{COWORK_JUDGE_EXTRAS:-{value}}}")
    capsys.readouterr()
