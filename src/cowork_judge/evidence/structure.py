"""Structure extraction of OOXML decks: slides, shapes with absolute geometry, text, tables,
charts, pictures, notes. Fault isolation: a failing field loses that field, a failing slide
loses that slide, a deck python-pptx cannot open loses the structure layer only.

python-pptx is the package layer (parts, relationships, slide order); shape content is read
with lxml from the part XML so one odd element never aborts a slide.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from lxml import etree

from .documents import (
    Box,
    ChartDoc,
    ExtractError,
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
    StyleContext,
    body_props,
    master_style,
    run_style,
    theme_fonts,
)

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


@dataclass
class StructureResult:
    ok: bool
    slide_width_emu: int | None = None
    slide_height_emu: int | None = None
    slides: list[SlideDoc] = field(default_factory=list)
    errors: list[ExtractError] = field(default_factory=list)
    fonts: list[str] = field(default_factory=list)


def _local(el: etree._Element) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def coord_emu(raw: str | None) -> int | None:
    """ST_Coordinate: an EMU integer or a universal measure like ``2.5in``."""
    if raw is None:
        return None
    raw = raw.strip()
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)(in|cm|mm|pt|pc|pi)", raw)
    if not m:
        raise ValueError(f"bad coordinate {raw!r}")
    return round(float(m.group(1)) * _UNITS_EMU[m.group(2)])


def extract_structure(path: Path, *, strict: bool) -> StructureResult:
    """Read an OOXML deck; never raises (deck-level failures become ``ok=False`` + error)."""
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
    for part, what in copy.repairs:
        res.errors.append(ExtractError(field="package", shape=part or None, error=what))
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
    fonts: set[str] = set()
    for index, sld_id in enumerate(id_list if id_list is not None else [], start=1):
        rid = sld_id.get(f"{{{R_NS}}}id")
        try:
            part = prs.part.related_part(rid)
            slide = _SlideReader(index, part, prs.part._element, copy.blanked_parts).read()
            slide.slide_id = int(sld_id.get("id")) if (sld_id.get("id") or "").isdigit() else None
        except Exception as exc:  # noqa: BLE001 - page-level isolation
            slide = SlideDoc(index=index, extract_errors=[
                ExtractError(slide=index, field="slide", error=f"{type(exc).__name__}: {exc}")])
        res.slides.append(slide)
        res.errors.extend(slide.extract_errors)
        for shape in slide.shapes:
            for para in shape.text.paragraphs if shape.text else []:
                fonts.update(r.font for r in para.runs if r.font)
    res.fonts = sorted(fonts)
    return res


class _SlideReader:
    """Reads one slide part into a :class:`SlideDoc`, isolating each field."""

    def __init__(self, index: int, part: Any, prs_el: etree._Element, blanked: set[str]):
        self.index, self.part, self.prs_el = index, part, prs_el
        self.errors: list[ExtractError] = []
        self.layout_el = self.master_el = None
        self.fonts: dict[str, str | None] = {}
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
        tree = el.find("p:cSld/p:spTree", NS)
        if tree is not None:
            self._walk(tree, doc.shapes, (0.0, 1.0, 0.0, 1.0), 0, None)
        titles = [s for s in doc.shapes if s.placeholder in ("title", "ctrTitle") and s.text]
        doc.title = titles[0].text.text.strip() if titles else None
        doc.text = "\n".join(t for s in doc.shapes for t in _shape_texts(s) if t)
        doc.notes = self._field(None, "notes", self._notes)
        doc.extract_errors = self.errors
        return doc

    def _notes(self) -> str | None:
        if not self.part.has_notes_slide:
            return None
        frame = self.part.notes_slide.notes_placeholder
        return frame.text_frame.text if frame is not None else None

    # ---------------------------------------------------------------- shape tree

    def _walk(self, tree: etree._Element, out: list[ShapeDoc], xf: tuple, depth: int, parent: str | None) -> None:
        for child in tree:
            if _local(child) == "AlternateContent":
                child = next((c[0] for c in child if len(c) and _local(c[0]) in SHAPE_TAGS), None)
                if child is None:
                    continue
            tag = _local(child)
            if tag not in SHAPE_TAGS:
                continue
            cnv = child.find(".//p:cNvPr", NS)
            sid = cnv.get("id", "?") if cnv is not None else "?"
            label = f"{sid}:{cnv.get('name', '') if cnv is not None else ''}"
            shape = ShapeDoc(id=sid, name=cnv.get("name", "") if cnv is not None else "", kind=tag,
                             parent_id=parent, depth=depth, hidden=cnv is not None and cnv.get("hidden") in ("1", "true"))
            ph = child.find("./*/p:nvPr/p:ph", NS)
            if ph is not None:
                shape.placeholder = ph.get("type", "obj")
                shape.placeholder_idx = int(ph.get("idx")) if (ph.get("idx") or "").isdigit() else None
            local = self._field(label, "geometry", lambda: self._local_frame(child, tag, ph))
            if local is not None:
                shape.box = _apply(xf, local[:4])
                shape.rot_deg = local[4]
            elif tag != "grpSp":
                self.errors.append(ExtractError(slide=self.index, shape=label, field="geometry",
                                                error="shape has no geometry"))
            out.append(shape)
            if tag == "grpSp":
                inner = self._field(label, "group_transform", lambda: _group_xf(child, xf))
                self._walk(child, out, inner or xf, depth + 1, sid)
                continue
            self._content(child, tag, shape, ph, label)

    def _local_frame(self, el: etree._Element, tag: str, ph: etree._Element | None):
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
        return (coord_emu(off.get("x")), coord_emu(off.get("y")), coord_emu(ext.get("cx")), coord_emu(ext.get("cy")), rot)

    def _base_placeholders(self, ph: etree._Element) -> list[etree._Element]:
        """Layout then master placeholder shapes this placeholder inherits from."""
        found = []
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

    def _inherited_xfrm(self, ph: etree._Element) -> etree._Element | None:
        for base in self._base_placeholders(ph):
            xfrm = base.find("p:spPr/a:xfrm", NS)
            if xfrm is not None:
                return xfrm
        return None

    # ---------------------------------------------------------------- content

    def _content(self, el: etree._Element, tag: str, shape: ShapeDoc, ph: etree._Element | None, label: str) -> None:
        if tag in ("sp", "cxnSp") and el.find("p:txBody", NS) is not None:
            shape.text = self._field(label, "text", lambda: self._text(el.find("p:txBody", NS), shape, ph))
        elif tag == "pic":
            shape.picture = self._field(label, "picture", lambda: self._picture(el))
        elif tag == "graphicFrame":
            data = el.find("a:graphic/a:graphicData", NS)
            uri = data.get("uri", "") if data is not None else ""
            if uri.endswith("/table"):
                shape.table = self._field(label, "table", lambda: _table(data))
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
                    st = run_style(r.find("a:rPr", NS), level, lst, ctx, frame.font_scale)
                    para.runs.append(Run(text=r.findtext("a:t", "", NS), font=st.font, font_ea=st.font_ea,
                                         size_pt=st.size_pt, size_source=st.size_source, bold=st.bold, italic=st.italic))
                elif kind == "br":
                    para.runs.append(Run(text="\n"))
            para.text = "".join(r.text for r in para.runs)
            frame.paragraphs.append(para)
        return frame

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


def _table(data: etree._Element) -> TableDoc:
    rows = data.findall("a:tbl/a:tr", NS)
    cells = [["".join(tc.itertext()).strip() for tc in tr.findall("a:tc", NS)] for tr in rows]
    return TableDoc(rows=len(cells), cols=max((len(r) for r in cells), default=0), cells=cells)


def _group_xf(grp: etree._Element, xf: tuple) -> tuple:
    """Child→slide transform ``(ax, bx, ay, by)``: X = ax + bx*x, composed with the parent's."""
    xfrm = grp.find("p:grpSpPr/a:xfrm", NS)
    if xfrm is None:
        return xf
    off, ext = xfrm.find("a:off", NS), xfrm.find("a:ext", NS)
    ch_off, ch_ext = xfrm.find("a:chOff", NS), xfrm.find("a:chExt", NS)
    if off is None or ext is None or ch_off is None or ch_ext is None:
        return xf
    ox, oy = coord_emu(off.get("x")), coord_emu(off.get("y"))
    ex, ey = coord_emu(ext.get("cx")), coord_emu(ext.get("cy"))
    cx, cy = coord_emu(ch_off.get("x")), coord_emu(ch_off.get("y"))
    cex, cey = coord_emu(ch_ext.get("cx")), coord_emu(ch_ext.get("cy"))
    sx = ex / cex if cex else 1.0
    sy = ey / cey if cey else 1.0
    lax, lay = ox - cx * sx, oy - cy * sy
    ax, bx, ay, by = xf
    return (ax + bx * lax, bx * sx, ay + by * lay, by * sy)


def _apply(xf: tuple, frame: tuple) -> Box:
    ax, bx, ay, by = xf
    x, y, cx, cy = frame
    return Box(x_emu=round(ax + bx * x), y_emu=round(ay + by * y), cx_emu=round(bx * cx), cy_emu=round(by * cy))


def _shape_texts(shape: ShapeDoc) -> list[str]:
    if shape.text:
        return [shape.text.text]
    if shape.table:
        return [" | ".join(row) for row in shape.table.cells]
    return list(shape.diagram_text or [])
