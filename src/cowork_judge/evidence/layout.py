"""Where evidence lives on disk: the only module that builds evidence paths.

::

    <out_dir>/
      index.json                    EvidenceSummary (all decks; pages_rendered)
      <deck>/digest.json            Digest (sniff, slide list, render info, extract errors)
      <deck>/pages/slide-NNN.json   SlideDoc per slide (1-based, zero-padded to 3)
      <deck>/checks.json            ChecksDoc (deterministic findings, font map)
      <deck>/render.pdf             the LibreOffice PDF the pages were rasterised from
      pages/<deck>/page-NNN.png     rendered pages (1-based page numbers)

``<deck>`` is :func:`deck_name` of the deliverable's path relative to the deliverables root.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

MAX_NAME_CHARS = 120
"""Deck folder names stay well under the 255-byte file-name limit of common filesystems."""


def deck_name(rel: str, taken: set[str]) -> str:
    """Filesystem-safe, unique name for a deliverable path like ``sub/My Deck.pptx``.

    Separators become ``__``, other unsafe characters ``_``; the extension is kept so
    ``deck.pptx`` and ``deck.pdf`` differ; long names are cut and suffixed with a hash;
    clashes get ``-2``, ``-3``…  ``taken`` is updated.
    """
    rel = rel.replace("\\", "/").strip("/")
    name = "__".join(re.sub(r"[^A-Za-z0-9._-]+", "_", part) for part in rel.split("/") if part not in ("", ".", ".."))
    name = name.lstrip(".") or "deck"
    if len(name) > MAX_NAME_CHARS:
        digest = hashlib.sha1(rel.encode("utf-8", "replace")).hexdigest()[:8]
        name = f"{name[:MAX_NAME_CHARS - 9]}-{digest}"
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    taken.add(candidate)
    return candidate


@dataclass(frozen=True)
class EvidenceLayout:
    root: Path

    @property
    def index(self) -> Path:
        return self.root / "index.json"

    def deck_dir(self, deck: str) -> Path:
        return self.root / deck

    def digest(self, deck: str) -> Path:
        return self.root / deck / "digest.json"

    def checks(self, deck: str) -> Path:
        return self.root / deck / "checks.json"

    def render_pdf(self, deck: str) -> Path:
        return self.root / deck / "render.pdf"

    def slide(self, deck: str, index: int) -> Path:
        return self.root / deck / "pages" / f"slide-{index:03d}.json"

    def pages_dir(self, deck: str) -> Path:
        return self.root / "pages" / deck

    def rel(self, path: Path) -> str:
        return str(path.relative_to(self.root))
