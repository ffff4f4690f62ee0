"""Image anchors of type2 checks (issue 34: the original 1.3.6 attached ``.png``/``.jpg``
anchors to its compare prompt).

An anchor whose content is a PNG, JPEG, GIF or WebP image (sniffed, whatever its name) is
loaded as an image and attached to the type2 request after ``<ground_truth>``, its file
named in the text; a text anchor is inlined as before. A corrupt, oversized or misnamed
image anchor leaves its checks unjudged ``asset_broken`` and lint reports it (A010).
End to end: the example deck with one type2 check's anchor a PNG is judged by the real
command line against the simulator (real ``openai`` client over HTTP), the row judged and
the anchor sent as a second image of its requests.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from cowork_judge.core.rubric import load_rubric
from cowork_judge.workflow.ppt_judge import assets
from cowork_judge.workflow.ppt_judge.assets import AnchorImage, load_task_checks, read_anchor
from cowork_judge.workflow.ppt_judge.content_prompt import type2_messages
from cowork_judge.workflow.ppt_judge.deck import Page

REPO = Path(__file__).resolve().parents[2]
ROW = "T2-WORKFLOWS-AGENTS"
PNG_REF = "anchors/workflow-diagram.png"


def image_bytes(fmt: str, size: tuple[int, int] = (120, 80), **save: object) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (30, 90, 200)).save(buf, format=fmt, **save)
    return buf.getvalue()


def package(dest: Path, anchor: bytes) -> Path:
    """The example deck's tests/, with `ROW`'s anchors the text one plus `PNG_REF` (`anchor`)."""
    tests = dest / "tests"
    shutil.copytree(REPO / "tests", tests)
    tcd = tests / "workflow_assets" / "ppt_judge" / "task_check_dir"
    (tcd / PNG_REF).write_bytes(anchor)
    doc = json.loads((tcd / "type2.json").read_text())
    for check in doc["checks"]:
        if check["id"] == ROW:
            check["anchor_refs"].append(PNG_REF)
    (tcd / "type2.json").write_text(json.dumps(doc, indent=2))
    manifest = json.loads((tcd / "manifest.json").read_text())
    manifest["counts"]["anchors"] += 1
    (tcd / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return tests


@pytest.mark.parametrize(("name", "fmt", "mime"), [
    ("fig.png", "PNG", "image/png"), ("photo.jpg", "JPEG", "image/jpeg"), ("chart.gif", "GIF", "image/gif"),
    ("shot.webp", "WEBP", "image/webp"), ("figure.bin", "PNG", "image/png"),  # told by content, not by name
])
def test_an_image_anchor_is_loaded_as_an_image(tmp_path, name, fmt, mime):
    data = image_bytes(fmt)
    (tmp_path / name).write_bytes(data)
    anchor, why = read_anchor(tmp_path, name)
    assert why is None and isinstance(anchor, AnchorImage)
    assert (anchor.mime, anchor.data, anchor.width, anchor.height, anchor.original_size) == (mime, data, 120, 80, None)


def test_a_text_anchor_stays_text(tmp_path):
    (tmp_path / "a.md").write_text("Workflows follow predefined code paths.")
    assert read_anchor(tmp_path, "a.md") == ("Workflows follow predefined code paths.", None)


@pytest.mark.parametrize(("name", "data", "words"), [
    ("fig.png", image_bytes("PNG")[:60], "a PNG image that cannot be decoded"),
    ("fig.jpg", b"\xff\xd8\xff\xe0" + b"\x00" * 40, "a JPEG image that cannot be decoded"),
    ("fig.png", b"just some text, not a picture", "named .png but its content is no PNG, JPEG, GIF or WebP image"),
    ("fig.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * (assets.MAX_ANCHOR_IMAGE_BYTES + 1), "over the 5242880-byte limit"),
])
def test_a_broken_image_anchor_is_a_named_problem(tmp_path, name, data, words):
    (tmp_path / name).write_bytes(data)
    anchor, why = read_anchor(tmp_path, name)
    assert anchor == "" and why is not None and words in why, why


def test_pixels_are_capped_and_a_large_image_is_downscaled(tmp_path, monkeypatch):
    (tmp_path / "big.jpg").write_bytes(image_bytes("JPEG", (4000, 1000)))
    anchor, why = read_anchor(tmp_path, "big.jpg")
    assert why is None and isinstance(anchor, AnchorImage)
    assert (anchor.mime, anchor.width, anchor.height, anchor.original_size) == ("image/png", 2048, 512, (4000, 1000))
    with Image.open(io.BytesIO(anchor.data)) as im:
        assert im.format == "PNG" and im.size == (2048, 512)
    monkeypatch.setattr(assets, "MAX_ANCHOR_IMAGE_PIXELS", 1_000_000)
    _, why = read_anchor(tmp_path, "big.jpg")
    assert why is not None and "4000x1000 pixels, over the 1,000,000-pixel limit" in why


def _page(tmp_path: Path) -> Page:
    png = tmp_path / "page-001.png"
    png.write_bytes(image_bytes("PNG", (160, 90)))
    return Page(number=1, slide=1, image=png, image_rel="pages/page-001.png", title="Workflows", text="Workflows vs agents")


def test_the_type2_request_attaches_the_image_after_the_ground_truth(tmp_path):
    row = next(c for c in load_rubric(REPO / "tests" / "rubric.json").criteria if c.id == ROW)
    picture = AnchorImage("image/png", image_bytes("PNG"), 120, 80)
    text_only = type2_messages(row, [("anchors/a.md", "truth")], _page(tmp_path), total_pages=1, deck_rel="deck.pptx",
                               deck_wide=False)
    assert [p["type"] for p in text_only[1]["content"]] == ["text", "image_url", "text"]
    both = type2_messages(row, [("anchors/a.md", "truth"), (PNG_REF, picture)], _page(tmp_path), total_pages=1,
                          deck_rel="deck.pptx", deck_wide=False)
    parts = both[1]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "text", "text", "image_url", "text"]
    assert parts[:2] == text_only[1]["content"][:2]  # the page's prefix is unchanged (prompt caching)
    assert '"ref": "anchors/a.md", "text": "truth"' in parts[2]["text"] and PNG_REF in parts[2]["text"]
    assert PNG_REF in parts[3]["text"] and "Ground-truth image" in parts[3]["text"]
    assert parts[4]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "<rubric_rows>" in parts[5]["text"] and "<rubric_rows>" not in parts[2]["text"]


def _lint(tests: Path) -> str:
    proc = subprocess.run([str(Path(sys.executable).parent / "lint-rubric"), str(tests)], capture_output=True, text=True,
                          check=False, timeout=120)
    return proc.stdout + proc.stderr


def test_lint_accepts_an_image_anchor_and_reports_a_broken_one(tmp_path):
    tests = package(tmp_path / "good", image_bytes("PNG"))
    checks = load_task_checks(tests / "workflow_assets" / "ppt_judge")
    assert checks.problems == [] and checks.broken == {} and list(checks.anchor_images) == [PNG_REF]
    assert ROW in checks.type2 and checks.anchor(PNG_REF) == checks.anchor_images[PNG_REF]
    out = _lint(tests)
    assert "A010" not in out and "A001" not in out, out
    broken = package(tmp_path / "bad", image_bytes("PNG")[:60])
    checks = load_task_checks(broken / "workflow_assets" / "ppt_judge")
    assert list(checks.broken) == [ROW] and "a PNG image that cannot be decoded" in checks.broken[ROW]
    out = _lint(broken)
    assert "A010" in out and "workflow-diagram.png" in out and "cannot be decoded" in out, out


def _judge(tests: Path, logs: Path) -> tuple[dict, list]:
    from cowork_judge.sim import DemoPolicy, SimServer

    rollout = REPO / "examples" / "rollouts" / "deck"
    shutil.copytree(rollout / "logs" / "agent", logs / "agent")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_", "ANTHROPIC_"))}
    with SimServer(DemoPolicy()) as server:
        env.update(JUDGE_API_KEY="sim-demo-key", JUDGE_BASE_URL=server.url, JUDGE_MODEL="simulated-judge",
                   JUDGE_START_JITTER="0", JUDGE_WORKFLOW_START_JITTER="0", PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(rollout / "app"),
                               "--logs-dir", str(logs), "--tests-dir", str(tests), "--alt-output-dir", str(rollout / "output")],
                              env=env, capture_output=True, text=True, timeout=300, check=False)
        entries = server.log.entries()
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((logs / "verifier" / "result.json").read_text()), entries


@pytest.mark.parametrize("anchor", ["png", "corrupt"])
def test_a_deck_with_an_image_anchor_is_judged_end_to_end(tmp_path, anchor):
    if shutil.which("soffice") is None and shutil.which("libreoffice") is None:
        pytest.skip("LibreOffice is not installed: the deck rollout renders evidence")
    data = image_bytes("PNG", (640, 360)) if anchor == "png" else image_bytes("PNG")[:60]
    doc, entries = _judge(package(tmp_path, data), tmp_path / "logs")
    row = next(r for r in doc["results"] if r["id"] == ROW)
    asked = [e for e in entries if e.row_ids == [ROW]]
    if anchor == "corrupt":
        assert not row["judged"] and row["error_kind"] == "asset_broken" and "cannot be decoded" in row["reason"]
        assert asked == []
        return
    assert row["judged"] and row.get("error_kind") is None, row
    assert asked and all(e.status == 200 and e.images == 2 for e in asked), [(e.status, e.images) for e in asked]
    others = [e for e in entries if e.row_ids and e.row_ids[0].startswith("T2-") and e.row_ids != [ROW]]
    assert others and all(e.images == 1 for e in others)  # text anchors: the page image only
    assert doc["extra_fields"]["judge_coverage"] == 1.0
