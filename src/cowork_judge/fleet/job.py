"""Reading one job for its report: the result document, the deck evidence, the audit.

The I/O edge of ``cowork-judge report``. Where the page images and findings come from,
first found wins:

1. ``--evidence-dir DIR``: an evidence root (``index.json``, ``<deck>/``, ``pages/``);
2. ``--work-dir DIR``: the run's work dir (``cowork-judge run --work-dir`` /
   ``JUDGE_WORK_DIR``), whose ``evidence/`` is that root;
3. ``<verifier>/evidence/``: a copy kept beside the verifier outputs.

A run without an explicit work dir deletes its temp work dir at the end, so by default
page images are gone; the report then says how to keep them and still shows the
per-deck summary stored in ``details.evidence``. An evidence root whose decks are not
the result's decks is not used (the report says why); one whose decks have the result's names
but other recorded facts (`other_run_evidence`: another run's deck of the same name) is refused
when ``--evidence-dir`` / ``--work-dir`` named it (`JobError`). Page images are embedded as
``data:`` URIs (downscaled to `THUMB_WIDTH_PX` when Pillow is installed), so the page
stays self-contained.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cowork_judge.core.integrity import SealCheck
from cowork_judge.core.layout import RESULT_NAME
from cowork_judge.core.result import ResultDocument
from cowork_judge.evidence.documents import ChecksDoc, Digest, EvidenceSummary, SlideDoc
from cowork_judge.evidence.layout import EvidenceLayout
from cowork_judge.fleet.documents import InputFile, Item, parse_document, read_regular
from cowork_judge.fleet.kept_message import KeptMessage, read_kept_message
from cowork_judge.fleet.pagemap import parse_evidence_ref
from cowork_judge.core.layout import EVIDENCE_DIR, VerifierLayout

THUMB_WIDTH_PX = 720
MAX_IMAGE_BYTES = 16 * 1024 * 1024
MAX_PAGES_PER_DECK = 200
MAX_AUDIT_BYTES = 256 * 1024 * 1024
"""Audit files larger than this are not scanned for page views."""


class JobError(ValueError):
    """The verifier directory has no readable result document."""


class JobTampered(JobError):
    """The result document no longer matches what the judge wrote (its seal); the message
    names the file (`cowork_judge.core.integrity.SealCheck.problem`)."""


def seal_of(path: Path, doc: ResultDocument, data: bytes) -> SealCheck:
    """The seal check of the result document `doc` (its bytes `data`) read from `path`, the
    one ``summarize`` and ``rescore`` make (`cowork_judge.fleet.documents.Item.seal`; trial 6,
    F19): the document, and for a file named ``result.json`` the ``reward.txt`` /
    ``reward.json`` beside it when they are there; keys a fleet added beside the judge's are
    left out of the digest. Never raises."""
    return Item(source=str(path), file=InputFile(path=path, name=str(path), jsonl=False), doc=doc, data=data).seal


@dataclass
class PageImage:
    """One rendered page: number, slide, an embeddable image (or None) and its size."""

    page: int
    slide: int | None
    data_uri: str | None
    width_px: int
    height_px: int


@dataclass
class DeckEvidence:
    """What the evidence root holds about one deck."""

    deck: str
    source: str
    kind: str | None = None
    slide_size_emu: tuple[int, int] | None = None
    pages: list[PageImage] = field(default_factory=list)
    slide_titles: dict[int, str] = field(default_factory=dict)
    findings: list[dict[str, Any]] = field(default_factory=list)
    shapes: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def page_to_slide(self) -> dict[int, int | None]:
        """Rendered page number → slide index (None: the page maps to no slide)."""
        return {p.page: p.slide for p in self.pages}


@dataclass
class Job:
    """Everything a report shows, read from disk."""

    verifier_dir: Path
    doc: ResultDocument
    doc_sha256: str
    seal: SealCheck = field(default_factory=lambda: SealCheck("unsealed"))
    """The document's seal as `seal_of` checked it (``mismatch``: `load_job` raised instead)."""
    evidence_root: Path | None = None
    evidence_note: str | None = None
    decks: list[DeckEvidence] = field(default_factory=list)
    viewed: dict[tuple[str, int], set[str]] = field(default_factory=dict)
    final_message: KeptMessage | None = None
    """The final message the run read, as it kept it (``judge/final_message.json``), or None."""
    final_message_note: str | None = None
    """Why a final message the run read is not shown (its copy absent or unreadable), or None."""


