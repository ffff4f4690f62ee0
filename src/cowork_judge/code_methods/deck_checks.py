"""Deck code methods, part two: does the deck open, and how many pages does it have.

Every check reads the deck's CONTENT (`evidence.sniff.sniff_deck`), never trusts its
name: ``check_deck_openable`` opens whatever kind the content is (a pptx, a PDF, HTML);
``check_pptx_openable`` asks for a PowerPoint presentation, so a PDF or an HTML page
named ``.pptx`` is a judged miss that says what the file really is; ``page_count_between``
counts what a viewer of that content shows. A name that claims another kind is said in
the reason (``deck.pptx (HTML content named .pptx)``).

The deck a check looks at is its ``path``, else the deck a ``locate_deck`` row located, else —
when the rubric has no ``locate_deck`` row — the deck the check locates itself with
``locate_deck``'s defaults (`decks.the_deck`; said in the reason, and handed on like a located
deck so the later rows and segments judge the same file).
"""

from __future__ import annotations

import io
import re
import tempfile
from pathlib import Path
from typing import Any

from cowork_judge.code_methods.decks import CONTENT_FAMILY, misnamed, page_param_errors, the_deck
from cowork_judge.code_methods.files import refuse
from cowork_judge.core.error_kinds import JudgeFailure
from cowork_judge._util.procs import resolve_tool
from cowork_judge.segment.code_context import CodeContext

MAX_READ_BYTES = 20 * 1024 * 1024
"""HTML decks are parsed / counted on their first 20 MiB only."""
SOFFICE_CHECK_TIMEOUT_SEC = 45.0
"""LibreOffice open check timeout (seconds), kept under the default JUDGE_CODE_TIMEOUT."""
NOT_POWERPOINT = {"ok_pdf": "a PDF document", "ok_html": "an HTML document"}
"""Sniff statuses of decks that open but are no PowerPoint presentation → what they are."""


PPTX_MISSING = "python-pptx is not installed"
"""`_python_pptx_error`'s answer when the ``pptx`` extra is missing (not the deck's fault)."""


class EnvironmentMissing(JudgeFailure):
    """The check needs a tool this image lacks: the row is unjudged ``render_env`` (the deck
    is not penalised for the image's shortcomings), or ``extras_missing`` when it is the judge's
    ``pptx`` extra that `cowork-judge init` installs for the row (trial 23 P-1)."""

    kind = "render_env"


def _label(rel: str, sniff: Any) -> str:
    """The deck's name, plus what its content is when the name claims another kind."""
    family = CONTENT_FAMILY.get(sniff.kind or "")
    return rel + (misnamed(rel, family) if family else "")


def check_deck_openable(
    ctx: CodeContext, path: str | None = None, accept_legacy_ppt: bool = True
) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the deck opens as what its content is: a PowerPoint presentation that
    python-pptx or LibreOffice can open, a PDF with ≥ 1 page, or HTML that parses.

    Broken decks (truncated or corrupt zip, encrypted package, not a presentation, zip
    bomb, empty, unknown bytes) are misses with the specific reason; so is a deck over the
    judge's size or entry limit (``too_large``: a size policy, named as such). Legacy binary
    ``.ppt`` is reported as such and counts when `accept_legacy_ppt`.

    Raises:
        EnvironmentMissing: python-pptx cannot open a valid-looking package and
            LibreOffice is not installed, so nothing can decide.
        ReadLimit: `path` names a deliverable past the listing limit (or the deck's own
            location, `decks.the_deck`, met a read limit).
    """
    return _openable(ctx, path, accept_legacy_ppt, powerpoint_only=False)


def check_pptx_openable(
    ctx: CodeContext, path: str | None = None, accept_legacy_ppt: bool = True
) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the deck is a PowerPoint presentation that opens: an OOXML package
    (pptx, pptm, ppsx, potx…, whatever its extension) that python-pptx or LibreOffice can
    open, or a legacy binary ``.ppt`` when `accept_legacy_ppt`.

    Anything else is a judged miss that says what the file is: a PDF or an HTML page
    (named ``.pptx`` or not) is not a PowerPoint presentation, however well it opens.

    Raises:
        EnvironmentMissing: as `check_deck_openable`.
        ReadLimit: `path` names a deliverable past the listing limit (or the deck's own
            location, `decks.the_deck`, met a read limit).
    """
    return _openable(ctx, path, accept_legacy_ppt, powerpoint_only=True)


def _openable(ctx: CodeContext, path: str | None, accept_legacy_ppt: bool, *,
              powerpoint_only: bool) -> tuple[bool, str, dict[str, Any]]:
    """The open check on `the_deck`; the deck it located itself (if any) in the artifacts and
    said after the reason."""
    choice = the_deck(ctx, path)
    if choice.path is None:
        return False, choice.shown, {}
    hit, reason, facts = _opens(ctx, choice.path, choice.shown, accept_legacy_ppt, powerpoint_only=powerpoint_only)
    return hit, reason + choice.note, {**choice.artifacts, **facts}


