"""Text property inheritance: effective run size, typeface, bold/italic, and body properties.

Follows the PresentationML cascade (ECMA-376 Part 1 §19.3.1.36 txStyles, §21.1.2.4 lstStyle):
run ``a:rPr`` → the shape's ``a:lstStyle`` → the layout placeholder → the master placeholder
→ the master ``p:txStyles`` (title/body/other) → ``p:presentation/p:defaultTextStyle`` →
18 pt (PowerPoint's default ``sz="1800"``). Non-placeholder shapes skip the placeholder and
title/body steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from .colour import fill_element

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
NS = {"a": A, "p": P}
DEFAULT_SIZE_PT = 18.0
DEFAULT_INSETS_EMU = (91440, 45720, 91440, 45720)
"""``a:bodyPr`` defaults lIns/rIns 0.1 in, tIns/bIns 0.05 in (ECMA-376 §21.1.2.1.1)."""

TITLE_TYPES = {"title", "ctrTitle"}
BODY_TYPES = {"body", "subTitle", "obj", None}


@dataclass
class StyleContext:
    """Everything outside the shape that its text may inherit from.

    ``lists`` are ``a:lstStyle``-like elements, nearest first; ``body_prs`` are inherited
    ``a:bodyPr`` elements, nearest first; ``major``/``minor`` are theme latin typefaces.
    """

    lists: list[etree._Element] = field(default_factory=list)
    body_prs: list[etree._Element] = field(default_factory=list)
    major: str | None = None
    minor: str | None = None
    major_ea: str | None = None
    minor_ea: str | None = None
    is_title: bool = False


@dataclass
class RunStyle:
    size_pt: float
    size_source: str
    font: str | None
    font_ea: str | None
    bold: bool | None
    italic: bool | None
    script: bool = False
    fill_local: bool = False
    """`fill` came from the run's ``a:rPr`` or the shape's own ``a:lstStyle`` (it then beats the
    shape style's ``a:fontRef`` colour; a placeholder's or the master's does not)."""
    fill: Any | None = None
    """The fill element that colours the glyphs (``a:solidFill``, ``a:noFill`` …), nearest in
    the cascade; None = none said (the shape style's ``a:fontRef`` colour, else ``tx1``)."""
    highlight: Any | None = None
    """The ``a:highlight`` element (its colour child is drawn behind the run), or None."""
    line: Any | None = None
    """The ``a:ln`` element outlining the glyphs (nearest in the cascade), or None."""
    effects: Any | None = None
    """The ``a:effectLst`` / ``a:effectDag`` element (shadow, glow …) of the glyphs, or None."""


def theme_fonts(theme: etree._Element | None) -> dict[str, str | None]:
    """``{"major": ..., "minor": ..., "major_ea": ..., "minor_ea": ...}`` from a theme part."""
    out: dict[str, str | None] = {"major": None, "minor": None, "major_ea": None, "minor_ea": None}
    if theme is None:
        return out
    for key, tag in (("major", "majorFont"), ("minor", "minorFont")):
        for script, suffix in (("latin", ""), ("ea", "_ea")):
            el = theme.find(f".//a:fontScheme/a:{tag}/a:{script}", NS)
            if el is not None and el.get("typeface"):
                out[key + suffix] = el.get("typeface")
    return out


def master_style(master: etree._Element | None, ph_type: str | None, is_placeholder: bool) -> etree._Element | None:
    """The ``p:txStyles`` child that applies to a placeholder type (or otherStyle)."""
    if master is None:
        return None
    if not is_placeholder:
        name = "otherStyle"
    elif ph_type in TITLE_TYPES:
        name = "titleStyle"
    elif ph_type in BODY_TYPES:
        name = "bodyStyle"
    else:
        name = "otherStyle"
    return master.find(f"p:txStyles/p:{name}", NS)


def _level_props(lst: etree._Element, level: int) -> list[etree._Element]:
    lvl = min(max(level, 0), 8) + 1
    found = []
    for path in (f"a:lvl{lvl}pPr/a:defRPr", "a:defPPr/a:defRPr"):
        el = lst.find(path, NS)
        if el is not None:
            found.append(el)
    return found


def _resolve_face(face: str | None, ctx: StyleContext, ea: bool = False) -> str | None:
    if not face:
        return None
    if face.startswith("+mj"):
        return ctx.major_ea if ea or face.endswith("-ea") else ctx.major
    if face.startswith("+mn"):
        return ctx.minor_ea if ea or face.endswith("-ea") else ctx.minor
    return face


def run_style(rpr: etree._Element | None, level: int, shape_lst: etree._Element | None,
              ctx: StyleContext, font_scale: float = 1.0) -> RunStyle:
    """Effective style of one run; ``size_pt`` includes the normAutofit ``font_scale``."""
    chain: list[etree._Element] = [rpr] if rpr is not None else []
    for lst in ([shape_lst] if shape_lst is not None else []) + ctx.lists:
        chain.extend(_level_props(lst, level))
    size, source = None, "default"
    face = face_ea = None
    bold = italic = None
    fill = highlight = line = effects = None
    fill_local = False
    local_count = (1 if rpr is not None else 0) + (len(_level_props(shape_lst, level)) if shape_lst is not None else 0)
    for i, el in enumerate(chain):
        if fill is None:
            fill = fill_element(el)
            fill_local = fill is not None and i < local_count
        if highlight is None:
            highlight = el.find("a:highlight", NS)
        if line is None:
            line = el.find("a:ln", NS)
        if effects is None:
            effects = el.find("a:effectLst", NS)
            effects = effects if effects is not None else el.find("a:effectDag", NS)
        if size is None and el.get("sz", "").isdigit():
            size = int(el.get("sz")) / 100.0
            source = "run" if (rpr is not None and i == 0) else "inherited"
        if face is None:
            latin = el.find("a:latin", NS)
            face = latin.get("typeface") if latin is not None else None
        if face_ea is None:
            east = el.find("a:ea", NS)
            face_ea = east.get("typeface") if east is not None else None
        if bold is None and el.get("b") is not None:
            bold = el.get("b") in ("1", "true")
        if italic is None and el.get("i") is not None:
            italic = el.get("i") in ("1", "true")
    if size is None:
        size = DEFAULT_SIZE_PT
    font = _resolve_face(face, ctx) or (ctx.major if ctx.is_title else ctx.minor)
    font_ea = _resolve_face(face_ea, ctx, ea=True) or None
    baseline = rpr.get("baseline", "0") if rpr is not None else "0"
    script = baseline.strip().rstrip("%").lstrip("+-").replace(".", "", 1).isdigit() and \
        float(baseline.strip().rstrip("%")) != 0
    return RunStyle(round(size * font_scale, 2), source, font, font_ea, bold, italic, script, fill_local, fill, highlight, line, effects)


def body_props(body_pr: etree._Element | None, ctx: StyleContext) -> dict[str, Any]:
    """Effective wrap / autofit / font_scale / insets / anchor / vertical of a text frame."""
    chain = ([body_pr] if body_pr is not None else []) + ctx.body_prs

    def attr(name: str) -> str | None:
        for el in chain:
            value: str | None = el.get(name)
            if value is not None:
                return value
        return None

    autofit, scale = "none", 1.0
    for el in chain:
        if el.find("a:spAutoFit", NS) is not None:
            autofit = "shape"
            break
        norm = el.find("a:normAutofit", NS)
        if norm is not None:
            autofit = "norm"
            fs = norm.get("fontScale")
            scale = _percent(fs) if fs else 1.0
            break
        if el.find("a:noAutofit", NS) is not None:
            break
    insets = []
    for name, default in zip(("lIns", "tIns", "rIns", "bIns"), DEFAULT_INSETS_EMU):
        raw = attr(name)
        insets.append(int(raw) if raw and raw.lstrip("-").isdigit() else default)
    vert = attr("vert") or "horz"
    return {
        "wrap": "none" if attr("wrap") == "none" else "square",
        "autofit": autofit,
        "font_scale": scale,
        "insets_emu": tuple(insets),
        "anchor": attr("anchor") or "t",
        "vertical": vert not in ("horz", "wordArtVert") and vert != "",
        "vert": vert or "horz",
    }


def _percent(raw: str) -> float:
    """ST_TextFontScalePercentOrPercentString: ``62500`` (Transitional) or ``62.5%`` (Strict)."""
    raw = raw.strip()
    if raw.endswith("%"):
        return float(raw[:-1]) / 100.0
    return int(raw) / 100000.0
