"""Deck kinds, once: which file names are deck-like, the content kind each suffix claims, and
the family (PowerPoint, HTML, PDF) a kind belongs to. Every deck test of the package (the run's
"no deck, no evidence" check, the evidence build, the sniffer, ``locate_deck``) reads these
tables; nothing else spells a deck suffix. Standard library only, so the run can consult it
before the evidence machinery is imported."""

from __future__ import annotations

import re
from types import MappingProxyType

POWERPOINT_KINDS: tuple[str, ...] = ("pptx", "pptm", "ppsx", "ppsm", "potx", "potm", "ppt")
"""Every PowerPoint content kind: the OOXML ones and the legacy binary ``ppt`` (LibreOffice renders all)."""
OOXML_KINDS: frozenset[str] = frozenset(POWERPOINT_KINDS[:-1])
"""The PowerPoint kinds stored as an OOXML package (a zip of parts)."""

SUFFIX_KIND = MappingProxyType({
    ".pptx": "pptx", ".pptm": "pptm", ".ppsx": "ppsx", ".ppsm": "ppsm", ".potx": "potx", ".potm": "potm",
    ".ppt": "ppt", ".pps": "ppt", ".pot": "ppt",
    ".pdf": "pdf",
    ".html": "html", ".htm": "html",
})
"""Deck-like suffix (lower case) → the content kind the NAME claims (legacy slide shows and
templates, ``.pps``/``.pot``, are the binary ``ppt`` format)."""

DECK_SUFFIXES: tuple[str, ...] = tuple(SUFFIX_KIND)
"""The deck-like suffixes, for ``str.endswith`` (compare lower-cased names)."""

KIND_FAMILY = MappingProxyType({**{kind: "pptx" for kind in POWERPOINT_KINDS}, "html": "html", "pdf": "pdf"})
"""Content kind → kind family: ``pptx`` (every PowerPoint format), ``html`` or ``pdf``."""


def is_deck_name(name: str) -> bool:
    """True when a file name (or path string) has a deck-like suffix, case-insensitively."""
    return name.lower().endswith(DECK_SUFFIXES)


DECK_FILE_MENTION = re.compile(r"\.(?:" + "|".join(sorted((s[1:] for s, k in SUFFIX_KIND.items() if k in POWERPOINT_KINDS),
                                                          key=len, reverse=True)) + r")\b", re.IGNORECASE)
"""A PowerPoint file named in a task prompt (``a .pptx file``, ``deck.pptx``); PDF and HTML are left out (a
report or a web page is rarely a deck: real DevAI prompts name .pdf files). One test of
`evidence.deck_request.asks_for_deck`, the classifier every caller reads."""


__all__ = ["DECK_FILE_MENTION", "DECK_SUFFIXES", "KIND_FAMILY", "OOXML_KINDS", "POWERPOINT_KINDS", "SUFFIX_KIND",
           "is_deck_name"]
