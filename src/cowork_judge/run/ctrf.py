"""``ctrf.json``: the rubric as a test report (CTRF), which Harbor's viewer renders beside a trial.

Harbor 0.26's trial viewer reads ``/logs/verifier/ctrf.json`` with a CTRF schema (checked
against the viewer bundle of harbor 0.26: ``results.tool.name``, ``results.summary`` with
``tests/passed/failed/skipped/pending/other/start/stop`` numbers, ``results.tests[]`` with
``name``, ``status`` ∈ passed/failed/skipped/pending/other and a numeric ``duration``; a
report whose tool is not ``pytest`` gives durations in milliseconds). One test per rubric row:

- **passed**: a positive row hit (graded: at its top level), or a deduction/hurdle not hit;
- **failed**: a positive row missed (graded: level 0), or a positive row whose gate closed
  (``rawStatus`` ``gate closed``, the message starts ``[gate]``: it earned nothing, even when
  it was asked in the same block as its dependency and the judge said hit — "skipped" would
  claim it was not run, and "passed" would show a zero-credit row as a passing test), or a
  deduction/hurdle hit (the fault is present), or a row whose credit the grounding check
  withdrew (``grounded: false`` under JUDGE_UNGROUNDED=miss: ``rawStatus`` ``credit withdrawn:
  ungrounded``, the message starts ``[ungrounded] credit withdrawn``; it scores as if the judge
  had not given the credit);
- **other**: a graded row between its levels (``rawStatus`` ``level 0.55``);
- **skipped**: an unjudged row, with its ``error_kind`` and reason as the message.

The viewer shows ``reward-details.json`` too, but only in rewardkit's shape (reward name →
criteria); ours is the project's compact row view, which the viewer lists as raw JSON — the
CTRF report is the rendered per-row view.
"""

from __future__ import annotations

from typing import Any

from cowork_judge import __version__
from cowork_judge.core.result import ResultDocument
from cowork_judge.core.scoring import credit_withdrawn

TOOL_NAME = "cowork-judge"
MESSAGE_CHARS = 2000
"""A test's message is the verdict's reason, cut to this many characters."""


def row_status(result: Any, negative: bool, graded: bool, *, withdrawn: bool = False) -> tuple[str, str | None]:
    """(CTRF status, rawStatus) of one `RowResult`; `negative` for deductions and hurdles;
    `withdrawn` when the grounding check withdrew its credit (`scoring.credit_withdrawn`)."""
    if not result.judged:
        return "skipped", f"unjudged {result.error_kind}"
    if withdrawn:  # scored as if the judge had not given the credit: a positive row missed, a fault present
        return "failed", "credit withdrawn: ungrounded"
    if not negative and getattr(result, "gate", None) == "closed":  # asked (same block, a cycle) but its credit is withheld
        return "failed", "gate closed"
    if graded and not negative and result.level is not None:
        if result.level >= 1:
            return "passed", None
        if result.level <= 0:
            return "failed", None
        return "other", f"level {result.level:g}"
    good = (result.hit is not True) if negative else (result.hit is True)
    return ("passed" if good else "failed"), None


def ctrf_document(doc: ResultDocument, *, start_ms: int, stop_ms: int) -> dict[str, Any]:
    """The CTRF report of a result document (times: Unix epoch milliseconds)."""
    described = {c.get("id"): c for c in doc.criteria if isinstance(c, dict)}
    policy = doc.details.policy
    tests = []
    for r in doc.results:
        crit = described.get(r.id, {})
        negative = crit.get("polarity") == "negative"
        status, raw = row_status(r, negative, bool(crit.get("level_choices")),
                                 withdrawn=policy is not None and credit_withdrawn(policy, r))
        description = str(crit.get("description") or "")
        message = (f"{r.error_kind}: {r.reason}" if not r.judged else r.reason)[:MESSAGE_CHARS]
        test: dict[str, Any] = {"name": f"{r.id}: {description}"[:300] if description else r.id, "status": status,
                                "duration": round(r.seconds * 1000), "suite": [r.method], "message": message,
                                "extra": {"weight": r.weight, "contribution": r.contribution, "hit": r.hit, "level": r.level,
                                          "cached": r.cached, "gate": r.gate}}
        if raw:
            test["rawStatus"] = raw
        tests.append(test)
    count = {s: sum(1 for t in tests if t["status"] == s) for s in ("passed", "failed", "skipped", "pending", "other")}
    return {"reportFormat": "CTRF", "specVersion": "0.0.0", "generatedBy": f"cowork-judge {__version__}",
            "results": {"tool": {"name": TOOL_NAME, "version": __version__},
                        "summary": {"tests": len(tests), **count, "start": start_ms, "stop": stop_ms,
                                    "duration": max(0, stop_ms - start_ms)},
                        "tests": tests,
                        "extra": {"reward": doc.task_score, "status": doc.status, "exit_code": doc.exit_code,
                                  "coverage": doc.extra_fields.judge_coverage}}}


__all__ = ["ctrf_document", "row_status"]
