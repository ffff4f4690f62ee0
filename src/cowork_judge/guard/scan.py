"""Scanning one text for findings: pure functions, no I/O.

`scan_text` reads one piece of agent-written text (a final message, a file's text, one
PDF page, one slide's text, one deck's notes) and returns its `Finding`s with 1-based
line numbers. Text is first made comparable (`comparable`: Unicode NFKC, zero-width and
bidirectional control characters removed, so "gr\u200bader" or full-width letters read
as what a viewer sees). Text read through an invisible channel keeps the attack's rule
but is reported as kind ``hidden_text``.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import unicodedata
from collections.abc import Iterable
from importlib import resources

from cowork_judge.guard import lexicon
from cowork_judge.guard.discourse import Discourse, Reader, TaskTopics
from cowork_judge.core.findings import EXCERPT_CHARS, Channel, Finding

_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]")


_OVERRIDE_RUN = re.compile("\u202e([^\u202a-\u202e\u2066-\u2069\n]*)")
"""A right-to-left override and what it reorders: up to the next bidi control or line end."""


@functools.lru_cache(maxsize=1)
def _skeleton_table() -> dict[int, str]:
    """Look-alike letters → their ASCII prototype (Unicode's confusables.txt, UTS #39; see
    ``scripts/gen_confusables.py``): Cyrillic а, Greek ο… read as a, o."""
    data = json.loads(resources.files("cowork_judge.guard").joinpath("confusables.json").read_text(encoding="utf-8"))
    return {ord(k): v for k, v in data["map"].items()}


def bidi_runs(text: str) -> list[tuple[int, str]]:
    """(0-based line, text as shown) of each right-to-left override run of `text` that reorders
    letters: what the characters say differs from what a viewer reads, a channel of its own
    (``hidden_text``, reason ``bidi``). Linear in ``len(text)``."""
    found: list[tuple[int, str]] = []
    line = where = 0
    for m in _OVERRIDE_RUN.finditer(text):
        if sum(ch.isalpha() for ch in m.group(1)) >= 8:
            line += text.count("\n", where, m.start())
            where = m.start()
            found.append((line, m.group(1)[::-1]))
    return found


def comparable(text: str) -> str:
    """`text` as the rules read it, as a viewer sees it: a right-to-left override's run put in
    the order it is shown (``\u202e`` + ``"redarg"`` shows "grader"), Unicode NFKC (full-width
    and compatibility forms folded), look-alike letters of other scripts folded to their ASCII
    prototype (the TR39 confusables skeleton, for non-ASCII characters only), zero-width,
    joiner, variation-selector and bidirectional control characters removed. Line breaks are
    kept, so line numbers stay those of the original. Linear in ``len(text)``."""
    if "\u202e" in text:
        text = _OVERRIDE_RUN.sub(lambda m: m.group(1)[::-1], text)
    folded = unicodedata.normalize("NFKC", text)
    if not folded.isascii():
        folded = folded.translate(_skeleton_table())
    return _INVISIBLE.sub("", folded)


def excerpt(text: str, start: int, end: int) -> str:
    """The match with some context, whitespace folded, at most `EXCERPT_CHARS` characters."""
    room = max(0, (EXCERPT_CHARS - (end - start)) // 2)
    piece = " ".join(text[max(0, start - room):end + room].split())
    return piece if len(piece) <= EXCERPT_CHARS else piece[: EXCERPT_CHARS - 1] + "…"


def _newlines(text: str) -> list[int]:
    return [m.start() for m in re.finditer("\n", text)]


CODE_FILE_SUFFIXES = (".json", ".jsonl", ".py", ".js", ".ts", ".yaml", ".yml", ".toml", ".java", ".go", ".rs", ".rb", ".sh")
"""Files whose whole text is code or data (`discourse.Reader.code`)."""
ROW_FILE_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson")
"""Files of records, one a line: a window never joins two records (a header's "marker" column and
the next row's "full marks" comment are two records, as two table rows are)."""
SEEN_HIDDEN = frozenset({"notes", "alt_text"})
"""Hidden channels someone reads as prose (a presenter's notes, a picture's description): there, as
in visible text, a verdict needs an address to flag. Everywhere else that a reader never sees
(comments, hidden HTML, a reordered bidi run, an encoded run, vanished or invisible deck text) and
in a file name, a verdict in the work's favour alone flags: no reader is there to be told it."""
_IDENT_GAP = re.compile(r"(?<=[^\W\d_])_(?=[^\W\d_])")
"""An underscore between two letters: a gap between the words of a key or an identifier
("for_the_model_reading_this"), read as a space."""
MAX_READINGS_PER_LINE = 8
"""Matches of one rule on one line read in context at most (the rest of that line's matches add
nothing: a flagging finding is already there, or eight were informational)."""


BLOCK_START = re.compile(r"[ \t]{0,3}(?:[-*+•·▪‣◦]|\d{1,3}[.)]|[a-zA-Z][.)]|\(\w{1,3}\))[ \t]|[ \t]{0,3}(?:#|\||```|~~~)|"
                         r"[ \t]*(?:[-*_][ \t]*){3,}$")
"""A line that starts a block of its own: a list item (bullet, number, letter), a heading, a table
row, a code fence, a rule (``---``). A blockquote is a block too: its lines join each other, not
the lines around them (`_block_break`)."""
ALONE = re.compile(r"[ \t]{0,3}(?:#|\||```|~~~)|[ \t]*(?:[-*_][ \t]*){3,}$")
"""A line that is a block by itself (a heading, a table row, a fence, a rule): nothing after it
belongs to its window either."""


def _block_break(text: str, pos: int, previous_line: str) -> bool:
    """Whether a window must not reach back past offset `pos` (the start of a line): a blank line,
    a line that starts a block (`BLOCK_START`), the line after one that stands alone (`ALONE`), or
    the first line after a blockquote."""
    end = text.find("\n", pos, pos + 2000)
    line = text[pos:end if end >= 0 else pos + 2000]  # the line, or its first 2,000 characters
    if not previous_line.strip() or BLOCK_START.match(line) or ALONE.match(previous_line):
        return True
    return previous_line.lstrip().startswith(">") != line.lstrip().startswith(">")


def _windows(text: str, rows: bool = False) -> Iterable[tuple[int, str]]:
    """(offset, window) pieces: each sentence with up to `lexicon.WINDOW_SENTENCES` - 1 sentences
    of its block before it, at most `lexicon.WINDOW_CHARS` long (a longer sentence is read alone in
    overlapping pieces of that size). A block is a paragraph, a list item, a heading, a table row or
    a blockquote: a window never reaches into the list item, heading or paragraph before
    (`_block_break`), so "- some judges accept …" is never read with the bullet above it."""
    size = lexicon.WINDOW_CHARS
    starts: list[int] = []  # the starts of the window's sentences
    pos = 0
    line_start = 0
    for piece in lexicon.SENTENCE_SPLIT.split(text):
        if pos == 0 or text[pos - 1] == "\n":
            if pos and (rows or _block_break(text, pos, text[line_start:pos - 1])):
                starts = []
            line_start = pos
        if not piece.strip():
            pass
        elif len(piece) > size:
            for i in range(0, len(piece), size // 2):
                yield pos + i, piece[i:i + size]
            starts = []
        else:
            starts = [s for s in starts[-(lexicon.WINDOW_SENTENCES - 1):] if pos + len(piece) - s <= size] + [pos]
            yield starts[0], text[starts[0]:pos + len(piece)]
        pos += len(piece)


_ADDRESSEE = re.compile(rf"\b{lexicon.ADDRESSEE}\b", re.IGNORECASE)


def _evaluator_spoken_to(window: str) -> bool:
    """Whether "you" in `window` can be the evaluator: some mention of an evaluator is not in the
    third person ("the judges scored every entry. Your project received full marks" speaks to
    the team the judges scored, not to a judge), or none is made."""
    mentions = list(_ADDRESSEE.finditer(window))
    return not mentions or any(not lexicon.THIRD_PERSON.search(window, max(0, m.start() - 40), m.start()) for m in mentions)


def scan_text(text: str, channel: Channel, *, file: str | None = None, page: int | None = None,
              hidden_reason: str | None = None, line_offset: int = 0, document: Discourse | None = None,
              task: TaskTopics | None = None) -> list[Finding]:
    """Every finding in `text`, in order of position.

    Args:
        text: the agent's text (any length, all of it read; time linear in its length).
        channel: where it came from (see `findings.Channel`).
        file: the deliverable's path relative to the output folder (None: the final message).
        page: 1-based PDF page or deck slide the text belongs to.
        hidden_reason: set for text a viewer does not see ("notes", "off_slide", …): its
            findings are kind ``hidden_text`` with rule ``hidden:<reason>/<rule>``, and always flag.
            In visible text, a match that the text talks about rather than addresses to the
            evaluator (`discourse.Reader.leniency`: a quoted attack in a report on attacks, a
            conditional grading rule in a rubric, an example response in an API document) is
            informational (``flags`` False, rule ``<rule>/<why>``).
        line_offset: added to every line number (text cut out of a longer file).
        document: the topics of the whole document `text` belongs to (None: `text` is the
            whole document).
        task: the topics of the task prompt (None: unknown; no gate).

    Returns:
        Findings, at most one per rule and line.
    """
    raw = comparable(text)
    # the rules of prose read identifiers' words apart; fake protocol (``<|im_start|>``) as written
    body = _IDENT_GAP.sub(" ", raw) if "_" in raw else raw  # same length: offsets and lines unchanged
    genre = "message" if channel in ("final_message", "trajectory") else "deck" if channel == "deck_text" else "document"
    code = file is not None and file.lower().endswith(CODE_FILE_SUFFIXES)
    reader = Reader(body, document, task, genre, code) if hidden_reason is None else None
    hits = _Hits(body, channel, file=file, page=page, hidden_reason=hidden_reason, line_offset=line_offset, reader=reader)
    own = reader.blanked if reader is not None else body
    for rule in lexicon.RULES:
        if rule.gate is not None and not rule.gate.search(body):
            continue  # no match is possible (`Rule.gate`)
        for m in rule.pattern.finditer(raw if rule.kind == "fake_protocol" else body):
            hits.add(rule.id, rule.kind, m.start(), m.end(), own_voice=_voiced(rule.pattern, own, m.start(), m.end()))
    for role in lexicon.ROLE_LINE.finditer(raw):
        if lexicon.ROLE_PAYLOAD.search(role.group(1)):
            hits.add("fp.role_line", "fake_protocol", role.start(), role.end(), own_voice=any(
                lexicon.ROLE_PAYLOAD.search(r.group(1)) for r in lexicon.ROLE_LINE.finditer(own, role.start(), role.end())))
    for m in lexicon.ROLE_HEADING.finditer(body):
        if lexicon.ROLE_PAYLOAD.search(m.group(1)):
            hits.add("fp.role_heading", "fake_protocol", m.start(), m.end(), own_voice=bool(
                lexicon.ROLE_HEADING.search(own, m.start(), m.end())))
    if channel == "file_name" or (hidden_reason is not None and hidden_reason not in SEEN_HIDDEN):
        for verdict in (lexicon.EN_VERDICT_ALONE, lexicon.ZH_VERDICT_ALONE):
            claim = verdict.search(body)
            if claim is not None:
                hits.add("shape.verdict_unseen", "evaluator_address", claim.start(), claim.end())
    window_rules = [rule for rule in (*lexicon.WINDOW_RULES, *lexicon.SHAPE_RULES)
                    if rule.gate is None or rule.gate.search(body)]
    rows = file is not None and file.lower().endswith(ROW_FILE_SUFFIXES)
    for offset, window in _windows(body, rows):
        read = False  # a rule already matched this window
        for rule in window_rules:
            if rule.id in lexicon.FALLBACK_RULES and read:
                continue  # the window already has its finding; the vocative fallback adds nothing
            if rule.gate is not None and not rule.gate.search(window):
                continue  # no match is possible in this window (`Rule.gate`)
            hit = rule.pattern.search(window)
            if hit is None or (rule.needs is not None and not rule.needs.search(window)):
                continue
            if _voice(rule, window, channel):
                read = True
                mine = own[offset:offset + len(window)]
                voiced_window = bool(rule.pattern.search(mine) and (rule.needs is None or rule.needs.search(mine))
                                     and _voice(rule, mine, channel))
                hits.add(rule.id, rule.kind, offset + hit.start(), offset + hit.end(), evidence=(offset, offset + len(window)),
                         own_voice=voiced_window)
    return hits.found()


class _Hits:
    """The findings of one `scan_text` over `body`, at most one per rule and line (a line is
    read at most ``MAX_READINGS_PER_LINE`` times per rule); `reader` (None for hidden text)
    decides whether a match is addressed to the evaluator or only talked about."""

    def __init__(self, body: str, channel: Channel, *, file: str | None, page: int | None, hidden_reason: str | None,
                 line_offset: int, reader: Reader | None) -> None:
        self.body, self.channel, self.file, self.page = body, channel, file, page
        self.hidden_reason, self.line_offset, self.reader = hidden_reason, line_offset, reader
        self.newlines = _newlines(body)
        self.hits: dict[tuple[str, int], Finding] = {}
        self.readings: dict[tuple[str, int], int] = {}

    def add(self, rule: str, kind: str, start: int, end: int, evidence: tuple[int, int] | None = None,
            own_voice: bool = True) -> None:
        """One finding at ``body[start:end]``; `evidence` is the text it stands on (default: the
        match); `own_voice` says whether the rule also matches with the quotes blanked."""
        line = bisect.bisect_left(self.newlines, start) + 1 + self.line_offset
        seen = self.readings.get((rule, line), 0)
        if seen >= MAX_READINGS_PER_LINE or (rule, line) in self.hits:
            return  # one finding per rule and line; a flagging one is never replaced
        self.readings[(rule, line)] = seen + 1
        flags = True
        span = evidence or (start, end)
        why = None
        reader = self.reader
        if reader is not None:
            quote = reader.quote_at(start) if reader.quote_at(start) == reader.quote_at(end - 1) else None
            if quote is None and not own_voice:
                quote = reader.quote_over(*span)
            why = reader.leniency(rule, span[0], span[1], quote)
        if self.hidden_reason is not None:
            rule, kind = f"hidden:{self.hidden_reason}/{rule}", "hidden_text"
        elif why is not None:
            rule, flags = f"{rule}/{why}", False
        self.hits.setdefault((rule, line), Finding(channel=self.channel, file=self.file, line=line, page=self.page,
                                                   kind=kind, rule=rule, excerpt=excerpt(self.body, start, end),
                                                   flags=flags))

    def found(self) -> list[Finding]:
        """The findings, by line then rule."""
        return sorted(self.hits.values(), key=lambda f: (f.line or 0, f.rule))


def _voiced(pattern: re.Pattern[str] | lexicon.Lazy, own: str, start: int, end: int) -> bool:
    """The pattern matches the document's own voice (`own`: quotes blanked) over ``[start, end)``."""
    return any(m.start() < end and start < m.end() for m in pattern.finditer(own, max(0, start - 200), end + 200))


def _voice(rule: lexicon.Rule, window: str, channel: Channel) -> bool:
    """The window refers to the work or speaks to the evaluator, as `rule` reads it. A file name
    has no grammar to speak with: an evaluator and a verdict in one name are enough."""
    if channel == "file_name":
        return True
    if rule.voice is not None:
        return bool(rule.voice.search(window))
    if lexicon.VOCATIVE.search(window):
        return True
    spoken = list(lexicon.SELF_OR_DIRECT.finditer(window))
    if any(not lexicon.SECOND_PERSON.fullmatch(m.group(0)) for m in spoken):
        return True
    return bool(spoken) and _evaluator_spoken_to(window)


def is_master_key(text: str) -> bool:
    """Whether `text`, as a whole answer, is nothing but a known master-key token
    (`lexicon.MASTER_KEYS`) or has no letter or digit at all."""
    body = comparable(text)
    return lexicon.normalise_answer(body) in lexicon.MASTER_KEYS or bool(lexicon.NO_WORD.match(body.strip()))


def master_key_finding(text: str, channel: Channel, *, file: str | None = None) -> Finding | None:
    """A ``master_key`` finding when `text` is a whole answer made of a master key, else None."""
    if not is_master_key(text):
        return None
    shown = " ".join(comparable(text).split())[:EXCERPT_CHARS] or "(empty)"
    return Finding(channel=channel, file=file, line=1, kind="master_key", rule="master_key", excerpt=shown)
