"""Rendering: decks → PDF (LibreOffice) → PNG pages (PyMuPDF); HTML decks → PNG (Chromium).

Rendering never uses python-pptx, so a deck whose structure cannot be read still renders.
Every external process runs through :func:`procs.run_command` (timeout + group kill).
"""

from __future__ import annotations

import atexit
import json
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .._util.fsutil import discard_scratch, link_or_copy, make_scratch_dir, scratch_dir
from .._util.procs import child_environment, run_command
from .documents import PageImage
from .kinds import POWERPOINT_KINDS
from .package import strip_external_targets

PDF_FILTER_HIDDEN = 'pdf:impress_pdf_Export:{"ExportHiddenSlides":{"type":"boolean","value":"true"}}'
"""LibreOffice ≥ 7.4 JSON filter options (``--convert-to`` help, "Filter Options"); the
``ExportHiddenSlides`` PDF export property makes hidden slides pages like the others."""
JSON_FILTER_MIN_VERSION = (7, 4)
SOFFICE_EXT = {kind: kind for kind in POWERPOINT_KINDS}
"""Content kind → the suffix LibreOffice is handed (its import filter goes by the name)."""

_seed_lock = threading.Lock()
_seed_profile: Path | None = None


@dataclass
class PdfResult:
    """LibreOffice conversion outcome. ``pdf`` is None on failure; ``reason`` says why."""

    pdf: Path | None
    reason: str = ""
    timed_out: bool = False
    seconds: float = 0.0
    hidden_exported: bool = False
    log: list[str] = field(default_factory=list)
    wrote_nothing: bool = False
    """LibreOffice ran to its end (no timeout) and left no usable PDF: the deck's fault or the
    renderer's, which the caller decides (`render_blame.blame_soffice`)."""


def soffice_to_pdf(deck: Path, kind: str, work_dir: Path, *, soffice: str, timeout_sec: float,
                   version: tuple[int, ...] | None = None) -> PdfResult:
    """Convert ``deck`` to ``work_dir/out/deck.pdf`` with a private LibreOffice profile.

    The deck is linked under a neutral name with the extension of its sniffed ``kind`` (an
    OOXML file named ``.ppt`` converts as ``.pptx``). The profile is a copy of a per-process
    seed profile (saves LibreOffice's ~0.5 s first-start initialisation); a profile that saw
    a timeout is discarded. "Exit 0 without a PDF" is a failure (``wrote_nothing``, the
    reason quoting soffice's stderr): whether the deck or the renderer is to blame is the
    caller's call (`render_blame.blame_soffice`).
    """
    start = time.monotonic()
    inp, out, profile = work_dir / "in", work_dir / "out", work_dir / "profile"
    for d in (inp, out):
        d.mkdir(parents=True, exist_ok=True)
    src = inp / f"deck.{SOFFICE_EXT.get(kind, 'pptx')}"
    if kind == "ppt" or not strip_external_targets(deck, src):
        link_or_copy(deck, src)
    seeded = _copy_seed(profile)
    hidden = version is None or tuple(version[:2]) >= JSON_FILTER_MIN_VERSION
    argv = [soffice, f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless", "--invisible",
            "--norestore", "--nologo", "--nodefault", "--nolockcheck",
            "--convert-to", PDF_FILTER_HIDDEN if hidden else "pdf", "--outdir", str(out), str(src)]
    # its own temp files (lu*.tmp) in the conversion's folder, which goes with it: a LibreOffice killed by a
    # SIGINT or the deadline cannot remove them, and they were left in TMPDIR (trial 7 F10)
    env = child_environment({"HOME": str(work_dir), "TMPDIR": str(work_dir)})
    proc = run_command(argv, timeout_sec=timeout_sec, env=env)
    pdf = out / "deck.pdf"
    res = PdfResult(None, seconds=time.monotonic() - start, hidden_exported=hidden, timed_out=proc.timed_out,
                    log=[proc.stdout.strip()[-500:], proc.stderr.strip()[-500:]])
    if proc.error:
        res.reason = f"soffice did not start: {proc.error}"
    elif proc.timed_out:
        res.reason = f"soffice timed out after {timeout_sec:.0f} s (process group killed)"
    elif not pdf.is_file() or pdf.stat().st_size == 0:
        res.wrote_nothing = True
        res.reason = f"soffice exited {proc.returncode} without writing a PDF{_stderr_note(proc.stderr)}"
    elif not pdf.read_bytes()[:1024].lstrip().startswith(b"%PDF"):
        res.wrote_nothing = True
        res.reason = f"soffice wrote a file that is not a PDF{_stderr_note(proc.stderr)}"
    else:
        res.pdf = pdf
        if not seeded and not proc.timed_out:
            _store_seed(profile)
    return res


