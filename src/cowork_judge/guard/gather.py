"""The guard's I/O edge: read what the judge will read that the agent wrote, scan it.

`guard_delivery` takes the delivered files (path relative to the output folder and
absolute path) and the final message, extracts each file's text by type and scans
every channel with `scan.scan_text`. Extraction by type (`file_texts`): text and code
files as they are (HTML comments in Markdown/HTML are invisible to a reader: channel
``hidden_text``); PDF page by page (PyMuPDF); DOCX/XLSX from their XML parts (runs with
``w:vanish`` are hidden text); decks through `deck_text.read_deck_text` (visible text,
notes, invisible text, alt text). File names are scanned with ``_``/``-``/``.``/``/`` read
as spaces. Never raises: a file that cannot be read is skipped and counted.
"""

from __future__ import annotations

import html
import re
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cowork_judge.safety.agent_text import decode
from cowork_judge.evidence.kinds import OOXML_KINDS, SUFFIX_KIND
from cowork_judge.guard.discourse import Discourse, read_task
from cowork_judge.core.findings import MAX_FINDINGS, Channel, Finding, GuardMode, GuardReport
from cowork_judge.guard.scan import SCAN_CHARS, comparable, excerpt, master_key_finding, scan_text

DECK_SUFFIXES = frozenset(suffix for suffix, kind in SUFFIX_KIND.items() if kind in OOXML_KINDS)
"""The OOXML deck suffixes the guard reads text from (`evidence.kinds`, the one table of deck kinds)."""
PDF_SUFFIXES = frozenset({".pdf"})
WORD_SUFFIXES = frozenset({".docx", ".docm", ".dotx"})
SHEET_SUFFIXES = frozenset({".xlsx", ".xlsm"})
COMMENT_SUFFIXES = frozenset({".md", ".markdown", ".html", ".htm", ".xml", ".svg"})
MAX_TEXT_FILE_BYTES = 8 * 1024 * 1024
"""Text files larger than this are read up to this many bytes."""
MAX_PART_BYTES = 64 * 1024 * 1024
"""An OOXML part (DOCX/XLSX) unpacking to more than this is not read (zip-bomb cap, SPEC §22)."""
MASTER_KEY_MAX_BYTES = 256
"""A deliverable is compared with the master keys only up to this size."""
_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
_WORD_RUN = re.compile(r"<w:r[ >].*?</w:r>", re.DOTALL)
_WORD_TEXT = re.compile(r"<w:t(?:\s[^>]*)?>([^<]*)</w:t>")
_SHEET_TEXT = re.compile(r"<t(?:\s[^>]*)?>([^<]*)</t>")
_NAME_SEPARATORS = re.compile(r"[_\-./\\]+")


@dataclass(frozen=True)
class TextPiece:
    """One piece of a file's text: its channel, page (or slide), hidden reason, first line."""

    channel: Channel
    text: str
    page: int | None = None
    hidden_reason: str | None = None
    line_offset: int = 0


def _blank_comments(text: str) -> tuple[str, list[tuple[int, str]]]:
    """`text` with HTML comments blanked (newlines kept) and the comments with their line offsets."""
    comments: list[tuple[int, str]] = []

    def keep(m: re.Match[str]) -> str:
        comments.append((text.count("\n", 0, m.start()), m.group(1)))
        return re.sub(r"[^\n]", " ", m.group(0))

    return _COMMENT.sub(keep, text), comments


def _ooxml_parts(path: Path, prefix: str) -> Iterable[str]:
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            if info.filename.startswith(prefix) and info.filename.endswith(".xml") and info.file_size <= MAX_PART_BYTES:
                yield zf.read(info).decode("utf-8", errors="replace")


def file_texts(rel: str, path: Path) -> list[TextPiece]:
    """The pieces of text the judge may read from one deliverable (see the module docstring).

    Raises:
        OSError, ValueError, zipfile.BadZipFile, RuntimeError: the file cannot be read
            (`guard_delivery` counts it and goes on).
    """
    suffix = path.suffix.lower()
    if suffix in DECK_SUFFIXES:
        # imported here: its documents module costs ~25 ms of start-up a run without a deck never needs
        from cowork_judge.guard.deck_text import read_deck_text

        deck = read_deck_text(path)
        if deck.error:
            with path.open("rb") as fh:
                head = fh.read(1024)
            if b"%PDF-" in head:
                suffix = ".pdf"  # a PDF named as a deck is rendered as a PDF: read as one
            elif head.startswith(b"PK"):
                raise ValueError(deck.error)
            else:
                suffix = ""  # not a package: the judge reads it as text, and so does the guard
    if suffix in DECK_SUFFIXES:
        pieces: list[TextPiece] = []
        for s in deck.slides:
            if s.visible:
                pieces.append(TextPiece("deck_text", s.visible, page=s.index))
            pieces += [TextPiece("hidden_text", t, page=s.index, hidden_reason=why) for why, t in s.hidden]
            pieces += [TextPiece("alt_text", t, page=s.index, hidden_reason="alt_text") for t in s.alt]
        return pieces
    if suffix in PDF_SUFFIXES:
        import pymupdf

        with pymupdf.open(path) as doc:
            return [TextPiece("deliverable", page.get_text()[:SCAN_CHARS], page=n) for n, page in enumerate(doc, start=1)]
    if suffix in WORD_SUFFIXES:
        shown: list[str] = []
        hidden: list[str] = []
        for xml in _ooxml_parts(path, "word/"):
            for run in _WORD_RUN.findall(xml):
                text = html.unescape("".join(_WORD_TEXT.findall(run)))
                (hidden if "<w:vanish" in run else shown).append(text)
            shown.append("\n")
        return [TextPiece("deliverable", " ".join(shown)), TextPiece("hidden_text", " ".join(hidden), hidden_reason="vanish")]
    if suffix in SHEET_SUFFIXES:
        cells = [html.unescape(t) for xml in _ooxml_parts(path, "xl/") for t in _SHEET_TEXT.findall(xml)]
        return [TextPiece("deliverable", "\n".join(cells))]
    with path.open("rb") as fh:
        data = fh.read(MAX_TEXT_FILE_BYTES)
    if b"\x00" in data[:8192]:
        return []  # binary: the judge reads no text from it either
    text = decode(data)
    if suffix in COMMENT_SUFFIXES:
        text, comments = _blank_comments(text)
        return [TextPiece("deliverable", text),
                *(TextPiece("hidden_text", c, hidden_reason="comment", line_offset=n) for n, c in comments)]
    return [TextPiece("deliverable", text)]


