"""Renderers must only draw what is inside the deliverable: no linked files from outside
the output tree, no symlinked pages; and a legitimate deck is never called a zip bomb."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from cowork_judge.evidence import build_evidence, sniff_deck

from .conftest import require_tools


def _red_png(path: Path) -> None:
    pymupdf = pytest.importorskip("pymupdf")
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 200), 0)
    pix.set_rect(pix.irect, (255, 0, 0))
    pix.save(str(path))


def _red_pixels(png: Path) -> int:
    import pymupdf

    pix = pymupdf.Pixmap(str(png))
    if pix.width > 200:
        pix = pymupdf.Pixmap(pix, 200, int(200 * pix.height / pix.width), None)
    n = 0
    for y in range(pix.height):
        for x in range(pix.width):
            r, g, b = pix.pixel(x, y)[:3]
            n += r > 200 and g < 60 and b < 60
    return n


def _deck_linking(picture: Path, out: Path) -> None:
    """A one-slide deck whose picture is an EXTERNAL link (r:link) to `picture`."""
    pptx = pytest.importorskip("pptx")
    from pptx.util import Inches

    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    slide.shapes.add_picture(str(picture), Inches(1), Inches(1), Inches(4), Inches(4))
    buf = io.BytesIO()
    prs.save(buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "ppt/slides/_rels/slide1.xml.rels":
                data = re.sub(rb'Target="../media/image1.png"', f'Target="{picture.as_uri()}" TargetMode="External"'.encode(), data)
            if info.filename == "ppt/slides/slide1.xml":
                data = data.replace(b"r:embed=", b"r:link=")
            dst.writestr(info, data)


def test_linked_pictures_outside_the_deck_are_not_rendered(tmp_path):
    require_tools("soffice", "pymupdf")
    secret = tmp_path / "outside" / "secret.png"
    secret.parent.mkdir()
    _red_png(secret)
    out = tmp_path / "output"
    out.mkdir()
    _deck_linking(secret, out / "deck.pptx")
    summary = build_evidence(["deck.pptx"], tmp_path / "evidence", budget_sec=120, root=out, width_px=400)
    assert summary.pages_rendered == 1
    page = tmp_path / "evidence" / "pages" / "deck.pptx" / "page-001.png"
    assert _red_pixels(page) == 0


def test_html_deck_cannot_pull_symlinked_files_from_outside(tmp_path):
    require_tools("chromium", "playwright")
    outside = tmp_path / "tests"
    outside.mkdir()
    (outside / "rubric.html").write_text("<html><body style='background:#ff0000'><h1>SECRET RUBRIC</h1></body></html>")
    out = tmp_path / "output"
    out.mkdir()
    (out / "rub.html").symlink_to(outside / "rubric.html")
    (out / "inside.html").write_text("<html><body style='background:#ff0000'>inside</body></html>")
    (out / "deck.html").write_text(
        "<html><body><section><iframe src='rub.html' width=600 height=300></iframe></section>"
        "<section><iframe src='inside.html' width=600 height=300></iframe></section></body></html>"
    )
    summary = build_evidence(["deck.html"], tmp_path / "evidence", budget_sec=120, root=out, width_px=640)
    assert summary.pages_rendered == 2
    pages = tmp_path / "evidence" / "pages" / "deck.html"
    assert _red_pixels(pages / "page-001.png") == 0  # the symlinked page did not load
    assert _red_pixels(pages / "page-002.png") > 100  # a real file beside the deck does


def test_highly_compressible_picture_is_not_a_zip_bomb(tmp_path):
    pptx = pytest.importorskip("pptx")
    from pptx.util import Inches

    bmp = tmp_path / "white.bmp"
    width, height = 1600, 900
    row = b"\xff" * (width * 3)
    header = b"BM" + (54 + len(row) * height).to_bytes(4, "little") + b"\0\0\0\0" + (54).to_bytes(4, "little")
    dib = (40).to_bytes(4, "little") + width.to_bytes(4, "little") + height.to_bytes(4, "little") + b"\x01\x00\x18\x00" + b"\0" * 24
    bmp.write_bytes(header + dib + row * height)
    prs = pptx.Presentation()
    prs.slides.add_slide(prs.slide_layouts[6]).shapes.add_picture(str(bmp), Inches(1), Inches(1))
    prs.save(str(tmp_path / "deck.pptx"))
    result = sniff_deck(tmp_path / "deck.pptx")
    assert result.max_ratio is None or result.max_ratio < 1 or result.status == "ok"
    assert result.status == "ok", result.reason
