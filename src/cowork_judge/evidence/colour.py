"""DrawingML colours as a viewer sees them: theme colours through the colour map, the colour
transforms, fills, and how far apart two colours look.

Pure functions over lxml elements and plain values (no I/O). Colours are CSS hex strings
(``#RRGGBB``, or ``#RRGGBBAA`` when not opaque, CSS Color 4 §5.2) in documents, and
`Colour` values (sRGB components in 0..1 plus alpha) here.

Sources:

- colour elements and transforms: ECMA-376 Part 1 §20.1.2.3 (``srgbClr``, ``scrgbClr``,
  ``hslClr``, ``sysClr``, ``schemeClr``, ``prstClr``; ``alpha``, ``lumMod``, ``lumOff``,
  ``tint``, ``shade`` …); ``tint``/``shade`` are applied to linear RGB and ``lumMod``/``lumOff``
  to HSL lightness, as LibreOffice's importer does (``oox/source/drawingml/color.cxx``);
- the colour map (``p:clrMap``, ``p:clrMapOvr``): ECMA-376 Part 1 §19.3.1.6 / §19.3.1.7;
- relative luminance and contrast ratio: WCAG 2.2, definitions "relative luminance" and
  "contrast ratio" (W3C Recommendation, 2023);
- CIELAB and ΔE*ab (CIE 1976): CIE 15:2004 §8.2, D65 white, sRGB per IEC 61966-2-1.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass
from typing import Any

from .documents import Paint

A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
NS = {"a": A_NS}
FILL_TAGS = ("noFill", "solidFill", "gradFill", "blipFill", "pattFill", "grpFill")
"""The fill choice of ``a:EG_FillProperties`` (ECMA-376 Part 1 §20.1.8)."""
COLOUR_TAGS = ("srgbClr", "scrgbClr", "hslClr", "sysClr", "schemeClr", "prstClr")
"""The colour choice of ``a:EG_ColorChoice`` (ECMA-376 Part 1 §20.1.2.3)."""
MAPPED_SCHEME = ("bg1", "tx1", "bg2", "tx2", "accent1", "accent2", "accent3", "accent4", "accent5", "accent6",
                 "hlink", "folHlink")
"""Scheme colour names that go through the colour map (``p:clrMap`` attributes)."""
DEFAULT_CLR_MAP = {"bg1": "lt1", "tx1": "dk1", "bg2": "lt2", "tx2": "dk2"}
"""PowerPoint's default map (a master without ``p:clrMap``)."""
_SYSTEM = {"window": "FFFFFF", "windowText": "000000", "btnFace": "F0F0F0", "btnText": "000000",
           "highlight": "0078D7", "highlightText": "FFFFFF", "menu": "F0F0F0", "menuText": "000000",
           "captionText": "000000", "grayText": "6D6D6D", "infoBk": "FFFFE1", "infoText": "000000"}
"""``sysClr`` values without ``lastClr`` (Windows defaults)."""
_PRESET = {"black": "000000", "white": "FFFFFF", "red": "FF0000", "green": "008000", "blue": "0000FF",
           "yellow": "FFFF00", "cyan": "00FFFF", "aqua": "00FFFF", "magenta": "FF00FF", "fuchsia": "FF00FF",
           "gray": "808080", "grey": "808080", "silver": "C0C0C0", "lightGray": "D3D3D3", "ltGray": "D3D3D3",
           "darkGray": "A9A9A9", "dkGray": "A9A9A9", "navy": "000080", "maroon": "800000", "olive": "808000",
           "purple": "800080", "teal": "008080", "lime": "00FF00", "orange": "FFA500", "whiteSmoke": "F5F5F5",
           "snow": "FFFAFA", "ivory": "FFFFF0", "ghostWhite": "F8F8FF", "floralWhite": "FFFAF0"}
"""``prstClr`` names this reader resolves (ECMA-376 Part 1 §20.1.10.47, the CSS values); another
name is an unresolved colour."""