def _stderr_note(stderr: str) -> str:
    """``"; soffice said: <last stderr line(s), ≤ 300 chars>"`` ("" for a silent soffice)."""
    tail = " ".join(stderr.split())[-300:]
    return f"; soffice said: {tail}" if tail else ""


def _copy_seed(profile: Path) -> bool:
    with _seed_lock:
        seed = _seed_profile
    if seed is None or not seed.is_dir():
        return False
    try:
        shutil.copytree(seed, profile, symlinks=True)
        return True
    except OSError:
        shutil.rmtree(profile, ignore_errors=True)
        return False


def _store_seed(profile: Path) -> None:
    """Keep a copy of a freshly initialised profile as the process's seed (first success only).

    The seed lives in a scratch folder (``cowork-judge-lo-seed-*``, ~560 KB) for the rest of the
    process and is removed when it exits: by `atexit` at a normal exit, by
    `fsutil.remove_scratch` on SIGTERM and the watchdog's ``os._exit`` (0.2.0 left one per
    rendering process in TMPDIR). LibreOffice itself never runs on the seed: each conversion
    gets its own copy, as two LibreOffice processes cannot share one profile.
    """
    global _seed_profile
    with _seed_lock:
        if _seed_profile is not None:
            return
        root = make_scratch_dir("cowork-judge-lo-seed-")
        try:
            shutil.copytree(profile, root / "profile", symlinks=True)
        except OSError:
            discard_scratch(root)
            return
        _seed_profile = root / "profile"
        atexit.register(_discard_seed, root)


def _discard_seed(root: Path) -> None:
    """Remove the seed profile's folder `root` (at process exit); the next conversion of
    this process, if any, initialises a new seed."""
    global _seed_profile
    with _seed_lock:
        if _seed_profile is not None and _seed_profile.parent == root:
            _seed_profile = None
    discard_scratch(root)


def pdf_to_pngs(pdf: Path, out_dir: Path, *, width_px: int, deadline: float,
                pages: list[int] | None = None, rel_root: Path | None = None) -> tuple[list[PageImage], str]:
    """Rasterise PDF pages to ``out_dir/page-NNN.png`` (1-based NNN) at ``width_px`` wide.

    ``pages`` selects 1-based page numbers (default all). Stops at ``deadline``
    (``time.monotonic()`` value) and says so in the returned reason ("" when complete).
    """
    import pymupdf

    out_dir.mkdir(parents=True, exist_ok=True)
    images: list[PageImage] = []
    with pymupdf.open(pdf) as doc:
        wanted = pages if pages is not None else list(range(1, doc.page_count + 1))
        for num in wanted:
            if time.monotonic() > deadline:
                return images, f"budget ran out after {len(images)} of {len(wanted)} pages"
            page = doc[num - 1]
            zoom = width_px / max(page.rect.width, 1.0)
            pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
            path = out_dir / f"page-{num:03d}.png"
            pix.save(path)
            rel = path.relative_to(rel_root) if rel_root else path
            images.append(PageImage(page=num, path=str(rel), width_px=pix.width, height_px=pix.height))
    return images, ""


def html_to_pngs(html: Path, out_dir: Path, *, chromium: str, width_px: int, timeout_sec: float,
                 javascript: bool = False) -> tuple[list[Path], str]:
    """Screenshot each slide of an HTML deck in a child process (killed on timeout).

    Slides are the top-level ``<section>`` elements, else ``.slide`` elements, else the whole
    page. Only ``data:`` URLs and files in the deck's own folder load (no network, no
    ``file:///etc/...``); JavaScript is off by default (deliverables are untrusted).
    Returns (PNG paths in slide order, failure reason).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    with scratch_dir("cowork-judge-chromium-") as tmp:
        spec = {"html_uri": html.resolve().as_uri(), "out_dir": str(out_dir.resolve()), "chromium": chromium,
                "width_px": width_px, "user_data_dir": str(tmp / "profile"), "javascript": javascript,
                "timeout_ms": int(max(timeout_sec - 5, 5) * 1000)}
        # -I: the child must not import a `cowork_judge` planted in the working directory
        argv = [sys.executable, "-I", "-m", "cowork_judge.evidence.html_shot", json.dumps(spec)]
        proc = run_command(argv, timeout_sec=timeout_sec)
    if proc.timed_out:
        return [], f"chromium render timed out after {timeout_sec:.0f} s (process group killed)"
    try:
        reply = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return [], f"chromium render failed (exit {proc.returncode}): {proc.stderr.strip()[-300:] or proc.error}"
    if reply.get("error"):
        return [], f"chromium render failed: {reply['error']}"
    return [Path(p) for p in reply.get("pages", [])], ""
