"""Deck evidence: sniff, structure, render and deterministic checks, built once per run.

Public entry points: :func:`build_evidence`, :func:`sniff_deck` (in ``.sniff``),
:func:`probe_capabilities` (in ``.capabilities``), ``cli.main``. Heavy optional imports
(python-pptx, PyMuPDF, Playwright) happen inside the functions that need them.
"""

from ..fsutil import link_tree
from .build import build_evidence, is_deck
from .capabilities import Capabilities, probe_capabilities
from .documents import EvidenceSummary, SniffResult
from .layout import EvidenceLayout
from .settings import render_width_px
from .sniff import sniff_deck

__all__ = [
    "Capabilities",
    "EvidenceLayout",
    "EvidenceSummary",
    "SniffResult",
    "build_evidence",
    "is_deck",
    "link_tree",
    "probe_capabilities",
    "render_width_px",
    "sniff_deck",
]
