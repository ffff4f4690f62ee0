"""The built-in agent's tools doing their job inside a block workspace (confinement and
escapes are in reliability/test_rel_tools_confinement.py)."""

from __future__ import annotations

import base64
import json
import shutil

import pytest
from testkit import deck

from cowork_judge.agentic.tools import TOOL_SCHEMAS, WorkspaceTools


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    (root / "output" / "sub").mkdir(parents=True)
    (root / "output" / "notes.md").write_text("line one\nRevenue grew 12%\n" + "x" * 50_000)
    (root / "output" / "sub" / "data.csv").write_text("a,b\n1,2\n")
    (root / "output" / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    shutil.copy(deck("45__PPTAgent__build_effective_agents.pptx"), root / "output" / "deck.pptx")
    return WorkspaceTools(root)


def call(tools, name, **args):
    return tools.call(name, json.dumps(args))


def test_every_schema_has_a_handler(ws):
    names = {t["function"]["name"] for t in TOOL_SCHEMAS}
    assert names == {"list_files", "read_text", "pdf_text", "pptx_text", "view_image", "grep"}
    assert "unknown tool" in call(ws, "rm_rf").text


def test_list_files_with_sizes(ws):
    out = call(ws, "list_files").text.splitlines()
    assert "output/sub/data.csv\t8" in out and any(line.startswith("output/deck.pptx\t") for line in out)


def test_read_text_windows(ws):
    first = call(ws, "read_text", path="output/notes.md", limit=20).text
    assert first.startswith("line one\nRevenue gre") and "call again with offset=20" in first
    second = call(ws, "read_text", path="output/notes.md", offset=20, limit=5).text
    assert second.startswith("w 12%")
    assert "binary file" in call(ws, "read_text", path="output/blob.bin").text
    assert call(ws, "read_text", path="output/missing.md").text.startswith("error:")
    assert call(ws, "read_text", path="output/notes.md", offset="x").text.startswith("error:")


def test_pptx_text_reads_the_real_deck(ws):
    text = call(ws, "pptx_text", path="output/deck.pptx").text
    assert "--- slide 1 ---" in text and "Building Effective Agents" in text and "--- slide 10 ---" in text


def test_pptx_text_falls_back_to_the_zip_for_decks_python_pptx_refuses(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(deck("33__Open-XML-SDK__Presentation.potx"), root / "template.potx")
    text = WorkspaceTools(root).call("pptx_text", json.dumps({"path": "template.potx"})).text
    assert "raw slide text follows" in text or "--- slide" in text
    assert not text.startswith("error:")


def test_pdf_text(ws, tmp_path):
    pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open()
    for n in (1, 2):
        page = doc.new_page()
        page.insert_text((72, 72), f"Quarterly report page {n}")
    doc.save(ws.root / "output" / "report.pdf")
    text = call(ws, "pdf_text", path="output/report.pdf", first_page=2).text
    assert "--- page 2 ---" in text and "page 2" in text and "--- page 1 ---" not in text


def test_view_image_returns_a_data_url(ws):
    from cowork_judge.workflow.stub import _png_1px

    (ws.root / "output" / "p.png").write_bytes(_png_1px())
    result = call(ws, "view_image", path="output/p.png")
    assert result.image_data_url and result.image_data_url.startswith("data:image/png;base64,")
    assert base64.b64decode(result.image_data_url.split(",", 1)[1]) == _png_1px()
    assert call(ws, "view_image", path="output/notes.md").text.startswith("error:")


def test_grep(ws):
    assert call(ws, "grep", pattern=r"Revenue \d+").text == "(no matches)"
    out = call(ws, "grep", pattern=r"Revenue grew \d+%").text
    assert out == "output/notes.md:2: Revenue grew 12%"
    assert call(ws, "grep", pattern="(").text.startswith("error: bad regular expression")


def test_read_text_reads_only_the_window_of_a_huge_file(ws):
    import resource

    big = ws.root / "output" / "huge.md"
    with big.open("wb") as fh:
        fh.truncate(1024**3)  # 1 GiB sparse file of NULs would be binary: write a text head
        fh.seek(0)
        fh.write(b"# Title\n" + b"word " * 10_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = call(ws, "read_text", path="output/huge.md", limit=100).text
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert out.startswith("# Title\nword word") and "1073741824 bytes in all" in out
    assert (after - before) < 200 * 1024  # KiB: far below the file's 1 GiB


def test_pptx_text_refuses_a_zip_bomb(tmp_path):
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("ppt/slides/slide1.xml", b"<a:t>x</a:t>" + b" " * (40 * 1024 * 1024))
    (tmp_path / "bomb.pptx").write_bytes(buf.getvalue())
    out = WorkspaceTools(tmp_path).call("pptx_text", json.dumps({"path": "bomb.pptx"})).text
    assert out.startswith("error: not a readable OOXML deck (zip_bomb")


def test_aux_files_come_from_the_tests_dir_only(tmp_path):
    from testkit import make_ctx

    from cowork_judge.agentic.workspace import build_workspace
    from cowork_judge.core.rubric import normalize_rubric

    outside = tmp_path / "secret.txt"
    outside.write_text("not a tests file")
    ctx = make_ctx(tmp_path, {"a.md": "x"}, env={"JUDGE_AUX_FILES": f"helper.py,{outside},../secret.txt"})
    ctx.paths.tests_dir.mkdir(parents=True)
    (ctx.paths.tests_dir / "helper.py").write_text("print('aux')")
    rows = normalize_rubric([{"id": "A", "description": "a", "weight": 1}]).criteria
    root = build_workspace("block-01", rows, ctx.segment())
    assert (root / "helper.py").read_text() == "print('aux')"
    assert not (root / "secret.txt").exists()


def test_grep_with_a_backtracking_pattern_is_a_tool_error_not_a_hang(ws, monkeypatch):
    import cowork_judge.agentic.tools as tools

    monkeypatch.setattr(tools, "GREP_TIMEOUT_SEC", 1.0)
    (ws.root / "output" / "aaa.txt").write_text("a" * 40 + "!\n")
    out = call(ws, "grep", pattern="(a+)+$").text  # hours of backtracking in-process, GIL held
    assert out.startswith("error: ") and "backtracks" in out
