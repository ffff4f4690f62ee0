"""A deck of text a viewer does and does not see, built with python-pptx + lxml (issue 27).

`build_visibility_deck(path)` writes one slide per case of `CASES`. Each slide has a
visible title ("Case <id>") and one probe text ("probe <id> words …") placed and coloured
as the case says. `CASES` maps the case id to the reason the evidence must give
(`HiddenText.reason`), or None when the probe is visible. The cases are the ways a deck
hides text (slide, layout and master backgrounds, theme colours through the colour map,
a shape's own fill, near-identical colours, alpha, no fill, inherited tiny sizes, covering
shapes, hidden groups) and the look-alikes that are visible (white on a filled shape, on a
shape below, on a picture or gradient, dark theme colours, yellow on white, outlines,
highlights), and two a renderer draws differently (`RENDERERS_DISAGREE`). The selftests render it with LibreOffice to check that the page shows what the
evidence claims.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lxml import etree

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NSDECL = f'xmlns:a="{A}" xmlns:p="{P}" xmlns:r="{R}"'

RENDERERS_DISAGREE = frozenset({"darkmap", "darkmaptext"})
"""Cases drawn differently by PowerPoint and LibreOffice: a master background under a slide's
own colour map (PowerPoint resolves ``bg1`` with the slide's map: black; LibreOffice with
the master's: white). Unsure, the evidence calls neither probe hidden."""

CASES: dict[str, str | None] = {
    # hidden
    "white": "background_colour",            # #FFFFFF on the master's bg1 background
    "nearwhite": "background_colour",        # #F7F7F7 on white
    "bgone": "background_colour",            # schemeClr bg1 (→ lt1 through the colour map) on white
    "darkslide": "background_colour",        # #202020 on a #1B1B1B slide background
    "ownfill": "background_colour",          # #4472C4 text in a #4472C4 rectangle
    "accent": "background_colour",           # accent2 text (lumMod 97 %) in an accent2 rectangle
    "layoutbg": "background_colour",         # #0F2A43 text on a layout background #0E2841
    "alphazero": "transparent",              # black, alpha 0
    "alphalow": "transparent",               # black, alpha 4 %
    "nofill": "transparent",                 # a:noFill glyphs
    "tinylist": "tiny",                      # 3 pt through the shape's list style
    "zerofont": "tiny",                      # sz="0" (out of the schema's range; LibreOffice draws nothing)
    "covered": "covered",                    # under an opaque white rectangle drawn later
    "jpegcover": "covered",                  # under an opaque JPEG picture drawn later
    "hiddengroup": "hidden_shape",           # inside a hidden group
    "groupoff": "off_slide",                 # a group child mapped outside the slide
    # visible
    "onaccent": None,                        # white text in an accent1 rectangle
    "onshape": None,                         # white text box over a larger dark rectangle below
    "onpicture": None,                       # white text on a picture background
    "ongradient": None,                      # white text on a dark gradient background
    "halfgradient": None,                    # white text on a white-to-black gradient
    "dimmedbg": None,                        # bg1 with lumMod 10 % (near black) on white
    "grey": None,                            # #999999 on white
    "yellow": None,                          # #FFFF00 on white: low luminance contrast, clear hue
    "outlined": None,                        # white glyphs with a black outline
    "highlight": None,                       # white text on a black highlight
    "autoshape": None,                       # python-pptx autoshape: lt1 text on the accent1 style fill
    "darkmap": None,                         # #000000 on a slide whose own colour map turns the master's bg1 dark
    "darkmaptext": None,                     # tx1 (→ lt1, white) on that slide
    "partial": None,                         # white text box half over a dark rectangle
    "zerobox": None,                         # a text box of zero width and height: its text is still drawn
    "overpicture": None,                     # white text box over a dark picture shape
}


OTHER_CHANNELS: dict[str, str] = {
    "notes": "notes",                        # the probe is the slide's speaker notes
    "alttext": "alt_text",                   # the probe is a rectangle's alternative text (cNvPr descr)
}
"""Text a deck carries outside any slide's drawing: case id → the guard's channel reason. Built
by `build_visibility_deck` when asked for (not in `CASES`, which are evidence reasons)."""


def _rpr(inner: str, size: int = 2000, extra: str = "") -> etree._Element:
    return etree.fromstring(f'<a:rPr {NSDECL} lang="en-US" sz="{size}" {extra}>{inner}</a:rPr>')


def _solid(colour: str, transforms: str = "") -> str:
    if colour.startswith("scheme:"):
        return f'<a:solidFill><a:schemeClr val="{colour[7:]}">{transforms}</a:schemeClr></a:solidFill>'
    return f'<a:solidFill><a:srgbClr val="{colour}">{transforms}</a:srgbClr></a:solidFill>'


def _image(path: Path, rgb: tuple[int, int, int], fmt: str) -> Path:
    import pymupdf

    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 64, 48), False)
    pix.set_rect(pix.irect, rgb)
    path.write_bytes(pix.tobytes(fmt))
    return path