def load_job(verifier_dir: Path, *, work_dir: Path | None = None, evidence_dir: Path | None = None) -> Job:
    """Read the job in `verifier_dir` (a ``logs/verifier`` folder, or a result file).

    Raises:
        JobError: no ``result.json``, or it is unreadable or not a result document; or the evidence that
            `evidence_dir` / `work_dir` names is another run's (`other_run_evidence`).
        JobTampered: the document (or a reward file beside it) no longer matches what the
            judge wrote (its seal, `seal_of`).
    """
    path = verifier_dir if verifier_dir.is_file() else verifier_dir / RESULT_NAME
    try:
        data = read_regular(path)
    except OSError as exc:
        raise JobError(f"{path}: {exc.strerror or exc}") from None
    doc, problem, error = parse_document(data)
    if doc is None:
        raise JobError(f"{path}: {problem}: {error}")
    verdict = seal_of(path, doc, data)
    if not verdict.ok:
        raise JobTampered(str(verdict.problem))
    job = Job(verifier_dir=path.parent, doc=doc, doc_sha256=hashlib.sha256(data).hexdigest(), seal=verdict)
    candidates = [(evidence_dir, "--evidence-dir"), (work_dir / EVIDENCE_DIR if work_dir else None, "--work-dir"),
                  (VerifierLayout.of_verifier_dir(path.parent).kept_evidence_dir, "the verifier dir")]
    expected = {str(d.get("deck")) for d in doc.details.evidence.get("decks", []) if isinstance(d, dict)}
    for root, origin in candidates:
        if root is None:
            continue
        if not (root / "index.json").is_file():
            if origin != "the verifier dir":
                job.evidence_note = f"no evidence index at {root / 'index.json'} (from {origin})"
            continue
        try:
            index = EvidenceSummary.model_validate_json((root / "index.json").read_bytes())
        except (OSError, ValidationError, ValueError):
            job.evidence_note = f"{root / 'index.json'} is not an evidence index"
            continue
        found = {d.deck for d in index.decks}
        if expected and found != expected:
            job.evidence_note = (f"the evidence at {root} is for other decks ({', '.join(sorted(found)) or 'none'}) than "
                                 f"this result ({', '.join(sorted(expected))}); not used")
            continue
        other = other_run_evidence(doc.details.evidence.get("decks", []), index)
        if other is not None:  # trial 12 F13: same deck names, another run's decks
            message = (f"refused: the evidence at {root} (from {origin}) is another run's: {other}; no page written (give "
                       "this run's own work dir, or leave it out to use the copy kept beside the verifier outputs)")
            if origin != "the verifier dir":
                raise JobError(message)
            job.evidence_note = message.removeprefix("refused: ").replace("; no page written (", "; not used (")
            continue
        job.evidence_root = root
        # an explicit source that could not be used is still said (the copy beside the
        # verifier outputs may stand in for it)
        job.evidence_note = f"{job.evidence_note}; using the evidence from {origin} instead" if job.evidence_note else None
        job.decks = [_load_deck(EvidenceLayout(root), d.deck, d.source) for d in index.decks]
        break
    if job.evidence_root is None and any(d.get("pages_rendered") for d in doc.details.evidence.get("decks", [])
                                         if isinstance(d, dict)):
        job.evidence_note = (job.evidence_note or "page images not found") + (
            ": the run's work dir is removed at the end unless it was given (cowork-judge run --work-dir DIR or "
            "JUDGE_WORK_DIR); pass --work-dir or --evidence-dir")
    layout = VerifierLayout.of_verifier_dir(path.parent)
    job.viewed = audit_page_views(layout.audit_dir)
    job.final_message, job.final_message_note = read_kept_message(layout.kept_final_message,
                                                                  doc.details.delivery.final_message_source)
    return job


EVIDENCE_FACTS = (("source", "source", "source {}"), ("status", "sniff_status", "status {}"),
                  ("structure_ok", "structure_ok", "structure_ok {}"), ("pages_rendered", "pages_rendered", "{} page(s)"))
"""What a result's ``details.evidence.decks`` entry records of a deck (its key, the evidence index's key, how the
report says it) that the evidence index records too: `other_run_evidence` compares them."""


def other_run_evidence(result_decks: Any, index: EvidenceSummary) -> str | None:
    """How the evidence `index` differs from the decks this result was judged with, or None when it agrees.

    Decks are matched by name (the caller has checked both sides name the same decks); for each, the facts of
    `EVIDENCE_FACTS` recorded in the result (``details.evidence.decks``) are compared with the index's. Two runs
    delivering a deck of the same name then differ by page count, say, and the report does not show one run's
    pages under the other's verdicts (trial 12 F13). A fact the result does not record is not compared.

    Returns:
        ``"deck.pptx: 1 page rendered in the evidence, 3 pages rendered in this result"``-like text (each
        differing fact of each deck), or None.
    """
    by_name = {d.deck: d for d in index.decks}
    said: list[str] = []
    for entry in result_decks if isinstance(result_decks, list) else []:
        if not isinstance(entry, dict) or str(entry.get("deck")) not in by_name:
            continue
        found = by_name[str(entry.get("deck"))]
        for key, index_key, text in EVIDENCE_FACTS:
            if key in entry and entry[key] != getattr(found, index_key):
                ours, theirs = entry[key], getattr(found, index_key)
                said.append(f"{found.deck}: {_fact(text, theirs)} in the evidence, {_fact(text, ours)} in this result")
    return "; ".join(said) if said else None


