"""A task's ``solution/solve.sh`` read as text, never run: the one reader (`read_solve_sh`) and the one parse of the
commands in it that copy files (`copy_commands`: ``cp``/``mv``/``install SRC… DEST``, ``cat SRC… > DEST``).

Two callers read the parse and keep their own policy of which commands count: the dry run (`install.dryrun`: the
reference deliverables and the chat answer solve.sh copies, for the command line ``try`` means on a ``solution/``
folder; trials 28, 29, 36) and lint's A007 (`lint.solve_sources`: a ``/solution/…`` source the folder does not
hold; trial 35 P-6). Neither the parse nor its callers expand anything: a word keeps its ``$VAR``, glob or ``~``.

How a line is read: a line ending in a backslash goes on with the next (a line continuation), except inside a
comment; each logical line is split into words as a POSIX shell would (`shlex` with its punctuation: quotes removed,
the comment dropped — a ``#`` that begins a word outside quotes, so ``a#b`` is one word —, ``>``, ``<``, ``&>``,
``>&`` words of their own) and into commands at ``&&``, ``||``, ``;``,
``;;``, ``|``, ``&``, ``(`` and ``)`` (`SEPARATORS`); a logical line that does not split (an open quote) has no
command.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SCRIPT_NAME = "solve.sh"
"""The name of Harbor's oracle-agent script in a task's ``solution/`` folder."""

COPY_TOOLS = frozenset({"cp", "mv", "install", "cat"})
"""The commands (by the last part of the command word) `copy_commands` reads."""

SEPARATORS = frozenset(";&|()")
"""The characters of the words that end one shell command and start the next (``&&``, ``||``, ``;``, ``;;``,
``|``, ``&``, ``(``, ``)``, and runs of them such as ``);``: `shlex` gives a run of punctuation as one word)."""

_INSTALL_VALUED = frozenset({"-m", "-o", "-g"})
"""``install`` options whose value is the next word (neither a source nor the target)."""

_MARK = "\x1f"
"""Stands where a line continuation joined two lines, so each word knows its line; never a word of its own."""


@dataclass(frozen=True)
class CopyCommand:
    """One command of a solve.sh that copies files, as written (nothing expanded, nothing run).

    Attributes:
        program: the command word as written after a leading ``sudo`` (``cp``, ``/bin/cp``, ``install``, ``cat``).
        sources: what it copies, in order: for ``cp``/``mv``/``install`` every argument before the last (every
            argument when there is only one), for ``cat`` every argument before its first ``>``/``>>`` (``<``
            dropped). Options (``-…``) and ``install``'s ``-m``/``-o``/``-g`` values are not sources.
        target: where to: the last argument of ``cp``/``mv``/``install`` when it has two or more, the word after
            ``cat``'s first ``>``/``>>``; "" when there is none.
        options: the words starting with ``-`` among its arguments (``-t``, ``--target-directory=…``, ``-r``).
        line: the 1-based line of solve.sh its first word is on.
        end_line: the line its last word is on (more than `line` when a line continuation splits it).
        sudo: it was run under a leading ``sudo`` word.

    The arguments end at the first word made of ``<``, ``>`` and ``&`` alone (a redirection; for ``cat``, at its
    first ``>``/``>>``): what follows is no argument. A file-descriptor number before a redirection
    (``2>&1``) is an argument, as the words cannot tell it from one.
    """

    program: str
    sources: tuple[str, ...]
    target: str
    options: tuple[str, ...]
    line: int
    end_line: int
    sudo: bool = False

    @property
    def tool(self) -> str:
        """The command's name without its folder (``/bin/cp`` → ``cp``)."""
        return self.program.rsplit("/", 1)[-1]


def read_solve_sh(folder: Path, *, limit: int) -> str:
    """The first `limit` characters of ``<folder>/solve.sh`` (UTF-8, undecodable bytes replaced); "" when it is
    not a readable regular file. A FIFO or a folder of that name is never opened (a FIFO would block the reader)."""
    path = folder / SCRIPT_NAME
    try:
        if path.is_file():
            with path.open(encoding="utf-8", errors="replace") as handle:
                return handle.read(limit)
    except OSError:
        pass
    return ""


def copy_commands(script: str, *, max_lines: int | None = None) -> list[CopyCommand]:
    """Every copy command (`COPY_TOOLS`) of `script`, a solve.sh's text, in order; a pure parse, nothing run.
    `max_lines`: read at most this many logical lines (lines joined by their continuations); None reads all."""
    found: list[CopyCommand] = []
    for number, (first, pieces) in enumerate(_logical_lines(script)):
        if max_lines is not None and number >= max_lines:
            break
        while pieces:
            commands, eaten = _line_commands(pieces, first)
            found += [command for command in map(_copy_command, commands) if command is not None]
            pieces, first = pieces[len(pieces) - eaten:], first + len(pieces) - eaten
    return found


