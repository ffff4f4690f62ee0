"""A line of the judge's own ``list_files`` output grounds no quote (trial 23, P-3).

Trial 20 P-2 marked a file listing ``quotable=False``, but `WorkspaceTools.call` — the path
the openai loop takes — rebuilt the result and dropped the mark: the ``<tool_output>`` block
of a listing reached the judge unmarked, so ``task_prompt.md<TAB>288``, ``rubric.json<TAB>2213``,
a bare ``judge_instruction.md`` or ``output/deck.pptx<TAB>28440`` grounded a credit, and the
simulator's honest quotes picked listing lines. Checked over HTTP: the real run against the
simulator, whose oracle answers with those listing lines as quotes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from run.test_e2e import DECK_ORACLE
from testkit import ROLLOUTS, agentic_example

from cowork_judge.agentic.block_prompt import UNQUOTABLE, evidence_texts, fence
from cowork_judge.agentic.tools import WorkspaceTools
from cowork_judge.core import grounding

HONEST = "It explains what agents are and how they differ from workflows"
"""A line of the deck rollout's final message: the agent's own text."""
LISTED = {  # row → the listing line its credit quotes (a regex over the list_files output)
    "A-HURDLE-NO-DECK": r"task_prompt\.md\t\d+",
    "A-NARRATIVE": r"rubric\.json\t\d+",
    "A-PATTERN-FIT": r"judge_instruction\.md",
    "A-FABRICATION": r"output/build_effective_agents\.pptx\t\d+",
}


class ListingQuoter:
    """An oracle that credits every row, quoting a line of the list_files output the request
    showed (`LISTED`), and the final message for A-TOOL-DESIGN; records the quotes it gave."""

    def __init__(self) -> None:
        self.given: dict[str, str] = {}

    def verdicts(self, rows: list[dict[str, Any]], context_text: str, page: int | None = None) -> list[dict[str, Any]]:
        out = []
        for row in rows:
            rid = str(row.get("id"))
            entry = dict(DECK_ORACLE.get(rid, {"hit": False}))
            entry["hit"] = rid not in ("A-HURDLE-NO-DECK", "A-FABRICATION")  # the credit, on either polarity
            entry.pop("level", None)
            found = re.search(rf"^(?:{LISTED[rid]})(?=\t|$)", context_text, re.MULTILINE) if rid in LISTED else None
            entry["quote"] = found.group(0) if found else HONEST
            if found:
                self.given[rid] = found.group(0)
            out.append({"id": rid, "reason": "labelled", **entry})
        return out


def test_no_list_files_line_grounds_a_credit_over_http(judge_run, tmp_path: Path) -> None:
    policy = ListingQuoter()
    run = judge_run(agentic_example(tmp_path / "t"), ROLLOUTS / "deck", policy=policy)
    assert run.returncode == 0, run.stderr
    assert set(policy.given) == set(LISTED), policy.given  # the sim's list_files output held every line
    rows = {r["id"]: r for r in json.loads((run.verifier / "result.json").read_text())["results"]}
    for rid, line in policy.given.items():
        credited_on_listing = rows[rid]["grounded"] is True and grounding.normalise(rows[rid]["quote"] or "") == grounding.normalise(line)
        assert not credited_on_listing, (rid, rows[rid])
    # the request marked the listing as not the agent's: the simulator's honest judge did not serve those quotes
    unshown = {rid for e in run.sim.log.entries() for rid in e.unshown_quotes}
    assert set(LISTED) <= unshown, unshown
    tool_messages = [m for audit in (run.verifier / "judge").glob("block-*/attempt-*.jsonl")
                     for line in audit.read_text().splitlines() for m in json.loads(line).get("request") or []
                     if m.get("role") == "tool"]
    assert tool_messages and all(str(m["content"]).startswith('<tool_output quotable="no">') for m in tool_messages)
    # the agent's own text still grounds
    assert rows["A-TOOL-DESIGN"]["quote"] == HONEST and rows["A-TOOL-DESIGN"]["grounded"] is True, rows["A-TOOL-DESIGN"]
    assert rows["A-TOOL-DESIGN"]["hit"] is True


def _workspace(root: Path) -> WorkspaceTools:
    (root / "output").mkdir(parents=True)
    (root / "output" / "deck.pptx").write_bytes(b"PK\x03\x04" + b"\x00" * 28436)
    (root / "output" / "notes.md").write_text("Revenue per shop: North 120k EUR.\n", encoding="utf-8")
    (root / "evidence" / "deck.pptx").mkdir(parents=True)
    (root / "evidence" / "deck.pptx" / "checks.json").write_text("{}" * 1206, encoding="utf-8")
    for name, text in (("task_prompt.md", "p" * 288), ("rubric.json", "r" * 2213), ("judge_instruction.md", "")):
        (root / name).write_text(text, encoding="utf-8")
    return WorkspaceTools(root)


def _seen_through_call(tools: WorkspaceTools, *calls: tuple[str, dict[str, Any]]) -> str:
    """The evidence a conversation shows when each tool runs as the openai loop runs it (`call`)."""
    messages = []
    for name, args in calls:
        result = tools.call(name, json.dumps(args))
        messages.append({"role": "tool", "content": fence("tool_output", result.text, **({} if result.quotable else UNQUOTABLE))})
    return grounding.evidence_of(evidence_texts(messages))


def test_the_loops_tool_call_keeps_a_listing_unquotable(tmp_path: Path) -> None:
    tools = _workspace(tmp_path)
    assert tools.call("list_files", '{"path": "."}').quotable is False
    seen = _seen_through_call(tools, ("list_files", {"path": "."}), ("read_text", {"path": "output/notes.md"}))
    for quote in ("task_prompt.md\t288", "rubric.json\t2213", "judge_instruction.md", "output/deck.pptx\t28440",
                  "evidence/deck.pptx/checks.json\t2412"):
        assert not grounding.quote_found(quote, seen), quote
    assert grounding.quote_found("North 120k EUR", seen)  # a file the agent wrote, read back by read_text


def test_a_tool_error_echoing_the_judges_argument_grounds_nothing(tmp_path: Path) -> None:
    """An error message repeats the judge's own path: quoting it back is not the agent's text."""
    tools = _workspace(tmp_path)
    seen = _seen_through_call(tools, ("read_text", {"path": "North 200k EUR is right"}))
    assert not grounding.quote_found("North 200k EUR is right", seen)
