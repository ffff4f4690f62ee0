"""Requested → rendered font mapping and metric compatibility.

A rendered font that is not the requested one changes line breaks unless it is
metric-compatible (same advance widths), so render-measured findings lose confidence.
"""

from __future__ import annotations

import functools
import re
import shutil

from .._util.procs import run_command

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
    if any(same_face_file(requested, r) for r in rendered if norm(r) not in SYMBOL_FONTS):
        return "same"
    return "substituted"


@functools.lru_cache(maxsize=1024)
def _fc_match(pattern: str) -> tuple[str, str, tuple[str, ...]] | None:
    """``fc-match``'s ``(file, postscript name, family names)`` for ``pattern``; None without
    fontconfig or when it fails (5 s limit)."""
    exe = shutil.which("fc-match")
    if exe is None:
        return None
    out = run_command([exe, "-f", "%{file}\t%{postscriptname}\t%{family}", pattern], timeout_sec=5).stdout
    parts = out.split("\t")
    if len(parts) != 3 or not parts[0]:
        return None
    return parts[0], parts[1], tuple(f.strip() for f in parts[2].split(","))


@functools.lru_cache(maxsize=256)
def font_file_of(ps_name: str) -> str | None:
    """The installed font file whose PostScript name is ``ps_name`` — its subset prefix
    (``ABCDEF+``) dropped, then trailing ``-suffixes`` one at a time (``-VKana``, ``-Regular``)
    until fontconfig knows one; None without fontconfig or when none matches."""
    name = ps_name.split("+", 1)[1] if re.match(r"^[A-Z]{6}\+", ps_name) else ps_name
    while name:
        got = _fc_match(f":postscriptname={name}")
        if got is not None and got[1].lower() == name.lower():
            return got[0]
        if "-" not in name:
            return None
        name = name.rsplit("-", 1)[0]
    return None


def same_face_file(requested: str, rendered: str) -> bool:
    """Whether fontconfig resolves the requested family and the rendered (PostScript) name to
    one installed font file: the family is installed and was drawn under another of its names.

    Noto Sans CJK ships every region in one collection, and LibreOffice embeds the face under
    the collection's first name: a deck asking for "Noto Sans CJK SC" is drawn as
    ``NotoSansCJKjp-Regular-VKana`` — the same glyphs, not a substitute (issue 35). The
    requested family must be one of the names fontconfig reports for the file it picks (else
    fontconfig itself substituted), and the rendered name — its subset prefix dropped, then
    trailing ``-suffixes`` one at a time — must resolve to a face whose PostScript name it is.
    False without ``fc-match``.
    """
    want = _fc_match(requested)
    if want is None or norm(requested) not in {norm(f) for f in want[2]}:
        return False
    return font_file_of(rendered) == want[0]
