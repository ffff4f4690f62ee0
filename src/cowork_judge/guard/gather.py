"""The guard's I/O edge: read what the judge will read that the agent wrote, scan it.

`guard_delivery` takes the delivered files (path relative to the output folder and
absolute path) and the final message, extracts each file's text by type and scans
every channel with `scan.scan_text`. Extraction by type (`file_texts`): text and code
files as they are (HTML comments in Markdown/HTML are invisible to a reader: channel
``hidden_text``); PDF page by page (PyMuPDF); DOCX/XLSX from their XML parts (runs with
``w:vanish`` are hidden text); decks through `deck_text.read_deck_text` (visible text,
notes, invisible text, alt text). File names are scanned with ``_``/``-``/``.``/``/`` read
as spaces. Never raises: a file that cannot be read is skipped and counted. The scan's cost
is bounded (trial 8 F3): a text file is read up to `MAX_TEXT_FILE_BYTES`, a run scans at most
`MAX_SCAN_CHARS`; what is left out is listed in the report's ``unscanned``.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import dataclasses
import html
import re
import urllib.parse
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cowork_judge.safety.agent_text import BINARY_SNIFF_BYTES, decode, looks_binary
from cowork_judge.evidence.kinds import OOXML_KINDS, SUFFIX_KIND
from cowork_judge.evidence.reads import StructureReads
from cowork_judge.core.findings import MAX_FINDINGS, Channel, Finding, GuardMode, GuardReport, Unscanned
from cowork_judge.guard.discourse import Discourse, TaskTopics, read_task
from cowork_judge.guard.scan import bidi_runs, comparable, excerpt, master_key_finding, scan_text

DECK_SUFFIXES = frozenset(suffix for suffix, kind in SUFFIX_KIND.items() if kind in OOXML_KINDS)
"""The OOXML deck suffixes the guard reads text from (`evidence.kinds`, the one table of deck kinds)."""
PDF_SUFFIXES = frozenset({".pdf"})
WORD_SUFFIXES = frozenset({".docx", ".docm", ".dotx"})
SHEET_SUFFIXES = frozenset({".xlsx", ".xlsm"})
COMMENT_SUFFIXES = frozenset({".md", ".markdown", ".html", ".htm", ".xml", ".svg"})
MAX_TEXT_FILE_BYTES = 4 * 1024 * 1024
"""The guard's scan budget of one text file: it is read and scanned up to this many bytes (4 MiB:
the part of a file the built-in judge's grep tool searches; the code rows read 8 MiB). The scan
costs up to ~5 s of one core per MiB of adversarial text (plain words, no sentence end), so the
64 MiB read before held a run in the scan for minutes (trial 8 F3). The rest of a larger file is
recorded in the report's ``unscanned`` and named in ``details.warnings``: never covered by
``flagged``."""
MAX_SCAN_CHARS = 8 * 1024 * 1024
"""The guard's scan budget of one run: characters scanned over the final message and every piece
of text of every deliverable, in delivery order (8 Mi: two text files at their budget; 40-100 s of
one core at the measured worst, 5-12 s per MB). A piece past it is cut (its rest recorded in
``unscanned``, ``part`` naming the piece, ``offset`` in characters); the final message is never cut
(it is read up to 16 MiB) but counts against it."""
MAX_PART_BYTES = 64 * 1024 * 1024
"""An OOXML part (DOCX/XLSX) unpacking to more than this is not read (zip-bomb cap, SPEC §22)."""
MASTER_KEY_MAX_BYTES = 256
"""A deliverable is compared with the master keys only up to this size."""
_BLANK = re.compile(r"[^\n]")
_WORD_TEXT = re.compile(r"<w:t(?:\s[^>]*)?>([^<]*)</w:t>")
_SHEET_TEXT = re.compile(r"<t(?:\s[^>]*)?>([^<]*)</t>")
_NAME_SEPARATORS = re.compile(r"[_\-./\\]+")



ENCODED_MIN_CHARS = 24
"""Shortest base64, hex or URL-encoded run decoded and scanned (`encoded_texts`)."""
_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{%d,}={0,2}" % ENCODED_MIN_CHARS)
_HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){%d,}(?![0-9A-Fa-f])" % (ENCODED_MIN_CHARS // 2))
_URL_TOKEN = re.compile(r"[^\s\"'<>()\[\]]+")
_PCT = re.compile(r"%[0-9A-Fa-f]{2}")


def _readable(data: bytes) -> str | None:
    """`data` as text when it is UTF-8 text a reader could read (letters, mostly printable)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    shown = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    return text if len(text) >= 8 and shown >= 0.95 * len(text) and sum(ch.isalpha() for ch in text) >= 8 else None