def _logical_lines(script: str) -> Iterator[tuple[int, list[str]]]:
    """(the 1-based number of its first line, its lines without line ends nor continuation backslashes) of each
    logical line of `script`: a line ending in a backslash and a newline goes on with the next one."""
    pieces: list[str] = []
    start = 1
    for number, raw in enumerate(script.splitlines(keepends=True), start=1):
        if not pieces:
            start = number
        if raw.endswith("\\\n"):
            pieces.append(raw[:-2].replace(_MARK, " "))
            continue
        pieces.append((raw.splitlines() or [""])[0].replace(_MARK, " "))
        yield start, pieces
        pieces = []
    if pieces:
        yield start, pieces


def _line_commands(pieces: list[str], first: int) -> tuple[list[list[tuple[str, int]]], int]:
    """The commands of one logical line (its physical `pieces`, the first on line `first`), each a list of
    (word, its line), and how many pieces from the end its comment (`_comment_start`) swallowed: a backslash at the
    end of a comment continues nothing, so those lines are read again as lines of their own. No command for an open
    quote."""
    text = f" {_MARK} ".join(pieces)
    comment = _comment_start(text)
    lexer = shlex.shlex(text if comment is None else text[:comment], posix=True, punctuation_chars=True)
    lexer.whitespace_split, lexer.commenters = True, ""
    try:
        tokens = list(lexer)
    except ValueError:
        return [], 0
    commands: list[list[tuple[str, int]]] = [[]]
    line = first
    for token in tokens:
        if token == _MARK:
            line += 1
        elif token and set(token) <= SEPARATORS:
            commands.append([])
        else:
            commands[-1].append((token.replace(f" {_MARK} ", " ").replace(_MARK, ""), line))
            line += token.count(_MARK)
    return [words for words in commands if words], first + len(pieces) - 1 - line


def _comment_start(text: str) -> int | None:
    """Where the comment of a shell line `text` starts: the first ``#`` outside quotes and not escaped that begins a
    word (at the start, or after a blank or one of ``;&|()<>``), as a shell reads it; None when it has none
    (``a#b`` is one word, ``"# x"`` a quoted one)."""
    quote, escaped = "", False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t;&|()<>"):
            return index
    return None


def _copy_command(words: list[tuple[str, int]]) -> CopyCommand | None:
    """The `CopyCommand` of one command's (word, line) pairs, or None when it is no copy (`COPY_TOOLS`)."""
    texts = [word for word, _line in words]
    sudo = texts[0] == "sudo"  # one leading sudo word, without options of its own
    if sudo:
        texts = texts[1:]
    tool = texts[0].rsplit("/", 1)[-1] if texts else ""
    if tool not in COPY_TOOLS:
        return None
    program, arguments = texts[0], texts[1:]
    if tool == "cat":
        sources, target, options = _cat_parts(arguments)
    else:
        sources, target, options = _copy_parts(arguments, install=tool == "install")
    return CopyCommand(program, sources, target, options, line=words[0][1], end_line=words[-1][1], sudo=sudo)


def _copy_parts(arguments: list[str], *, install: bool) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """(sources, target, options) of a ``cp``/``mv``/``install`` command's `arguments` (see `CopyCommand`)."""
    cut = next((i for i, word in enumerate(arguments) if set(word) <= set("<>&")), len(arguments))
    options, plain, valued = [], [], False
    for word in arguments[:cut]:
        if word.startswith("-"):
            options.append(word)
            valued = install and word in _INSTALL_VALUED
        elif not valued:
            plain.append(word)
        else:
            valued = False
    if len(plain) < 2:
        return tuple(plain), "", tuple(options)
    return tuple(plain[:-1]), plain[-1], tuple(options)


def _cat_parts(arguments: list[str]) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """(sources, target, options) of a ``cat`` command's `arguments`: the target is the word after its first
    ``>``/``>>`` ("" when there is none); ``<`` is dropped."""
    cut = next((i for i, word in enumerate(arguments) if word in (">", ">>")), len(arguments))
    target = arguments[cut + 1] if cut + 1 < len(arguments) else ""
    before = [word for word in arguments[:cut] if word != "<"]
    return (tuple(word for word in before if not word.startswith("-")), target,
            tuple(word for word in before if word.startswith("-")))


__all__ = ["COPY_TOOLS", "SCRIPT_NAME", "SEPARATORS", "CopyCommand", "copy_commands", "read_solve_sh"]
