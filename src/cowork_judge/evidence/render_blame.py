"""Whose fault a LibreOffice conversion that wrote no PDF is: the deck's or the renderer's.

``soffice --convert-to pdf`` exits 0 without a PDF for a deck it cannot read, and also for
reasons of the image it runs in (a LibreOffice without the Impress filter, a wrapper script,
a profile it cannot use). An environment fault must never become the agent's miss (trial 8
F7: a good deck scored 0.08, status success, every content and visual row "the deck is
broken"), so `blame_soffice` decides:

- the deck's structure opened (python-pptx read its slides): the renderer is blamed,
  ``render_env`` — the deck's rows end unjudged and the run warns (`RENDERER_FAULT`);
- the structure layer read the deck and found it broken: the deck is blamed, ``deck_broken``;
- nothing read the structure (a binary .ppt, a structure skipped for budget or failed):
  a tiny known-good control deck (one slide, python-pptx's default template) is converted
  by the same soffice, once per process and soffice path; no PDF for it either ⇒
  ``render_env``, a PDF ⇒ ``deck_broken``. When the control cannot be made or run (no
  python-pptx, under `CONTROL_MIN_SEC` of budget left) the renderer is not cleared, and
  the deck is not blamed: ``render_env``.

A timeout is ``error`` and a soffice that did not start ``render_env``; neither is the deck's.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from .._util.fsutil import scratch_dir
from .render import PdfResult, soffice_to_pdf

if TYPE_CHECKING:
    from .documents import SkipKind
    from .structure import StructureResult

RENDERER_FAULT = "LibreOffice wrote no PDF"
"""How the reason of a render the renderer is blamed for begins (the run warns on it)."""
CONTROL_MIN_SEC = 10.0
"""Evidence budget the control conversion needs (LibreOffice's start and a one-slide deck:
2.4–3.7 s measured at load 5 on the 2-core dev machine, `_control_converts` run 3 times
in one process; ×3 for a machine loaded further)."""
CONTROL_MAX_SEC = 60.0

_control_lock = threading.Lock()
_control_ok: dict[str, bool] = {}
"""soffice path → whether it converted the control deck (one conversion per process and path)."""


def blame_soffice(res: PdfResult, structure: StructureResult | None, *, soffice: str,
                  version: tuple[int, ...] | None, deadline: float) -> tuple[SkipKind, str]:
    """The render layer's skip kind and reason for a failed `soffice_to_pdf` result.

    Args:
        res: the failed conversion (``res.pdf`` is None).
        structure: the deck's structure layer result (None: not read — binary .ppt, budget, error).
        soffice: the LibreOffice executable that failed.
        version: its version tuple (for the control conversion's filter options).
        deadline: the evidence build's ``time.monotonic()`` deadline.

    Returns:
        ``(kind, reason)``: ``error`` (timed out), ``render_env`` (the renderer's fault; the
        reason begins with `RENDERER_FAULT` when soffice ran and wrote nothing), or
        ``deck_broken`` (the deck's). Never raises.
    """
    if res.timed_out:
        return "error", res.reason
    if not res.wrote_nothing:  # soffice did not start: the image's fault
        return "render_env", res.reason
    if structure is not None and structure.ok:
        slides = structure.slides_total if structure.slides_total is not None else len(structure.slides)
        return "render_env", (f"{RENDERER_FAULT} although the deck opened (its structure was read: {slides} slide(s)): "
                              f"the renderer's fault, not the deck's ({res.reason})")
    if structure is not None:
        return "deck_broken", f"{res.reason}; its structure could not be read either"
    remaining = deadline - time.monotonic()
    if remaining < CONTROL_MIN_SEC:
        return "render_env", (f"{RENDERER_FAULT} and {remaining:.1f} s of evidence budget was left to check it on a "
                              f"control deck: the deck is not blamed ({res.reason})")
    control = _control_converts(soffice, version, min(CONTROL_MAX_SEC, remaining - 1))
    if control is None:
        return "render_env", (f"{RENDERER_FAULT} and no control deck could be made (python-pptx is missing): "
                              f"the deck is not blamed ({res.reason})")
    if not control:
        return "render_env", (f"{RENDERER_FAULT}, not even for a known-good one-slide control deck: the renderer's "
                              f"fault, not the deck's ({res.reason})")
    return "deck_broken", f"{res.reason} (the same LibreOffice converted a known-good control deck)"


def _control_converts(soffice: str, version: tuple[int, ...] | None, timeout_sec: float) -> bool | None:
    """Whether `soffice` converts a one-slide python-pptx deck to a PDF (cached per path);
    None when python-pptx is missing. A timed-out control is not cached."""
    with _control_lock:
        if soffice in _control_ok:
            return _control_ok[soffice]
        try:
            from pptx import Presentation
            from pptx.util import Inches
        except ImportError:
            return None
        with scratch_dir("cowork-judge-control-") as tmp:
            prs = Presentation()
            slide = prs.slides.add_slide(prs.slide_layouts[6])
            slide.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1)).text_frame.text = "control"
            prs.save(str(tmp / "control.pptx"))
            res = soffice_to_pdf(tmp / "control.pptx", "pptx", tmp / "work", soffice=soffice,
                                 timeout_sec=timeout_sec, version=version)
        if not res.timed_out:
            _control_ok[soffice] = res.pdf is not None
        return res.pdf is not None
