"""Line-level edits of a TOML document that keep everything else byte for byte.

There is no TOML writer in the standard library, and re-serializing a user's ``task.toml``
would drop its comments and layout. These helpers find table headers and keys with a
small scanner (aware of multi-line strings and arrays) and insert or replace single lines.
Callers re-parse the result with ``tomllib`` and compare it with what they meant to
change (`cowork_judge.install.taskinit` does), so a wrong edit is caught, never written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER = re.compile(r"^\s*\[(?!\[)\s*([^\]]+?)\s*\]\s*(#.*)?$")
_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([^\]]+?)\s*\]\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')\s*=")


class TomlEditError(Exception):
    """The document has a shape these line edits do not handle (the message says which)."""


@dataclass(frozen=True)
class Line:
    """One physical line and what the scanner knows about it.

    Attributes:
        text: the line without its newline.
        table: the dotted name of the table it belongs to ("" = root), or None for a
            line inside a multi-line string or array continuation.
        header: this line is the header of `table` (``[name]``; ``[[name]]`` sets
            `array_table`).
        key: the bare key this line starts, if any.
    """

    text: str
    table: str | None
    header: bool = False
    array_table: bool = False
    key: str | None = None


def table_name(raw: str) -> str:
    """``verifier . "env"`` → ``verifier.env`` (whitespace and simple quotes removed)."""
    return ".".join(part.strip().strip('"').strip("'") for part in raw.split("."))


def scan(text: str) -> list[Line]:
    """Classify every line of `text` (see `Line`)."""
    lines: list[Line] = []
    table = ""
    in_string: str | None = None  # the multi-line string delimiter we are inside
    depth = 0  # open brackets of a multi-line array / inline table value
    for raw in text.split("\n"):
        if in_string is not None or depth > 0:
            lines.append(Line(raw, None))
            in_string, depth = _advance(raw, in_string, depth)
            continue
        m = _ARRAY_HEADER.match(raw)
        if m:
            table = table_name(m.group(1))
            lines.append(Line(raw, table, header=True, array_table=True))
            continue
        m = _HEADER.match(raw)
        if m:
            table = table_name(m.group(1))
            lines.append(Line(raw, table, header=True))
            continue
        k = _KEY.match(raw)
        lines.append(Line(raw, table, key=k.group(1).strip("\"'") if k else None))
        if k:
            in_string, depth = _advance(raw[k.end():], None, 0)
    return lines


def _advance(text: str, in_string: str | None, depth: int) -> tuple[str | None, int]:
    """Carry the multi-line string / bracket state over `text` (a value or a continuation line)."""
    i = 0
    while i < len(text):
        if in_string is not None:
            if text.startswith(in_string, i) and not (in_string == '"""' and _escaped(text, i)):
                i += len(in_string)
                in_string = None
                continue
            i += 1
            continue
        ch = text[i]
        if ch == "#":
            break
        for delim in ('"""', "'''"):
            if text.startswith(delim, i):
                in_string = delim
                i += 3
                break
        else:
            if ch in "\"'":
                end = _string_end(text, i)
                i = end + 1
                continue
            if ch in "[{":
                depth += 1
            elif ch in "]}":
                depth -= 1
            i += 1
    return in_string, max(depth, 0)


def _escaped(text: str, i: int) -> bool:
    n = 0
    while i - 1 - n >= 0 and text[i - 1 - n] == "\\":
        n += 1
    return n % 2 == 1


def _string_end(text: str, start: int) -> int:
    quote = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == quote and (quote == "'" or not _escaped(text, i)):
            return i
        i += 1
    return len(text) - 1


def find_header(lines: list[Line], table: str) -> int | None:
    """Index of the ``[table]`` header line, or None."""
    for i, line in enumerate(lines):
        if line.header and not line.array_table and line.table == table:
            return i
    return None


def section_end(lines: list[Line], header_index: int) -> int:
    """Index just after the last value line of the section that starts at `header_index`
    (trailing blank lines and comments stay with the next section)."""
    last = header_index
    for i in range(header_index + 1, len(lines)):
        if lines[i].header:
            break
        stripped = lines[i].text.strip()
        if lines[i].table is None or (stripped and not stripped.startswith("#")):
            last = i
    return last + 1


def find_key(lines: list[Line], table: str, key: str) -> int | None:
    """Index of the line where `key` of `table` starts, or None."""
    for i, line in enumerate(lines):
        if line.table == table and not line.header and line.key == key:
            return i
    return None


def first_header(lines: list[Line]) -> int:
    """Index of the first table header (len(lines) when there is none)."""
    for i, line in enumerate(lines):
        if line.header:
            return i
    return len(lines)


def replace_value(line: str, value: str) -> str:
    """``key = old  # note`` → ``key = value  # note`` (single-line values only).

    Raises:
        TomlEditError: the old value continues on the next lines.
    """
    m = _KEY.match(line)
    if m is None:
        raise TomlEditError(f"not a key line: {line!r}")
    rest = line[m.end():]
    in_string, depth = _advance(rest, None, 0)
    if in_string is not None or depth:
        raise TomlEditError(f"the value of {m.group(1)} spans several lines; edit it by hand")
    comment = _trailing_comment(rest)
    return f"{line[:m.end()]} {value}" + (f"  {comment}" if comment else "")


def _trailing_comment(rest: str) -> str:
    i = 0
    while i < len(rest):
        ch = rest[i]
        if ch in "\"'":
            if rest.startswith(ch * 3, i):
                end = rest.find(ch * 3, i + 3)
                i = len(rest) if end < 0 else end + 3
                continue
            i = _string_end(rest, i) + 1
            continue
        if ch == "#":
            return rest[i:].rstrip()
        i += 1
    return ""


def strip_comment(line: str) -> str:
    """`line` without its trailing ``# comment`` (strings are respected)."""
    line = line.rstrip()
    comment = _trailing_comment(line)
    return line[: len(line) - len(comment)] if comment else line


def strip_comment_text(line: str) -> str:
    """The trailing ``# comment`` of `line` ("" when it has none; strings are respected)."""
    return _trailing_comment(line.rstrip())


def basic_string(value: str) -> str:
    """A TOML basic string literal of `value`."""
    out = value.replace("\\", "\\\\").replace('"', '\\"')
    out = "".join(c if c >= " " and c != "\x7f" else f"\\u{ord(c):04x}" for c in out)
    return f'"{out}"'


def array_close(lines: list[Line], key_index: int) -> tuple[int, int]:
    """(line index, column) of the ``]`` that closes the array value of the key at `key_index`.

    Raises:
        TomlEditError: the value is not an array.
    """
    first = lines[key_index].text
    m = _KEY.match(first)
    assert m is not None
    col = m.end()
    while col < len(first) and first[col] in " \t":
        col += 1
    if col >= len(first) or first[col] != "[":
        raise TomlEditError(f"{m.group(1)} is not an array")
    depth = 0
    i, j = key_index, col
    while i < len(lines):
        text = lines[i].text
        while j < len(text):
            ch = text[j]
            if ch == "#":
                break
            if ch in "\"'":
                j = _string_end(text, j) + 1
                continue
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    return i, j
            j += 1
        i, j = i + 1, 0
    raise TomlEditError(f"the array {m.group(1)} is not closed")
