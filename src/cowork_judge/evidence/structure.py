"""Structure extraction of OOXML decks: slides, shapes with absolute geometry, text, tables,
charts, pictures, notes. Fault isolation: a failing field loses that field, a failing slide
loses that slide, a deck python-pptx cannot open loses the structure layer only.

python-pptx is the package layer (parts, relationships, slide order); shape content is read
with lxml from the part XML so one odd element never aborts a slide.
"""

from __future__ import annotations

import io
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from lxml import etree

from .colour import NO_PAINT, UNKNOWN, Colour, Palette, clr_map, fill_element, paint, style_paint
from .documents import (
    Box,
    ChartDoc,
    ExtractError,
    Paint,
    Paragraph,
    PictureDoc,
    Run,
    Series,
    ShapeDoc,
    SlideDoc,
    TableDoc,
    TextFrame,
)
from .package import readable_copy
from .textstyle import (
    NS,
    RunStyle,
    StyleContext,
    body_props,
    master_style,
    run_style,
    theme_fonts,
)
from .visibility import assign_backdrops, shape_text, split_visible

__all__ = ["StructureResult", "extract_structure", "split_visible"]

R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"
DGM_NS = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
RT_THEME = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/theme"
SHAPE_TAGS = {"sp", "pic", "graphicFrame", "grpSp", "cxnSp", "contentPart"}
_UNITS_EMU = {"in": 914400, "cm": 360000, "mm": 36000, "pt": 12700, "pc": 152400, "pi": 152400}
"""ST_UniversalMeasure units (ECMA-376 Part 1 §22.9.2.15) in EMU."""
_MASTER_TYPE = {"ctrTitle": "title", "subTitle": "body", "obj": "body", "tbl": "body", "chart": "body",
                "dgm": "body", "media": "body", "clipArt": "body", "pic": "body"}
"""Placeholder types a master does not carry, mapped to the master placeholder they inherit
from (a master holds title, body, dt, ftr, sldNum, hdr)."""


BUDGET_CHECK_EVERY_SHAPES = 64
"""Inside a slide the deadline is looked at every 64 shapes (a shape takes ~0.5 ms to read),
so a single slide of tens of thousands of shapes cannot overrun the budget by more than a
few tens of milliseconds."""


@dataclass
class StructureResult:
    """What :func:`extract_structure` read. ``slides`` holds the slides read (all of them
    unless ``budget_cut``); ``slides_total`` is the deck's slide count from ``p:sldIdLst``."""

    ok: bool
    slide_width_emu: int | None = None
    slide_height_emu: int | None = None
    slides: list[SlideDoc] = field(default_factory=list)
    errors: list[ExtractError] = field(default_factory=list)
    fonts: list[str] = field(default_factory=list)
    slides_total: int | None = None
    budget_cut: bool = False


class _BudgetSpent(Exception):
    """Raised inside a slide's shape walk when the deadline passed; caught by the reader."""


def _local(el: etree._Element) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


LocalFrame = tuple[int, int, int, int, float]
"""``(x, y, cx, cy, rot_deg)`` of a shape's own ``a:xfrm`` in its parent's child space (EMU; degrees)."""

MAX_COORDINATE_EMU = 27_273_042_329_600
"""|ST_Coordinate| bound of ECMA-376 Part 1 §20.1.10.16 (EMU); larger values are invalid."""


def coord_emu(raw: str | None) -> int | None:
    """ST_Coordinate: an EMU integer or a universal measure like ``2.5in``.

    Raises:
        ValueError: not a coordinate, or outside `MAX_COORDINATE_EMU` (the caller records a
            field error for that one shape).
    """
    if raw is None:
        return None
    raw = raw.strip()
    if re.fullmatch(r"-?\d+", raw):
        value: float = int(raw) if len(raw) <= 30 else math.inf
    else:
        m = re.fullmatch(r"(-?\d+(?:\.\d+)?)(in|cm|mm|pt|pc|pi)", raw)
        if not m:
            raise ValueError(f"bad coordinate {raw[:40]!r}")
        value = float(m.group(1)) * _UNITS_EMU[m.group(2)]
    if not abs(value) <= MAX_COORDINATE_EMU:
        raise ValueError(f"coordinate {raw[:40]!r} is outside the ST_Coordinate range (±{MAX_COORDINATE_EMU} EMU)")
    return round(value)


