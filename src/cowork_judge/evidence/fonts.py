"""Requested → rendered font mapping and metric compatibility.

A rendered font that is not the requested one changes line breaks unless it is
metric-compatible (same advance widths), so render-measured findings lose confidence.
"""

from __future__ import annotations

import re

METRIC_COMPATIBLE: dict[str, set[str]] = {
    "calibri": {"carlito"},
    "cambria": {"caladea"},
    "arial": {"liberationsans", "arimo"},
    "helvetica": {"liberationsans", "arimo"},
    "timesnewroman": {"liberationserif", "tinos"},
    "times": {"liberationserif", "tinos"},
    "couriernew": {"liberationmono", "cousine"},
    "courier": {"liberationmono", "cousine"},
    "arialnarrow": {"liberationsansnarrow"},
    "symbol": {"opensymbol"},
}
"""Pairs designed to be metric-compatible: Carlito/Caladea (Google's Chrome OS core fonts
made for Calibri/Cambria), Liberation 2 / Croscore Arimo, Tinos, Cousine (for Arial, Times
New Roman, Courier New). Keys and values are normalised names (see :func:`norm`)."""

SYMBOL_FONTS = {"opensymbol", "symbol", "wingdings", "wingdings2", "wingdings3", "webdings", "starsymbol"}
"""Fonts LibreOffice uses for bullets; they say nothing about the text's font."""

_STYLE_SUFFIX = re.compile(r"(bold|italic|oblique|regular|medium|light|semibold|condensed|book|black|narrow)+$")


def norm(name: str | None) -> str:
    """Lowercase family key: ``"ABCDEF+DejaVuSans-Bold"`` → ``"dejavusans"``."""
    if not name:
        return ""
    name = name.split("+", 1)[1] if re.match(r"^[A-Z]{6}\+", name) else name
    key = re.sub(r"[^a-z0-9]", "", name.lower().replace("-", " ").split(",")[0])
    if "-" in name:  # PostScript names put the style after a hyphen
        key = re.sub(r"[^a-z0-9]", "", name.split("-")[0].lower()) or key
    return key


def verdict(requested: str, rendered: set[str]) -> str:
    """Best relation between ``requested`` and any rendered font: ``same`` |
    ``metric_compatible`` | ``substituted`` | ``unknown`` (nothing rendered). "Any", because
    one text frame legitimately mixes fonts (fallbacks for CJK, symbols, bold faces)."""
    want = norm(requested)
    got = {norm(r) for r in rendered} - SYMBOL_FONTS - {""}
    if not got or not want:
        return "unknown"
    base = _STYLE_SUFFIX.sub("", want) or want
    if any(g == want or g.startswith(base) or want.startswith(g) for g in got):
        return "same"
    if got & (METRIC_COMPATIBLE.get(want, set()) | METRIC_COMPATIBLE.get(base, set())):
        return "metric_compatible"
    return "substituted"
