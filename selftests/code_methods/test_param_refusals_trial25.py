"""Trial 25 P-6: a parameter value a built-in code method refuses must be refused by its parameter check
(`code_methods.param_errors`, shared by `lint-rubric` M002 and the run's ``code_params``), never only inside the
method at run time, where it was a content-caused ``code_error`` on every rollout with ``status: success`` and lint
said nothing (``word_count_between`` ``"source": "final_message"``, ``step_count_at_most`` ``"source": "assistant"``,
``page_count_between`` ``max_pages: 0``, negative counts).

`BAD` is the table: every registered method with at least one value it refuses. A method added to the registry
must join it (`test_every_registered_method_is_in_the_table`). Each case is checked twice: the real ``lint`` CLI
reports it as M002 on its row, and the engine (`engine.router.route` on a small rollout) leaves the row unjudged
``code_params`` with the same words. `test_no_method_body_refuses_what_its_check_accepted` is the guard the
other way: for parameters drawn from a fixed pool of good and bad values, whatever the check accepts, the method
runs without raising ``ValueError``/``TypeError`` (a parameter refusal) on a real rollout.

The trial 25 follow-up (h39t25d) added the values that make a row decide the same way on every rollout, which the
check accepted: a ``locate_deck`` ``prefer`` kind that is no deck kind, ``require_expect_name`` without
``expect_name``, ``word_count_between`` with neither bound, ``file_nonempty`` ``min_bytes`` below 1, an empty
``tool_called`` ``name``, a ``no_step_errored`` pattern that matches any text; and a range refusal now says
"(the default)" of a ``min_…`` the row did not write."""

from __future__ import annotations

import inspect
import json
import random
import shutil
import subprocess
import sys
from typing import Any

from testkit import FIXTURES, make_ctx

from cowork_judge.code_methods import CODE_METHODS, VALUE_CHECKS, param_errors, registration
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.engine.router import route

BAD: dict[str, list[tuple[dict[str, Any], str]]] = {
    "locate_deck": [({"exclude": ["../deck.pptx"]}, "may not contain '..'"),
                    ({"sources": [""]}, "an empty glob matches nothing"),
                    # follow-up (h39t25d): a row that decides the same way on every rollout
                    ({"prefer": ["docx"]}, "'docx' is not a kind it takes, so it never locates a deck (a deck's kind is "
                     "'pptx', 'html', 'pdf'; every PowerPoint format is 'pptx')"),
                    ({"prefer": ["pptx", "key"]}, "'key' is not a kind it takes"),
                    ({"require_expect_name": True}, "'require_expect_name' is true but no 'expect_name' is given")],
    "check_deck_openable": [({"path": "../deck.pptx"}, "may not contain '..'")],
    "check_pptx_openable": [({"path": "output/deck.pptx"}, "starts with 'output/'")],
    "page_count_between": [({"min_pages": -1, "max_pages": 0}, "'min_pages' must be at least 0, got -1"),
                           ({"max_pages": 0}, "min_pages 1 (the default) is above max_pages 0: no rollout can meet "
                            "this row (write a max_pages of at least 1, or a lower min_pages)"),
                           ({"min_pages": 20, "max_pages": 8}, "min_pages 20 is above max_pages 8")],
    "file_exists": [({"glob": ""}, "empty glob")],
    "file_nonempty": [({"glob": "../x.md"}, "may not contain '..'"),
                      ({"glob": "*.md", "min_bytes": 0}, "'min_bytes' must be at least 1, got 0"),
                      ({"glob": "*.md", "min_bytes": -3}, "use file_exists")],
    "file_matches_glob": [({"glob": "*.md", "min_count": -1}, "'min_count' must be at least 0, got -1"),
                          ({"glob": "*.md", "max_count": 0}, "min_count 1 (the default) is above max_count 0")],
    "json_valid": [({"glob": "output/a.json"}, "starts with 'output/'")],
    "text_contains": [({"text": "x", "source": "final_message"}, "'source' must be 'files' or 'response'"),
                      ({"text": "\u200b"}, "'text' must not be empty"),
                      ({"text": "tea\fpot"}, "U+000C (form feed) at character 4")],  # trial 31 P-5
    "regex_match": [({"pattern": "(["}, "is not a valid regular expression"),
                    ({"pattern": "x", "flags": "g"}, "unknown regex flag 'g'"),
                    ({"pattern": "\bboiling\b"}, "U+0008 (backspace) at character 1")],  # trial 31 P-5
    "word_count_between": [({"min_words": 20, "max_words": 150, "source": "final_message"},
                            "'source' must be 'files' or 'response', got 'final_message'"),
                           ({"min_words": 1, "source": "Response"}, "'source' must be 'files' or 'response', got 'Response'"),
                           ({"min_words": -1}, "'min_words' must be at least 0, got -1"),
                           ({"max_words": -5}, "min_words 0 (the default) is above max_words -5"),
                           ({"min_words": 9, "max_words": 3}, "min_words 9 is above max_words 3"),
                           ({}, "neither 'min_words' nor 'max_words' is given"),
                           ({"glob": "*.md", "source": "files"}, "the row hits whenever there is text to count")],
    "tool_called": [({"name": "bash", "min_count": 0}, "'min_count' must be at least 1, got 0"),
                    ({"name": ""}, "parameter 'name' must name a tool, got ''"),
                    ({"name": "  "}, "the row never hits")],
    "command_succeeded": [({"pattern": ""}, "must not be empty"), ({"pattern": "(["}, "not a valid regular expression"),
                          ({"pattern": "\bpytest"}, "U+0008 (backspace)")],
    "no_step_errored": [({"error_patterns": ["(["]}, "not a valid regular expression"),
                        ({"error_patterns": ["^ERROR:", ""]}, "parameter 'error_patterns': '' matches any text"),
                        ({"error_patterns": ["(fatal)?"]}, "so every observation"),
                        ({"error_patterns": ["\x1b\\[31m"]}, "'error_patterns' holds the control character U+001B")],
    "step_count_at_most": [({"max_steps": 5, "source": "assistant"}, "'source' must be 'agent', 'user', 'system' or "
                            "'all', got 'assistant' (ATIF calls the model's steps 'agent')"),
                           ({"max_steps": -1}, "'max_steps' must be at least 0, got -1")],
    "file_written_before_final": [({"glob": ""}, "empty glob")],
}
"""method → cases of ``(code_method_params, words the refusal says)``."""