def extract_structure(path: Path, *, strict: bool, deadline: float | None = None) -> StructureResult:
    """Read an OOXML deck into slide documents with absolute geometry (EMU).

    Args:
        path: the deck file.
        strict: the package uses ISO/IEC 29500 Strict namespaces (read a patched copy).
        deadline: ``time.monotonic()`` value (seconds) after which reading stops: between
            slides, and inside a slide every ``BUDGET_CHECK_EVERY_SHAPES`` shapes. What was
            read stays; the cut is an extract error with ``field="budget"`` and
            ``budget_cut=True``. None = no limit.

    Returns:
        StructureResult. Never raises: a deck that cannot be opened is ``ok=False`` with an
        error; a failing slide or field is an extract error and the rest survives.
    """
    try:
        import pptx
    except ImportError as exc:
        return StructureResult(False, errors=[ExtractError(field="environment", error=f"python-pptx missing: {exc}")])
    try:
        copy = readable_copy(path, strict=strict)
        prs = pptx.Presentation(io.BytesIO(copy.data))
    except Exception as exc:  # noqa: BLE001 - deck-level isolation
        return StructureResult(False, errors=[ExtractError(field="deck", error=f"{type(exc).__name__}: {exc}")])
    res = StructureResult(True)
    for repaired, what in copy.repairs:
        res.errors.append(ExtractError(field="package", shape=repaired or None, error=what))
    size = prs.part._element.find("p:sldSz", NS)
    try:
        res.slide_width_emu = coord_emu(size.get("cx")) if size is not None else None
        res.slide_height_emu = coord_emu(size.get("cy")) if size is not None else None
    except ValueError as exc:
        res.errors.append(ExtractError(field="slide_size", error=str(exc)))
    if res.slide_width_emu is None:
        res.errors.append(ExtractError(field="slide_size", error="p:sldSz missing; 9144000 x 6858000 assumed"))
        res.slide_width_emu, res.slide_height_emu = 9144000, 6858000
    id_list = prs.part._element.find("p:sldIdLst", NS)
    sld_ids = list(id_list) if id_list is not None else []
    res.slides_total = len(sld_ids)
    fonts: set[str] = set()
    for index, sld_id in enumerate(sld_ids, start=1):
        if deadline is not None and time.monotonic() >= deadline:
            res.budget_cut = True
            res.errors.append(ExtractError(field="budget", slide=index, error=(
                f"evidence budget spent: slides {index}-{len(sld_ids)} ({len(sld_ids) - index + 1} of "
                f"{len(sld_ids)}) not extracted")))
            break
        rid = sld_id.get(f"{{{R_NS}}}id")
        try:
            part = prs.part.related_part(rid)
            slide = _SlideReader(index, part, prs.part._element, copy.blanked_parts, deadline).read()
            slide.slide_id = int(sld_id.get("id")) if (sld_id.get("id") or "").isdigit() else None
        except Exception as exc:  # noqa: BLE001 - page-level isolation
            slide = SlideDoc(index=index, extract_errors=[
                ExtractError(slide=index, field="slide", error=f"{type(exc).__name__}: {exc}")])
        split_visible(slide, res.slide_width_emu or 9144000, res.slide_height_emu or 6858000)
        res.slides.append(slide)
        res.errors.extend(slide.extract_errors)
        for shape in slide.shapes:
            for para in shape.text.paragraphs if shape.text else []:
                fonts.update(r.font for r in para.runs if r.font)
        if any(e.field == "budget" for e in slide.extract_errors):  # the deadline passed inside it
            res.budget_cut = True
            if index < len(sld_ids):
                res.errors.append(ExtractError(field="budget", slide=index + 1, error=(
                    f"evidence budget spent: slides {index + 1}-{len(sld_ids)} ({len(sld_ids) - index} of "
                    f"{len(sld_ids)}) not extracted")))
            break
    res.fonts = sorted(fonts)
    return res


