"""Every check: a minimal broken instance triggers it, the fixed one lints with no finding at all."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from cowork_judge.lint.codes import CHECKS
from cowork_judge.lint.instance import lint_instance

from .conftest import BASE_ROWS, BASE_SH, BASE_TOML, rows

WF = {"id": "W1", "description": "The slides are legible.", "weight": 2, "judge_method": "workflow",
      "workflow_name": "stub", "type": "gradient", "levels": {"1": "all", "0.55": "most", "0": "none"},
      "depends_on": ["C-DECK"]}  # gated on the deck (M015)
WF_UNGATED = {k: v for k, v in WF.items() if k != "depends_on"}
HURDLE = 1  # index of the hurdle row in BASE_ROWS
REGEX_ROW = {"id": "C-REGEX", "description": "The report names a quarter.", "weight": 1, "judge_method": "code",
             "code_method_name": "regex_match", "code_method_params": {"pattern": r"Q[1-4] 20\d\d", "glob": "*.md"}}
TOML_NO = {name: BASE_TOML.replace(line + "\n", "") for name, line in {
    "creds": 'JUDGE_API_KEY = "${JUDGE_API_KEY}"\nJUDGE_BASE_URL = "${JUDGE_BASE_URL}"',
    "deadline": 'JUDGE_DEADLINE = "${JUDGE_DEADLINE:-1800}"',
    "version": 'COWORK_JUDGE_VERSION = "${COWORK_JUDGE_VERSION:-0.1.0}"\n'
               'COWORK_JUDGE_VERSION_SOURCE = "${COWORK_JUDGE_VERSION_SOURCE:-placeholder}"',
}.items()}

# (code, what breaks it, the instance that breaks it, the same instance fixed)
TEXT_ROW = {"id": "C-FINDINGS", "description": "The notes name the findings.", "weight": 1, "judge_method": "code",
            "code_method_name": "text_contains", "code_method_params": {"text": "findings", "glob": "*.md"},
            "depends_on": ["C-DECK"]}
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("R001", "no rubric.json", {"rubric": False, "files": {"rubric.json.bak": "{}"}}, {}),
    ("R001", "not UTF-8", {"rubric_bytes": b'{"rubrics": [{"id": "a", "description": "caf\xe9"}]}'}, {}),
    ("R002", "truncated JSON", {"rubric_text": '{"rubrics": [{"id": "a"'}, {}),
    ("R002", "absurdly nested", {"rubric_text": "[" * 100_000 + "]" * 100_000}, {}),
    ("R003", "no description", {"rubric": rows((2, {"description": None}))}, {}),
    ("R003", "a row that is not an object", {"rubric": [*BASE_ROWS, "A-EXTRA"]}, {}),
    ("R003", "not an object or list", {"rubric_text": "42"}, {}),
    ("R003", "workflow_config not an object", {"rubric": {"rubrics": BASE_ROWS, "workflow_config": []}}, {}),
    ("R004", "duplicate id", {"rubric": rows(extra=[{"id": "A-CONTENT", "description": "Again.", "weight": 1}])}, {}),
    ("R005", "row without id", {"rubric": rows(extra=[{"description": "The deck has a title.", "weight": 1, "depends_on": ["C-DECK"]}])},
     {"rubric": rows(extra=[{"id": "A-TITLE", "description": "The deck has a title.", "weight": 1, "depends_on": ["C-DECK"]}])}),
    ("R006", "NaN weight", {"rubric_text": '{"rubrics": [{"id": "a", "description": "x", "weight": NaN}]}'}, {}),
    ("R006", "overflowing weight", {"rubric_text": '{"rubrics": [{"id": "a", "description": "x", "weight": 1e999}]}'}, {}),
    ("R006", "absurd weight", {"rubric": rows((2, {"weight": 1e12}))}, {}),
    ("R006", "non-numeric points", {"rubric": rows((2, {"weight": None, "points": "heavy"}))}, {}),
    ("R006", "boolean weight", {"rubric": rows((2, {"weight": True}))}, {}),
    ("R007", "weights 1 and 1e5", {"rubric": rows((2, {"weight": 100_000}))}, {}),
    ("R008", "a hurdle and no positive weight", {"rubric": [BASE_ROWS[HURDLE], BASE_ROWS[4]]},
     {"rubric": [BASE_ROWS[HURDLE], BASE_ROWS[4], {"id": "A-X", "description": "The deck exists in output.", "weight": 1}]}),
    ("R009", "misspelt field", {"rubric": rows((2, {"criterion_typ": "x"}))}, {}),
    # trial 35 P-3: a misspelt field that decides the score or the route is an ERROR
    ("R029", "misspelt weight", {"rubric": rows((2, {"wieght": 2}))}, {}),
    # trial 14 F4: a key given twice was read last-wins, silently (the judge now refuses two different values)
    ("R018", "a weight given twice", {"rubric_text": '{"rubrics": [{"id": "a", "description": "The deck exists.", '
                                                     '"weight": 4, "weight": 0}]}'}, {}),
    ("R019", "a key repeated with its value", {"rubric_text": '{"rubrics": [{"id": "a", "description": "The deck exists.", '
                                                              '"weight": 1, "weight": 1.0}]}'}, {}),
    # usertrial #12: the engine reads a rubric with a byte-order mark (utf-8-sig), so lint warns (was R002 ERROR)
    ("R015", "UTF-8 byte-order mark", {"rubric_bytes": b"\xef\xbb\xbf" + json.dumps({"rubrics": BASE_ROWS}).encode()}, {}),
    # usertrial #12: all weights 0 ⇒ the engine weighs every row 1 (equal-weight fallback): said, not silent
    ("R016", "no positive weight, no hurdle", {"rubric": [dict(r, weight=0) for r in BASE_ROWS if not r.get("hurdle")]},
     {"rubric": [dict(r, weight=1 if r["weight"] == 0 and not r.get("hurdle") else r["weight"]) for r in BASE_ROWS]}),
    ("R010", "level key not a number", {"rubric": rows((3, {"levels": {"1": "deep", "high": "some", "0": "none"}}))}, {}),
    ("R010", "level key above 1", {"rubric": rows((3, {"levels": {"1.5": "deep", "0.5": "some", "0": "none"}}))}, {}),
    ("R011", "one level", {"rubric": rows((3, {"levels": {"1": "deep"}}))}, {}),
    ("R011", "levels as a list", {"rubric": rows((3, {"levels": ["deep", "none"]}))}, {}),
    ("R011", "gradient without levels", {"rubric": rows((3, {"levels": None}))}, {}),
    ("R011", "one level written twice", {"rubric": rows((3, {"levels": {"1": "a", "1.0": "b", "0": "c"}}))}, {}),
    ("R012", "workflow level off the grid", {"rubric": rows(extra=[{**WF, "levels": {"1": "a", "0.33": "b", "0": "c"}}])},
     {"rubric": rows(extra=[WF])}),
    ("R013", "top level below 1", {"rubric": rows((3, {"levels": {"0.8": "deep", "0": "none"}}))}, {}),
    ("R013", "lowest level above 0", {"rubric": rows((3, {"levels": {"1": "deep", "0.5": "some"}}))}, {}),
    # issue 39 item 4: pass_level is a level on the row's own scale (fractions of the weight): 6 of 10 is 0.6
    ("R017", "pass_level on a 1-10 reading", {"rubric": rows((3, {"pass_level": 6}))},
     {"rubric": rows((3, {"pass_level": 0.5}))}),
    ("R017", "pass_level not a number", {"rubric": rows((3, {"pass_level": "met"}))}, {}),
    ("R017", "pass_level above the top level", {"rubric": rows((3, {"levels": {"0.8": "deep", "0": "none"},
                                                                  "pass_level": 0.9, "lint_ignore": ["R013"]}))}, {}),
    ("R017", "pass_level at the lowest level", {"rubric": rows((3, {"pass_level": 0}))}, {}),
    ("R014", "levels on a deduction", {"rubric": rows((4, {"type": "gradient", "levels": {"1": "many", "0": "none"}}))}, {}),
    ("R020", "hurdle written as a requirement",
     {"rubric": rows((HURDLE, {"description": "The deliverable must include a .pptx deck in output/."}))}, {}),
    ("R020", "hurdle written with a presence verb (issue 26: was only a warning)",
     {"rubric": rows((HURDLE, {"description": "the deck has a title slide"}))}, {}),
    ("R020", "hurdle written as a requirement (Chinese)",
     {"rubric": rows((HURDLE, {"description": "交付物应包含一个 .pptx 演示文稿。"}))},
     {"rubric": rows((HURDLE, {"description": "交付物缺失：output/ 中没有 .pptx 演示文稿。"}))}),
    ("R021", "hurdle with no violation wording",
     {"rubric": rows((HURDLE, {"description": "The answer recommends ibuprofen for the fever."}))},
     {"rubric": rows((HURDLE, {"description": "The answer recommends ibuprofen for the fever.",
                               "lint_ignore": ["R021"]}))}),
    ("R022", "weighted hurdle", {"rubric": rows((HURDLE, {"weight": 2}))}, {}),
    ("R023", "workflow row both hurdle and gradient",
     {"rubric": rows(extra=[{**WF, "hurdle": True, "weight": 0, "description": "Some slide is blank."}])},
     {"rubric": rows(extra=[{**WF_UNGATED, "hurdle": True, "weight": 0, "description": "Some slide is blank.",
                             "type": "binary", "levels": None}])}),  # a hurdle is never gated (D004)
    ("R024", "mapping key unlike the row's own id (trial 7 F7)",
     {"rubric": {str(r["id"]): {**r, "id": "OTHER"} if r["id"] == "A-TYPOS" else r for r in rows()}},
     {"rubric": {str(r["id"]): r for r in rows()}}),
    ("R025", "type binary beside a level table (trial 14 F17)", {"rubric": rows((3, {"type": "binary"}))}, {}),
    ("R026", "a positive row worded as a fault (trial 22 P-1)",
     {"rubric": rows((2, {"description": "The deck claims that revenue tripled."}))}, {}),
    ("R027", "a deduction worded as a requirement (trial 22 P-1)",
     {"rubric": rows((4, {"description": "The deck spells every word correctly."}))}, {}),
    ("R028", "a weight-0 row that is no hurdle and no gate (trial 22 P-1)",
     {"rubric": rows(extra=[{"id": "A-DEAD", "description": "The deck has a title slide.", "weight": 0}])}, {}),
    ("D001", "dangling id", {"rubric": rows((2, {"depends_on": ["C-DECKK"]}))}, {}),
    ("D002", "self-dependency", {"rubric": rows((2, {"depends_on": ["C-DECK", "A-CONTENT"]}))}, {}),
    ("D002", "cycle", {"rubric": rows((2, {"depends_on": ["C-DECK", "A-DEPTH"]}))}, {}),
    ("D003", "not closed", {"rubric": rows((3, {"depends_on": ["A-CONTENT"]}))}, {}),
    ("D004", "gated deduction", {"rubric": rows((4, {"depends_on": ["C-DECK"]}))}, {}),
    ("M001", "unregistered code method", {"rubric": rows((0, {"code_method_name": "locate_dekc"}))}, {}),
    ("M002", "unknown parameter", {"rubric": rows((0, {"code_method_params": {"prefer": ["pptx"], "strict": True}}))}, {}),
    ("M002", "ill-typed parameter", {"rubric": rows((0, {"code_method_params": {"prefer": "pptx"}}))}, {}),
    # usertrial #12: a pattern that does not compile passed lint, and every run of the row was code_error
    ("M002", "regex that does not compile", {"rubric": rows(extra=[REGEX_ROW | {"code_method_params": {"pattern": "(["}}])},
     {"rubric": rows(extra=[REGEX_ROW])}),
    ("M002", "unknown regex flag", {"rubric": rows(extra=[REGEX_ROW | {"code_method_params": {"pattern": "x", "flags": "g"}}])},
     {}),
    ("M002", "empty text", {"rubric": rows(extra=[REGEX_ROW | {"code_method_name": "text_contains",
                                                               "code_method_params": {"text": ""}}])}, {}),
    # trial 6, F14: a glob the run refuses ('..', 'output/…') passed lint, and every run of the row was code_error
    ("M002", "a glob with '..'", {"rubric": rows(extra=[REGEX_ROW | {"code_method_params": {"pattern": "Q", "glob": "../r.md"}}])},
     {"rubric": rows(extra=[REGEX_ROW | {"code_method_params": {"pattern": "Q", "glob": "/app/output/r.md"}}])}),
    ("M002", "a glob from output/", {"rubric": rows(extra=[REGEX_ROW | {"code_method_params": {"pattern": "Q", "glob": "output/r.md"}}])},
     {"rubric": rows(extra=[REGEX_ROW | {"code_method_params": {"pattern": "Q", "glob": "./r.md"}}])}),
    # trial 6, F12: without a locate_deck row, every deck check missed (now: it locates the deck itself; WARN)
    ("M005", "a deck check and no locate_deck row",
     {"rubric": rows((0, {"code_method_name": "check_deck_openable", "code_method_params": None}))}, {}),
    # trial 14, F8: a code hurdle / deduction whose method hits when the requirement is met is read backwards
    ("M007", "a hurdle on locate_deck", {"rubric": rows((HURDLE, {"judge_method": "code", "code_method_name": "locate_deck"}))},
     {}),
    ("M007", "a deduction on check_deck_openable",
     {"rubric": rows((4, {"judge_method": "code", "code_method_name": "check_deck_openable"}))}, {}),
    # trial 14, F10: a text row over the deck (a zip) never hits
    ("M008", "text_contains over *.pptx", {"rubric": rows(extra=[{**TEXT_ROW, "code_method_params": {
        "text": "findings", "glob": "*.pptx"}}])}, {"rubric": rows(extra=[TEXT_ROW])}),
    ("M003", "unknown judge_method", {"rubric": rows((0, {"judge_method": "kode"}))}, {}),
    ("M003", "code row without a method name", {"rubric": rows((0, {"code_method_name": None, "code_method_params": None}))},
     {}),
    ("M004", "code method on an agentic row", {"rubric": rows((2, {"code_method_name": "file_exists"}))}, {}),
    ("M010", "unknown workflow", {"rubric": rows(extra=[{**WF, "workflow_name": "ppt_judge_v9"}])}, {"rubric": rows(extra=[WF])}),
    ("M010", "workflow row without a name", {"rubric": rows(extra=[{**WF, "workflow_name": None}])},
     {"rubric": rows(extra=[WF])}),
    ("M012", "a deck code method without the workflow extra",
     {"rubric": rows(extra=[{"id": "C-PAGES", "description": "The deck has 5 to 12 slides.", "weight": 1, "judge_method": "code",
                             "code_method_name": "page_count_between", "code_method_params": {"min_pages": 5}}]),
      "sh": BASE_SH.replace("[workflow]", "")},
     {"rubric": rows(extra=[{"id": "C-PAGES", "description": "The deck has 5 to 12 slides.", "weight": 1, "judge_method": "code",
                             "code_method_name": "page_count_between", "code_method_params": {"min_pages": 5}}])}),
    ("M012", "a ppt_judge row with the pptx extra only (the README's old example)",
     {"rubric": rows(extra=[{**WF, "workflow_name": "ppt_judge", "id": "V-X", "levels": {"1": "a", "0": "b"}}]),
      "toml": BASE_TOML + 'COWORK_JUDGE_EXTRAS = "${COWORK_JUDGE_EXTRAS:-pptx}"\n',
      "sh": BASE_SH.replace('"cowork-judge[workflow]==', '"cowork-judge${COWORK_JUDGE_EXTRAS:+[$COWORK_JUDGE_EXTRAS]}==')},
     {"rubric": rows(extra=[{"id": "C-OPEN", "description": "The deck opens.", "weight": 1, "judge_method": "code",
                             "code_method_name": "check_deck_openable"}]),
      "toml": BASE_TOML + 'COWORK_JUDGE_EXTRAS = "${COWORK_JUDGE_EXTRAS:-workflow}"\n',
      "sh": BASE_SH.replace('"cowork-judge[workflow]==', '"cowork-judge${COWORK_JUDGE_EXTRAS:+[$COWORK_JUDGE_EXTRAS]}==')}),
    # trial 14 P1-1: the deck code methods run on pptx, but the agentic rows judging the deck view its rendered pages
    ("M012", "agentic rows over a deck with the pptx extra only",
     {"rubric": rows(extra=[{"id": "C-OPEN", "description": "The deck opens.", "weight": 1, "judge_method": "code",
                             "code_method_name": "check_deck_openable"}]),
      "toml": BASE_TOML + 'COWORK_JUDGE_EXTRAS = "${COWORK_JUDGE_EXTRAS:-pptx}"\n',
      "sh": BASE_SH.replace('"cowork-judge[workflow]==', '"cowork-judge${COWORK_JUDGE_EXTRAS:+[$COWORK_JUDGE_EXTRAS]}==')},
     {"rubric": rows(extra=[{"id": "C-OPEN", "description": "The deck opens.", "weight": 1, "judge_method": "code",
                             "code_method_name": "check_deck_openable"}]),
      "toml": BASE_TOML + 'COWORK_JUDGE_EXTRAS = "${COWORK_JUDGE_EXTRAS:-workflow}"\n',
      "sh": BASE_SH.replace('"cowork-judge[workflow]==', '"cowork-judge${COWORK_JUDGE_EXTRAS:+[$COWORK_JUDGE_EXTRAS]}==')}),
    ("T010", "no task.toml", {"toml": None}, {}),
    ("T001", "invalid TOML", {"toml": "[verifier\ntimeout_sec = 2100\n"}, {}),
    ("T001", "a number in [verifier.env]", {"toml": BASE_TOML + "JUDGE_BATCH = 4\n"},
     {"toml": BASE_TOML + 'JUDGE_BATCH = "4"\n'}),
    ("T002", "credentials not declared", {"toml": TOML_NO["creds"]}, {}),
    ("T003", "JUDGE_DEADLINE not declared", {"toml": TOML_NO["deadline"]}, {}),
    ("T004", "timeout below deadline + margin", {"toml": BASE_TOML.replace("2280", "2100")}, {}),
    ("T004", "timeout left to Harbor's 600 s", {"toml": BASE_TOML.replace("timeout_sec = 2280\n", "")}, {}),
    ("T004", "deadline raised past the timeout", {"toml": BASE_TOML.replace(":-1800", ":-2400")},
     {"toml": BASE_TOML.replace(":-1800", ":-2400").replace("2280", "2880")}),
    ("T005", "a literal API key", {"toml": BASE_TOML.replace("${JUDGE_API_KEY}", "sk-live-0123456789abcdef")}, {}),
    ("T005", "an API key as a default", {"toml": BASE_TOML.replace("${JUDGE_API_KEY}", "${JUDGE_API_KEY:-sk-live-0123}")}, {}),
    ("T006", "misspelt knob", {"toml": BASE_TOML + 'JUDGE_CONCURENCY = "2"\n'},
     {"toml": BASE_TOML + 'JUDGE_CONCURRENCY = "2"\n'}),
    ("T006", "a variable no one reads", {"toml": BASE_TOML + 'COWORK_JUDGE_MIRROR = "${COWORK_JUDGE_MIRROR:-}"\n'},
     {"toml": BASE_TOML + 'COWORK_JUDGE_MIRROR = "${COWORK_JUDGE_MIRROR:-}"\n',
      "sh": BASE_SH.replace("python3 -m pip install -q", 'python3 -m pip install -q ${COWORK_JUDGE_MIRROR:+-i "$COWORK_JUDGE_MIRROR"}')}),
    ("T007", "knob value the judge rejects", {"toml": BASE_TOML + 'JUDGE_CONCURRENCY = "${JUDGE_CONCURRENCY:-two}"\n'},
     {"toml": BASE_TOML + 'JUDGE_CONCURRENCY = "${JUDGE_CONCURRENCY:-2}"\n'}),
    ("T012", "verdict-changing value the judge rejects", {"toml": BASE_TOML + 'JUDGE_BATCH = "${JUDGE_BATCH:-four}"\n'},
     {"toml": BASE_TOML + 'JUDGE_BATCH = "${JUDGE_BATCH:-4}"\n'}),
    ("T008", "template Harbor does not expand", {"toml": BASE_TOML + 'JUDGE_MODEL = "judge-${JUDGE_MODEL}"\n'},
     {"toml": BASE_TOML + 'JUDGE_MODEL = "${JUDGE_MODEL:-gpt-5.5}"\n'}),
    ("T009", "version placeholder not declared", {"toml": TOML_NO["version"]}, {}),
    ("S001", "no test.sh", {"sh": None}, {}),
    ("S002", "unpinned install", {"sh": "#!/bin/bash\npip install cowork-judge\ncowork-judge run\n"}, {}),
    ("S002", "pinned with a fallback that is not", {"sh": BASE_SH + "|| pip install 'cowork-judge>=0.1'\n"}, {}),
    ("S003", "placeholder never read", {"sh": "#!/bin/bash\npip install cowork-judge==0.1.0 && cowork-judge run\n"}, {}),
    ("S005", "two baked versions", {"sh": BASE_SH + "pip download cowork-judge==0.0.9\n"}, {}),
    ("A001", "assets for a workflow no row names", {"files": {"workflow_assets/ppt_judge/anchors.json": "{}"}}, {}),
    ("A001", "a loose asset file", {"rubric": rows(extra=[WF]), "files": {"workflow_assets/notes.txt": "x"}},
     {"rubric": rows(extra=[WF]), "files": {"workflow_assets/stub/notes.txt": "x"}}),
    ("A002", "no instruction file", {"instruction": None}, {}),
    ("A002", "an empty instruction file", {"instruction": "  \n"}, {}),
    ("A003", "an instruction file the judge passes over", {"files": {"judge_instructions.md": "Judge it.\n"},
                                                          "instruction": "  \n"}, {}),
    ("A004", "no task_prompt.md", {"prompt": None}, {}),
    ("A004", "an empty task_prompt.md", {"prompt": " \n"}, {}),
]


@pytest.mark.parametrize("code,what,broken,fixed", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_check_fires_on_the_broken_instance_only(make_instance, code, what, broken, fixed):
    assert code in CHECKS
    broken_report = lint_instance(make_instance(**broken))
    codes = [f.code for f in broken_report.findings]
    assert code in codes, f"{what}: expected {code}, got {[f.line() for f in broken_report.findings]}"
    fixed_report = lint_instance(make_instance(**fixed))
    assert fixed_report.findings == [], [f.line() for f in fixed_report.findings]


def test_every_registered_check_has_a_case():
    covered = {c[0] for c in CASES} | {"P001", "S004", "M011"} | {"P002", "F001", "F002", "F003", "F004", "B001"} \
        | {"A010", "A011", "A012", "T011", "T013", "P003", "M006", "T014", "M013"} \
        | {"A005", "A006", "A013", "M014", "A014", "M015", "A007"}  # A007: test_lint_trial35.py; M015: test_ungated_deck_trial28.py; below, other files (A010/A011/A014: test_ppt_assets.py; A012: test_ppt_original_assets.py; T011: test_task_folder.py; T013: test_trajectory_lint.py; P003: test_lint_trial3.py; M006, T014: test_lint_trial9.py; M013: test_answer_reference_trial17.py; A005, A006, A013: test_lint_trial17.py)
    assert covered == set(CHECKS)


def test_unreadable_tests_dir_and_fifo_rubric_are_findings(tmp_path, make_instance):
    assert [f.code for f in lint_instance(tmp_path / "nope").findings] == ["P001"]
    (tmp_path / "file").write_text("x")
    assert [f.code for f in lint_instance(tmp_path / "file").findings] == ["P001"]
    tests = make_instance(rubric=False)
    os.mkfifo(tests / "rubric.json")
    report = lint_instance(tests)  # a FIFO would block a naive reader forever
    assert [(f.code, f.message) for f in report.findings if f.code == "R001"] == [("R001", "cannot be read: not a regular file")]


def test_unreadable_test_sh_is_s004(make_instance):
    tests = make_instance(sh=None)
    (tests / "test.sh").mkdir()
    assert "S004" in [f.code for f in lint_instance(tests).findings]


def test_abi_mismatch_is_m011(make_instance):
    from cowork_judge.workflow import load

    tests = make_instance(rubric=rows(extra=[WF]))
    assert lint_instance(tests).findings == []
    required = load("stub").REQUIRES_ABI
    report = lint_instance(tests, abi_compat=(required + 1,))
    assert [(f.code, f.row, f.field) for f in report.findings] == [("M011", "W1", "workflow_name")]
    assert f"requires ABI {required}; this engine accepts [{required + 1}]" in report.findings[0].message


def test_pass_level_findings_say_what_is_wrong_and_no_engine_refusal_repeats_them(make_instance):
    said = {value: [f for f in lint_instance(make_instance(rubric=rows((3, {"pass_level": value})))).findings]
            for value in (6, "met", 1.5, 0)}
    assert [(f.code, f.row, f.field) for f in said[6]] == [("R017", "A-DEPTH", "pass_level")]
    assert "6 is outside [0, 1]" in said[6][0].message and "6 of 10 is 0.6" in said[6][0].message
    assert "must be a number" in said["met"][0].message and "1.5 is outside [0, 1]" in said[1.5][0].message
    assert "at or below the row's lowest level 0: every level would pass" in said[0][0].message
    assert all(len(f) == 1 for f in said.values())  # the engine's refusal (R003) names the same field: not repeated
    ignored = lint_instance(make_instance(rubric=rows((4, {"pass_level": 0.5})))).findings  # a deduction: scored by hit
    assert [(f.code, f.row) for f in ignored] == [("R009", "A-TYPOS")] and "is ignored" in ignored[0].message


def test_findings_name_file_row_and_field(make_instance):
    tests = make_instance(rubric=rows((3, {"depends_on": ["A-CONTENT"]})), name="shop")
    (finding,) = lint_instance(tests, display="shop/tests").findings
    assert finding.line() == (
        "shop/tests/rubric.json: ERROR D003 row 'A-DEPTH' field depends_on: not transitively closed: missing "
        "'C-DECK' (via 'A-CONTENT'); gates read raw hits, so list them (lint-rubric --fix-closure does)")


def test_every_bad_row_is_reported_not_only_the_first(make_instance):
    broken = rows((0, {"description": None}), (2, {"description": None}), (3, {"levels": {"x": "a", "0": "b"}}))
    report = lint_instance(make_instance(rubric=broken))
    assert sorted((f.code, f.row) for f in report.findings if f.level == "ERROR") == [
        ("R003", "A-CONTENT"), ("R003", "C-DECK"), ("R010", "A-DEPTH")]


def test_nonfinite_constant_outside_the_weight_is_still_an_error(make_instance):
    text = '{"rubrics": [{"id": "a", "description": "x", "weight": 1, "judge_method": "workflow", ' \
           '"workflow_name": "stub", "page_mean_p": NaN}]}'
    report = lint_instance(make_instance(rubric_text=text))
    assert ("R003", "a") in [(f.code, f.row) for f in report.findings]


def test_healthbench_style_deduction_is_not_a_hurdle(make_instance):
    deduction = {"id": "HB9", "description": "Recommends taking over-the-counter NSAIDs for cramping pain.", "weight": -10}
    assert lint_instance(make_instance(rubric=rows(extra=[deduction]))).findings == []


def test_waived_findings_are_kept_apart(make_instance):
    tests = make_instance(rubric=rows((HURDLE, {"description": "The answer recommends ibuprofen.", "lint_ignore": "R021"})))
    report = lint_instance(tests)
    assert report.findings == [] and [f.code for f in report.waived] == ["R021"]


def test_model_free_rubric_needs_no_credentials_nor_instruction(make_instance):
    code_only = [BASE_ROWS[0]]
    assert lint_instance(make_instance(rubric=code_only, toml=TOML_NO["creds"], instruction=None)).findings == []


def test_instruction_named_in_task_toml(make_instance):
    toml = BASE_TOML + 'JUDGE_INSTRUCTION_FILE = "${JUDGE_INSTRUCTION_FILE:-prompts/judge.md}"\n'
    tests = make_instance(instruction=None, toml=toml, files={"prompts/judge.md": "Judge it.\n"})
    assert lint_instance(tests).findings == []


def test_nothing_from_the_package_is_executed(make_instance, tmp_path):
    sentinel = tmp_path / "executed"
    evil_py = f"open({str(sentinel)!r}, 'w').write('x')\nREQUIRES_ABI = 1\n"
    tests = make_instance(
        rubric=rows(extra=[{**WF, "workflow_name": "evil"}]),
        sh=BASE_SH + f"touch {sentinel}\n",
        files={"workflow/evil/__init__.py": evil_py, "cowork_judge/workflow/evil/__init__.py": evil_py,
               "workflow_assets/evil/run.py": evil_py},
    )
    cwd = Path.cwd()
    try:
        os.chdir(tests)  # even from inside the package
        report = lint_instance(tests)
    finally:
        os.chdir(cwd)
    assert ("M010", "W1") in [(f.code, f.row) for f in report.findings]
    assert not sentinel.exists()


def test_one_cycle_is_one_error(make_instance):
    """Issue 26: an 8-row ring used to yield one D002 plus a D003 per row (closure is meaningless in a cycle)."""
    ring = [{"id": f"R{i}", "description": f"Slide {i} explains step {i}.", "weight": 1,
             "depends_on": [f"R{(i + 1) % 8}", "C-DECK"]}
            for i in range(8)]
    report = lint_instance(make_instance(rubric=rows(extra=ring)))
    assert [f.code for f in report.findings] == ["D002"], [f.line() for f in report.findings]
    assert "R0 → R1 → R2" in report.findings[0].message


def test_null_is_reported_as_null_not_missing(make_instance):
    written = rows(extra=[{"id": None, "description": "The deck has a summary slide.", "weight": 1}])
    written[2] = {**written[2], "description": None}  # (rows() deletes a key given None)
    text = [f.line() for f in lint_instance(make_instance(rubric=written)).findings]
    bad = [line for line in text if "R003" in line]
    assert bad and "'description' is null" in bad[0] and "missing" not in bad[0], text
    assert any("R005" in line and "'id' is null" in line for line in text), text
    absent = [f.line() for f in lint_instance(make_instance(rubric=rows((2, {"description": None})))).findings]
    assert any("R003" in line and "missing" in line for line in absent), absent  # left out: still "missing"


def test_a_byte_order_mark_changes_nothing_but_its_own_warning(make_instance):
    """The judge reads a rubric with a BOM (`load_rubric`, utf-8-sig) and scores it: lint reads the same
    rows and adds only R015 (a WARN: exit 0), where it used to stop at R002 (an ERROR) and check nothing."""
    text = json.dumps({"rubrics": rows((2, {"criterion_typ": "x"}))})
    plain = lint_instance(make_instance(rubric_text=text)).findings
    bom = lint_instance(make_instance(rubric_bytes=b"\xef\xbb\xbf" + text.encode())).findings
    assert sorted(f.code for f in bom) == sorted(["R015", *(f.code for f in plain)]) and "R009" in [f.code for f in plain]
    assert all(f.level == "WARN" for f in bom)


def test_the_run_refuses_a_rubric_giving_a_key_twice_with_different_values(tmp_path):
    """Trial 14 F4: ``"weight": 4, …, "weight": 0`` (a merge leftover) was scored with weight 0, and
    ``"hurdle": false, "hurdle": true`` made a hurdle, with no word anywhere. The run's rubric load refuses it,
    naming the key and both values; the same value twice is read as before."""
    from cowork_judge.core.rubric import RubricError, load_rubric

    path = tmp_path / "rubric.json"
    path.write_text('{"rubrics": [{"id": "a", "description": "x", "weight": 4, "weight": 0},'
                    ' {"id": "b", "description": "y", "weight": 1, "hurdle": false, "hurdle": true}]}')
    with pytest.raises(RubricError, match=r"gives the key 'weight' twice in one object with different values \(4, then 0\)"
                                          r" \(and 1 more key\(s\)\)"):
        load_rubric(path)
    path.write_text('{"rubrics": [{"id": "a", "description": "x", "weight": 2, "weight": 2.0}]}')
    assert load_rubric(path).criteria[0].weight == 2


def test_m012_names_the_agentic_rows_and_leaves_a_code_only_deck_rubric_alone(make_instance):
    """Trial 14 P1-1: pptx runs the deck code methods; the agentic rows of a deck rubric need workflow (the
    rendered pages), and M012 says what they lose. A deck rubric without an agentic row is fine on pptx."""
    pptx = {"toml": BASE_TOML + 'COWORK_JUDGE_EXTRAS = "${COWORK_JUDGE_EXTRAS:-pptx}"\n',
            "sh": BASE_SH.replace('"cowork-judge[workflow]==', '"cowork-judge${COWORK_JUDGE_EXTRAS:+[$COWORK_JUDGE_EXTRAS]}==')}
    (m012,) = [f for f in lint_instance(make_instance(**pptx)).findings if f.code == "M012"]
    assert "installs extras [pptx], but 4 agentic row(s) viewing the deck's rendered pages need(s) 'workflow'" in m012.message
    assert "judged on its extracted text alone" in m012.message and "set COWORK_JUDGE_EXTRAS to 'workflow'" in m012.message
    code_only = [BASE_ROWS[0], {"id": "C-OPEN", "description": "The deck opens.", "weight": 1, "judge_method": "code",
                                "code_method_name": "check_deck_openable"}]
    assert not [f for f in lint_instance(make_instance(rubric=code_only, **pptx)).findings if f.code == "M012"]


def test_harbors_placeholder_test_sh_says_run_init(make_instance):
    """Trial 16 P-7: on a task where `cowork-judge init` was forgotten, lint gave T002–T004 and S002, each a hand
    edit, and none said the one command that fixes them all (try says it)."""
    from install.test_try_output import HARBOR_PLACEHOLDER

    found = [f for f in lint_instance(make_instance(sh=HARBOR_PLACEHOLDER)).findings if f.code == "S002"]
    assert len(found) == 1 and "is Harbor's placeholder test.sh" in found[0].message
    assert "cowork-judge init <task folder>" in found[0].message


def test_m012_a_deck_glob_gate_with_agentic_rows_needs_the_rendering_extra(make_instance):
    """Trial 20 P-5: `file_exists *.pptx` says the rubric judges a deck as a deck code method does: its
    agentic rows view the pages, so extras that cannot render them are M012 (init chooses the same)."""
    pptx = {"toml": BASE_TOML + 'COWORK_JUDGE_EXTRAS = "${COWORK_JUDGE_EXTRAS:-pptx}"\n',
            "sh": BASE_SH.replace('"cowork-judge[workflow]==', '"cowork-judge${COWORK_JUDGE_EXTRAS:+[$COWORK_JUDGE_EXTRAS]}==')}
    gate = {"id": "C-DECK", "description": "A deck is delivered.", "weight": 1, "judge_method": "code",
            "code_method_name": "file_exists", "code_method_params": {"glob": "output/*.pptx"}}
    agentic = {"id": "A-CLEAR", "description": "The slides are visually clear.", "weight": 2}
    (m012,) = [f for f in lint_instance(make_instance(rubric=[gate, agentic], **pptx)).findings if f.code == "M012"]
    assert "1 agentic row(s) viewing the deck's rendered pages need(s) 'workflow'" in m012.message