PROBE = "probe {case} words shown here"
"""The probe text of a case (``{case}`` is its id)."""


def _probe(slide, case: str, x: float, y: float, w: float = 6.0, h: float = 0.8, rpr: etree._Element | None = None,
           text: str = PROBE):
    from pptx.util import Inches

    box = slide.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h))
    run = box.text_frame.paragraphs[0].add_run()
    run.text = text.format(case=case)
    if rpr is not None:
        _restyle(run._r, rpr)
    return box


def _restyle(run: etree._Element, rpr: etree._Element) -> None:
    """Replace the run's ``a:rPr`` with `rpr`."""
    old = run.find(f"{{{A}}}rPr")
    if old is not None:
        run.remove(old)
    run.insert(0, rpr)


def _rect(slide, x: float, y: float, w: float, h: float, fill: str):
    """A rectangle without outline filled with `fill` (srgb hex or scheme:name)."""
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches

    shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(x), Inches(y), Inches(w), Inches(h))
    sppr = shape._element.spPr
    for child in list(sppr):
        if etree.QName(child).localname in ("solidFill", "noFill", "ln"):
            sppr.remove(child)
    sppr.append(etree.fromstring(f"<x {NSDECL}>{_solid(fill)}</x>")[0])
    sppr.append(etree.fromstring(f'<a:ln {NSDECL}><a:noFill/></a:ln>'))
    return shape


def _set_background(element, inner: str) -> None:
    """Give a slide or layout ``p:cSld`` the background ``<p:bg><p:bgPr>inner</p:bgPr></p:bg>``."""
    csld = element.find(f"{{{P}}}cSld")
    old = csld.find(f"{{{P}}}bg")
    if old is not None:
        csld.remove(old)
    csld.insert(0, etree.fromstring(f"<p:bg {NSDECL}><p:bgPr>{inner}<a:effectLst/></p:bgPr></p:bg>"))


def _dark_map(slide) -> None:
    ovr = slide._element.find(f"{{{P}}}clrMapOvr")
    if ovr is not None:
        slide._element.remove(ovr)
    mapping = ('bg1="dk1" tx1="lt1" bg2="dk2" tx2="lt2" accent1="accent1" accent2="accent2" accent3="accent3" '
               'accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"')
    node = etree.fromstring(f"<p:clrMapOvr {NSDECL}><a:overrideClrMapping {mapping}/></p:clrMapOvr>")
    slide._element.insert(list(slide._element).index(slide._element.find(f"{{{P}}}cSld")) + 1, node)