class _SlideReader:
    """Reads one slide part into a :class:`SlideDoc`, isolating each field."""

    def __init__(self, index: int, part: Any, prs_el: etree._Element, blanked: set[str],
                 deadline: float | None = None):
        self.index, self.part, self.prs_el = index, part, prs_el
        self.deadline, self.walked = deadline, 0
        self.errors: list[ExtractError] = []
        self.layout_el = self.master_el = None
        self.fonts: dict[str, str | None] = {}
        self.theme: etree._Element | None = None
        self.palette = Palette.from_theme(None)
        self.group_fill: dict[etree._Element, Paint | None] = {}
        if str(part.partname).lstrip("/") in blanked:
            self.errors.append(ExtractError(slide=index, field="slide", error="slide XML unreadable; blank slide used"))

    def _field(self, shape: str | None, name: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - field-level isolation
            self.errors.append(ExtractError(slide=self.index, shape=shape, field=name, error=f"{type(exc).__name__}: {exc}"))
            return None

    def read(self) -> SlideDoc:
        el = self.part._element
        doc = SlideDoc(index=self.index, part=str(self.part.partname))
        doc.hidden = el.get("show") in ("0", "false")
        layout = self._field(None, "layout", lambda: self.part.slide_layout)
        if layout is not None:
            self.layout_el = layout._element
            csld = layout._element.find("p:cSld", NS)
            doc.layout = csld.get("name") if csld is not None else None
            master = self._field(None, "master", lambda: layout.slide_master)
            if master is not None:
                self.master_el = master._element
                theme = self._field(None, "theme", lambda: etree.fromstring(master.part.part_related_by(RT_THEME).blob))
                self.fonts = theme_fonts(theme)
                self.theme = theme
        self.palette = self._field(None, "colours", lambda: Palette.from_theme(self.theme, self._colour_map(el))) \
            or Palette.from_theme(None)
        doc.background = self._field(None, "background", lambda: self._background(el))
        tree = el.find("p:cSld/p:spTree", NS)
        cut = False
        if tree is not None:
            try:
                self._walk(tree, doc.shapes, IDENTITY, 0, None)
            except _BudgetSpent:
                cut = True
                self.errors.append(ExtractError(slide=self.index, field="budget", error=(
                    f"evidence budget spent while reading this slide: its first {len(doc.shapes)} shapes "
                    f"(shape-tree order) were kept, the rest and the notes were not read")))
        titles = [s.text for s in doc.shapes if s.placeholder in ("title", "ctrTitle") and s.text]
        doc.title = titles[0].text.strip() if titles else None
        doc.text = "\n".join(t for t in (shape_text(s) for s in doc.shapes) if t)
        underlay = self._field(None, "underlay", lambda: self._underlay(el)) or []
        self._field(None, "backdrop", lambda: assign_backdrops(doc.shapes, underlay, doc.background))
        doc.notes = None if cut else self._field(None, "notes", self._notes)
        doc.extract_errors = self.errors
        return doc

    def _notes(self) -> str | None:
        if not self.part.has_notes_slide:
            return None
        frame = self.part.notes_slide.notes_placeholder
        return frame.text_frame.text if frame is not None else None

    # ---------------------------------------------------------------- shape tree

    def _walk(self, tree: etree._Element, out: list[ShapeDoc], xf: GroupTransform, depth: int,
              parent: str | None) -> None:
        for child in tree:
            if _local(child) == "AlternateContent":
                child = next((c[0] for c in child if len(c) and _local(c[0]) in SHAPE_TAGS), None)
                if child is None:
                    continue
            tag = _local(child)
            if tag not in SHAPE_TAGS:
                continue
            self.walked += 1
            if self.deadline is not None and not self.walked % BUDGET_CHECK_EVERY_SHAPES \
                    and time.monotonic() >= self.deadline:
                raise _BudgetSpent
            cnv = child.find(".//p:cNvPr", NS)
            sid = cnv.get("id", "?") if cnv is not None else "?"
            label = f"{sid}:{cnv.get('name', '') if cnv is not None else ''}"
            shape = ShapeDoc(id=sid, name=cnv.get("name", "") if cnv is not None else "", kind=tag,
                             parent_id=parent, depth=depth, hidden=cnv is not None and cnv.get("hidden") in ("1", "true"))
            ph = child.find("./*/p:nvPr/p:ph", NS)
            if ph is not None:
                shape.placeholder = ph.get("type", "obj")
                shape.placeholder_idx = int(ph.get("idx")) if (ph.get("idx") or "").isdigit() else None
            if cnv is not None:
                shape.alt = " ".join(t.strip() for t in (cnv.get("title"), cnv.get("descr")) if t and t.strip()) or None
            shape.fill = self._field(label, "fill", lambda: self._shape_paint(child, tag, ph, parent))
            shape.geometry = self._field(label, "geometry", lambda: self._geometry(child, tag, ph))
            errors_before = len(self.errors)
            local = self._field(label, "geometry", lambda: self._local_frame(child, tag, ph))
            placed = self._field(label, "geometry", lambda: absolute_frame(xf, local)) if local is not None else None
            if placed is not None:
                shape.box, shape.rot_deg = placed
            elif len(self.errors) == errors_before and tag != "grpSp":  # no error said why yet
                self.errors.append(ExtractError(slide=self.index, shape=label, field="geometry",
                                                error="shape has no geometry"))
            out.append(shape)
            if tag == "grpSp":
                inner = self._field(label, "group_transform",
                                    lambda: group_transform(child.find("p:grpSpPr/a:xfrm", NS), xf))
                self._walk(child, out, inner or xf, depth + 1, sid)
                continue
            self._content(child, tag, shape, ph, label)

    def _local_frame(self, el: etree._Element, tag: str, ph: etree._Element | None) -> LocalFrame | None:
        """The shape's own ``a:xfrm`` (inherited from its placeholder when it has none); None
        without one. Raises ValueError for a bad or missing coordinate (`coord_emu`)."""
        path = {"graphicFrame": "p:xfrm", "grpSp": "p:grpSpPr/a:xfrm", "contentPart": "p:xfrm"}.get(tag, "p:spPr/a:xfrm")
        xfrm = el.find(path, NS)
        if xfrm is None and ph is not None:
            xfrm = self._inherited_xfrm(ph)
        if xfrm is None:
            return None
        off, ext = xfrm.find("a:off", NS), xfrm.find("a:ext", NS)
        if off is None or ext is None:
            return None
        rot = int(xfrm.get("rot", "0") or 0) / 60000.0
        x, y, cx, cy = (coord_emu(off.get("x")), coord_emu(off.get("y")), coord_emu(ext.get("cx")), coord_emu(ext.get("cy")))
        if x is None or y is None or cx is None or cy is None:
            raise ValueError("a:off/a:ext without its x, y, cx or cy")
        return (x, y, cx, cy, rot)

    def _base_placeholders(self, ph: etree._Element) -> list[etree._Element]:
        """Layout then master placeholder shapes this placeholder inherits from."""
        found: list[etree._Element] = []
        ptype, idx = ph.get("type", "obj"), ph.get("idx")
        for base in (self.layout_el, self.master_el):
            if base is None:
                continue
            cands = base.findall("p:cSld/p:spTree//p:nvPr/p:ph", NS)
            hit = None
            if base is self.layout_el and idx is not None:
                hit = next((c for c in cands if c.get("idx") == idx), None)
            hit = hit if hit is not None else next((c for c in cands if c.get("type", "obj") == ptype), None)
            if hit is None:
                alt = _MASTER_TYPE.get(ptype, ptype)
                hit = next((c for c in cands if c.get("type", "obj") == alt), None)
            if hit is not None:
                found.append(hit.getparent().getparent().getparent())
        return found

    # ---------------------------------------------------------------- colour

    def _colour_map(self, el: etree._Element) -> dict[str, str]:
        """The colour map in force on `el` (the slide or its layout): its override, else (for
        the slide, unless it says ``a:masterClrMapping``) the layout's, else the master's
        ``p:clrMap``."""
        for part in (el, self.layout_el) if el is not self.layout_el else (el,):
            ovr = part.find("p:clrMapOvr", NS) if part is not None else None
            if ovr is None:
                continue
            override = ovr.find("a:overrideClrMapping", NS)
            if override is not None:
                return clr_map(override)
            if part is el:
                break  # a:masterClrMapping: the master's map
        return clr_map(self.master_el.find("p:clrMap", NS)) if self.master_el is not None else {}

    def _background(self, el: etree._Element) -> Paint:
        """The slide's background: ``p:bg`` of the slide, else the layout's, else the
        master's (``p:bgPr`` fill, or a ``p:bgRef`` theme style); white when none says."""
        white = Paint(kind="solid", colours=["#FFFFFF"])

        def read(bg: etree._Element, palette: Palette) -> Paint:
            props = bg.find("p:bgPr", NS)
            found = paint(fill_element(props), palette) if props is not None else \
                style_paint(self.theme, bg.find("p:bgRef", NS), palette)
            return UNKNOWN if found is None else white if found.kind == "none" else found

        for part in (el, self.layout_el, self.master_el):
            bg = part.find("p:cSld/p:bg", NS) if part is not None else None
            if bg is None:
                continue
            here = read(bg, self.palette)
            if part is el:
                return here
            # an inherited background under another colour map: PowerPoint resolves it with the
            # slide's map, LibreOffice with the map of the part it comes from
            own = self._colour_map(part) if part is self.layout_el else \
                clr_map(part.find("p:clrMap", NS))
            there = read(bg, Palette.from_theme(self.theme, own))
            if here == there:
                return here
            if here.kind == "unknown" or there.kind == "unknown" or not here.colours or not there.colours:
                return UNKNOWN
            return Paint(kind="ambiguous", colours=sorted(set(here.colours) | set(there.colours)))
        return white

    def _shape_paint(self, el: etree._Element, tag: str, ph: etree._Element | None, parent: str | None) -> Paint | None:
        """What a shape draws inside its outline: its own ``p:spPr`` fill, else its placeholder's
        (layout, master), else its ``p:style`` fill reference; a picture is a picture, a table or
        chart frame ``unknown`` (cells and plot areas may fill), a connector nothing, a group
        None (it draws through its children). ``a:grpFill`` takes the enclosing group's fill."""
        if tag == "grpSp":
            self.group_fill[el] = paint(fill_element(el.find("p:grpSpPr", NS)), self.palette)
            return None
        if tag == "pic":
            return Paint(kind="picture")
        if tag in ("graphicFrame", "contentPart"):
            return UNKNOWN
        if tag == "cxnSp":
            return NO_PAINT
        bases = [el] + (self._base_placeholders(ph) if ph is not None else [])
        for base in bases:
            fill = fill_element(base.find("p:spPr", NS))
            if fill is None:
                continue
            if fill.tag.endswith("}grpFill"):
                group = el.getparent()
                while group is not None and group.tag.endswith("}grpSp"):
                    found = self.group_fill.get(group)
                    if found is None or found.kind != "unknown":
                        return found or UNKNOWN
                    group = group.getparent()
                return UNKNOWN
            return paint(fill, self.palette)
        ref = style_paint(self.theme, el.find("p:style/a:fillRef", NS), self.palette)
        return ref if ref is not None else NO_PAINT

    def _geometry(self, el: etree._Element, tag: str, ph: etree._Element | None) -> str | None:
        """The preset geometry (``rect``, ``ellipse`` …), ``custom``, or None (a group)."""
        if tag == "grpSp":
            return None
        for base in [el] + (self._base_placeholders(ph) if ph is not None else []):
            sppr = base.find("p:spPr", NS)
            prst = sppr.find("a:prstGeom", NS) if sppr is not None else None
            if prst is not None:
                return prst.get("prst") or "custom"
            if sppr is not None and sppr.find("a:custGeom", NS) is not None:
                return "custom"
        return "rect" if tag in ("pic", "graphicFrame") or ph is not None or el.find("p:nvSpPr/p:cNvSpPr[@txBox='1']", NS) \
            is not None else None

    def _underlay(self, el: etree._Element) -> list[ShapeDoc]:
        """The painted shapes of the layout and master drawn under the slide's own shapes
        (placeholders are not drawn on a slide; ``showMasterSp="0"`` on the slide hides both,
        on the layout hides the master's)."""
        if el.get("showMasterSp") in ("0", "false") or self.layout_el is None:
            return []
        parts = [self.layout_el]
        if self.master_el is not None and self.layout_el.get("showMasterSp") not in ("0", "false"):
            parts.insert(0, self.master_el)
        layers: list[ShapeDoc] = []
        for part in parts:
            tree = part.find("p:cSld/p:spTree", NS)
            if tree is not None:
                self._layers(tree, IDENTITY, layers)
        return layers

    def _layers(self, tree: etree._Element, xf: GroupTransform, out: list[ShapeDoc]) -> None:
        for child in tree:
            tag = _local(child)
            if tag not in SHAPE_TAGS or child.find("./*/p:nvPr/p:ph", NS) is not None:
                continue
            cnv = child.find(".//p:cNvPr", NS)
            if cnv is not None and cnv.get("hidden") in ("1", "true"):
                continue
            try:
                frame = self._local_frame(child, tag, None)
                placed = absolute_frame(xf, frame) if frame is not None else None
                fill = self._shape_paint(child, tag, None, None)
            except (ValueError, TypeError, ArithmeticError):
                continue
            if tag == "grpSp":
                self._layers(child, group_transform(child.find("p:grpSpPr/a:xfrm", NS), xf), out)
                continue
            if fill is None or fill.kind == "none":
                continue
            layer = ShapeDoc(id=f"underlay:{cnv.get('id', '?') if cnv is not None else '?'}", kind=tag, fill=fill,
                             geometry=self._geometry(child, tag, None))
            if placed is not None:
                layer.box, layer.rot_deg = placed
            out.append(layer)

    def _text_colour(self, rpr: etree._Element | None, st: RunStyle, shape: etree._Element | None) -> str | None:
        """The glyphs' colour (CSS hex), ``none`` (no fill) or None (not a plain colour:
        gradient, picture, a hyperlink, unresolved). Precedence: the run and the shape's own
        list style, then the shape style's ``a:fontRef`` colour, then the placeholder, master
        and presentation text styles, then ``tx1``."""
        if rpr is not None and rpr.find("a:hlinkClick", NS) is not None:
            return None  # drawn in the theme's hyperlink colour by some renderers, the run's by others
        font_ref = shape.find("p:style/a:fontRef", NS) if shape is not None else None
        ref_colour = self.palette.choice(font_ref) if font_ref is not None else None
        if st.fill is None or (not st.fill_local and ref_colour is not None):
            colour = ref_colour or self.palette.named("tx1")
            return colour.hex if colour is not None else None
        found = paint(st.fill, self.palette)
        if found is None or found.kind not in ("none", "solid"):
            return None
        return "none" if found.kind == "none" else found.colours[0]

    def _marks(self, st: RunStyle) -> list[str]:
        """Colours drawn with the glyphs besides their fill: the outline and the shadow/glow
        effects (``unknown`` for one this reader does not resolve)."""
        marks: list[str] = []
        line_fill = fill_element(st.line)
        if line_fill is not None and not line_fill.tag.endswith("}noFill"):
            drawn = paint(line_fill, self.palette)
            marks.append(drawn.colours[0] if drawn is not None and drawn.kind == "solid" else "unknown")
        if st.effects is not None:
            if st.effects.tag.endswith("}effectDag"):
                return marks + ["unknown"]
            for effect in st.effects:
                name = _local(effect)
                if name in ("outerShdw", "innerShdw", "prstShdw", "glow"):
                    c: Colour | None = self.palette.choice(effect)
                    marks.append(c.hex if c is not None else "unknown")
                elif name and name not in ("reflection", "softEdge", "blur"):
                    marks.append("unknown")
        return marks

    def _inherited_xfrm(self, ph: etree._Element) -> etree._Element | None:
        for base in self._base_placeholders(ph):
            xfrm = base.find("p:spPr/a:xfrm", NS)
            if xfrm is not None:
                return xfrm
        return None

    # ---------------------------------------------------------------- content

    def _content(self, el: etree._Element, tag: str, shape: ShapeDoc, ph: etree._Element | None, label: str) -> None:
        if tag == "sp":
            shape.decorated = bool(self._field(label, "decorated", lambda: decorated(el)))
        if tag in ("sp", "cxnSp") and el.find("p:txBody", NS) is not None:
            shape.text = self._field(label, "text", lambda: self._text(el.find("p:txBody", NS), shape, ph))
        elif tag == "pic":
            shape.picture = self._field(label, "picture", lambda: self._picture(el))
        elif tag == "graphicFrame":
            data = el.find("a:graphic/a:graphicData", NS)
            uri = data.get("uri", "") if data is not None else ""
            if uri.endswith("/table"):
                shape.table = self._field(label, "table", lambda: self._table(data))
            elif uri.endswith("/chart"):
                shape.chart = self._field(label, "chart", lambda: self._chart(data))
            elif uri.endswith("/diagram"):
                shape.diagram_text = self._field(label, "diagram", lambda: self._diagram(data))

    def _text(self, body: etree._Element, shape: ShapeDoc, ph: etree._Element | None) -> TextFrame:
        bases = self._base_placeholders(ph) if ph is not None else []
        ctx = StyleContext(
            lists=[b.find("p:txBody/a:lstStyle", NS) for b in bases if b.find("p:txBody/a:lstStyle", NS) is not None],
            body_prs=[b.find("p:txBody/a:bodyPr", NS) for b in bases if b.find("p:txBody/a:bodyPr", NS) is not None],
            major=self.fonts.get("major"), minor=self.fonts.get("minor"),
            major_ea=self.fonts.get("major_ea"), minor_ea=self.fonts.get("minor_ea"),
            is_title=shape.placeholder in ("title", "ctrTitle"),
        )
        style = master_style(self.master_el, shape.placeholder, ph is not None)
        default = self.prs_el.find("p:defaultTextStyle", NS)
        ctx.lists += [x for x in ((style, default) if ph is not None else (default, style)) if x is not None]
        props = body_props(body.find("a:bodyPr", NS), ctx)
        frame = TextFrame(**props)
        lst = body.find("a:lstStyle", NS)
        for p in body.findall("a:p", NS):
            ppr = p.find("a:pPr", NS)
            level = int(ppr.get("lvl", "0")) if ppr is not None and (ppr.get("lvl") or "0").isdigit() else 0
            para = Paragraph(level=level)
            for r in p:
                kind = _local(r)
                if kind in ("r", "fld"):
                    rpr = r.find("a:rPr", NS)
                    st = run_style(rpr, level, lst, ctx, frame.font_scale)
                    highlight = self.palette.choice(st.highlight) if st.highlight is not None else None
                    para.runs.append(Run(text=r.findtext("a:t", "", NS), font=st.font, font_ea=st.font_ea,
                                         size_pt=st.size_pt, size_source=st.size_source, bold=st.bold, italic=st.italic,
                                         script=st.script, colour=self._text_colour(rpr, st, body.getparent()),
                                         highlight=highlight.hex if highlight is not None else None,
                                         marks=self._marks(st)))
                elif kind == "br":
                    para.runs.append(Run(text="\n"))
            para.text = "".join(r.text for r in para.runs)
            frame.paragraphs.append(para)
        return frame

    def _table(self, data: etree._Element) -> TableDoc:
        doc = _table(data)
        ctx = StyleContext(major=self.fonts.get("major"), minor=self.fonts.get("minor"))
        default = self.prs_el.find("p:defaultTextStyle", NS)
        ctx.lists = [x for x in (default, master_style(self.master_el, None, False)) if x is not None]
        sizes: list[float] = []
        for p in data.iterfind("a:tbl/a:tr/a:tc/a:txBody/a:p", NS):
            ppr = p.find("a:pPr", NS)
            level = int(ppr.get("lvl", "0")) if ppr is not None and (ppr.get("lvl") or "0").isdigit() else 0
            for r in p.iterfind("a:r", NS):
                if (r.findtext("a:t", "", NS) or "").strip():
                    st = run_style(r.find("a:rPr", NS), level, None, ctx)
                    if not st.script:
                        sizes.append(st.size_pt)
        doc.min_size_pt = min(sizes) if sizes else None
        return doc

    def _picture(self, el: etree._Element) -> PictureDoc:
        blip = el.find("p:blipFill/a:blip", NS)
        if blip is None:
            raise ValueError("picture has no a:blip (missing blip fill)")
        embed, link = blip.get(f"{{{R_NS}}}embed"), blip.get(f"{{{R_NS}}}link")
        if link and not embed:
            return PictureDoc(linked=True, target=self.part.target_ref(link))
        if not embed:
            raise ValueError("a:blip has neither r:embed nor r:link")
        img = self.part.related_part(embed)
        return PictureDoc(content_type=img.content_type, bytes=len(img.blob), target=str(img.partname))

    def _chart(self, data: etree._Element) -> ChartDoc:
        ref = data.find(f"{{{C_NS}}}chart")
        chart_el = etree.fromstring(self.part.related_part(ref.get(f"{{{R_NS}}}id")).blob)
        plot = chart_el.find(f".//{{{C_NS}}}plotArea")
        doc = ChartDoc()
        doc.is_3d = chart_el.find(f".//{{{C_NS}}}view3D") is not None
        title = chart_el.find(f"{{{C_NS}}}chart/{{{C_NS}}}title")
        if title is not None:
            doc.title = "".join(title.itertext()).strip() or None
        for pl in plot if plot is not None else []:
            name = _local(pl)
            if not name.endswith("Chart"):
                continue
            doc.chart_types.append(name)
            doc.is_3d = doc.is_3d or "3D" in name
            for ser in pl.findall(f"{{{C_NS}}}ser"):
                doc.series.append(_series(ser))
        return doc

    def _diagram(self, data: etree._Element) -> list[str]:
        rel = data.find(f"{{{DGM_NS}}}relIds")
        dm = etree.fromstring(self.part.related_part(rel.get(f"{{{R_NS}}}dm")).blob)
        texts = []
        for pt in dm.iter(f"{{{DGM_NS}}}pt"):
            t = "".join(x.text or "" for x in pt.iter(f"{{{NS['a']}}}t")).strip()
            if t:
                texts.append(t)
        return texts


def _series(ser: etree._Element) -> Series:
    c = f"{{{C_NS}}}"
    name = ser.find(f"{c}tx")
    out = Series(name=("".join(v.text or "" for v in name.iter(f"{c}v")) or None) if name is not None else None)
    cat = ser.find(f"{c}cat")
    if cat is not None:
        out.categories = [v.text or "" for v in cat.iter(f"{c}v")]
    val = ser.find(f"{c}val")
    val = val if val is not None else ser.find(f"{c}yVal")
    if val is not None:
        for v in val.iter(f"{c}v"):
            try:
                out.values.append(float(v.text))
            except (TypeError, ValueError):
                out.values.append(None)
    return out


def decorated(sp: etree._Element) -> bool:
    """True when a ``p:sp`` draws a fill or an outline: an explicit fill/line in ``p:spPr``, or
    a ``p:style`` fill/line reference (``idx`` > 0) that ``p:spPr`` does not cancel with
    ``a:noFill`` (ECMA-376 Part 1 §20.1.4.2.10 fillRef, §20.1.4.2.19 lnRef)."""
    sppr = sp.find("p:spPr", NS)
    style = sp.find("p:style", NS)
    fills = ("a:solidFill", "a:gradFill", "a:blipFill", "a:pattFill")

    def ref_idx(tag: str) -> int:
        ref = style.find(f"a:{tag}", NS) if style is not None else None
        raw = ref.get("idx", "0") if ref is not None else "0"
        return int(raw) if raw.isdigit() else 0

    fill = line = False
    if sppr is not None and any(sppr.find(f, NS) is not None for f in fills):
        fill = True
    elif sppr is None or sppr.find("a:noFill", NS) is None:
        fill = ref_idx("fillRef") > 0
    ln = sppr.find("a:ln", NS) if sppr is not None else None
    if ln is not None and any(ln.find(f, NS) is not None for f in fills):
        line = True
    elif ln is None or ln.find("a:noFill", NS) is None:
        line = ref_idx("lnRef") > 0
    return fill or line


def _table(data: etree._Element) -> TableDoc:
    rows = data.findall("a:tbl/a:tr", NS)
    cells = [["".join(tc.itertext()).strip() for tc in tr.findall("a:tc", NS)] for tr in rows]
    return TableDoc(rows=len(cells), cols=max((len(r) for r in cells), default=0), cells=cells)


@dataclass(frozen=True)
class GroupTransform:
    """Child → slide mapping of the groups around a shape, composed recursively.

    ``matrix`` ``(a, b, c, d, e, f)`` is the 2-D affine map of child coordinates (EMU) to
    slide coordinates (EMU): ``X = a*x + b*y + e``, ``Y = c*x + d*y + f`` (y points down, so
    a positive angle turns clockwise, as in DrawingML). It places shape centres.

    ``scale`` ``(fx, fy)`` is the size one child unit gets along the innermost group's own x
    and y axes (EMU per child EMU). Sizes are not read off ``matrix``: PowerPoint and
    LibreOffice never shear a child; they scale its unrotated frame (width/height swapped
    for children turned by about 90°, see :func:`quarter_toggled`) and then turn it.

    ``rot_deg`` and ``mirrored`` carry the rotation the groups add to a child's own ``rot``:
    a child at ``θ`` ends at ``rot_deg + (-θ if mirrored else θ)`` degrees clockwise
    (PowerPoint's convention: a flip mirrors the angles inside it; ``flipH`` and ``flipV``
    together are a 180° turn).
    """

    matrix: tuple[float, float, float, float, float, float] = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    scale: tuple[float, float] = (1.0, 1.0)
    rot_deg: float = 0.0
    mirrored: bool = False

    def point(self, x: float, y: float) -> tuple[float, float]:
        """Child point (EMU) → slide point (EMU)."""
        a, b, c, d, e, f = self.matrix
        return a * x + b * y + e, c * x + d * y + f

    def absolute_rot(self, rot_deg: float) -> float:
        """A child's own clockwise rotation (degrees) → its rotation on the slide, in [0, 360)."""
        rot = self.rot_deg + (-rot_deg if self.mirrored else rot_deg)
        return round(rot % 360.0, 6) % 360.0 + 0.0  # 359.9999999 → 0.0; -0.0 → 0.0

    def sized(self, cx: float, cy: float, rot_deg: float) -> tuple[float, float]:
        """Slide-space width/height (EMU) of a child frame ``cx`` x ``cy`` (EMU) whose own
        ``rot`` is ``rot_deg``."""
        fx, fy = self.scale
        if quarter_toggled(rot_deg):
            fx, fy = fy, fx
        return cx * fx, cy * fy


IDENTITY = GroupTransform()


def quarter_toggled(rot_deg: float) -> bool:
    """True when a child turned by ``rot_deg`` (its own ``rot``, degrees clockwise) takes its
    group's x scale on its height and the y scale on its width.

    PowerPoint's rule as LibreOffice (the renderer of the evidence pages) implements it
    (``oox/source/drawingml/shape.cxx``, ``lcl_doSpecialMSOWidthHeightToggle``): the whole
    degrees of the raw attribute, truncated toward zero, in [45, 135) or [225, 315). A
    negative ``rot`` (valid XML, never written by PowerPoint) is not toggled there, so
    ``rot="-5400000"`` and ``rot="16200000"`` size differently, as LibreOffice draws them.
    """
    deg = math.trunc(rot_deg)
    return 45 <= deg < 135 or 225 <= deg < 315


def _cos_sin(deg: float) -> tuple[float, float]:
    """cos/sin of a clockwise angle in degrees; exact at multiples of 90° (no 6e-17 residue)."""
    quarter = deg / 90.0
    if quarter == int(quarter):
        return ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[int(quarter) % 4]
    rad = math.radians(deg)
    return math.cos(rad), math.sin(rad)


def _is_true(raw: str | None) -> bool:
    return (raw or "").strip() in ("1", "true")


def group_transform(xfrm: etree._Element | None, parent: GroupTransform = IDENTITY) -> GroupTransform:
    """Child → slide transform of a group from its ``p:grpSpPr/a:xfrm``, composed with the
    transform of the groups around it (``parent``).

    DrawingML (ECMA-376 Part 1 §20.1.7.5-6): the child space ``chOff``/``chExt`` (EMU) is
    scaled and moved onto the group frame ``off``/``ext`` (EMU), then flipped (``flipH``,
    ``flipV``) about the frame's centre, then turned by ``rot`` (60000ths of a degree,
    clockwise) about that centre; then the parent groups' transforms apply. A group without
    ``chOff``/``chExt`` maps its child space 1:1 onto its frame (a zero ``chExt`` scales by
    1); a group without ``a:xfrm`` or without ``off``/``ext`` adds nothing.

    Raises:
        ValueError: a coordinate or angle is not a number (the caller records it as an
            extract error and keeps the parent transform).
    """
    if xfrm is None:
        return parent
    off, ext = xfrm.find("a:off", NS), xfrm.find("a:ext", NS)
    if off is None or ext is None:
        return parent
    ox, oy = coord_emu(off.get("x")) or 0, coord_emu(off.get("y")) or 0
    ex, ey = coord_emu(ext.get("cx")) or 0, coord_emu(ext.get("cy")) or 0
    ch_off, ch_ext = xfrm.find("a:chOff", NS), xfrm.find("a:chExt", NS)
    cx, cy = (coord_emu(ch_off.get("x")) or 0, coord_emu(ch_off.get("y")) or 0) if ch_off is not None else (ox, oy)
    cex, cey = (coord_emu(ch_ext.get("cx")) or 0, coord_emu(ch_ext.get("cy")) or 0) if ch_ext is not None else (ex, ey)
    sx = ex / cex if cex else 1.0
    sy = ey / cey if cey else 1.0
    rot = int(xfrm.get("rot", "0") or 0) / 60000.0
    flip_h, flip_v = _is_true(xfrm.get("flipH")), _is_true(xfrm.get("flipV"))
    # local linear part R(rot) · F · S; the translation keeps the frame centre M fixed under
    # F and R:  p = M + R F (off - M + S (q - chOff))
    fx, fy = (-1.0 if flip_h else 1.0), (-1.0 if flip_v else 1.0)
    cos, sin = _cos_sin(rot)
    a, b, c, d = cos * fx * sx, -sin * fy * sy, sin * fx * sx, cos * fy * sy
    mx, my = ox + ex / 2.0, oy + ey / 2.0
    tx, ty = fx * (ox - mx - sx * cx), fy * (oy - my - sy * cy)
    e, f = mx + cos * tx - sin * ty, my + sin * tx + cos * ty
    # compose: parent ∘ local
    pa, pb, pc, pd, pe, pf = parent.matrix
    matrix = (pa * a + pb * c, pa * b + pb * d, pc * a + pd * c, pc * b + pd * d,
              pa * e + pb * f + pe, pc * e + pd * f + pf)
    frame_w, frame_h = parent.sized(1.0, 1.0, rot)  # the group frame is itself a child of its parent
    own = rot + (180.0 if flip_h and flip_v else 0.0)
    return GroupTransform(matrix=matrix, scale=(frame_w * sx, frame_h * sy),
                          rot_deg=parent.rot_deg + (-own if parent.mirrored else own),
                          mirrored=parent.mirrored != (flip_h != flip_v))


def absolute_frame(xf: GroupTransform, frame: LocalFrame) -> tuple[Box, float]:
    """A shape's frame in slide coordinates and its absolute rotation.

    Args:
        xf: the transform of the groups around the shape (:func:`group_transform`).
        frame: ``(x, y, cx, cy, rot_deg)`` of the shape's own ``a:xfrm`` in its parent's
            child space (EMU; degrees clockwise).

    Returns:
        ``(box, rot_deg)``. ``box`` is the UNROTATED frame (EMU), centred on the shape's
        centre mapped through the group transforms, sized by the groups' scale (see
        :class:`GroupTransform`). The drawn footprint is ``box`` turned by ``rot_deg``
        (clockwise, in [0, 360)) about its centre; :meth:`ShapeDoc.footprint_pt` gives its
        axis-aligned bounds. Exact for scaled, flipped and rotated groups; only a group
        turned by a non-multiple of 90° inside a group scaled unequally in x and y is
        approximate (the exact map would shear; the renderers do not).
    """
    x, y, w, h, theta = frame
    cx, cy = xf.point(x + w / 2.0, y + h / 2.0)
    width, height = xf.sized(w, h, theta)
    box = Box(x_emu=round(cx - width / 2.0), y_emu=round(cy - height / 2.0), cx_emu=round(width), cy_emu=round(height))
    return box, xf.absolute_rot(theta)