@dataclass(frozen=True)
class Colour:
    """An sRGB colour: components ``r``, ``g``, ``b`` in 0..1 (gamma-encoded) and ``alpha``
    in 0..1 (1 = opaque)."""

    r: float
    g: float
    b: float
    alpha: float = 1.0

    @classmethod
    def from_hex(cls, text: str) -> Colour:
        """``RRGGBB``, ``#RRGGBB`` or ``#RRGGBBAA``.

        Raises:
            ValueError: not a hex colour.
        """
        raw = text.strip().lstrip("#")
        if len(raw) not in (6, 8) or any(c not in "0123456789abcdefABCDEF" for c in raw):
            raise ValueError(f"not a hex colour: {text[:20]!r}")
        parts = [int(raw[i:i + 2], 16) / 255.0 for i in range(0, len(raw), 2)]
        return cls(parts[0], parts[1], parts[2], parts[3] if len(parts) == 4 else 1.0)

    @property
    def hex(self) -> str:
        """``#RRGGBB``, or ``#RRGGBBAA`` when not opaque."""
        parts = [self.r, self.g, self.b] + ([self.alpha] if self.alpha < 1.0 - 1e-9 else [])
        return "#" + "".join(f"{round(_clip(p) * 255):02X}" for p in parts)

    def opaque(self) -> Colour:
        """The same colour with alpha 1."""
        return Colour(self.r, self.g, self.b)

    def over(self, below: Colour) -> Colour:
        """This colour drawn with its alpha over the opaque colour `below` (source-over in sRGB)."""
        a = _clip(self.alpha)
        return Colour(self.r * a + below.r * (1 - a), self.g * a + below.g * (1 - a), self.b * a + below.b * (1 - a))


WHITE = Colour(1.0, 1.0, 1.0)


def _clip(v: float) -> float:
    return 0.0 if v < 0 else 1.0 if v > 1 else v


def _linear(c: float) -> float:
    """sRGB component → linear light (IEC 61966-2-1; WCAG 2.2 uses 0.04045 as the knee)."""
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(c: float) -> float:
    """Linear light → sRGB component."""
    c = _clip(c)
    return c * 12.92 if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def relative_luminance(c: Colour) -> float:
    """WCAG 2.2 relative luminance of the opaque colour: 0 (black) … 1 (white)."""
    return 0.2126 * _linear(c.r) + 0.7152 * _linear(c.g) + 0.0722 * _linear(c.b)