def encoded_texts(text: str) -> list[tuple[int, str]]:
    """(0-based line, decoded text) of each run of `text` that decodes to readable text: base64
    (standard or URL-safe), hex, or URL-encoding (three or more ``%XX`` in one token), runs of at
    least `ENCODED_MIN_CHARS` characters. A judge model decodes such runs; the guard reads what
    they say. One linear pass per encoding."""
    found: list[tuple[int, str]] = []
    where = [0, 0]  # offset, newlines before it: counted forward only (each encoding's matches come in order)

    def line_of(pos: int) -> int:
        if pos < where[0]:
            where[0] = where[1] = 0
        where[1] += text.count("\n", where[0], pos)
        where[0] = pos
        return where[1]

    for m in _B64_RUN.finditer(text):
        run = m.group(0)
        if run.isdigit() or run.isalpha() and (run.islower() or run.isupper()):
            continue  # a number, or one word's letters: not base64 a judge would decode
        try:
            raw = base64.b64decode(run.replace("-", "+").replace("_", "/") + "=" * (-len(run) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        decoded = _readable(raw)
        if decoded is not None:
            found.append((line_of(m.start()), decoded))
    for m in _HEX_RUN.finditer(text):
        decoded = _readable(bytes.fromhex(m.group(0)))
        if decoded is not None:
            found.append((line_of(m.start()), decoded))
    if "%" in text:
        for m in _URL_TOKEN.finditer(text):
            token = m.group(0)
            if token.count("%") >= 3 and len(token) >= ENCODED_MIN_CHARS and len(_PCT.findall(token)) >= 3:
                decoded = urllib.parse.unquote_plus(token)
                if decoded != token:
                    found.append((line_of(m.start()), decoded))
    return found


JUNCTION_CHARS = 400
"""Characters of the end of one file and of the start of the next read together (`guard_delivery`):
a request split across two files, read in the order the judge reads them."""

@dataclass(frozen=True)
class TextPiece:
    """One piece of a file's text: its channel, page (or slide), hidden reason, first line."""

    channel: Channel
    text: str
    page: int | None = None
    hidden_reason: str | None = None
    line_offset: int = 0


_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)", re.MULTILINE)
MD_SUFFIXES = frozenset({".md", ".markdown"})


def _fenced_code(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the fenced code blocks of Markdown `text`, in order (an
    unclosed fence runs to the end, as CommonMark renders it)."""
    marks = [m.start() for m in _FENCE.finditer(text)]
    blocks = [(a, b) for a, b in zip(marks[::2], marks[1::2])]
    return blocks + [(marks[-1], len(text))] if len(marks) % 2 else blocks


class _ShownCode:
    """Whether an offset of Markdown text lies in code a reader sees (a fenced block or an
    inline code span), asked at increasing offsets: linear in the text over all questions."""

    def __init__(self, text: str) -> None:
        self.text, self.fences = text, _fenced_code(text)
        self.cursor = self.ticks = 0  # backticks since the last line start before `cursor`

    def skip_to(self, pos: int) -> None:
        """Move past text that is not asked about (a comment: its backticks are not shown)."""
        seg = self.text[self.cursor:pos]
        self.ticks = 0 if "\n" in seg else self.ticks
        self.cursor = max(self.cursor, pos)

    def at(self, pos: int) -> bool:
        """Whether ``text[pos]`` is shown as code."""
        seg = self.text[self.cursor:pos]
        nl = seg.rfind("\n")
        self.ticks = seg.count("`", nl + 1) if nl >= 0 else self.ticks + seg.count("`")
        self.cursor = pos
        i = bisect.bisect_right(self.fences, (pos, len(self.text))) - 1
        return self.ticks % 2 == 1 or (i >= 0 and self.fences[i][0] <= pos < self.fences[i][1])


def _blank_comments(text: str, markdown: bool = False) -> tuple[str, list[tuple[int, str]]]:
    """`text` with HTML comments blanked (newlines kept) and the comments with their line offsets.

    One pass, linear in ``len(text)``: a comment runs from ``<!--`` to the first ``-->`` after
    it; an opener inside a comment opens nothing (HTML comments do not nest); an opener without
    a closer hides the rest of the text, as a browser and a CommonMark renderer hide it. In
    Markdown (`markdown`), an opener inside a fenced code block or an inline code span is shown
    as code, not a comment (a write-up that shows ``<!-- … -->`` in code hides nothing)."""
    comments: list[tuple[int, str]] = []
    parts: list[str] = []
    pos = line = 0  # `line`: newlines in text[:pos]
    code = _ShownCode(text) if markdown and ("`" in text or "~~~" in text) else None
    search = 0
    while True:
        start = text.find("<!--", search)
        if start < 0:
            break
        if code is not None and code.at(start):
            search = start + 4
            continue
        close = text.find("-->", start + 4)
        end = len(text) if close < 0 else close + 3
        line += text.count("\n", pos, start)
        comments.append((line, text[start + 4:close if close >= 0 else len(text)]))
        parts.append(text[pos:start])
        parts.append(_BLANK.sub(" ", text[start:end]))
        line += text.count("\n", start, end)
        pos = search = end
        if code is not None:
            code.skip_to(end)
    parts.append(text[pos:])
    return "".join(parts), comments


MD_COMMENT = re.compile(r"^[ \t]{0,3}\[[^\]\n]{0,40}\]:[ \t]*(?:#|<>|//)[ \t]*[(\"']([^\n]{0,2000})[)\"'][ \t]*$", re.MULTILINE)
"""A Markdown comment by link-reference definition (``[//]: # (…)``, ``[comment]: <> (…)``):
never rendered, read by any model that reads the source."""
_TAG = re.compile(r"<[a-zA-Z][\w-]{0,20}([^<>]{0,800})>")
_HIDING = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden|(?:^|\s)hidden(?=[\s=/]|$)|aria-hidden\s*=\s*[\"']?true|"
                     r"font-size\s*:\s*0(?:\.0*)?(?:px|pt|em|rem)?\s*(?:[;\"']|$)", re.IGNORECASE)


def html_hidden(text: str) -> list[tuple[int, str]]:
    """(0-based line, text) of each HTML element a browser does not show (``display:none``,
    ``visibility:hidden``, the ``hidden`` attribute, ``aria-hidden``, zero font size): the
    text right after its opening tag, up to the next tag (at most 4,000 characters). Linear:
    each tag's attributes are read once (at most 800 characters, never past the next ``<``)."""
    found: list[tuple[int, str]] = []
    line = where = 0
    for m in _TAG.finditer(text):
        if not _HIDING.search(m.group(1)):
            continue
        stop = text.find("<", m.end(), m.end() + 4000)
        inner = text[m.end():stop if stop >= 0 else m.end() + 4000]
        if inner.strip():
            line += text.count("\n", where, m.start())
            where = m.start()
            found.append((line, inner))
    return found


def _md_comments(text: str) -> list[tuple[int, str]]:
    """(0-based line, text) of each Markdown link-reference comment (`MD_COMMENT`)."""
    found: list[tuple[int, str]] = []
    line = where = 0
    for m in MD_COMMENT.finditer(text):
        line += text.count("\n", where, m.start())
        where = m.start()
        found.append((line, m.group(1)))
    return found
CODE_SUFFIXES = frozenset({".py", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".java", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs",
                           ".go", ".rs", ".rb", ".sh", ".bash", ".r", ".jl", ".kt", ".swift", ".php", ".pl", ".lua",
                           ".scala", ".sql", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".css", ".scss"})
_COMMENT_LINE = re.compile(r"^[ \t]*(?:#+|//+|--|;+|/?\*+/?|%)[ \t]?([^\n]*)$|[ \t](?:#|//)[ \t]([^\n]*)$", re.MULTILINE)


def code_comments(text: str) -> list[tuple[int, str]]:
    """(0-based line, text) of each block of comment lines of a code or configuration file,
    comment markers (``#``, ``//``, ``/* * */``, ``--``) removed and consecutive lines joined
    as one paragraph, so a comment reads as the prose it is. One linear pass."""
    blocks: list[tuple[int, str]] = []
    current: list[str] = []
    last_line, first = -2, 0
    line = 0
    where = 0
    for m in _COMMENT_LINE.finditer(text):
        line += text.count("\n", where, m.start())
        where = m.start()
        body = (m.group(1) if m.group(1) is not None else m.group(2) or "").strip().rstrip("*/").strip()
        if line != last_line + 1 and current:
            blocks.append((first, " ".join(current)))
            current = []
        if not current:
            first = line
        if body:
            current.append(body)
        last_line = line
    if current:
        blocks.append((first, " ".join(current)))
    return [b for b in blocks if b[1].strip()]


def _word_runs(xml: str) -> Iterable[str]:
    """The ``<w:r …>…</w:r>`` runs of a WordprocessingML part, in one linear pass (an opener
    without a closer ends the part)."""
    pos = 0
    while (start := xml.find("<w:r", pos)) >= 0:
        if xml[start + 4:start + 5] not in (" ", ">"):
            pos = start + 4  # <w:rPr>, <w:rFonts …>: not a run
            continue
        end = xml.find("</w:r>", start)
        if end < 0:
            return
        yield xml[start:end + 6]
        pos = end + 6


def _ooxml_parts(path: Path, prefix: str, rel: str, unscanned: list[Unscanned]) -> Iterable[str]:
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            if info.filename.startswith(prefix) and info.filename.endswith(".xml"):
                if info.file_size > MAX_PART_BYTES:
                    unscanned.append(Unscanned(file=rel, part=info.filename, offset=0, size=info.file_size,
                                               reason=f"a package part over {MAX_PART_BYTES} bytes is not unpacked"))
                    continue
                yield zf.read(info).decode("utf-8", errors="replace")


def file_texts(rel: str, path: Path, unscanned: list[Unscanned] | None = None,
               reads: StructureReads | None = None) -> list[TextPiece]:
    """The pieces of text the judge may read from one deliverable (see the module docstring);
    what is not read (past `MAX_TEXT_FILE_BYTES`, a part over `MAX_PART_BYTES`) is appended to
    `unscanned`; a deck's structure is read through the run's `reads` (read once per run). A
    binary file (`looks_binary` on its first `BINARY_SNIFF_BYTES`) gives no piece and is not
    listed in `unscanned`, whatever its size: only its head is read (trial 11 F8).

    Raises:
        OSError, ValueError, zipfile.BadZipFile, RuntimeError: the file cannot be read
            (`guard_delivery` counts it and goes on).
    """
    skipped: list[Unscanned] = [] if unscanned is None else unscanned
    suffix = path.suffix.lower()
    if suffix in DECK_SUFFIXES:
        # imported here: its documents module costs ~25 ms of start-up a run without a deck never needs
        from cowork_judge.guard.deck_text import read_deck_text

        deck = read_deck_text(path, reads=reads)
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
            return [TextPiece("deliverable", page.get_text(), page=n) for n, page in enumerate(doc, start=1)]
    if suffix in WORD_SUFFIXES:
        shown: list[str] = []
        hidden: list[str] = []
        for xml in _ooxml_parts(path, "word/", rel, skipped):
            for run in _word_runs(xml):
                text = html.unescape("".join(_WORD_TEXT.findall(run)))
                (hidden if "<w:vanish" in run else shown).append(text)
            shown.append("\n")
        return [TextPiece("deliverable", " ".join(shown)), TextPiece("hidden_text", " ".join(hidden), hidden_reason="vanish")]
    if suffix in SHEET_SUFFIXES:
        cells = [html.unescape(t) for xml in _ooxml_parts(path, "xl/", rel, skipped) for t in _SHEET_TEXT.findall(xml)]
        return [TextPiece("deliverable", "\n".join(cells))]
    with path.open("rb") as fh:
        head = fh.read(BINARY_SNIFF_BYTES)  # binary or text is told from the head, before any budget (trial 11 F8)
        if looks_binary(head):
            return []  # binary: the judge reads no text from it either, and it is no text file past a budget
        data = head[:MAX_TEXT_FILE_BYTES] + fh.read(max(0, MAX_TEXT_FILE_BYTES - len(head)))
        if len(head) > MAX_TEXT_FILE_BYTES or (len(data) == MAX_TEXT_FILE_BYTES and fh.read(1)):
            size = path.stat().st_size
            skipped.append(Unscanned(file=rel, offset=MAX_TEXT_FILE_BYTES, size=size,
                                     reason=f"past the guard's scan budget of {MAX_TEXT_FILE_BYTES} bytes per text file"))
    text = decode(data)
    if suffix in COMMENT_SUFFIXES:
        text, comments = _blank_comments(text, markdown=suffix in MD_SUFFIXES)
        if suffix in MD_SUFFIXES and "]:" in text:
            comments += _md_comments(text)
        unseen = html_hidden(text) if "<" in text else []
        return [TextPiece("deliverable", text),
                *(TextPiece("hidden_text", c, hidden_reason="comment", line_offset=n) for n, c in comments),
                *(TextPiece("hidden_text", c, hidden_reason="html_hidden", line_offset=n) for n, c in unseen)]
    if suffix in CODE_SUFFIXES:
        return [TextPiece("deliverable", text),
                *(TextPiece("deliverable", c, line_offset=n) for n, c in code_comments(text))]
    return [TextPiece("deliverable", text)]


def _name_text(rel: str) -> str:
    return _NAME_SEPARATORS.sub(" ", rel)


def _junction(before: str, after: str, rel: str, topics: TaskTopics | None) -> list[Finding]:
    """Findings of a request split across two files read one after the other: the end of
    `before` and the start of `after` (`JUNCTION_CHARS` each) read as one text, keeping only the
    rules neither part matches alone; attributed to `after` (file `rel`), line 1."""
    tail, head = before[-JUNCTION_CHARS:], after[:JUNCTION_CHARS]
    if not tail.strip() or not head.strip():
        return []
    alone = {f.rule for part in (tail, head) for f in scan_text(part, "deliverable", task=topics) if f.flags}
    joined = scan_text(tail.rstrip("\n") + "\n" + head, "deliverable", task=topics)
    return [f.model_copy(update={"file": rel, "line": 1, "rule": f"{f.rule}/split"}) for f in joined
            if f.flags and f.rule not in alone]


def _within_budget(rel: str, pieces: list[TextPiece], left: int, unscanned: list[Unscanned]) -> tuple[list[TextPiece], int]:
    """`pieces` cut to the `left` characters of the run's scan budget (`MAX_SCAN_CHARS`), each
    cut recorded in `unscanned` (``part``: the piece; ``offset``: its first character not
    scanned); returns the pieces to scan and the budget left after them."""
    kept: list[TextPiece] = []
    for piece in pieces:
        if len(piece.text) > left:
            where = f"{piece.channel}" + (f" page {piece.page}" if piece.page is not None else "") + (
                f" ({piece.hidden_reason})" if piece.hidden_reason else "")
            unscanned.append(Unscanned(file=rel, part=where, offset=left, size=len(piece.text),
                                       reason=f"past the guard's scan budget of {MAX_SCAN_CHARS} characters per run"))
            piece = dataclasses.replace(piece, text=piece.text[:left])
        left -= len(piece.text)
        kept.append(piece)
    return kept, left


def guard_delivery(files: Sequence[tuple[str, Path]], final_message: str | None, *, mode: GuardMode,
                   message_channel: Channel = "final_message", redact: Callable[[str], str] = str,
                   task: str | None = None, reads: StructureReads | None = None) -> GuardReport:
    """Scan everything the agent wrote that the judge reads; the report for the result document.

    Args:
        files: (path relative to the output folder, absolute path) of each deliverable.
        final_message: the agent's final chat message (None: none found).
        mode: ``JUDGE_GUARD``; ``off`` returns an empty, unscanned report.
        message_channel: ``trajectory`` when the message came from the ATIF trajectory.
        redact: applied to every excerpt (secrets the agent printed never reach the document).
        reads: the run's deck reads, which the evidence build reuses (a deck is parsed once per run).
        task: the task prompt the agent was given (None: unknown). A deliverable may quote
            attacks, write grading rules or show verdict-shaped examples without flagging only
            when the task is about that (`discourse`).

    Returns:
        The report: flagging findings first (at most `MAX_FINDINGS` kept), then
        informational ones; ``channels`` counts the characters scanned per channel and
        ``unreadable`` files; ``unscanned`` lists what was not read (past the scan budgets).
    """
    if mode == "off":
        return GuardReport(mode=mode)
    findings: list[Finding] = []
    channels: dict[str, int] = {}
    unscanned: list[Unscanned] = []
    topics = read_task(task)
    left = max(0, MAX_SCAN_CHARS - len(final_message or ""))  # the run's scan budget (`MAX_SCAN_CHARS`)

    def count(channel: str, n: int) -> None:
        channels[channel] = channels.get(channel, 0) + n

    def decoded(text: str, file: str | None, page: int | None, line_offset: int = 0) -> list[Finding]:
        out: list[Finding] = []
        for reason, runs in (("bidi", bidi_runs(text) if "\u202e" in text else []), ("encoded", encoded_texts(text))):
            for line, plain in runs:
                count(reason, len(plain))
                out += scan_text(plain, "hidden_text", file=file, page=page, hidden_reason=reason, line_offset=line_offset + line)
        return out

    if final_message:
        count(message_channel, len(final_message))
        findings += scan_text(final_message, message_channel, task=topics)
        findings += decoded(final_message, None, None)
    mk = master_key_finding(final_message, message_channel) if final_message is not None and not files else None
    findings += [mk] if mk else []
    texts: list[tuple[str, str]] = []  # (file, its text as the judge reads it first), in delivery order
    for rel, path in files:
        count("file_name", len(rel))
        findings += [f.model_copy(update={"file": rel, "line": None}) for f in scan_text(_name_text(rel), "file_name")]
        try:
            pieces = file_texts(rel, path, unscanned, reads)
        except Exception:  # noqa: BLE001 - an unreadable file is counted, never a crash (SPEC §22)
            count("unreadable_files", 1)
            continue
        pieces, left = _within_budget(rel, pieces, left, unscanned)  # the run's budget bounds every pass below
        visible = [p.text for p in pieces if p.hidden_reason is None and p.text.strip()]
        document = Discourse.read(comparable("\n\n".join(visible))) if len(visible) > 1 else None
        for piece in pieces:
            if not piece.text.strip():
                continue
            count(piece.channel, len(piece.text))
            found = scan_text(piece.text, piece.channel, file=rel, page=piece.page, hidden_reason=piece.hidden_reason,
                              line_offset=piece.line_offset, document=document, task=topics)
            findings += found
            findings += decoded(piece.text, rel, piece.page, piece.line_offset)
            if piece.hidden_reason not in (None, "notes", "alt_text", "comment", "encoded") and not found:
                findings.append(Finding(channel=piece.channel, file=rel, page=piece.page, kind="hidden_text",
                                        rule=f"hidden:{piece.hidden_reason}", excerpt=excerpt(piece.text, 0, 0)[:80] or "(blank)",
                                        flags=False))
        if pieces and pieces[0].channel == "deliverable" and pieces[0].hidden_reason is None:
            texts.append((rel, pieces[0].text))
        if len(pieces) == 1 and pieces[0].channel == "deliverable" and 0 < len(pieces[0].text) <= MASTER_KEY_MAX_BYTES:
            mk = master_key_finding(pieces[0].text, "deliverable", file=rel)
            if mk:
                findings.append(mk)
    for (_, before), (rel, after) in zip(texts, texts[1:]):
        findings += _junction(before, after, rel, topics)
    return _report(mode, findings, redact, channels, unscanned)


def _report(mode: GuardMode, findings: list[Finding], redact: Callable[[str], str], channels: dict[str, int],
            unscanned: list[Unscanned]) -> GuardReport:
    """The scan's report: every excerpt redacted, flagging findings first (each group in
    reading order), at most `MAX_FINDINGS` kept and the rest counted."""
    findings = [f.model_copy(update={"excerpt": redact(f.excerpt)}) for f in findings]
    findings.sort(key=lambda f: not f.flags)  # stable: flagging first, each group in reading order
    flagged = any(f.flags for f in findings)
    return GuardReport(mode=mode, scanned=True, flagged=flagged, findings=findings[:MAX_FINDINGS],
                       findings_dropped=max(0, len(findings) - MAX_FINDINGS), channels=channels, unscanned=unscanned)


__all__ = ["TextPiece", "file_texts", "guard_delivery"]
