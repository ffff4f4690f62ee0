"""One bad coordinate loses that shape's geometry, never the slide's other shapes."""

from __future__ import annotations

import io
import re
import zipfile

import pytest

pptx = pytest.importorskip("pptx", reason="python-pptx reads the structure")

from cowork_judge.evidence.structure import coord_emu, extract_structure  # noqa: E402


def _deck_with_a_huge_coordinate(path):
    from pptx.util import Inches

    prs = pptx.Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    for i, text in enumerate(["alpha", "beta", "gamma"]):
        slide.shapes.add_textbox(Inches(1), Inches(1 + i), Inches(3), Inches(0.5)).text_frame.text = text
    buf = io.BytesIO()
    prs.save(buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    with zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "ppt/slides/slide1.xml":  # the second box gets a 400-digit x
                offs = [m.start() for m in re.finditer(rb'<a:off x="\d+"', data)]
                start = offs[1] + len(b'<a:off x="')
                end = data.index(b'"', start)
                data = data[:start] + b"9" * 400 + data[end:]
            out.writestr(info, data)


def test_a_huge_coordinate_loses_only_that_shapes_geometry(tmp_path):
    deck = tmp_path / "bigx.pptx"
    _deck_with_a_huge_coordinate(deck)
    res = extract_structure(deck, strict=False)
    slide = res.slides[0]
    assert [s.text.text for s in slide.shapes if s.text] == ["alpha", "beta", "gamma"]
    assert [s.box is not None for s in slide.shapes] == [True, False, True]
    errors = [e for e in slide.extract_errors if e.field == "geometry"]
    assert len(errors) == 1 and errors[0].shape and "ST_Coordinate range" in errors[0].error


def test_coordinates_within_range():
    assert coord_emu("914400") == 914400 and coord_emu("1in") == 914400 and coord_emu("-12700") == -12700
    for bad in ("9" * 400, "1e9", "99999999999999999999in"):
        with pytest.raises(ValueError):
            coord_emu(bad)
