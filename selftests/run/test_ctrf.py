"""``ctrf.json``: one CTRF test per rubric row, in the shape Harbor 0.26's trial viewer parses.

`VIEWER_CTRF` transcribes the zod schema of harbor 0.26's viewer bundle
(``harbor/viewer/static/assets/trial-*.js``: ``es``/``Yr``/``Kr``/``Jr``/``Gr``); when the
installed Harbor's bundle is there, the test also checks the transcription still matches it.
"""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from run.test_e2e import DECK_ORACLE
from testkit import EXAMPLE_TESTS, REPO, ROLLOUTS

STATUS = ["passed", "failed", "skipped", "pending", "other"]
VIEWER_CTRF = {
    "type": "object",
    "required": ["results"],
    "properties": {
        "reportFormat": {"const": "CTRF"},
        "results": {
            "type": "object", "required": ["tool", "summary", "tests"],
            "properties": {
                "tool": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 1},
                                                                                  "version": {"type": "string"}}},
                "summary": {"type": "object", "required": ["tests", *STATUS, "start", "stop"],
                            "properties": {k: {"type": "number"} for k in ["tests", *STATUS, "start", "stop", "duration"]}},
                "tests": {"type": "array", "items": {
                    "type": "object", "required": ["name", "status", "duration"],
                    "properties": {"name": {"type": "string", "minLength": 1}, "status": {"enum": STATUS},
                                   "duration": {"type": "number"}, "message": {"type": "string"},
                                   "rawStatus": {"type": "string"}, "suite": {"type": "array", "items": {"type": "string"}},
                                   "extra": {"type": "object"}}}},
                "extra": {"type": "object"},
            },
        },
    },
}


def test_the_transcribed_schema_matches_the_installed_viewer():
    bundles = sorted((REPO / ".venv-harbor").glob("lib/python3*/site-packages/harbor/viewer/static/assets/trial-*.js"))
    if not bundles:
        pytest.skip("harbor's viewer is not installed in .venv-harbor (.ci/run installs it)")
    text = bundles[0].read_text(errors="replace")
    assert "tests:P(),passed:P(),failed:P(),skipped:P(),pending:P(),other:P(),start:P(),stop:P()" in text
    assert "name:v().min(1),status:" in text and 'verifier/ctrf.json' in text
    assert re.search(r'\["passed","failed","skipped","pending","other"\]', text)


def test_one_test_per_row_with_unjudged_rows_skipped(judge_run):
    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE)  # JUDGE_EVIDENCE=0: ppt_judge rows are unjudged
    doc = json.loads((run.verifier / "result.json").read_text())
    ctrf = json.loads((run.verifier / "ctrf.json").read_text())
    jsonschema.validate(ctrf, VIEWER_CTRF)
    tests = ctrf["results"]["tests"]
    assert [t["name"].split(":")[0] for t in tests] == [r["id"] for r in doc["results"]]
    by_id = {t["name"].split(":")[0]: t for t in tests}
    for r in doc["results"]:
        t = by_id[r["id"]]
        if not r["judged"]:
            assert t["status"] == "skipped" and t["message"].startswith(r["error_kind"]), t
    crit = {c["id"]: c for c in doc["criteria"]}
    hurdle = by_id["A-HURDLE-NO-DECK"]  # not hit: the fault is absent
    assert crit["A-HURDLE-NO-DECK"]["polarity"] == "negative" and hurdle["status"] == "passed"
    assert by_id["A-NARRATIVE"]["status"] == "other" and by_id["A-NARRATIVE"]["rawStatus"].startswith("level 0.")
    summary = ctrf["results"]["summary"]
    assert summary["tests"] == len(doc["results"]) == sum(summary[s] for s in STATUS)
    assert summary["skipped"] == sum(1 for r in doc["results"] if not r["judged"]) > 0
    assert ctrf["results"]["extra"]["reward"] == doc["task_score"]


def test_status_rules():
    from types import SimpleNamespace as Row

    from cowork_judge.run.ctrf import row_status

    assert row_status(Row(judged=True, hit=True, level=None), False, False) == ("passed", None)
    assert row_status(Row(judged=True, hit=False, level=None), False, False) == ("failed", None)
    assert row_status(Row(judged=True, hit=True, level=None), True, False) == ("failed", None)  # a deduction's fault is there
    assert row_status(Row(judged=True, hit=True, level=1.0), False, True) == ("passed", None)
    assert row_status(Row(judged=False, hit=None, level=None, error_kind="render_env"), False, False) == ("skipped",
                                                                                                          "unjudged render_env")