CASES = [(f"C-{i}", method, params, said) for i, (method, params, said) in
         enumerate((m, p, s) for m, cases in BAD.items() for p, s in cases)]


def _rows() -> list[dict[str, Any]]:
    return [{"id": rid, "description": f"{method} row.", "weight": 1, "judge_method": "code", "code_method_name": method,
             "code_method_params": params} for rid, method, params, _ in CASES]


def test_every_registered_method_is_in_the_table():
    registered = {name for name in CODE_METHODS if registration(name) is not None}
    assert registered == set(BAD), f"add the new method's refused values to BAD: {sorted(registered ^ set(BAD))}"
    assert set(VALUE_CHECKS) == registered  # each method's refusals live in its value check, not in its body alone


def test_lint_reports_every_refusal_as_m002(tmp_path):
    tests = tmp_path / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": _rows()}))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    findings = json.loads(proc.stdout)["instances"][0]["findings"]
    m002 = {f["row"]: f for f in findings if f["code"] == "M002"}
    for rid, method, params, said in CASES:
        assert rid in m002, f"{method} {params}: no M002 ({[f['code'] for f in findings if f['row'] == rid]})"
        assert m002[rid]["level"] == "ERROR" and said in m002[rid]["message"], (method, params, m002[rid])
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_the_run_leaves_every_refusal_unjudged_code_params(tmp_path):
    ctx = make_ctx(tmp_path, {"a.md": "hello world"}, final_message="hello there")
    verdicts = route(normalize_rubric(_rows()).criteria, ctx)
    for rid, method, params, said in CASES:
        v = verdicts[rid]
        assert (v.judged, v.error_kind) == (False, "code_params"), (method, params, v.error_kind, v.reason)
        assert v.reason.startswith(f"code_method_params of {method}: ") and said in v.reason, (method, params, v.reason)


POOL: dict[str, list[Any]] = {
    "int": [-2, -1, 0, 1, 2, 50],
    "float": [0.5, 2],
    "bool": [True, False],
    "str": ["", "x", "hello", "files", "response", "final_message", "Response", "agent", "assistant", "user", "all",
            "*.md", "a.md", "../a.md", "output/a.md", "/app/output/a.md", "/app/a.md", "([", "i", "ims", "ig", "\u200b"],
    "list[str]": [[], ["*.md"], ["../a.md"], ["(["], ["pptx", "html"], ["docx"], [""]],
}
"""Values drawn for a parameter by its annotation (one option of it): good ones and ones some method refuses."""


def _draw(method: Any, rng: random.Random) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, param in inspect.signature(method).parameters.items():
        if name == "ctx" or (param.default is not inspect.Parameter.empty and rng.random() < 0.4):
            continue
        options = [o for o in str(param.annotation).replace(" ", "").split("|") if o != "None"]
        values = [v for o in options for v in POOL[o]] + ([None] if "None" in str(param.annotation) else [])
        params[name] = rng.choice(values)
    return params


def test_no_method_body_refuses_what_its_check_accepted(tmp_path):
    (tmp_path / "logs" / "agent").mkdir(parents=True)  # a real ATIF trajectory (its last message is the final one)
    shutil.copy(FIXTURES / "trajectories" / "terminus-2-hello-world-invalid-json.trajectory.json",
                tmp_path / "logs" / "agent" / "trajectory.json")
    ctx = make_ctx(tmp_path, {"a.md": "hello world", "b.json": "{}"}).segment()
    assert ctx.delivery.trajectory is not None and ctx.delivery.final_message
    rng = random.Random(25)
    refused_late, ran = [], dict.fromkeys(BAD, 0)
    for name in BAD:
        method = CODE_METHODS[name]
        for _ in range(40):
            params = _draw(method, rng)
            if param_errors(method, params):
                continue
            ran[name] += 1
            try:
                method(ctx, **params)
            except (ValueError, TypeError) as exc:  # a parameter refusal the check let through: code_error at run time
                refused_late.append(f"{name}({params}): {type(exc).__name__}: {exc}")
            except Exception:  # noqa: BLE001 - a deck tool or read limit: the rollout's doing, not the params'
                pass
    assert not refused_late, "\n".join(refused_late)
    assert all(ran.values()), ran  # the draw reaches every method, not only its check
