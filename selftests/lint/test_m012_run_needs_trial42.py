"""Trial 42 P-1: lint M012 said a ``page_count_between`` row "would end unjudged (extras_missing, scorer_error)"
without the ``pptx`` extra, but its run imports neither python-pptx nor lxml (a .pptx's slide list is read with the
standard library; a .pdf needs PyMuPDF, extra ``workflow``, a .ppt LibreOffice): the run judges it. Only
``check_deck_openable`` (python-pptx, else LibreOffice) really ends ``extras_missing``. M012 now names only the rows
that would end unjudged; init still gives page_count_between ``pptx`` (more is safe)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cowork_judge.commands import main as cli
from install.test_init import MINIMAL, task
from lint.conftest import BASE_SH
from testkit import ROLLOUTS, without_deck_extras, write_task

GATE = {"id": "C-LOCATE-DECK", "description": "One deck.", "weight": 1, "judge_method": "code",
        "code_method_name": "locate_deck"}
PAGES = {"id": "C-PAGES", "description": "5-12 slides.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
         "judge_method": "code", "code_method_name": "page_count_between",
         "code_method_params": {"min_pages": 5, "max_pages": 12}}
OPENS = {"id": "C-OPENS", "description": "The deck opens.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
         "judge_method": "code", "code_method_name": "check_deck_openable"}
NO_EXTRAS = {"sh": BASE_SH.replace("[workflow]", "")}
"""A test.sh installing cowork-judge with no extra (a task whose init ran before its rubric was written)."""


def _m012_lines(tests: Path) -> list[str]:
    """The M012 lines the real ``lint-rubric`` console (``cowork-judge lint``) prints for `tests`."""
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    return [line for line in proc.stdout.splitlines() if "M012" in line]


def test_page_count_between_without_pptx_is_no_m012(make_instance):
    assert _m012_lines(make_instance(rubric=[GATE, PAGES], **NO_EXTRAS)) == []


def test_m012_names_only_the_row_that_would_end_unjudged(make_instance):
    (line,) = _m012_lines(make_instance(rubric=[GATE, PAGES, OPENS], **NO_EXTRAS))
    assert "code method check_deck_openable need(s) 'pptx': those rows would end unjudged" in line, line
    assert "page_count_between" not in line, line


def test_init_warns_of_the_open_check_only(tmp_path, capsys):
    """init's ``--extras`` warning (the same rule as M012) names the rows left unjudged, not page_count_between."""
    root = task(tmp_path, MINIMAL)
    (root / "tests" / "rubric.json").write_text(json.dumps({"rubrics": [GATE, PAGES, OPENS]}))
    assert cli(["init", str(root), "--extras", "fleet"]) == 0
    (line,) = [w for w in capsys.readouterr().out.splitlines() if "lacks 'pptx'" in w]
    assert "which code method check_deck_openable needs (those rows would be unjudged" in line, line
    assert "page_count_between" not in line, line


def test_page_count_between_is_judged_without_the_deck_extras(judge_run, tmp_path):
    """The premise, on a real run: with lxml and python-pptx unimportable, C-PAGES is judged (a hit) while
    check_deck_openable on the same deck ends unjudged extras_missing (no LibreOffice either)."""
    tests = write_task(tmp_path / "task", [GATE, PAGES, OPENS], "Make a deck in /app/output/.\n") / "tests"
    env = {"JUDGE_EVIDENCE": "0", "JUDGE_SOFFICE_PATH": "/nonexistent/soffice", **without_deck_extras(tmp_path)}
    run = judge_run(tests, ROLLOUTS / "deck", env=env)
    pages, opens = run.verdicts["C-PAGES"], run.verdicts["C-OPENS"]
    assert pages.get("error_kind") is None and pages["hit"] is True, pages
    assert "page(s); required [5, 12]" in pages["reason"], pages
    assert opens["error_kind"] == "extras_missing", opens
