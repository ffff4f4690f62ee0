"""Issue 39, trial 6 (a fresh user's path, then a hostile operator): one problem, one finding;
a finding that points somewhere says where; a misspelt field is named."""

from __future__ import annotations

from cowork_judge.lint.instance import lint_instance

from .conftest import BASE_TOML, rows

HURDLE = 1  # index of the hurdle row in BASE_ROWS


def test_a_weighted_hurdle_is_reported_once_as_r022(make_instance):
    """Trial 6 F6: the engine's load warning and R022 said the same thing twice (R009 + R022)."""
    findings = lint_instance(make_instance(rubric=rows((HURDLE, {"weight": 1})))).findings
    assert [(f.code, f.row) for f in findings] == [("R022", "A-HURDLE")], [f.line() for f in findings]


def test_a_timeout_that_is_not_a_number_is_one_finding_not_also_not_set(make_instance):
    """Trial 6 F2: ``timeout_sec = "abc"`` was T001 (right) and T004 "timeout_sec is not set" (wrong: it is set)."""
    tests = make_instance(toml=BASE_TOML.replace("timeout_sec = 2280", 'timeout_sec = "abc"'))
    findings = [f for f in lint_instance(tests).findings if f.field == "[verifier].timeout_sec"]
    assert [f.code for f in findings] == ["T001"], [f.line() for f in findings]
    assert "must be a number of seconds, got 'abc'" in findings[0].message


def test_a_singular_code_method_param_is_named_as_a_misspelt_field(make_instance):
    """Trial 6 F16: ``code_method_param`` (the known field is plural) was never named; only its
    consequence, "missing parameter 'text'", was reported."""
    row = {"id": "C-TEXT", "description": "The report names the quarter.", "weight": 1, "judge_method": "code",
           "code_method_name": "text_contains", "code_method_param": {"text": "Q3"}}
    findings = lint_instance(make_instance(rubric=rows(extra=[row]))).findings
    said = [f.message for f in findings if f.code == "R029"]  # trial 35 P-3: it routes the row, so an ERROR
    assert any("unknown field 'code_method_param'" in m and "did you mean 'code_method_params'?" in m for m in said), \
        [f.line() for f in findings]


def test_t010_names_harbor_init_for_a_missing_task_toml(make_instance):
    """Trial 6 F18: T010 said "(cowork-judge init writes them)", and `cowork-judge init` refuses a folder
    without task.toml ("`harbor init` creates one")."""
    (finding,) = [f for f in lint_instance(make_instance(toml=None)).findings if f.code == "T010"]
    assert "harbor init" in finding.message, finding.line()


def test_an_id_with_a_line_break_is_an_r009_finding(make_instance):
    """Trial 6 F7: lint said nothing about ids with a control character or surrounding spaces."""
    odd = {"id": "A-\nODD", "description": "The deck has a title slide.", "weight": 1}
    spaced = {"id": " A-SPACED ", "description": "The deck has a closing slide.", "weight": 1}
    findings = lint_instance(make_instance(rubric=rows(extra=[odd, spaced]))).findings
    said = [(f.code, f.row, f.message) for f in findings]
    assert any(c == "R009" and "control character" in m for c, _, m in said), said
    assert ("R009", "A-SPACED", "its id ' A-SPACED ' has surrounding spaces; read as 'A-SPACED'") in said, said


def test_a_glob_the_method_refuses_is_m002_before_the_package_ships(make_instance):
    """Trial 6 F14: ``"glob": "../output/report.md"`` made every run of the row ``code_error`` ("may not contain
    '..'"), and lint said nothing, though docs/rubric.md promises M002 for "a value the method refuses"."""
    climbing = {"id": "C-REPORT", "description": "A report is delivered.", "weight": 1, "judge_method": "code",
                "code_method_name": "file_exists", "code_method_params": {"glob": "../output/report.md"}}
    findings = lint_instance(make_instance(rubric=rows(extra=[climbing]))).findings
    said = [(f.code, f.row, f.message) for f in findings]
    assert [(c, r) for c, r, _ in said] == [("M002", "C-REPORT")], said
    assert "may not contain '..'" in said[0][2], said
    fine = dict(climbing, code_method_params={"glob": "reports/*.md"})
    assert lint_instance(make_instance(rubric=rows(extra=[fine]))).findings == []


def test_bounds_no_rollout_can_meet_are_m002(make_instance):
    """Trial 6 F24: ``min_words`` 150 with ``max_words`` 10 (or ``min_count`` above ``max_count``) misses on every
    rollout, and lint said nothing."""
    def row(rid, method, params):
        return {"id": rid, "description": "A bound.", "weight": 1, "judge_method": "code", "code_method_name": method,
                "code_method_params": params}
    broken = [row("W1", "word_count_between", {"min_words": 150, "max_words": 10, "source": "response"}),
              row("W2", "file_matches_glob", {"glob": "*.md", "min_count": 5, "max_count": 2}),
              row("W3", "page_count_between", {"min_pages": 20, "max_pages": 8})]
    findings = lint_instance(make_instance(rubric=rows(extra=broken))).findings
    said = {(f.code, f.row): f.message for f in findings if f.code != "M012"}  # M012: the base task installs no pptx
    assert set(said) == {("M002", "W1"), ("M002", "W2"), ("M002", "W3")}, said
    assert "min_words 150 is above max_words 10" in said[("M002", "W1")]
    fine = [row("W1", "word_count_between", {"min_words": 10, "max_words": 10, "source": "response"}),
            row("W2", "file_matches_glob", {"glob": "*.md", "min_count": 1})]
    assert lint_instance(make_instance(rubric=rows(extra=fine))).findings == []
