"""The import names of the judge's optional extras (pyproject ``[project.optional-dependencies]`` ``pptx`` and
``workflow``: python-pptx, lxml, PyMuPDF, Playwright, Pillow), and whether an exception says one is missing.

A row that fails because the verifier lacks these is the verifier environment's fault, the same for every
rollout of the task (trial 23 P-1): ``extras_missing``, never the content-caused ``code_error``. Pure: no I/O.
"""

from __future__ import annotations

EXTRAS_MODULES: frozenset[str] = frozenset({"pptx", "lxml", "pymupdf", "fitz", "playwright", "PIL"})
"""Top-level import names of the distributions the ``pptx`` and ``workflow`` extras install (python-pptx →
``pptx``, PyMuPDF → ``pymupdf`` / its old name ``fitz``, Pillow → ``PIL``); selftests check it against pyproject."""

_CHAIN_DEPTH = 8


def missing_extras_module(exc: BaseException | None) -> str | None:
    """The extras module (`EXTRAS_MODULES`) whose import failed in `exc` or the exceptions it was raised from or
    while handling (``__cause__`` / ``__context__``, at most 8 deep), else None.

    An ``ImportError`` counts only when its ``name`` (the module that could not be imported, e.g. ``lxml.etree``)
    is in an extras package: a missing module of the judge itself or of the rollout is not the extras' absence.
    """
    seen = 0
    while exc is not None and seen < _CHAIN_DEPTH:
        if isinstance(exc, ImportError) and isinstance(exc.name, str):
            top = exc.name.split(".", 1)[0]
            if top in EXTRAS_MODULES:
                return top
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def names_missing_extras(reason: str) -> bool:
    """Whether an evidence skip's `reason` text says an extras module was missing: the structure layer's
    ``missing module: No module named 'lxml'`` / ``python-pptx missing: …`` and an ``ImportError`` /
    ``ModuleNotFoundError`` whose text names an extras module (`EXTRAS_MODULES`)."""
    if reason.startswith("python-pptx missing"):
        return True
    if not (reason.startswith(("missing module:", "ModuleNotFoundError", "ImportError"))):
        return False
    return any(f"'{m}" in reason or f" {m}" in reason for m in EXTRAS_MODULES)
