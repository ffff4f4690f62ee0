"""Keeping the run's deck evidence beside the verifier outputs (``/logs/verifier/evidence/``).

Harbor downloads ``/logs/verifier/`` only, and the run's work dir is deleted at the end, so
without a copy a job's report has no page images or findings. The copy keeps the evidence
layout (`EvidenceLayout`: ``index.json``, ``<deck>/digest.json``, ``<deck>/checks.json``,
``<deck>/pages/slide-NNN.json``, ``pages/<deck>/page-NNN.png``) so `cowork-judge report`
reads it as it reads the work dir's; the LibreOffice PDFs are left out. JSON files are
redacted (slide text is the agent's) and the prompts' random boundary is masked in them
(`cowork_judge.safety.spotlight.mask`: a deck may carry it); page images are copied in page order until
`MAX_KEPT_BYTES`, and what did not fit is counted.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..safety import spotlight
from ..safety.redact import Redactor

MAX_KEPT_BYTES = 25 * 1024 * 1024
"""Bytes of evidence kept beside the verifier outputs (a 60-page deck at 1600 px is ~12 MB)."""


@dataclass
class KeptEvidence:
    """What `keep_evidence` copied: files and bytes kept, page images left out for the cap."""

    files: int = 0
    bytes: int = 0
    images_dropped: int = 0


def keep_evidence(src: Path, dst: Path, redactor: Redactor, *, max_bytes: int = MAX_KEPT_BYTES) -> KeptEvidence:
    """Copy the evidence tree `src` to `dst` (JSON redacted, images within `max_bytes`).

    Never raises: a file that cannot be read or written is skipped. Symlinks are never
    followed. Returns what was kept.
    """
    kept = KeptEvidence()
    if not (src / "index.json").is_file():
        return kept
    json_files = sorted(p for p in src.rglob("*.json") if p.is_file() and not p.is_symlink())
    images = sorted(p for p in (src / "pages").rglob("*.png") if p.is_file() and not p.is_symlink()) if (src / "pages").is_dir() else []
    for path in json_files:
        try:
            text = spotlight.mask(redactor.json_text(path.read_text(encoding="utf-8")))
            json.loads(text)  # a redaction that broke the document is not kept
        except (OSError, ValueError):
            continue
        kept = _put(dst / path.relative_to(src), text.encode("utf-8"), kept)
    for path in images:
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if kept.bytes + size > max_bytes:
            kept.images_dropped += 1
            continue
        target = dst / path.relative_to(src)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target, follow_symlinks=False)
        except OSError:
            continue
        kept.files += 1
        kept.bytes += size
    return kept


def _put(target: Path, data: bytes, kept: KeptEvidence) -> KeptEvidence:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    except OSError:
        return kept
    kept.files += 1
    kept.bytes += len(data)
    return kept
