"""Deck evidence: sniff, structure, render and deterministic checks, built once per run.

Public entry points: :func:`build_evidence`, :func:`sniff_deck` (in ``.sniff``),
:func:`probe_capabilities` (in ``.capabilities``), ``cli.main``. Heavy optional imports
(python-pptx, PyMuPDF, Playwright) happen inside the functions that need them.

The names below are loaded on first use (PEP 562): importing one submodule (e.g. ``.sniff``
for a code-only deck check) does not import the build and render machinery (about 80 ms of
start-up, measured with ``bench/startup.py``).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "link_tree": ".._util.fsutil",
    "build_evidence": ".build",
    "is_deck": ".build",
    "Capabilities": ".capabilities",
    "probe_capabilities": ".capabilities",
    "EvidenceSummary": ".documents",
    "SniffResult": ".documents",
    "EvidenceLayout": ".layout",
    "render_width_px": ".settings",
    "sniff_deck": ".sniff",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """The public name `name`, imported from its submodule on first use.

    Raises:
        AttributeError: `name` is not a public name of the package.
    """
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily loaded ones included."""
    return sorted(set(globals()) | set(_WHERE))
