"""Structure of decks without shapes: PDF pages and HTML slide sections (text only)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .documents import EMU_PER_PT, ExtractError, SlideDoc
from .structure import StructureResult

if TYPE_CHECKING:
    from lxml.html import HtmlElement  # untyped (pyproject [tool.mypy]): read as Any

HTML_MAX_BYTES = 50 * 1024 * 1024
"""HTML decks above 50 MiB are not parsed for text (rendering still tries)."""


def pdf_structure(path: Path) -> StructureResult:
    """One SlideDoc per PDF page with its text; slide size from page 1 (points → EMU)."""
    try:
        import pymupdf
    except ImportError as exc:
        return StructureResult(False, errors=[ExtractError(field="environment", error=f"PyMuPDF missing: {exc}")])
    res = StructureResult(True)
    try:
        with pymupdf.open(path) as doc:
            if doc.page_count:
                rect = doc[0].rect
                res.slide_width_emu = round(rect.width * EMU_PER_PT)
                res.slide_height_emu = round(rect.height * EMU_PER_PT)
            for num, page in enumerate(doc, start=1):
                try:
                    res.slides.append(SlideDoc(index=num, text=page.get_text().strip()))
                except Exception as exc:  # noqa: BLE001 - page-level isolation
                    err = ExtractError(slide=num, field="text", error=f"{type(exc).__name__}: {exc}")
                    res.slides.append(SlideDoc(index=num, extract_errors=[err]))
                    res.errors.append(err)
    except Exception as exc:  # noqa: BLE001 - deck-level isolation
        return StructureResult(False, errors=[ExtractError(field="deck", error=f"{type(exc).__name__}: {exc}")])
    return res


def html_slides(root: HtmlElement) -> list[HtmlElement]:
    """Slide elements of a parsed HTML deck, the same rule the screenshots use:
    top-level ``<section>`` elements, else ``.slide`` elements, else the ``<body>``."""
    sections = [s for s in root.iter("section") if not any(a.tag == "section" for a in s.iterancestors())]
    if sections:
        return sections
    slides = root.find_class("slide")
    if slides:
        return list(slides)
    body = root.find("body")
    return [body if body is not None else root]


def html_structure(path: Path) -> StructureResult:
    """One SlideDoc per slide element with its visible text (scripts/styles dropped)."""
    try:
        import lxml.html
    except ImportError as exc:
        return StructureResult(False, errors=[ExtractError(field="environment", error=f"lxml missing: {exc}")])
    try:
        if path.stat().st_size > HTML_MAX_BYTES:
            raise ValueError(f"HTML larger than {HTML_MAX_BYTES} bytes")
        root = lxml.html.fromstring(path.read_bytes())
        for bad in root.xpath("//script|//style|//noscript|//template"):
            bad.drop_tree()
        res = StructureResult(True)
        for num, el in enumerate(html_slides(root), start=1):
            text = " ".join(" ".join(el.itertext()).split())
            heading = el.find(".//h1")
            heading = heading if heading is not None else el.find(".//h2")
            title = " ".join(heading.text_content().split()) if heading is not None else None
            res.slides.append(SlideDoc(index=num, text=text, title=title))
        return res
    except Exception as exc:  # noqa: BLE001 - deck-level isolation
        return StructureResult(False, errors=[ExtractError(field="deck", error=f"{type(exc).__name__}: {exc}")])