def _opens(ctx: CodeContext, deck: Path, rel: str, accept_legacy_ppt: bool, *,
           powerpoint_only: bool) -> tuple[bool, str, dict[str, Any]]:
    from cowork_judge.evidence.sniff import sniff_deck

    sniff = sniff_deck(deck)
    facts = {"deck_status": sniff.status}
    if powerpoint_only and sniff.status in NOT_POWERPOINT:
        return False, f"{rel} is {NOT_POWERPOINT[sniff.status]}, not a PowerPoint presentation", facts
    label = _label(rel, sniff)
    if sniff.status in ("ok", "ok_strict"):
        flavour = _flavour(sniff)
        error = _python_pptx_error(deck, strict=sniff.status == "ok_strict")
        if error is None:
            return True, f"{label} opens ({flavour})", facts
        pages = _soffice_pages(ctx, deck, sniff.kind or "pptx")
        if pages:
            return True, f"{label} opens in LibreOffice ({flavour}, {pages} page(s)); python-pptx: {error}", facts
        if pages == 0:
            return False, f"{label} is a {flavour} that neither python-pptx ({error}) nor LibreOffice can open", facts
        raise EnvironmentMissing(f"python-pptx cannot open {label} ({error}) and LibreOffice is not installed",
                                 kind="extras_missing" if error == PPTX_MISSING else None)  # trial 23 P-1: init again
    if sniff.status == "ok_legacy_ppt":
        what = "a legacy binary PowerPoint 97-2003 file (.ppt)"
        if accept_legacy_ppt:
            return True, f"{label} is {what}; accepted", facts
        return False, f"{label} is {what}; this task requires OOXML (accept_legacy_ppt=false)", facts
    if sniff.status == "ok_pdf":
        pages = sniff.page_count if sniff.page_count is not None else _pdf_pages(deck)
        if pages is None:
            raise EnvironmentMissing(f"{label} is a PDF but PyMuPDF is not installed to open it")
        return pages >= 1, f"{label} is a PDF with {pages} page(s)", facts
    if sniff.status == "ok_html":
        return _html_ok(deck, label, facts)
    if sniff.status == "too_large":  # a size policy, not a broken deck (trial 11 F9): still a judged miss
        return False, f"{label} is too large for the judge to open: {sniff.reason}", facts
    return False, f"{label} does not open: {sniff.status}: {sniff.reason}", facts


def _flavour(sniff: Any) -> str:
    parts = []
    if sniff.status == "ok_strict":
        parts.append("ISO-Strict")
    flags = sniff.flags
    if flags.macro:
        parts.append("macro-enabled")
    if flags.template:
        parts.append("template")
    if flags.slideshow:
        parts.append("slideshow")
    parts.append("OOXML presentation")
    if flags.extension_mismatch:
        parts.append("with a misleading file extension")
    return " ".join(parts)


def _python_pptx_error(deck: Path, *, strict: bool) -> str | None:
    try:
        from pptx import Presentation

        from cowork_judge.evidence.package import readable_copy
    except ImportError:
        return PPTX_MISSING
    try:
        copy = readable_copy(deck, strict=strict)
        # only content-type and Strict-namespace patches count as "opens"; an XML repair does not
        repaired = sorted({part for part, _ in copy.repairs if part not in ("", "[Content_Types].xml")})
        if repaired:
            return f"malformed XML in {', '.join(repaired[:3])}"
        Presentation(io.BytesIO(copy.data))
        return None
    except Exception as exc:  # python-pptx raises many types on odd decks
        return f"{type(exc).__name__}: {str(exc)[:160]}"


def _soffice_pages(ctx: CodeContext, deck: Path, kind: str) -> int | None:
    """Pages LibreOffice renders, 0 when it cannot open the deck, None when it is missing."""
    soffice = resolve_tool(ctx.settings.soffice, "soffice", "libreoffice")
    if soffice is None:
        return None
    from cowork_judge.evidence.render import soffice_to_pdf

    timeout = min(SOFFICE_CHECK_TIMEOUT_SEC, ctx.settings.code_timeout_sec, max(1.0, ctx.deadline.remaining()))
    with tempfile.TemporaryDirectory(prefix="openable-", dir=ctx.paths.work_dir if ctx.paths.work_dir.is_dir() else None) as tmp:
        result = soffice_to_pdf(deck, kind, Path(tmp), soffice=soffice, timeout_sec=timeout)
        if result.pdf is None:
            return 0
        pages = _pdf_pages(result.pdf)
        return pages if pages is not None else _pdf_pages_by_scan(result.pdf)


def _pdf_pages(path: Path) -> int | None:
    try:
        import pymupdf
    except ImportError:
        return None
    try:
        with pymupdf.open(path) as doc:
            pages: int = doc.page_count
            return pages
    except Exception:
        return 0


