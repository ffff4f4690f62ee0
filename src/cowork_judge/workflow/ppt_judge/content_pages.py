"""Which pages the content axis looks at: pass B of a type1 check, and a type2 check's routes.

Pure functions of the pages (number, extracted text, pictures) and of what pass A said.
The choices, with their bounds (each is a model call per page, so each is capped):

- **decision pages** of a type1 hit: the pages its deciding pass named, in the order it
  named them, shown pages only, at most `MAX_DECISION_PAGES`;
- **pass B pages** when pass A (the slide text) missed: the pages pass A named as
  touching the subject (``pages`` of a miss: mentioned but not covered in the text, or
  likely shown in a picture), at most `MAX_PASS_B_PAGES`; when it named none, the pages
  whose content the text layer cannot show — a picture, chart or diagram on the slide, or
  fewer than `TEXT_POOR_CHARS` extracted characters — ordered by search-hint matches
  (most first), then by extracted characters (fewest first), then page number; at most
  `MAX_PASS_B_PAGES`. A deck whose every page is fully represented by its text gets no
  pass B: pass A has already read everything there is;
- **unread pages** join pass B either way: a page with no extracted text at all (slides
  that are pictures, a scanned PDF page) was never seen by pass A, so a miss there says
  nothing; pass B looks at every such page after the ones above, in page order, at most
  `MAX_UNREAD_PASS_B_PAGES` (the pages past the cap are named in the reason, never silent);
- **type2 routes**: ``scope: page`` ⇒ the paired type1's decision pages; ``deck_wide`` (or
  a paired type1 that named no page) ⇒ `representative_pages`: the paired type1's decision
  pages first, then the pages with the most extracted text (the deck's densest content),
  `DECK_WIDE_PAGES` in all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .aggregate import page_ranges
from .deck import Page

MAX_DECISION_PAGES = 3
"""Pages recorded as deciding a type1 hit (and so routed to its type2 checks)."""
MAX_PASS_B_PAGES = 3
"""Pages pass B looks at for one missed type1 check (one call each)."""
MAX_UNREAD_PASS_B_PAGES = 45
"""Pages with no extracted text that pass B looks at on top of `MAX_PASS_B_PAGES` for one
missed type1 check (one call each): pass A could not read them, so only their images can
show the subject. 45 covers a long deck of picture slides; the visual axis already makes at
least one call per page."""
DECK_WIDE_PAGES = 3
"""Representative pages of a ``deck_wide`` type2 check (one call each)."""
TEXT_POOR_CHARS = 40
"""A page with fewer extracted characters than this (a title, a page number) says little
through its text: its image may hold what the text does not (an image-only page, a PDF
page without a text layer)."""


def shown(named: Iterable[object], pages: Sequence[Page], limit: int) -> list[int]:
    """The named page numbers that are pages of the deck, in the given order, deduplicated,
    at most `limit` (anything that is not a page number is ignored)."""
    valid = {pg.number for pg in pages}
    out: list[int] = []
    for n in named:
        if isinstance(n, int) and not isinstance(n, bool) and n in valid and n not in out:
            out.append(n)
        if len(out) >= limit:
            break
    return out


def hint_matches(text: str, hints: Sequence[str]) -> int:
    """How many distinct search hints occur in `text` (case-insensitive, whitespace collapsed)."""
    hay = " ".join(text.casefold().split())
    return sum(1 for h in dict.fromkeys(" ".join(h.casefold().split()) for h in hints) if h and h in hay)


def text_poor(page: Page) -> bool:
    """True when the text layer cannot speak for the page: a picture, chart or diagram, or
    fewer than `TEXT_POOR_CHARS` extracted characters (title included)."""
    return page.visuals > 0 or len(_all_text(page).strip()) < TEXT_POOR_CHARS


def unread(page: Page) -> bool:
    """True when pass A read nothing of the page: no extracted text and no title (a slide of
    pictures only, a page without a text layer)."""
    return not _all_text(page).strip()


def pass_b_pages(candidates: Iterable[object], pages: Sequence[Page], hints: Sequence[str]) -> tuple[list[int], str]:
    """The pages pass B looks at after pass A missed, and how they were chosen (for the reason).

    Returns:
        ``(pages, how)``: pass A's candidates when it named any, else the text-poor pages,
        then every unread page (module docstring); ``([], why)`` when there is none. `how`
        names the unread pages past `MAX_UNREAD_PASS_B_PAGES` that pass B does not look at.
    """
    chosen, how = _first_pass_b_pages(candidates, pages, hints)
    blind = [pg.number for pg in pages if unread(pg) and pg.number not in chosen]
    if not blind:
        return chosen, how
    left = blind[MAX_UNREAD_PASS_B_PAGES:]
    how = f"{how}; then every page with no text for pass A to read" if chosen else \
        "every page with no text for pass A to read"
    if left:
        how += f" (not shown, over the cap of {MAX_UNREAD_PASS_B_PAGES}: page(s) {page_ranges(left)})"
    return chosen + blind[:MAX_UNREAD_PASS_B_PAGES], how


def _first_pass_b_pages(candidates: Iterable[object], pages: Sequence[Page],
                        hints: Sequence[str]) -> tuple[list[int], str]:
    """Pass A's candidates, else the text-poor pages (at most `MAX_PASS_B_PAGES`), with how."""
    named = shown(candidates, pages, MAX_PASS_B_PAGES)
    if named:
        return named, "the pages pass A named as touching the subject"
    pool = [pg for pg in pages if text_poor(pg)]
    pool.sort(key=lambda pg: (-hint_matches(_all_text(pg), hints), len(_all_text(pg).strip()), pg.number))
    chosen = [pg.number for pg in pool[:MAX_PASS_B_PAGES]]
    if not chosen:
        return [], ("no page holds a picture, chart or diagram or is short of text: the slide text read by pass A "
                    "is the whole deck")
    return chosen, "pages whose content the text cannot show (a picture, chart or diagram, or almost no text)"


def representative_pages(pages: Sequence[Page], first: Sequence[int]) -> list[int]:
    """`first` (shown pages, in order), then the pages with the most extracted text, until
    `DECK_WIDE_PAGES` pages (fewer when the deck is shorter); ascending page order."""
    out = shown(first, pages, DECK_WIDE_PAGES)
    for pg in sorted(pages, key=lambda p: (-len(_all_text(p).strip()), p.number)):
        if len(out) >= DECK_WIDE_PAGES:
            break
        if pg.number not in out:
            out.append(pg.number)
    return sorted(out)


def type2_pages(scope: str, type1_pages: Sequence[int], pages: Sequence[Page]) -> tuple[list[int], str]:
    """The pages a type2 check is judged on, and how they were chosen (for the reason)."""
    if scope == "deck_wide":
        return representative_pages(pages, type1_pages), "deck_wide: representative pages"
    routed = shown(type1_pages, pages, MAX_DECISION_PAGES)
    if routed:
        return routed, "the pages its paired type1 check was found on"
    return representative_pages(pages, ()), "its paired type1 check named no page: representative pages"


def _all_text(page: Page) -> str:
    title = page.title or ""
    return page.text if title and title in page.text else f"{title}\n{page.text}"

