"""Deck code methods: find THE deck among the deliverables and check that it opens.

`locate_deck` sets the deck artifacts (``deck_path``, ``deck_kind``, ``deck_rel``) that the
router hands to workflows and agentic blocks, so every segment judges the same file.
Files the task itself gave the agent are sources, never the deck: a deliverable whose
bytes equal a file in one of the task's input folders (`SOURCE_DIRS` under the app dir,
or the method's `sources` globs). Only input folders count: the agent's own working
copies elsewhere in /app must not disqualify its deck.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from cowork_judge.code_methods import globs
from cowork_judge.code_methods.files import ReadLimit, check_range, listing_limit, scan_limit
from cowork_judge.core.failures import JudgeFailure
from cowork_judge.procs import resolve_tool
from cowork_judge.run.context import RunContext
from cowork_judge.run.delivery import DeliveredFile

DECK_KINDS: dict[str, str] = {
    ".pptx": "pptx", ".pptm": "pptx", ".ppsx": "pptx", ".ppsm": "pptx", ".potx": "pptx", ".potm": "pptx", ".ppt": "pptx",
    ".html": "html", ".htm": "html",
    ".pdf": "pdf",
}
"""Extension → deck kind family (``.ppt`` is in the pptx family: OOXML named .ppt exists)."""
SOURCE_DIRS = ("input", "inputs", "data", "resources", "materials", "assets", "files", "source", "sources")
"""App-dir folders that hold what the task gave the agent (by convention)."""
SOURCE_SCAN_MAX_FILES = 2000
"""Files looked at in the input folders, at most."""
MAX_READ_BYTES = 20 * 1024 * 1024
"""HTML decks are parsed / counted on their first 20 MiB only."""
SOFFICE_CHECK_TIMEOUT_SEC = 45.0
"""LibreOffice open check timeout (seconds), kept under the default JUDGE_CODE_TIMEOUT."""


class EnvironmentMissing(JudgeFailure):
    """The check needs a tool this image lacks: the row is unjudged ``render_env`` (the deck
    is not penalised for the image's shortcomings)."""

    kind = "render_env"


def locate_deck(
    ctx: RunContext,
    prefer: list[str] | None = None,
    allow_multiple: bool = False,
    expect_name: str | None = None,
    require_expect_name: bool = False,
    exclude: list[str] | None = None,
    sources: list[str] | None = None,
) -> tuple[bool, str, dict[str, Any]]:
    """Find exactly one deck among the deliverables, by kind preference.

    Args:
        prefer: kind order, default ``["pptx", "html", "pdf"]``; kinds not listed are
            never the deck.
        allow_multiple: several decks of the preferred kind ⇒ take the first (sorted by
            path) instead of failing.
        expect_name: file name the task asked for (e.g. ``slides.pptx``): wins ties.
        require_expect_name: the deck MUST have `expect_name`.
        exclude: output-relative globs that are never the deck.
        sources: app-dir-relative globs of files the task gave the agent (default: the
            `SOURCE_DIRS` folders); a deliverable with the same bytes is not the deck.

    Returns:
        ``(hit, reason, artifacts)``; artifacts ``{deck_path, deck_kind, deck_rel}`` on a hit.

    Raises:
        TypeError: a parameter of the wrong type (the row is then ``code_error``).
        ReadLimit: a deliverable with a deck-like name lies past the listing limit, or
            the scan stopped early: an unlisted file could be the deck or make the choice
            ambiguous (the runner judges the row against the deliverable).
    """
    order = [k.lower() for k in _str_list(prefer, "prefer") or ["pptx", "html", "pdf"]]
    excluded = _str_list(exclude, "exclude")
    hidden = [item.rel for item in ctx.delivery.unlisted
              if Path(item.rel).suffix.lower() in DECK_KINDS and not any(globs.matches(g, item.rel) for g in excluded)]
    if hidden:
        raise ReadLimit(f"{len(hidden)} deck-like deliverable(s) past the listing limit were not looked at "
                        f"({', '.join(hidden[:3])}…): the deck cannot be located reliably", limit=listing_limit())
    if ctx.delivery.scan_cut:
        raise ReadLimit("the scan of the deliverables stopped early: the deck cannot be located reliably", limit=scan_limit())
    source_globs = _str_list(sources, "sources") or [f"{d}/**/*" for d in SOURCE_DIRS]
    candidates = [
        item for item in ctx.delivery.files
        if DECK_KINDS.get(Path(item.rel).suffix.lower()) in order and not any(globs.matches(g, item.rel) for g in excluded)
    ]
    given = _source_digests(ctx, source_globs, {item.size_bytes for item in candidates})
    by_kind: dict[str, list[DeliveredFile]] = {}
    skipped_sources: list[str] = []
    for item in candidates:
        if given and _digest(Path(item.path)) in given:
            skipped_sources.append(item.rel)
            continue
        by_kind.setdefault(DECK_KINDS[Path(item.rel).suffix.lower()], []).append(item)
    note = f" (ignored task-given source file(s): {', '.join(skipped_sources)})" if skipped_sources else ""
    if require_expect_name and expect_name:
        named = [i for k in order for i in by_kind.get(k, []) if Path(i.rel).name == expect_name]
        if len(named) != 1:
            found = ", ".join(i.rel for k in order for i in by_kind.get(k, [])) or "none"
            return False, f"the deck must be named {expect_name!r}; found {found}{note}", {}
        return True, f"deck is {named[0].rel}{note}", _artifacts(named[0])
    for kind in order:
        candidates = sorted(by_kind.get(kind, []), key=lambda i: i.rel)
        if not candidates:
            continue
        if len(candidates) == 1:
            return True, f"deck is {candidates[0].rel} ({kind}){note}", _artifacts(candidates[0])
        if expect_name:
            named = [i for i in candidates if Path(i.rel).name == expect_name]
            if len(named) == 1:
                return True, f"deck is {named[0].rel}, the expected name among {len(candidates)} {kind} files{note}", _artifacts(named[0])
        listing = ", ".join(i.rel for i in candidates)
        if allow_multiple:
            return True, f"deck is {candidates[0].rel}, first of {len(candidates)} {kind} files: {listing}{note}", _artifacts(candidates[0])
        return False, f"ambiguous: {len(candidates)} {kind} decks ({listing}); exactly one is required{note}", {}
    return False, f"no deck among the deliverables (looked for {', '.join(order)}){note}", {}


def _artifacts(item: DeliveredFile) -> dict[str, Any]:
    return {"deck_path": item.path, "deck_kind": DECK_KINDS[Path(item.rel).suffix.lower()], "deck_rel": item.rel}


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _str_list(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be a list of strings, got {value!r}")
    return value


def _source_digests(ctx: RunContext, source_globs: list[str], sizes: set[int]) -> set[str]:
    """SHA-256 of task-given files (regular files matching `source_globs` under the app
    dir, outside ``output/``) whose size equals some candidate's: only those can be
    byte-identical, so nothing else is read."""
    app, out = ctx.paths.app_dir, ctx.paths.output_dir
    digests: set[str] = set()
    if not app.is_dir() or not sizes:
        return digests
    seen = 0
    for dirpath, dirnames, filenames in os.walk(app):
        current = Path(dirpath)
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and current / d != out]
        for name in filenames:
            path = current / name
            rel = path.relative_to(app).as_posix()
            if not any(globs.matches(g, rel) for g in source_globs):
                continue
            seen += 1
            if seen > SOURCE_SCAN_MAX_FILES:
                return digests
            try:
                st = path.lstat()
                if stat.S_ISREG(st.st_mode) and st.st_size in sizes:
                    digests.add(_digest(path))
            except OSError:
                continue
    return digests


def _deck(ctx: RunContext, path: str | None) -> tuple[Path | None, str]:
    """The deck to check: `path` (an output-relative name of a DELIVERABLE) or the located one."""
    if path is not None:
        if not isinstance(path, str):
            raise TypeError(f"path must be a string, got {type(path).__name__}")
        rel = path.lstrip("/")
        item = next((f for f in ctx.delivery.files if f.rel == rel), None)
        if item is not None:
            return Path(item.path), item.rel
        if any(f.rel == rel for f in ctx.delivery.unlisted):
            raise ReadLimit(f"{path!r} lies past the listing limit and was not opened", limit=listing_limit())
        return None, f"{path!r} is not a deliverable"
    located = ctx.artifacts.get("deck_path")
    if located:
        return Path(located), str(ctx.artifacts.get("deck_rel", located))
    return None, "no deck was located (run locate_deck first, or give `path`)"


def check_deck_openable(
    ctx: RunContext, path: str | None = None, accept_legacy_ppt: bool = True
) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the deck opens: a pptx that python-pptx or LibreOffice can open, a PDF with
    ≥ 1 page, or HTML that parses.

    Broken decks (truncated or corrupt zip, encrypted package, not a presentation, zip
    bomb, empty) are misses with the specific reason. Legacy binary ``.ppt`` is reported
    as such and counts when `accept_legacy_ppt`.

    Raises:
        EnvironmentMissing: python-pptx cannot open a valid-looking package and
            LibreOffice is not installed, so nothing can decide.
    """
    from cowork_judge.evidence.sniff import sniff_deck

    deck, label = _deck(ctx, path)
    if deck is None:
        return False, label, {}
    sniff = sniff_deck(deck)
    facts = {"deck_status": sniff.status}
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
        raise EnvironmentMissing(f"python-pptx cannot open {label} ({error}) and LibreOffice is not installed")
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
        return "python-pptx is not installed"
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


def _soffice_pages(ctx: RunContext, deck: Path, kind: str) -> int | None:
    """Pages LibreOffice renders, 0 when it cannot open the deck, None when it is missing."""
    soffice = resolve_tool(ctx.config.soffice, "soffice", "libreoffice")
    if soffice is None:
        return None
    from cowork_judge.evidence.render import soffice_to_pdf

    timeout = min(SOFFICE_CHECK_TIMEOUT_SEC, ctx.config.code_timeout_sec, max(1.0, ctx.deadline.remaining()))
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
            return doc.page_count
    except Exception:
        return 0


def _pdf_pages_by_scan(path: Path) -> int:
    """Page count of a PDF written by LibreOffice, without PyMuPDF: counts page objects
    (``/Type /Page``, not ``/Pages``). Exact for LibreOffice's uncompressed object table."""
    import re

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


def page_count_between(ctx: RunContext, min_pages: int = 1, max_pages: int | None = None, path: str | None = None) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the deck's slide/page count is within [min_pages, max_pages].

    Counts what a viewer shows: the slides in a pptx's slide list (``p:sldIdLst``; a slide
    part left out of the list is not shown), pages of a PDF, LibreOffice's pages of a legacy
    ``.ppt``, and the slides of an HTML deck as the renderer finds them (top-level
    ``<section>`` elements, else ``class="slide"`` elements).

    Raises:
        EnvironmentMissing: a PDF without PyMuPDF, a legacy ``.ppt`` without LibreOffice
            (the row becomes unjudged ``render_env``, the deck is not penalised).
    """
    check_range("pages", min_pages, max_pages)
    deck, label = _deck(ctx, path)
    if deck is None:
        return False, label, {}
    n = _count_pages(ctx, deck, label)
    if n is None:
        return False, f"cannot count the pages of {label}", {}
    ok = n >= min_pages and (max_pages is None or n <= max_pages)
    return ok, f"{label} has {n} page(s); required [{min_pages}, {'∞' if max_pages is None else max_pages}]", {"deck_pages": n}


def _count_pages(ctx: RunContext, deck: Path, label: str) -> int | None:
    """Slides / pages / sections of a deck by its CONTENT; None when it has none to count."""
    from cowork_judge.evidence.sniff import listed_slide_count, sniff_deck

    sniff = sniff_deck(deck)
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
