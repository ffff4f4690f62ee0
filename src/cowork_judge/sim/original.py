"""Answers to the original cowork-judge 1.3.x's requests (issue 34), from the same policy.

The original judge (``pip install cowork-judge==1.3.6``) asks in its own shapes; this module
recognises them so it can be run against the simulator with no adapter, and answers every
row from the policy that answers this project's requests (an oracle keyed by row id gives
both judges the same verdict per row):

- ``agentic``: its CLI agent (codex ``exec`` over the Responses API) is told to read
  ``rubric.json`` in its working folder and to answer in the schema
  ``{"details": {"results": [{"rubric_number", "hit", "justification", "level"?}]}}``.
  While no rubric document (``{"rubrics": [...]}``) is in the conversation, the simulated
  model calls the offered shell tool to print ``rubric.json``; then it answers every row
  of that document (ids, descriptions, ``polarity``, a graded row's ``level_choices``).
  The rubric document also counts when the prompt carries it inline (the original's
  ``JUDGE_NO_AGENT_TOOLS=1``).
- its ``ppt_judge`` requests (chat completions with page images, JSON replies):
  ``tag`` (one page's caption: ``{"page", "summary", "tags", "section_guess"}``),
  ``presence`` (a presence checklist question over the caption list),
  ``recheck`` (the same question over attached pages), ``compare`` (a question against
  anchor files on named pages) — all answered ``{"verdict": "yes"|"no", "slide_pages",
  "evidence", "diff": []}`` — and ``visual`` (``- <rubric_id>: <question>`` lines,
  answered ``{"scores": {id: {"reason", "score": 0..3 | "NA"}}}``).

A checklist question carries no row id: it is looked up in an oracle by the entry's
``criterion`` text (or its key), see `OraclePolicy.find_key`; other policies judge it as a
row whose id and description are the question. A ``yes`` cites the oracle entry's
``pages`` that are on offer, else the first page on offer. A graded visual row's level is
sent as the nearest of the original's four severities (``round(level * 3)``); N/A as
``"NA"``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .policies import OraclePolicy, VerdictPolicy
from .turn import SimRequest, ToolCall, new_call_id

__all__ = ["RUBRIC_FILE_CALLS", "answer", "kind_of", "rubric_call", "rubric_rows"]

RUBRIC_FILE_CALLS: dict[str, dict[str, Any]] = {
    "exec_command": {"cmd": "cat rubric.json"},
    "shell": {"command": ["cat", "rubric.json"]},
    "shell_command": {"command": "cat rubric.json"},
    "Bash": {"command": "cat rubric.json", "description": "Read the rubric to judge"},
    "Read": {"file_path": "rubric.json"},
}
"""The tool call that prints the block's ``rubric.json``, per known agent tool."""

_RUBRICS_RE = re.compile(r'\{\s*"rubrics"\s*:')
_TAG_RE = re.compile(r"Analyze slide page (\d+) of a presentation deck screenshot")
_PRESENCE = "Verify PRESENCE of content in a presentation deck."
_RECHECK = "Verify PRESENCE of content by LOOKING AT the attached slide page image"
_COMPARE_RE = re.compile(r"Compare slide content on page\(s\) \[([\d,\s]*)\] against ground-truth anchor files")
_VISUAL_HEAD_RE = re.compile(r"Score the following \d+ rubrics\. rubric_id: question\n")
_QUESTION_RE = re.compile(r"Checklist question:\n(.*?)\n(?:\nWeak locators|\nLocators to look for|\nDeck caption list|\nAttached pages)", re.S)
_COMPARE_Q_RE = re.compile(r"\nQuestion: (.*?)\n\nGround truth from anchor files", re.S)
_CAPTION_PAGE_RE = re.compile(r"^Page (\d+) \[", re.M)
_ATTACHED_RE = re.compile(r"Attached pages \(1-based, in the order shown\): \[([\d,\s]*)\]")
_VISUAL_PAGES_RE = re.compile(r"There (?:is 1 image \(deck page (\d+)\)|are \d+ images \(deck pages \[([\d,\s]*)\]\))")
_VISUAL_ROW_RE = re.compile(r"^- (\S+?): (.*)$")