def build_visibility_deck(path: Path, cases: Iterable[str] | None = None, text: str = PROBE) -> Path:
    """Write the deck (one slide per case id of `cases`, default `CASES`, in order; ids of
    `OTHER_CHANNELS` too) to `path`, each probe saying `text` (``{case}`` replaced by the case
    id); return it.

    Raises:
        ValueError: an unknown case id.
    """
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    work = path.parent
    work.mkdir(parents=True, exist_ok=True)
    for case in cases or CASES:
        layout = prs.slide_layouts[10 if case == "layoutbg" else 5]
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = f"Case {case}"
        if case == "white":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("FFFFFF")))
        elif case == "nearwhite":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("F7F7F7")))
        elif case == "bgone":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("scheme:bg1")))
        elif case == "darkslide":
            _set_background(slide._element, _solid("1B1B1B"))
            _restyle(slide.shapes.title.text_frame.paragraphs[0].runs[0]._r, _rpr(_solid("FFFFFF"), 4000))
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("202020")))
        elif case == "ownfill":
            shape = _rect(slide, 1, 3, 6, 1, "4472C4")
            shape.text_frame.text = text.format(case=case)
            _restyle(shape.text_frame.paragraphs[0].runs[0]._r, _rpr(_solid("4472C4")))
        elif case == "accent":
            shape = _rect(slide, 1, 3, 6, 1, "scheme:accent2")
            shape.text_frame.text = text.format(case=case)
            _restyle(shape.text_frame.paragraphs[0].runs[0]._r, _rpr(_solid("scheme:accent2", '<a:lumMod val="97000"/>')))
        elif case == "layoutbg":
            _set_background(layout._element, _solid("0E2841"))
            _restyle(slide.shapes.title.text_frame.paragraphs[0].runs[0]._r, _rpr(_solid("FFFFFF"), 4000))
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("0F2A43")))
        elif case in ("darkmap", "darkmaptext"):
            _dark_map(slide)
            colour = _solid("000000") if case == "darkmap" else _solid("scheme:tx1")
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(colour))
        elif case == "alphazero":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("000000", '<a:alpha val="0"/>')))
        elif case == "alphalow":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("000000", '<a:alpha val="4000"/>')))
        elif case == "nofill":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr("<a:noFill/>"))
        elif case == "tinylist":
            box = _probe(slide, case, 1, 3, text=text)
            lst = box.text_frame._txBody.find(f"{{{A}}}lstStyle")
            lst.append(etree.fromstring(f'<a:lvl1pPr {NSDECL}><a:defRPr sz="300"/></a:lvl1pPr>'))
        elif case == "zerofont":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr("", size=0))
        elif case == "zerobox":
            from pptx.util import Emu

            box = slide.shapes.add_textbox(Inches(2), Inches(3), Emu(0), Emu(0))
            box.text_frame.text = text.format(case=case)
        elif case == "covered":
            _probe(slide, case, 1, 3, text=text)
            _rect(slide, 0.8, 2.8, 6.5, 1.3, "FFFFFF")
        elif case == "jpegcover":
            _probe(slide, case, 1, 3, text=text)
            slide.shapes.add_picture(str(_image(work / "cover.jpg", (255, 255, 255), "jpeg")),
                                     Inches(0.8), Inches(2.8), Inches(6.5), Inches(1.3))
        elif case in ("hiddengroup", "groupoff"):
            group = slide.shapes.add_group_shape()
            box = group.shapes.add_textbox(Inches(1), Inches(3), Inches(6), Inches(0.8))
            box.text_frame.text = text.format(case=case)
            if case == "hiddengroup":
                group._element.find(f"{{{P}}}nvGrpSpPr/{{{P}}}cNvPr").set("hidden", "1")
            else:  # the group's child space is moved: its child lands right of the slide
                xfrm = group._element.find(f"{{{P}}}grpSpPr/{{{A}}}xfrm")
                xfrm.find(f"{{{A}}}off").set("x", str(int(Inches(11))))
                xfrm.find(f"{{{A}}}chOff").set("x", str(int(Inches(1))))
        elif case == "onaccent":
            shape = _rect(slide, 1, 3, 6, 1, "scheme:accent1")
            shape.text_frame.text = text.format(case=case)
            _restyle(shape.text_frame.paragraphs[0].runs[0]._r, _rpr(_solid("FFFFFF")))
        elif case == "onshape":
            _rect(slide, 0.5, 2.5, 7, 2, "1F3864")
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("FFFFFF")))
        elif case == "onpicture":
            image = _image(work / "dark.png", (30, 30, 60), "png")
            _, rid = slide.part.get_or_add_image_part(str(image))
            _set_background(slide._element, f'<a:blipFill><a:blip r:embed="{rid}"/><a:stretch><a:fillRect/></a:stretch>'
                                            '</a:blipFill>')
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("FFFFFF")))
        elif case in ("ongradient", "halfgradient"):
            top, bottom = ("102030", "203040") if case == "ongradient" else ("FFFFFF", "000000")
            _set_background(slide._element, f'<a:gradFill><a:gsLst><a:gs pos="0"><a:srgbClr val="{top}"/></a:gs>'
                                            f'<a:gs pos="100000"><a:srgbClr val="{bottom}"/></a:gs></a:gsLst>'
                                            '<a:lin ang="0" scaled="0"/></a:gradFill>')
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("FFFFFF")))
        elif case == "dimmedbg":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("scheme:bg1", '<a:lumMod val="10000"/>')))
        elif case == "grey":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("999999")))
        elif case == "yellow":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("FFFF00")))
        elif case == "outlined":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr('<a:ln w="19050"><a:solidFill><a:srgbClr val="000000"/></a:solidFill></a:ln>'
                                               + _solid("FFFFFF")))
        elif case == "highlight":
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("FFFFFF") + '<a:highlight><a:srgbClr val="000000"/></a:highlight>'))
        elif case == "autoshape":
            from pptx.enum.shapes import MSO_SHAPE

            shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(1), Inches(3), Inches(6), Inches(1))
            shape.text_frame.text = text.format(case=case)
        elif case == "partial":
            _rect(slide, 0.5, 2.5, 3.5, 2, "1F3864")
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("FFFFFF")))
        elif case == "overpicture":
            slide.shapes.add_picture(str(_image(work / "dark2.png", (20, 20, 20), "png")),
                                     Inches(0.5), Inches(2.5), Inches(7), Inches(2))
            _probe(slide, case, 1, 3, text=text, rpr=_rpr(_solid("FFFFFF")))
        elif case == "notes":
            slide.notes_slide.notes_text_frame.text = text.format(case=case)
        elif case == "alttext":
            from pptx.enum.shapes import MSO_SHAPE

            rect = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(7), Inches(6), Inches(1), Inches(0.5))
            rect._element.nvSpPr.cNvPr.set("descr", text.format(case=case))
        else:
            raise ValueError(f"unknown case {case!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(path)
    return path


__all__ = ["CASES", "OTHER_CHANNELS", "PROBE", "RENDERERS_DISAGREE", "build_visibility_deck"]
