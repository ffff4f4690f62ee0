"""Agent text that Python cannot encode (a lone surrogate: half an emoji from a JSON
escape, an undecodable byte of a file name) is repaired to U+FFFD wherever an agentic
block reads it: tool results, the first message, the workspace, the model's replies."""

from __future__ import annotations

import asyncio
import json
import os
import time

from testkit import make_ctx

from cowork_judge.agentic.openai_agent import OpenAIAgentBackend
from cowork_judge.agentic.block_prompt import first_user_message
from cowork_judge.agentic.tools import WorkspaceTools
from cowork_judge.agentic.workspace import build_workspace
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.transport.chat import ChatReply

ROWS = normalize_rubric([{"id": "A1", "description": "reports the result", "weight": 1}]).criteria


def encodable(text: str) -> str:
    text.encode("utf-8")  # raises UnicodeEncodeError on a lone surrogate
    return text


def _workspace_with_a_raw_name(tmp_path):
    root = tmp_path / "ws"
    (root / "output").mkdir(parents=True)
    with open(os.fsencode(root / "output") + b"/notes\xff.md", "wb") as fh:  # not UTF-8: a surrogate escape in Python
        fh.write(b"revenue grew \xed\xa0\xbd 12%\n")  # CESU-8 half of an emoji
    return root


def test_tool_results_never_carry_a_lone_surrogate(tmp_path):
    tools = WorkspaceTools(_workspace_with_a_raw_name(tmp_path))
    listing = encodable(tools.call("list_files", "{}").text)
    assert "output/notes\ufffd.md" in listing
    grep = encodable(tools.call("grep", json.dumps({"pattern": "revenue"})).text)
    assert "output/notes\ufffd.md:1: revenue grew" in grep
    # an argument echoed in an error (a model can send half an emoji as a JSON escape)
    assert "\ufffd" in encodable(tools.call("read_text", '{"path": "output/x\\ud83d.md"}').text)


def test_first_message_repairs_the_final_message_and_inlines_imperfect_text(tmp_path):
    root = tmp_path / "ws"
    (root / "output").mkdir(parents=True)
    (root / "output" / "report.md").write_bytes(b"# Report\ncaf\xe9 revenue grew 12%\n")  # one Latin-1 byte
    text = encodable(first_user_message(ROWS, root, "the task", "Done. \ud83d"))
    assert "Done. \ufffd" in text
    assert '<deliverable path="output/report.md">' in text and "caf\ufffd revenue grew 12%" in text


def test_the_first_message_names_at_most_the_listed_files(tmp_path, monkeypatch):
    from cowork_judge.agentic import block_prompt as prompt

    monkeypatch.setattr(prompt, "LISTED_FILES", 3)
    root = tmp_path / "ws"
    (root / "output").mkdir(parents=True)
    for i in range(10):
        (root / "output" / f"f{i}.bin").write_bytes(b"\x00")
    text = first_user_message(ROWS, root, "", "answer")
    assert "output/f2.bin" in text and "output/f3.bin" not in text
    assert "... and 7 more file(s): call list_files to see them" in text


def test_the_workspace_writes_a_repaired_final_message(tmp_path):
    ctx = make_ctx(tmp_path, {"a.md": "x"}, final_message="Done. \ud83d")  # as if nothing upstream had repaired it
    root = build_workspace("block-01", ROWS, ctx.segment())
    assert (root / "model_response_text.txt").read_text(encoding="utf-8") == "Done. \ufffd"


class _Transport:
    """Two turns: a tool call whose arguments hold a lone surrogate, then the verdicts.
    Records every request as the HTTP client would have to encode it."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def chat(self, messages, **_kw) -> ChatReply:
        self.bodies.append(json.dumps(messages, ensure_ascii=False).encode("utf-8"))
        if len(self.bodies) == 1:
            return ChatReply(content="Looking at \ud83d", finish_reason="tool_calls",
                             tool_calls=[{"id": "c1", "name": "read_text", "arguments": '{"path": "output/a\ud83d.md"}'}])
        return ChatReply(content=json.dumps({"verdicts": [{"id": "A1", "reason": "ok", "quote": "Done.", "hit": True, "level": None}]}),
                         tool_calls=[], finish_reason="stop")


def test_model_replies_are_repaired_before_they_are_sent_back(tmp_path):
    ctx = make_ctx(tmp_path, {"a.md": "x"}, final_message="Done.")
    transport = _Transport()
    backend = OpenAIAgentBackend(transport, ctx.segment())  # type: ignore[arg-type]
    workspace = build_workspace("block-01", ROWS, ctx.segment())
    outcome = asyncio.run(backend.attempt("block-01", ROWS, workspace, attempt_no=1, timeout_at=time.monotonic() + 30)).parsed
    assert outcome.verdicts["A1"].hit is True
    assert len(transport.bodies) == 2 and "Looking at \ufffd".encode() in transport.bodies[1]