def _pdf_pages_by_scan(path: Path) -> int:
    """Page count of a PDF written by LibreOffice, without PyMuPDF: counts page objects
    (``/Type /Page``, not ``/Pages``). Exact for LibreOffice's uncompressed object table."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", path.read_bytes()))


def _html_ok(deck: Path, label: str, facts: dict[str, Any]) -> tuple[bool, str, dict[str, Any]]:
    from html.parser import HTMLParser

    class Counter(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags = 0
            self.text = 0

        def handle_starttag(self, tag: str, attrs: Any) -> None:
            self.tags += 1

        def handle_data(self, data: str) -> None:
            self.text += len(data.strip())

    parser = Counter()
    try:
        with deck.open("rb") as fh:
            parser.feed(fh.read(MAX_READ_BYTES).decode("utf-8", errors="replace"))
        parser.close()
    except Exception as exc:
        return False, f"{label} does not parse as HTML: {exc}", facts
    if parser.tags == 0:
        return False, f"{label} has no HTML elements", facts
    return True, f"{label} parses as HTML ({parser.tags} elements, {parser.text} characters of text)", facts


def page_count_between(ctx: CodeContext, min_pages: int = 1, max_pages: int | None = None, path: str | None = None) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the deck's slide/page count is within [min_pages, max_pages].

    Counts what a viewer of the deck's CONTENT shows, whatever its name: the slides in a
    pptx's slide list (``p:sldIdLst``; a slide part left out of the list is not shown),
    pages of a PDF, LibreOffice's pages of a legacy ``.ppt``, and the slides of an HTML
    deck as the renderer finds them (top-level ``<section>`` elements, else
    ``class="slide"`` elements). A deck that cannot be counted (broken) is a miss. Hidden
    slides (``show="0"``) of a pptx count; the reason says how many (trial 9 F13).

    Raises:
        EnvironmentMissing: a PDF without PyMuPDF, a legacy ``.ppt`` without LibreOffice
            (the row becomes unjudged ``render_env``, the deck is not penalised).
        ReadLimit: `path` names a deliverable past the listing limit (or the deck's own
            location, `decks.the_deck`, met a read limit).
    """
    from cowork_judge.evidence.sniff import sniff_deck

    refuse(page_param_errors({"min_pages": min_pages, "max_pages": max_pages, "path": path}))
    choice = the_deck(ctx, path)
    if choice.path is None:
        return False, choice.shown, {}
    sniff = sniff_deck(choice.path)
    label = _label(choice.shown, sniff)
    n = _count_pages(ctx, choice.path, label, sniff)
    if n is None:
        return False, f"cannot count the pages of {label} ({sniff.status}){choice.note}", dict(choice.artifacts)
    ok = n >= min_pages and (max_pages is None or n <= max_pages)
    bounds = f"[{min_pages}, {'∞' if max_pages is None else max_pages}]"
    return ok, f"{label} has {n} page(s){_hidden_note(choice.path, sniff, n)}; required {bounds}{choice.note}", {
        **choice.artifacts, "deck_pages": n}


def _hidden_note(deck: Path, sniff: Any, n: int) -> str:
    """`` (K of them hidden: skipped in a slide show, counted here)`` for a pptx whose slide
    list holds hidden slides (trial 9 F13), else "". The count itself never changes."""
    from cowork_judge.evidence.sniff import hidden_slide_count

    hidden = hidden_slide_count(deck) if sniff.status in ("ok", "ok_strict") else None
    return f" ({hidden} of them hidden: skipped in a slide show, counted here)" if hidden else ""


def _count_pages(ctx: CodeContext, deck: Path, label: str, sniff: Any) -> int | None:
    """Slides / pages / sections of a deck by its CONTENT; None when it has none to count."""
    from cowork_judge.evidence.sniff import listed_slide_count

    if sniff.status == "ok_html":
        with deck.open("rb") as fh:
            return html_slide_count(fh.read(MAX_READ_BYTES).decode("utf-8", errors="replace")) or None
    if sniff.status == "ok_pdf":
        pages = sniff.page_count if sniff.page_count is not None else _pdf_pages(deck)
        if pages is None:
            raise EnvironmentMissing(f"{label} is a PDF but PyMuPDF is not installed to count its pages")
        return pages or None
    if sniff.status in ("ok", "ok_strict"):
        return listed_slide_count(deck)
    if sniff.status == "ok_legacy_ppt":
        pages = _soffice_pages(ctx, deck, "ppt")
        if pages is None:
            raise EnvironmentMissing(f"{label} is a legacy .ppt; counting its slides needs LibreOffice")
        return pages or None
    return None  # broken decks have no pages


def html_slide_count(html: str) -> int:
    """Slides of an HTML deck as `evidence.html_shot` finds them: top-level ``<section>``
    elements (not nested in another section), else elements whose class list has ``slide``."""
    from html.parser import HTMLParser

    class Counter(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.depth = 0
            self.sections = 0
            self.slides = 0

        def handle_starttag(self, tag: str, attrs: Any) -> None:
            if tag == "section":
                self.sections += self.depth == 0
                self.depth += 1
            if "slide" in (dict(attrs).get("class") or "").split():
                self.slides += 1

        def handle_endtag(self, tag: str) -> None:
            if tag == "section" and self.depth:
                self.depth -= 1

    counter = Counter()
    try:
        counter.feed(html)
        counter.close()
    except Exception:  # noqa: BLE001 - HTMLParser is lenient; anything else means no slides
        return 0
    return counter.sections or counter.slides