def _fact(text: str, value: Any) -> str:
    """One fact of `EVIDENCE_FACTS` said, ``3 pages`` / ``1 page`` for a page count."""
    if text == "{} page(s)" and isinstance(value, int):
        return f"{value} page{'s' if value != 1 else ''} rendered"
    return text.format(value)


def _load_deck(layout: EvidenceLayout, deck: str, source: str) -> DeckEvidence:
    out = DeckEvidence(deck=deck, source=source)
    try:
        digest = Digest.model_validate_json(layout.digest(deck).read_bytes())
    except (OSError, ValidationError, ValueError) as exc:
        out.notes.append(f"digest unreadable: {type(exc).__name__}")
        return out
    out.kind = digest.sniff.kind
    if digest.slide_width_emu and digest.slide_height_emu:
        out.slide_size_emu = (digest.slide_width_emu, digest.slide_height_emu)
    out.slide_titles = {s.index: s.title for s in digest.slides if s.title}
    pages = digest.render.pages if digest.render else []
    if len(pages) > MAX_PAGES_PER_DECK:
        out.notes.append(f"{len(pages)} pages rendered; the first {MAX_PAGES_PER_DECK} are shown")
    for p in pages[:MAX_PAGES_PER_DECK]:
        uri, w, h = _thumbnail(layout.root / p.path, p.width_px, p.height_px)
        if uri is None:
            out.notes.append(f"page {p.page}: image missing or unreadable")
        out.pages.append(PageImage(page=p.page, slide=p.slide, data_uri=uri, width_px=w, height_px=h))
    try:
        checks = ChecksDoc.model_validate_json(layout.checks(deck).read_bytes())
        out.findings = [f.model_dump(mode="json") for f in checks.findings]
    except FileNotFoundError:
        pass
    except (OSError, ValidationError, ValueError) as exc:
        out.notes.append(f"checks unreadable: {type(exc).__name__}")
    for slide in sorted({f["slide"] for f in out.findings if f.get("slide") and f.get("shape_id") is not None}):
        try:
            doc = SlideDoc.model_validate_json(layout.slide(deck, slide).read_bytes())
        except (OSError, ValidationError, ValueError):
            continue
        out.shapes[slide] = {s.id: {"box": s.box.model_dump() if s.box else None, "rot_deg": s.rot_deg} for s in doc.shapes}
    return out


def _thumbnail(path: Path, width_px: int, height_px: int) -> tuple[str | None, int, int]:
    """A ``data:`` URI of the page image, downscaled when Pillow is available."""
    try:
        if path.stat().st_size > MAX_IMAGE_BYTES:
            return None, width_px, height_px
        data = path.read_bytes()
    except OSError:
        return None, width_px, height_px
    mime = "image/png"
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as img:
            width_px, height_px = img.size
            if img.width > THUMB_WIDTH_PX:
                small = img.convert("RGB").resize((THUMB_WIDTH_PX, max(1, round(img.height * THUMB_WIDTH_PX / img.width))),
                                                  Image.Resampling.LANCZOS)
                buf = io.BytesIO()
                small.save(buf, format="JPEG", quality=82, optimize=True)
                data, mime = buf.getvalue(), "image/jpeg"
    except ImportError:
        pass
    except Exception:  # noqa: BLE001 - a broken image is shown as missing, never a crash
        return None, width_px, height_px
    if data[:8] != b"\x89PNG\r\n\x1a\n" and mime == "image/png":
        return None, width_px, height_px
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}", width_px, height_px


def audit_page_views(audit_dir: Path) -> dict[tuple[str, int], set[str]]:
    """(deck, page) → ids of the rows whose judge block opened that page image.

    Reads ``<audit>/<block>/attempt-*.jsonl`` (``view_image`` tool calls in the model's
    replies) and ``<audit>/<block>/verdicts.json`` (the block's rows). Unreadable or
    oversized files are skipped: the audit is a trace, not a requirement.
    """
    out: dict[tuple[str, int], set[str]] = {}
    if not audit_dir.is_dir():
        return out
    for block in sorted(p for p in audit_dir.iterdir() if p.is_dir()):
        try:
            rows = set(json.loads((block / "verdicts.json").read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            continue
        pages: set[tuple[str, int]] = set()
        for attempt in sorted(block.glob("attempt-*.jsonl")):
            pages |= _viewed_pages(attempt)
        for key in pages:
            out.setdefault(key, set()).update(rows)
    return out


def _viewed_pages(path: Path) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    try:
        if path.stat().st_size > MAX_AUDIT_BYTES:
            return found
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if "view_image" not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                reply = record.get("reply") if isinstance(record, dict) else None
                for call in (reply or {}).get("tool_calls") or ():
                    if not isinstance(call, dict) or call.get("name") != "view_image":
                        continue
                    try:
                        ref = parse_evidence_ref(str(json.loads(call.get("arguments") or "{}").get("path", "")))
                    except (ValueError, AttributeError):
                        continue
                    if ref is not None and ref.deck is not None and ref.kind == "page":
                        found.add((ref.deck, ref.number))
    except OSError:
        pass
    return found