def _results_item(schema: Any) -> dict[str, Any] | None:
    """The item schema of ``details.results`` when it has ``rubric_number``, else None."""
    try:
        item = schema["properties"]["details"]["properties"]["results"]["items"]
    except (KeyError, TypeError):
        return None
    return item if isinstance(item, dict) and "rubric_number" in (item.get("properties") or {}) else None


def kind_of(req: SimRequest) -> str | None:
    """Which of the original's requests this is: ``agentic``, ``tag``, ``presence``,
    ``recheck``, ``compare``, ``visual``; None for any other request — in particular for one
    in this project's protocol (``<rubric_rows>``), whatever text its evidence quotes."""
    if _results_item(req.answer_schema) is not None:
        return "agentic"
    if req.rows:
        return None
    text = req.user_text
    if _TAG_RE.search(text):
        return "tag"
    if _PRESENCE in text and _QUESTION_RE.search(text):
        return "presence"
    if _RECHECK in text and _QUESTION_RE.search(text):
        return "recheck"
    if _COMPARE_RE.search(text) and _COMPARE_Q_RE.search(text):
        return "compare"
    if _VISUAL_HEAD_RE.search(text):
        return "visual"
    return None


def rubric_rows(context_text: str) -> tuple[list[dict[str, Any]], str] | None:
    """The rows of the LAST rubric document (``{"rubrics": [...]}``) in the conversation and
    the document's text, or None when there is none. A row: ``id``, ``description``,
    ``polarity``, and for a graded row ``type: gradient`` with ``level_choices`` (floats)."""
    decoder = json.JSONDecoder()
    found: tuple[list[dict[str, Any]], str] | None = None
    for m in _RUBRICS_RE.finditer(context_text):
        try:
            doc, end = decoder.raw_decode(context_text, m.start())
        except ValueError:
            continue
        raw = doc.get("rubrics") if isinstance(doc, dict) else None
        if not isinstance(raw, list):
            continue
        rows = []
        for entry in raw:
            if not isinstance(entry, dict) or "id" not in entry:
                continue
            row: dict[str, Any] = {"id": str(entry["id"]), "description": str(entry.get("description", "")),
                                   "polarity": "negative" if entry.get("polarity") == "negative" else "positive"}
            if entry.get("type") == "gradient":
                row["type"] = "gradient"
                try:
                    row["level_choices"] = sorted(float(x) for x in entry.get("level_choices") or [])
                except (TypeError, ValueError):
                    row["level_choices"] = [0.0, 1.0]
            rows.append(row)
        if rows:
            found = (rows, context_text[m.start():end])
    return found


def rubric_call(tool_names: list[str]) -> ToolCall | None:
    """The call printing ``rubric.json`` with the first offered known tool, else None."""
    name = next((n for n in RUBRIC_FILE_CALLS if n in tool_names), None)
    return None if name is None else ToolCall(new_call_id(), name, json.dumps(RUBRIC_FILE_CALLS[name]))


def _resolve(policy: VerdictPolicy, context_text: str) -> VerdictPolicy:
    """The policy that answers this context (a routed policy's route)."""
    route = getattr(policy, "route", None)
    return route(context_text) if callable(route) else policy


def _oracle_of(policy: VerdictPolicy) -> OraclePolicy | None:
    """The oracle under `policy` (through wrappers with a ``base``), or None."""
    current: Any = policy
    for _ in range(8):
        if current is None or isinstance(current, OraclePolicy):
            return current
        current = getattr(current, "base", None)
    return None


def _question_verdict(policy: VerdictPolicy, question: str, context_text: str, page: int | None) -> dict[str, Any]:
    """The policy's verdict on a checklist question (looked up as described in the module)."""
    oracle = _oracle_of(policy)
    key = oracle.find_key(question) if oracle is not None else None
    row = {"id": key or question, "description": question}
    return policy.verdicts([row], context_text, page)[0]


def _search(pattern: re.Pattern[str], text: str) -> re.Match[str]:
    """`pattern`'s first match in `text`; the prompt's kind (`kind_of`) was told by such a match,
    so a miss is a malformed prompt (ValueError)."""
    found = pattern.search(text)
    if found is None:
        raise ValueError(f"the prompt has no match for {pattern.pattern[:40]!r}")
    return found


