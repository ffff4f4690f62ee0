"""Only the agent's own text grounds a quote (trial 20, P-2): never the judge's file listing
(the first message's deliverable listing, a list_files output) nor the rubric, the task
prompt or the instruction read back by a tool."""

from __future__ import annotations

from pathlib import Path

from cowork_judge.agentic.block_prompt import UNQUOTABLE, evidence_texts, fence, first_user_message
from cowork_judge.agentic.tools import WorkspaceTools
from cowork_judge.core import grounding
from cowork_judge.core.rubric import Criterion


def _workspace(root: Path) -> Path:
    (root / "output").mkdir(parents=True)
    (root / "output" / "agents.pptx").write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    (root / "output" / "notes.md").write_text("Agents plan, act and observe in a loop.\n", encoding="utf-8")
    (root / "model_response_text.txt").write_text("", encoding="utf-8")
    (root / "rubric.json").write_text('[{"id": "A", "description": "The slides are visually clear"}]', encoding="utf-8")
    (root / "task_prompt.md").write_text("Make a deck that explains LLM agents.", encoding="utf-8")
    return root


def _tool_message(result_text: str, quotable: bool) -> dict[str, str]:
    return {"role": "tool", "tool_call_id": "c1",
            "content": fence("tool_output", result_text, **({} if quotable else UNQUOTABLE))}


def _seen(ws: Path, *calls: tuple[str, dict[str, str]]) -> str:
    tools = WorkspaceTools(ws)
    rows = [Criterion(id="A", description="The slides are visually clear", polarity="positive", hit_means="met")]
    messages = [{"role": "user", "content": first_user_message(rows, ws, "Make a deck that explains LLM agents.", None)}]
    for name, args in calls:
        result = getattr(tools, name)(**args)
        messages.append(_tool_message(result.text, result.quotable))
    return grounding.evidence_of(evidence_texts(messages))


def test_listing_lines_ground_nothing_but_deliverable_text_does(tmp_path: Path) -> None:
    seen = _seen(_workspace(tmp_path), ("list_files", {"path": "."}))
    assert not grounding.quote_found("output/agents.pptx (104 bytes)", seen)
    assert not grounding.quote_found("model_response_text.txt\t0", seen)
    assert not grounding.quote_found("output/notes.md\t40", seen)
    assert grounding.quote_found("plan, act and observe", seen)


def test_rubric_and_task_prompt_read_by_a_tool_ground_nothing(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    seen = _seen(ws, ("read_text", {"path": "rubric.json"}), ("read_text", {"path": "task_prompt.md"}),
                 ("grep", {"pattern": "visually", "path": "."}))
    assert not grounding.quote_found("The slides are visually clear", seen)
    assert not grounding.quote_found("explains LLM agents", seen)
    assert grounding.quote_found("act and observe", _seen(ws, ("read_text", {"path": "output/notes.md"})))


def test_the_simulators_honest_quotes_skip_what_grounds_nothing(tmp_path: Path) -> None:
    """The simulator's honest judge quotes only lines the run would accept (no listing line, no rubric read back)."""
    from cowork_judge.sim.quotes import evidence_lines

    ws = _workspace(tmp_path)
    tools = WorkspaceTools(ws)
    rows = [Criterion(id="A", description="The slides are visually clear", polarity="positive", hit_means="met")]
    text = "\n".join([first_user_message(rows, ws, "Make a deck.", None),
                      fence("tool_output", tools.list_files(".").text, **UNQUOTABLE),
                      fence("tool_output", tools.read_text("output/notes.md").text)])
    lines = evidence_lines(text)
    assert "Agents plan, act and observe in a loop." in lines
    assert not [ln for ln in lines if "bytes)" in ln or "\t" in ln or "rubric" in ln], lines