def contrast_ratio(a: Colour, b: Colour) -> float:
    """WCAG 2.2 contrast ratio ``(L1 + 0.05) / (L2 + 0.05)`` of two opaque colours: 1 … 21."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _lab(c: Colour) -> tuple[float, float, float]:
    r, g, b = _linear(c.r), _linear(c.g), _linear(c.b)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: Colour, b: Colour) -> float:
    """CIE 1976 colour difference ΔE*ab of two opaque sRGB colours (D65): 0 = identical,
    about 2.3 = just noticeable, 100 = black against white."""
    return math.dist(_lab(a), _lab(b))


# ------------------------------------------------------------------ transforms


def _hsl(c: Colour) -> tuple[float, float, float]:
    h, lightness, s = colorsys.rgb_to_hls(c.r, c.g, c.b)
    return h, s, lightness


def _from_hsl(h: float, s: float, lightness: float, alpha: float) -> Colour:
    r, g, b = colorsys.hls_to_rgb(h % 1.0, _clip(lightness), _clip(s))
    return Colour(r, g, b, alpha)


def _pct(el: Any) -> float | None:
    raw = (el.get("val") or "").strip()
    try:
        return float(raw.rstrip("%")) / 100.0 if raw.endswith("%") else int(raw) / 100000.0
    except ValueError:
        return None


def apply_transforms(c: Colour, el: Any) -> Colour | None:
    """`c` with the transform children of colour element `el` applied in document order;
    None when a transform is unknown to this reader or malformed (the colour is then not
    claimed at all)."""
    for t in el:
        tag = t.tag.rsplit("}", 1)[-1] if isinstance(t.tag, str) else ""
        if not tag:
            continue
        if tag == "inv":
            c = Colour(1 - c.r, 1 - c.g, 1 - c.b, c.alpha)
            continue
        if tag == "gray":
            grey = _encoded(relative_luminance(c))
            c = Colour(grey, grey, grey, c.alpha)
            continue
        if tag == "comp":
            h, s, lightness = _hsl(c)
            c = _from_hsl(h + 0.5, s, lightness, c.alpha)
            continue
        if tag in ("hueOff", "hue"):
            raw = t.get("val") or ""
            if not raw.lstrip("-").isdigit():
                return None
            h, s, lightness = _hsl(c)
            turn = int(raw) / 60000.0 / 360.0
            c = _from_hsl(turn if tag == "hue" else h + turn, s, lightness, c.alpha)
            continue
        v = _pct(t)
        if tag == "hueMod" and v is not None:
            h, s, lightness = _hsl(c)
            c = _from_hsl(h * v, s, lightness, c.alpha)
            continue
        if v is None:
            return None
        if tag == "alpha":
            c = Colour(c.r, c.g, c.b, _clip(v))
        elif tag == "alphaMod":
            c = Colour(c.r, c.g, c.b, _clip(c.alpha * v))
        elif tag == "alphaOff":
            c = Colour(c.r, c.g, c.b, _clip(c.alpha + v))
        elif tag in ("lumMod", "lumOff", "lum", "satMod", "satOff", "sat"):
            h, s, lightness = _hsl(c)
            if tag == "lumMod":
                lightness *= v
            elif tag == "lumOff":
                lightness += v
            elif tag == "lum":
                lightness = v
            elif tag == "satMod":
                s *= v
            elif tag == "satOff":
                s += v
            else:
                s = v
            c = _from_hsl(h, s, lightness, c.alpha)
        elif tag in ("tint", "shade"):
            lin = [_linear(x) for x in (c.r, c.g, c.b)]
            f = _clip(v)
            lin = [1 - (1 - x) * f for x in lin] if tag == "tint" else [x * f for x in lin]
            c = Colour(_encoded(lin[0]), _encoded(lin[1]), _encoded(lin[2]), c.alpha)
        elif tag in ("red", "green", "blue", "redMod", "greenMod", "blueMod", "redOff", "greenOff", "blueOff"):
            channels = {"red": _linear(c.r), "green": _linear(c.g), "blue": _linear(c.b)}
            channel = tag.removesuffix("Mod").removesuffix("Off")
            old = channels[channel]
            channels[channel] = v if tag == channel else old * v if tag.endswith("Mod") else old + v
            c = Colour(_encoded(channels["red"]), _encoded(channels["green"]), _encoded(channels["blue"]), c.alpha)
        else:
            return None
    return c


# ------------------------------------------------------------------ the palette


class Palette:
    """A slide's colours: the theme's colour scheme and the colour map in force.

    Args:
        scheme: theme colour name (``dk1``, ``lt1``, ``accent1`` …) → `Colour`.
        mapping: colour map (``bg1`` → ``lt1`` …; ``p:clrMap`` attributes).
    """

    def __init__(self, scheme: dict[str, Colour], mapping: dict[str, str] | None = None) -> None:
        self.scheme = scheme
        self.mapping = {**DEFAULT_CLR_MAP, **(mapping or {})}

    @classmethod
    def from_theme(cls, theme: Any | None, mapping: dict[str, str] | None = None) -> Palette:
        """From a theme part's root element (``a:theme``; None: no theme, Office defaults)."""
        scheme: dict[str, Colour] = {"dk1": Colour(0, 0, 0), "lt1": WHITE}
        plain = cls({}, {})
        node = theme.find(".//a:themeElements/a:clrScheme", NS) if theme is not None else None
        for child in node if node is not None else []:
            name = child.tag.rsplit("}", 1)[-1] if isinstance(child.tag, str) else ""
            choice = next((c for c in child if isinstance(c.tag, str) and c.tag.rsplit("}", 1)[-1] in COLOUR_TAGS), None)
            colour = plain.colour(choice) if choice is not None and not _is_scheme(choice) else None
            if name and colour is not None:
                scheme[name] = colour
        return cls(scheme, mapping)

    def named(self, name: str, placeholder: Colour | None = None) -> Colour | None:
        """A scheme colour name resolved: ``phClr`` → `placeholder`; ``bg1``/``tx1``/… through
        the colour map; a theme slot name directly; None when unknown."""
        if name == "phClr":
            return placeholder
        if name in MAPPED_SCHEME:
            name = self.mapping.get(name, name)
        return self.scheme.get(name)

    def colour(self, el: Any | None, placeholder: Colour | None = None) -> Colour | None:
        """The colour of a colour element (``a:srgbClr`` …) with its transforms; None when
        `el` is None, unknown or malformed."""
        if el is None or not isinstance(el.tag, str):
            return None
        tag = el.tag.rsplit("}", 1)[-1]
        base: Colour | None = None
        try:
            if tag == "srgbClr":
                base = Colour.from_hex(el.get("val") or "")
            elif tag == "sysClr":
                raw = el.get("lastClr") or _SYSTEM.get(el.get("val") or "")
                base = Colour.from_hex(raw) if raw else None
            elif tag == "schemeClr":
                base = self.named(el.get("val") or "", placeholder)
            elif tag == "prstClr":
                raw = _PRESET.get(el.get("val") or "")
                base = Colour.from_hex(raw) if raw else None
            elif tag == "scrgbClr":
                r, g, b = (int(el.get(k)) / 100000.0 for k in ("r", "g", "b"))
                base = Colour(_encoded(r), _encoded(g), _encoded(b))
            elif tag == "hslClr":
                h = int(el.get("hue")) / 60000.0 / 360.0
                s, lightness = int(el.get("sat")) / 100000.0, int(el.get("lum")) / 100000.0
                base = _from_hsl(h, s, lightness, 1.0)
        except (TypeError, ValueError):
            return None
        return apply_transforms(base, el) if base is not None else None

    def choice(self, parent: Any | None, placeholder: Colour | None = None) -> Colour | None:
        """The colour of the first colour-choice child of `parent` (e.g. ``a:solidFill``)."""
        if parent is None:
            return None
        el = next((c for c in parent if isinstance(c.tag, str) and c.tag.rsplit("}", 1)[-1] in COLOUR_TAGS), None)
        return self.colour(el, placeholder)


