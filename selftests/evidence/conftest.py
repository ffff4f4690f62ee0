"""Fixtures for the evidence tests: the shared real decks, built ONCE per session, and a
synthetic deck set (one slide per defect, a PDF deck, an HTML deck) built once too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cowork_judge.evidence import build_evidence, probe_capabilities

DECKS_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "decks"
HANG_GUARD_SEC = 120.0
"""Per-deck bound: a hang, not a speed target (speed lives in bench/render.py)."""


def require_decks() -> Path:
    if not DECKS_DIR.is_dir():
        pytest.skip(f"fixture decks not found at {DECKS_DIR}")
    return DECKS_DIR


def require_tools(*names: str) -> None:
    caps = probe_capabilities()
    for name in names:
        tool = getattr(caps, name)
        if not tool.available:
            pytest.skip(f"{name} unavailable: {tool.reason}")


@pytest.fixture(scope="session")
def decks_dir() -> Path:
    return require_decks()


@pytest.fixture(scope="session")
def fixture_build(tmp_path_factory, decks_dir):
    """All shared fixture decks through sniff → structure → render → checks, once."""
    out = tmp_path_factory.mktemp("evidence-fixtures")
    names = sorted(p.name for p in decks_dir.iterdir() if p.is_file() and p.name != "SOURCES.md")
    summary = build_evidence(names, out, budget_sec=1200, width_px=960, root=decks_dir)
    return summary, out


def make_defects_deck(path: Path) -> Path:
    """One slide per defect (python-pptx default 10 x 7.5 in template):
    1 off-slide box, 2 overlapping text, 3 tiny font, 4 leftover placeholder prompt, 5 blank,
    6 overflow (fixed frame), 7 wrap="none" label wider than its box (NOT a defect),
    8 hidden slide, 9 nested groups with scaled child coordinates."""
    import pptx
    from pptx.enum.text import MSO_AUTO_SIZE
    from pptx.util import Inches, Pt

    prs = pptx.Presentation()
    blank = prs.slide_layouts[6]

    def box(slide, x, y, w, h, text, size=18, wrap=True, name=None):
        tb = slide.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h))
        tf = tb.text_frame
        tf.word_wrap, tf.auto_size = wrap, MSO_AUTO_SIZE.NONE
        tf.text = text
        for run in tf.paragraphs[0].runs:
            run.font.size = Pt(size)
        tb.name = name or tb.name
        return tb

    s = prs.slides.add_slide(blank)
    box(s, 1, 1, 4, 1, "Normal text here", name="Inside")
    box(s, 8.5, 3, 3, 1, "This box hangs off the right edge", name="OffRight")
    s = prs.slides.add_slide(blank)
    box(s, 1, 1, 5, 1, "First overlapping sentence", 24, name="A")
    box(s, 1.2, 1.1, 5, 1, "Second overlapping sentence", 24, name="B")
    box(s, 1, 4, 5, 1, "Separate text far away", 24, name="C")
    s = prs.slides.add_slide(blank)
    box(s, 1, 1, 6, 1, "Readable heading text", 28, name="Big")
    box(s, 1, 3, 6, 1, "microscopic footnote text nobody can read", 5, name="Tiny")
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Quarterly results"
    s.placeholders[1].text = "Click to add text"
    prs.slides.add_slide(blank)
    s = prs.slides.add_slide(blank)
    box(s, 1, 1, 4, 1, " ".join(["This sentence is repeated to overflow a small frame."] * 12), 20, name="Overflowing")
    s = prs.slides.add_slide(blank)
    box(s, 1, 1, 1, 0.6, "A long single line label that is wider than its box", 18, wrap=False, name="NoWrap")
    s = prs.slides.add_slide(blank)
    box(s, 1, 1, 5, 1, "Hidden slide text", 24, name="HiddenText")
    s._element.set("show", "0")
    s = prs.slides.add_slide(blank)
    outer = s.shapes.add_group_shape()
    inner = outer.shapes.add_group_shape()
    child = inner.shapes.add_textbox(Inches(1), Inches(1), Inches(2), Inches(1))
    child.text_frame.word_wrap, child.text_frame.auto_size = True, MSO_AUTO_SIZE.NONE
    child.text_frame.text = "Grouped text"
    child.text_frame.paragraphs[0].runs[0].font.size = Pt(10)
    child.name = "Child"
    prs.save(path)
    _scale_groups(path)
    return path


def _scale_groups(path: Path) -> None:
    """Rewrite slide 9's group transforms: outer maps child space (0,0)-(8in,4in) onto
    (1in,2in)-(5in,4in) (scale 0.5); inner is identity. Child (1in,1in,2in,1in) must land at
    (1.5in, 2.5in, 1in, 0.5in) = (1371600, 2286000, 914400, 457200) EMU."""
    import zipfile

    from lxml import etree

    a = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
    p = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "ppt/slides/slide9.xml":
                root = etree.fromstring(data)
                groups = root.findall(f".//{p}grpSp")
                values = [((914400, 1828800), (3657600, 1828800), (0, 0), (7315200, 3657600)),
                          ((0, 0), (7315200, 3657600), (0, 0), (7315200, 3657600))]
                for grp, (off, ext, ch_off, ch_ext) in zip(groups, values):
                    xfrm = grp.find(f"{p}grpSpPr/{a}xfrm")
                    for tag, (x, y) in (("off", off), ("ext", ext), ("chOff", ch_off), ("chExt", ch_ext)):
                        el = xfrm.find(f"{a}{tag}")
                        el.set("cx" if tag.endswith("xt") else "x", str(x))
                        el.set("cy" if tag.endswith("xt") else "y", str(y))
                data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            dst.writestr(info, data)
    shutil.move(tmp, path)


def make_pdf_deck(path: Path) -> Path:
    """Two 720 x 405 pt pages: normal text, then a 5 pt line and a lorem ipsum line."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=720, height=405)
    page.insert_text((72, 100), "A PDF deck title", fontsize=32)
    page = doc.new_page(width=720, height=405)
    page.insert_text((72, 100), "Lorem ipsum dolor sit amet", fontsize=24)
    page.insert_text((72, 300), "tiny source note", fontsize=5)
    doc.save(path)
    doc.close()
    return path


HTML_DECK = """<!doctype html><html><head><style>
body{margin:0;font-family:sans-serif} section{width:1280px;height:720px;box-sizing:border-box;padding:40px}
</style><script>document.title = "scripts are not run";</script></head><body>
<section><h1>Slide one</h1><p>Hello</p></section>
<section><h1>Slide two</h1><img src="http://203.0.113.1/blocked.png" alt=""></section>
<section><h1>Slide three</h1><section><p>nested, same slide</p></section></section>
</body></html>"""


@pytest.fixture(scope="session")
def synthetic_build(tmp_path_factory):
    """defects.pptx + deck.pdf + slides.html built once; returns (summary, out_dir, src_dir)."""
    src = tmp_path_factory.mktemp("synthetic-src")
    make_defects_deck(src / "defects.pptx")
    make_pdf_deck(src / "deck.pdf")
    (src / "slides.html").write_text(HTML_DECK, encoding="utf-8")
    (src / "notes.txt").write_text("not a deck", encoding="utf-8")
    out = tmp_path_factory.mktemp("synthetic-evidence")
    summary = build_evidence(["defects.pptx", "deck.pdf", "slides.html", "notes.txt"], out, budget_sec=600,
                             width_px=800, root=src)
    return summary, out, src