def _ints(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", text)]


def _yes_no(verdict: dict[str, Any], on_offer: list[int]) -> dict[str, Any]:
    hit = bool(verdict.get("hit")) and not verdict.get("na")
    cited = [p for p in verdict.get("pages") or [] if p in on_offer] or on_offer[:1]
    return {"verdict": "yes" if hit and cited else "no", "slide_pages": cited if hit else [],
            "evidence": str(verdict.get("reason", "")), "diff": []}


def _severity(row: dict[str, Any], verdict: dict[str, Any]) -> int | str:
    if verdict.get("na"):
        return "NA"
    if "level" in verdict:
        return max(0, min(3, round(float(verdict["level"]) * 3)))
    return 3 if verdict.get("hit") else 0


def answer(kind: str, req: SimRequest, policy: VerdictPolicy) -> tuple[str | None, ToolCall | None, list[dict[str, Any]], list[str]]:
    """The reply to one of the original's requests.

    Returns:
        (text, call, verdicts, row ids): the answer text (None when the reply is a tool
        call), the tool call (agentic request without a rubric document yet), the policy's
        verdicts and the ids they answer (for the request log).
    """
    policy = _resolve(policy, req.context_text)
    if kind == "agentic":
        found = rubric_rows(req.context_text)
        if found is None:
            call = rubric_call(req.tool_names)
            if call is not None:
                return None, call, [], []
            rows: list[dict[str, Any]] = []
            doc = ""
        else:
            rows, doc = found
        context = req.context_text.replace(doc, " ") if doc else req.context_text
        verdicts = policy.verdicts(rows, context) if rows else []
        graded = "level" in ((_results_item(req.answer_schema) or {}).get("properties") or {})
        results = []
        for row, v in zip(rows, verdicts):
            item: dict[str, Any] = {"rubric_number": row["id"], "hit": bool(v.get("hit")),
                                    "justification": str(v.get("reason", ""))}
            if graded:
                choices = row.get("level_choices") or [0.0, 1.0]
                level = float(v["level"]) if "level" in v else (choices[-1] if v.get("hit") else choices[0])
                item["level"] = level
                if row.get("type") == "gradient":
                    item["hit"] = level > 0
            results.append(item)
        return json.dumps({"details": {"results": results}}, ensure_ascii=False), None, verdicts, [r["id"] for r in rows]
    text = req.user_text
    if kind == "tag":
        n = int(_search(_TAG_RE, text).group(1))
        caption = {"page": n, "summary": f"Slide page {n} of the deck.", "tags": [f"page {n}"], "section_guess": "other"}
        return json.dumps(caption), None, [], []
    if kind in ("presence", "recheck", "compare"):
        if kind == "compare":
            question = _search(_COMPARE_Q_RE, text).group(1).strip()
            on_offer = _ints(_search(_COMPARE_RE, text).group(1))
        else:
            question = _search(_QUESTION_RE, text).group(1).strip()
            attached = _ATTACHED_RE.search(text)
            on_offer = _ints(attached.group(1)) if kind == "recheck" and attached else \
                [int(p) for p in _CAPTION_PAGE_RE.findall(text)]
        verdict = _question_verdict(policy, question, req.context_text, None)
        reply = _yes_no(verdict, on_offer)
        if kind == "compare" and reply["verdict"] == "yes":
            reply["slide_pages"] = on_offer
        return json.dumps(reply, ensure_ascii=False), None, [verdict], [str(verdict.get("id"))]
    # visual
    pages = _VISUAL_PAGES_RE.search(text)
    page: int | None = None
    if pages is not None:
        numbers = [int(pages.group(1))] if pages.group(1) else _ints(pages.group(2))
        page = numbers[0] if numbers else None
    body = text[_search(_VISUAL_HEAD_RE, text).end():]
    rows = []
    for line in body.splitlines():
        m = _VISUAL_ROW_RE.match(line)
        if m:
            rows.append({"id": m.group(1), "description": m.group(2), "type": "gradient",
                         "level_choices": [0.0, 1 / 3, 2 / 3, 1.0]})
        elif rows and not line.strip():
            break
    verdicts = policy.verdicts(rows, req.context_text, page) if rows else []
    scores = {row["id"]: {"reason": str(v.get("reason", "")), "score": _severity(row, v)} for row, v in zip(rows, verdicts)}
    return json.dumps({"scores": scores}, ensure_ascii=False), None, verdicts, [r["id"] for r in rows]