def _is_scheme(el: Any) -> bool:
    return isinstance(el.tag, str) and el.tag.rsplit("}", 1)[-1] == "schemeClr"


def clr_map(el: Any | None) -> dict[str, str]:
    """The attributes of a ``p:clrMap`` or ``a:overrideClrMapping`` element (empty for None)."""
    return dict(el.attrib) if el is not None else {}


def fill_element(parent: Any | None) -> Any | None:
    """The fill child of `parent` (``a:solidFill``, ``a:noFill`` … see `FILL_TAGS`), or None."""
    if parent is None:
        return None
    return next((c for c in parent if isinstance(c.tag, str) and c.tag.rsplit("}", 1)[-1] in FILL_TAGS), None)


def local(el: Any) -> str:
    """An element's tag without its namespace ("" for comments and processing instructions)."""
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


UNKNOWN = Paint(kind="unknown")
NO_PAINT = Paint(kind="none")


def paint(fill: Any | None, palette: Palette, placeholder: Colour | None = None) -> Paint | None:
    """The `Paint` of a fill element (``a:solidFill``, ``a:gradFill``, ``a:pattFill``,
    ``a:blipFill``, ``a:noFill``, ``a:grpFill``); None when `fill` is None (nothing said:
    the caller inherits). A colour this reader cannot resolve makes the paint ``unknown``."""
    if fill is None:
        return None
    tag = local(fill)
    if tag == "noFill":
        return NO_PAINT
    if tag == "solidFill":
        c = palette.choice(fill, placeholder)
        return Paint(kind="solid", colours=[c.hex]) if c is not None else UNKNOWN
    if tag == "gradFill":
        stops = [palette.choice(gs, placeholder) for gs in fill.iterfind("a:gsLst/a:gs", NS)]
        if not stops or any(c is None for c in stops):
            return UNKNOWN
        return Paint(kind="gradient", colours=[c.hex for c in stops if c is not None])
    if tag == "pattFill":
        fg = palette.choice(fill.find("a:fgClr", NS), placeholder)
        bg = palette.choice(fill.find("a:bgClr", NS), placeholder)
        return Paint(kind="pattern", colours=[fg.hex, bg.hex]) if fg is not None and bg is not None else UNKNOWN
    if tag == "blipFill":
        return Paint(kind="picture")
    return UNKNOWN  # grpFill: the group's fill, not followed here


def style_paint(theme: Any | None, ref: Any | None, palette: Palette) -> Paint | None:
    """The paint a style reference points at: ``a:fillRef`` (``idx`` 1… in the theme's
    ``a:fillStyleLst``) or ``p:bgRef`` (``idx`` 1001… in ``a:bgFillStyleLst``, 1… in
    ``a:fillStyleLst``), its colour child standing for ``phClr`` (ECMA-376 Part 1
    §20.1.4.2.10, §19.3.1.3). ``idx`` 0 is no fill; None when `ref` is None; ``unknown`` when
    the theme lacks the entry."""
    if ref is None:
        return None
    raw = (ref.get("idx") or "0").strip()
    if not raw.isdigit():
        return UNKNOWN
    idx = int(raw)
    if idx == 0:
        return NO_PAINT
    lists = ("a:bgFillStyleLst", 1001) if idx >= 1001 else ("a:fillStyleLst", 1)
    node = theme.find(f".//a:fmtScheme/{lists[0]}", NS) if theme is not None else None
    entries = [c for c in node if local(c) in FILL_TAGS] if node is not None else []
    pos = idx - lists[1]
    if not 0 <= pos < len(entries):
        return UNKNOWN
    return paint(entries[pos], palette, palette.choice(ref))
