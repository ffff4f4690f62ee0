"""The built-in agent's tools stay inside the block workspace (SPEC §22): ``..``, absolute
paths and symlinks planted to point outside are refused by every tool, and slow tools run
off the event loop."""

from __future__ import annotations

import asyncio
import json
import os
import time

import pytest

from cowork_judge.agentic.tools import WorkspaceTools

SECRET = "TOP-SECRET-OUTSIDE-THE-WORKSPACE"


@pytest.fixture
def workspace(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / "slide.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    ws = tmp_path / "blocks" / "block-01"
    (ws / "output").mkdir(parents=True)
    (ws / "output" / "report.md").write_text("quarterly growth was 5%\n")
    os.symlink(outside / "secret.txt", ws / "output" / "notes.md")  # planted: a file outside
    os.symlink(outside / "slide.png", ws / "output" / "page.png")
    os.symlink(outside, ws / "output" / "more")  # planted: a directory outside
    os.symlink(ws / "output" / "report.md", ws / "output" / "alias.md")  # inside: allowed
    return WorkspaceTools(ws), tmp_path


def call(tools: WorkspaceTools, name: str, **args) -> str:
    return tools.call(name, json.dumps(args)).text


ESCAPES = [
    ("read_text", {"path": "output/notes.md"}, "points outside the workspace"),
    ("read_text", {"path": "output/more/secret.txt"}, "points outside the workspace"),
    ("read_text", {"path": "../../outside/secret.txt"}, "'..' is not allowed"),
    ("read_text", {"path": "output/../../../outside/secret.txt"}, "'..' is not allowed"),
    ("pdf_text", {"path": "output/notes.md"}, "points outside the workspace"),
    ("pptx_text", {"path": "output/more/secret.txt"}, "points outside the workspace"),
    ("view_image", {"path": "output/page.png"}, "points outside the workspace"),
    ("list_files", {"path": "output/more"}, "points outside the workspace"),
    ("list_files", {"path": ".."}, "'..' is not allowed"),
    ("grep", {"pattern": "SECRET", "path": "output/more"}, "points outside the workspace"),
    ("grep", {"pattern": "SECRET", "path": "output/notes.md"}, "points outside the workspace"),
]


@pytest.mark.parametrize(("tool", "args", "message"), ESCAPES, ids=[f"{t}:{a.get('path')}" for t, a, _ in ESCAPES])
def test_escapes_are_refused(workspace, tool, args, message):
    tools, _ = workspace
    text = call(tools, tool, **args)
    assert text.startswith("error:") and message in text
    assert SECRET not in text


def test_absolute_paths_are_refused(workspace):
    tools, root = workspace
    text = call(tools, "read_text", path=str(root / "outside" / "secret.txt"))
    assert text.startswith("error: absolute paths are not allowed") and SECRET not in text


def test_listing_and_search_never_reveal_what_links_point_at(workspace):
    tools, _ = workspace
    listing = call(tools, "list_files", path=".")
    assert "output/report.md" in listing and "output/alias.md" in listing
    assert "notes.md" not in listing and "page.png" not in listing and "secret" not in listing
    found = call(tools, "grep", pattern="SECRET|growth")
    assert SECRET not in found and "output/report.md:1: quarterly growth" in found


def test_links_inside_the_workspace_are_followed(workspace):
    tools, _ = workspace
    assert call(tools, "read_text", path="output/alias.md").startswith("quarterly growth")


def test_detached_tool_calls_match_and_never_block_the_loop(workspace, monkeypatch):
    tools, _ = workspace

    async def go():
        same = await tools.call_detached("read_text", json.dumps({"path": "output/notes.md"}))
        monkeypatch.setattr(tools, "call", lambda name, args: time.sleep(5))  # a pathologically slow tool
        t0 = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(tools.call_detached("read_text", "{}"), timeout=0.2)
        return same, time.monotonic() - t0

    same, waited = asyncio.run(go())
    assert same.text == call(WorkspaceTools(tools.root), "read_text", path="output/notes.md")
    assert waited < 1  # the time limit fired while the tool was still running
