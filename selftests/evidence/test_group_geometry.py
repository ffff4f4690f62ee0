"""Absolute geometry through group transforms: offset/scale, rotation and flips, nested.

DrawingML: a group maps its child space (chOff/chExt) onto its frame (off/ext), then flips
about the frame's centre, then turns by ``rot`` (60000ths of a degree, clockwise) about it.
Expected values below are computed by hand in EMU; the LibreOffice tests check the same
frames against what the renderer of the evidence pages actually draws.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge.evidence.checks import DeckView, run_checks
from cowork_judge.evidence.structure import extract_structure

from .conftest import require_tools

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
IN = 914400


def _set_xfrm(parent, off, ext, ch_off=None, ch_ext=None, **attrs):
    """Replace ``parent/a:xfrm`` (spPr or grpSpPr) with the given values (EMU)."""
    from lxml import etree

    xfrm = parent.find(f"{A}xfrm")
    if xfrm is None:
        xfrm = etree.SubElement(parent, f"{A}xfrm")
        parent.remove(xfrm)
        parent.insert(0, xfrm)
    for child in list(xfrm):
        xfrm.remove(child)
    for key in list(xfrm.attrib):
        del xfrm.attrib[key]
    for key, value in attrs.items():
        xfrm.set(key, str(value))
    items = [("off", off, ("x", "y")), ("ext", ext, ("cx", "cy"))]
    if ch_off is not None:
        items += [("chOff", ch_off, ("x", "y")), ("chExt", ch_ext, ("cx", "cy"))]
    for tag, (a, b), (ka, kb) in items:
        el = etree.SubElement(xfrm, f"{A}{tag}")
        el.set(ka, str(a))
        el.set(kb, str(b))


def _nested_deck(path: Path, outer_attrs: list[dict], child_rot: int = 0) -> Path:
    """One slide per entry: outer group (scale x1000 / x500) ⊃ inner group (x2 / x3) ⊃ a red
    rectangle at (100, 200) sized 300 x 400 in the inner child space."""
    import pptx
    from pptx.dml.color import RGBColor
    from pptx.util import Emu

    prs = pptx.Presentation()
    for attrs in outer_attrs:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        outer = slide.shapes.add_group_shape()
        inner = outer.shapes.add_group_shape()
        rect = inner.shapes.add_shape(1, Emu(100), Emu(200), Emu(300), Emu(400))
        rect.name = "Rect"
        rect.fill.solid()
        rect.fill.fore_color.rgb = RGBColor(255, 0, 0)
        rect.line.fill.background()
        _set_xfrm(rect._element.spPr, (100, 200), (300, 400), **({"rot": child_rot} if child_rot else {}))
        _set_xfrm(inner._element.grpSpPr, (1000, 1000), (2000, 3000), (0, 0), (1000, 1000))
        _set_xfrm(outer._element.grpSpPr, (1000000, 500000), (4000000, 2000000), (0, 0), (4000, 4000), **attrs)
    prs.save(path)
    return path


def _frame(shape) -> tuple[int, int, int, int]:
    return (shape.box.x_emu, shape.box.y_emu, shape.box.cx_emu, shape.box.cy_emu)


def _rect(slide):
    return next(s for s in slide.shapes if s.name == "Rect")


def test_nested_scaled_groups_rotation_and_flips(tmp_path):
    # inner maps (100,200,300,400) to (1200,1600,600,1200); outer to (2200000,1300000,600000,600000):
    # centre (2500000, 1600000); the outer group's centre is (3000000, 1500000).
    deck = _nested_deck(tmp_path / "n.pptx", [{}, {"rot": 5400000}, {"flipH": 1}, {"flipV": 1},
                                              {"flipH": 1, "flipV": 1}, {"rot": 5400000, "flipH": 1}])
    slides = extract_structure(deck, strict=False).slides
    got = [(_frame(_rect(s)), _rect(s).rot_deg) for s in slides]
    assert got == [
        ((2200000, 1300000, 600000, 600000), 0.0),
        # centre offset (-500000, +100000) turned 90° clockwise → (-100000, -500000)
        ((2600000, 700000, 600000, 600000), 90.0),
        # mirrored about x = 3000000 → centre x 3500000
        ((3200000, 1300000, 600000, 600000), 0.0),
        # mirrored about y = 1500000 → centre y 1400000
        ((2200000, 1100000, 600000, 600000), 0.0),
        # both flips = a 180° turn about the centre
        ((3200000, 1100000, 600000, 600000), 180.0),
        # flip first, then turn: offset (+500000, +100000) turned 90° → (-100000, +500000)
        ((2600000, 1700000, 600000, 600000), 90.0),
    ]
    # the groups themselves: the inner frame (2000000,1000000,2000000,1500000) turns with the outer
    inner = next(s for s in slides[1].shapes if s.kind == "grpSp" and s.depth == 1)
    assert _frame(inner) == (1750000, 750000, 2000000, 1500000) and inner.rot_deg == 90.0


def test_child_rotation_under_group_flips_is_mirrored(tmp_path):
    deck = _nested_deck(tmp_path / "r.pptx", [{}, {"flipH": 1}, {"flipV": 1}, {"rot": 5400000}], child_rot=1800000)
    rots = [_rect(s).rot_deg for s in extract_structure(deck, strict=False).slides]
    assert rots == [30.0, 330.0, 330.0, 120.0]


def _one_group_deck(path: Path, child_rots: list[int]) -> Path:
    """A group scaling x by 2 and y by 1, one 400 x 100 child at the origin per slide."""
    import pptx
    from pptx.util import Emu

    prs = pptx.Presentation()
    for rot in child_rots:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        group = slide.shapes.add_group_shape()
        child = group.shapes.add_shape(1, Emu(0), Emu(0), Emu(400), Emu(100))
        child.name = "Rect"
        _set_xfrm(child._element.spPr, (0, 0), (400, 100), **({"rot": rot} if rot else {}))
        _set_xfrm(group._element.grpSpPr, (0, 0), (2000, 1000), (0, 0), (1000, 1000))
    prs.save(path)
    return path


def test_unequal_group_scale_follows_the_quarter_turn_rule(tmp_path):
    """A child turned by about 90° takes the group's y scale on its width (PowerPoint's rule,
    as LibreOffice implements it); a negative ``rot`` is not toggled (LibreOffice truncates
    the raw degrees, which is how it draws fixture 17's rot="-5400000" shapes)."""
    deck = _one_group_deck(tmp_path / "s.pptx", [0, 5400000, 16200000, -5400000])
    got = [(_frame(_rect(s)), _rect(s).rot_deg) for s in extract_structure(deck, strict=False).slides]
    # centre (200, 50) → (400, 50) in every case
    assert got == [((0, 0, 800, 100), 0.0),
                   ((200, -50, 400, 200), 90.0),
                   ((200, -50, 400, 200), 270.0),
                   ((0, 0, 800, 100), 270.0)]


def test_grouping_fixture_rotated_children_get_their_scaled_size():
    """Fixture 17: groups scaled 1344613/702 by 604838/460 with children at rot=-5400000."""
    from .conftest import require_decks

    slide = extract_structure(require_decks() / "17__poi__sample_pptx_grouping_issues.pptx", strict=False).slides[0]
    turned = [s for s in slide.shapes if s.rot_deg == 270.0]
    assert len(turned) == 4
    for shape in turned:  # a:ext 457 x 605 in child units, no width/height toggle
        assert shape.box.cx_emu == round(457 * 1344613 / 702) and shape.box.cy_emu == round(605 * 604838 / 460)


def _rotated_group_deck(path: Path) -> Path:
    """Slide 1: a 6 x 1 in text box in a group turned 90° (footprint 1 x 6 in, crossing the
    bottom edge) and a separate text box inside the turned footprint only."""
    import pptx
    from pptx.util import Emu, Pt

    prs = pptx.Presentation()  # 10 x 7.5 in
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    group = slide.shapes.add_group_shape()
    box = group.shapes.add_textbox(Emu(1 * IN), Emu(5 * IN), Emu(6 * IN), Emu(1 * IN))
    box.name, box.text_frame.text = "Turned", "A label turned with its group"
    box.text_frame.paragraphs[0].runs[0].font.size = Pt(18)
    _set_xfrm(box._element.spPr, (1 * IN, 5 * IN), (6 * IN, 1 * IN))
    _set_xfrm(group._element.grpSpPr, (1 * IN, 5 * IN), (6 * IN, 1 * IN), (1 * IN, 5 * IN), (6 * IN, 1 * IN),
              rot=5400000)
    other = slide.shapes.add_textbox(Emu(int(3.6 * IN)), Emu(3 * IN), Emu(int(0.8 * IN)), Emu(1 * IN))
    other.name, other.text_frame.text = "Other", "Crossed"
    prs.save(path)
    return path


def test_checks_use_the_turned_footprint(tmp_path):
    res = extract_structure(_rotated_group_deck(tmp_path / "t.pptx"), strict=False)
    turned = next(s for s in res.slides[0].shapes if s.name == "Turned")
    assert _frame(turned) == (1 * IN, 5 * IN, 6 * IN, 1 * IN) and turned.rot_deg == 90.0
    assert turned.footprint_pt() == (252.0, 180.0, 324.0, 612.0)  # 3.5-4.5 in x 2.5-8.5 in
    doc = run_checks("t", DeckView(res.slides, res.slide_width_emu, res.slide_height_emu))
    got = {(f.check, f.shape_name): f for f in doc.findings}
    assert got[("off_slide", "Turned")].measure["bottom_pt"] == 72.0  # 8.5 in on a 7.5 in slide
    overlap = got[("text_overlap", "Turned")]
    assert overlap.measure["other_shape_name"] == "Other" and overlap.measure["box_overlap_frac"] == 1.0


def _red_rects(pdf: Path) -> list[list[tuple[float, float, float, float]]]:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return [[tuple(d["rect"]) for d in page.get_drawings()
                 if d.get("fill") and tuple(round(c, 2) for c in d["fill"]) == (1.0, 0.0, 0.0)] for page in doc]


def test_frames_match_what_libreoffice_draws(tmp_path):
    require_tools("soffice", "pymupdf")
    from cowork_judge.evidence.capabilities import probe_capabilities
    from cowork_judge.evidence.render import soffice_to_pdf

    variants = [{}, {"rot": 5400000}, {"flipH": 1}, {"flipV": 1}, {"flipH": 1, "flipV": 1},
                {"rot": 5400000, "flipH": 1}, {"rot": 2700000}, {"rot": 10800000, "flipV": 1}]
    deck = _nested_deck(tmp_path / "n.pptx", variants, child_rot=5400000)
    caps = probe_capabilities()
    res = soffice_to_pdf(deck, "pptx", tmp_path / "render", soffice=caps.soffice.path, timeout_sec=120,
                         version=caps.soffice.version_tuple())
    assert res.pdf is not None, res.reason
    drawn = _red_rects(res.pdf)
    slides = extract_structure(deck, strict=False).slides
    assert len(drawn) == len(slides) == len(variants)
    for attrs, rects, slide in zip(variants, drawn, slides):
        assert len(rects) == 1, attrs
        mine = _rect(slide).footprint_pt()
        assert max(abs(a - b) for a, b in zip(mine, rects[0])) < 0.5, (attrs, mine, rects[0])


def test_grouping_fixture_matches_the_rendered_page(fixture_build):
    """Every filled shape of fixture 17 (nested, unequally scaled groups, turned children)
    lies where LibreOffice drew it."""
    require_tools("soffice", "pymupdf")
    import pymupdf

    summary, out = fixture_build
    deck = next(d for d in summary.decks if d.source.startswith("17__poi"))
    with pymupdf.open(out / deck.deck / "render.pdf") as doc:
        drawn = [tuple(d["rect"]) for d in doc[0].get_drawings() if d.get("fill")]
    shapes = json.loads((out / deck.deck / "pages" / "slide-001.json").read_text())["shapes"]
    from cowork_judge.evidence.documents import ShapeDoc

    checked = 0
    for raw in shapes:
        shape = ShapeDoc.model_validate(raw)
        if shape.box is None or shape.kind == "grpSp" or shape.box.cx_emu == 0 or shape.box.cy_emu == 0:
            continue
        mine = shape.footprint_pt()
        assert min(max(abs(a - b) for a, b in zip(mine, r)) for r in drawn) < 0.5, (shape.name, mine)
        checked += 1
    assert checked >= 60


_FRAME = '<a:off x="0" y="0"/><a:ext cx="10" cy="10"/><a:chOff x="0" y="0"/>'
BAD_ROT = f'<a:xfrm rot="abc">{_FRAME}<a:chExt cx="10" cy="10"/></a:xfrm>'
ZERO_CH = f'<a:xfrm>{_FRAME}<a:chExt cx="0" cy="0"/></a:xfrm>'


@pytest.mark.parametrize("xfrm", [BAD_ROT, ZERO_CH])
def test_bad_group_transform_is_an_extract_error_not_an_exception(tmp_path, xfrm):
    import zipfile

    deck = _nested_deck(tmp_path / "b.pptx", [{}])
    broken = tmp_path / "broken.pptx"
    with zipfile.ZipFile(deck) as zin, zipfile.ZipFile(broken, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "ppt/slides/slide1.xml":
                text = data.decode()
                start = text.index("<a:xfrm", text.index("<p:grpSpPr", text.index("<p:grpSp>")))
                end = text.index("</a:xfrm>", start) + len("</a:xfrm>")
                data = (text[:start] + xfrm + text[end:]).encode()
            zout.writestr(info, data)
    res = extract_structure(broken, strict=False)
    # the outer group maps 1:1 (a zero chExt scales by 1; an unreadable transform is recorded
    # and the children keep the parent's), so only the inner group's x2 / x3 applies
    assert _frame(_rect(res.slides[0])) == (1200, 1600, 600, 1200)
    fields = {e.field for e in res.errors}
    assert ("group_transform" in fields) == (xfrm == BAD_ROT)