def _name_text(rel: str) -> str:
    return _NAME_SEPARATORS.sub(" ", rel)


def guard_delivery(files: Sequence[tuple[str, Path]], final_message: str | None, *, mode: GuardMode,
                   message_channel: Channel = "final_message", redact: Callable[[str], str] = str,
                   task: str | None = None) -> GuardReport:
    """Scan everything the agent wrote that the judge reads; the report for the result document.

    Args:
        files: (path relative to the output folder, absolute path) of each deliverable.
        final_message: the agent's final chat message (None: none found).
        mode: ``JUDGE_GUARD``; ``off`` returns an empty, unscanned report.
        message_channel: ``trajectory`` when the message came from the ATIF trajectory.
        redact: applied to every excerpt (secrets the agent printed never reach the document).
        task: the task prompt the agent was given (None: unknown). A deliverable may quote
            attacks, write grading rules or show verdict-shaped examples without flagging only
            when the task is about that (`discourse`).

    Returns:
        The report: flagging findings first (at most `MAX_FINDINGS` kept), then
        informational ones; ``channels`` counts the characters scanned per channel and
        ``unreadable`` files.
    """
    if mode == "off":
        return GuardReport(mode=mode)
    findings: list[Finding] = []
    channels: dict[str, int] = {}
    topics = read_task(task)

    def count(channel: str, n: int) -> None:
        channels[channel] = channels.get(channel, 0) + n

    if final_message:
        count(message_channel, len(final_message))
        findings += scan_text(final_message, message_channel, task=topics)
    if final_message is not None and not files:
        mk = master_key_finding(final_message, message_channel)
        if mk:
            findings.append(mk)
    for rel, path in files:
        count("file_name", len(rel))
        findings += [f.model_copy(update={"file": rel, "line": None}) for f in scan_text(_name_text(rel), "file_name")]
        try:
            pieces = file_texts(rel, path)
        except Exception:  # noqa: BLE001 - an unreadable file is counted, never a crash (SPEC §22)
            count("unreadable_files", 1)
            continue
        visible = [p.text for p in pieces if p.hidden_reason is None and p.text.strip()]
        document = Discourse.read(comparable("\n\n".join(visible)[:SCAN_CHARS])) if len(visible) > 1 else None
        for piece in pieces:
            if not piece.text.strip():
                continue
            count(piece.channel, len(piece.text))
            found = scan_text(piece.text, piece.channel, file=rel, page=piece.page, hidden_reason=piece.hidden_reason,
                              line_offset=piece.line_offset, document=document, task=topics)
            findings += found
            if piece.hidden_reason not in (None, "notes", "alt_text", "comment") and not found:
                findings.append(Finding(channel=piece.channel, file=rel, page=piece.page, kind="hidden_text",
                                        rule=f"hidden:{piece.hidden_reason}", excerpt=excerpt(piece.text, 0, 0)[:80] or "(blank)",
                                        flags=False))
        if len(pieces) == 1 and pieces[0].channel == "deliverable" and 0 < len(pieces[0].text) <= MASTER_KEY_MAX_BYTES:
            mk = master_key_finding(pieces[0].text, "deliverable", file=rel)
            if mk:
                findings.append(mk)
    findings = [f.model_copy(update={"excerpt": redact(f.excerpt)}) for f in findings]
    findings.sort(key=lambda f: not f.flags)  # stable: flagging first, each group in reading order
    flagged = any(f.flags for f in findings)
    return GuardReport(mode=mode, scanned=True, flagged=flagged, findings=findings[:MAX_FINDINGS],
                       findings_dropped=max(0, len(findings) - MAX_FINDINGS), channels=channels)


__all__ = ["TextPiece", "file_texts", "guard_delivery"]
