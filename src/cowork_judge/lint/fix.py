"""``--fix-closure``: rewrite each ``depends_on`` to its transitive closure, and nothing else.

The file is edited as text: a small position-tracking JSON reader finds each row's
``depends_on`` value, the missing ids are appended after the last listed one using the
array's own separator (so one-line and one-id-per-line arrays keep their look), and every
other byte is left alone. The result is re-read and checked (closed, and equal to the
original apart from the added ids) before it replaces the file atomically. Idempotent: a
closed rubric is not rewritten.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge.core.rubric import LIST_KEYS, RESERVED_TOP_KEYS
from cowork_judge._util.fsutil import atomic_write
from cowork_judge.lint import deps
from cowork_judge.lint.document import build
from cowork_judge.lint.reading import NotJson, Unreadable, read_json

MAX_DEPTH = 200
"""Nesting the span reader follows; rubrics nest 4–6 levels."""
_WS = " \t\n\r"


class FixRefused(Exception):
    """The closure cannot be written safely; ``str(exc)`` says why (nothing was changed)."""


@dataclass
class Node:
    """A JSON value with its [start, end) offsets in the text."""

    start: int
    end: int
    kind: str  # "object" | "array" | "scalar"
    value: Any = None
    members: list[tuple[str, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)


_DECODER = json.JSONDecoder(parse_constant=float)


def read_spans(text: str) -> Node:
    """Parse `text` into `Node`s with offsets.

    Raises:
        FixRefused: not JSON, or nested deeper than `MAX_DEPTH`.
    """
    node, end = _value(text, _skip(text, 0), 0)
    if _skip(text, end) != len(text):
        raise FixRefused(f"extra data at offset {_skip(text, end)}")
    return node


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _value(text: str, i: int, depth: int) -> tuple[Node, int]:
    if depth > MAX_DEPTH:
        raise FixRefused("nested too deeply")
    if i >= len(text):
        raise FixRefused("unexpected end of the file")
    if text[i] == "{":
        node = Node(start=i, end=i, kind="object")
        i = _skip(text, i + 1)
        if text[i:i + 1] == "}":
            node.end = i + 1
            return node, i + 1
        while True:
            key, i = _scalar(text, i)
            if not isinstance(key, str):
                raise FixRefused(f"object key expected at offset {i}")
            i = _skip(text, i)
            if text[i:i + 1] != ":":
                raise FixRefused(f"':' expected at offset {i}")
            child, i = _value(text, _skip(text, i + 1), depth + 1)
            node.members.append((key, child))
            i = _skip(text, i)
            if text[i:i + 1] == ",":
                i = _skip(text, i + 1)
                continue
            if text[i:i + 1] == "}":
                node.end = i + 1
                return node, i + 1
            raise FixRefused(f"',' or '}}' expected at offset {i}")
    if text[i] == "[":
        node = Node(start=i, end=i, kind="array")
        i = _skip(text, i + 1)
        if text[i:i + 1] == "]":
            node.end = i + 1
            return node, i + 1
        while True:
            child, i = _value(text, i, depth + 1)
            node.items.append(child)
            i = _skip(text, i)
            if text[i:i + 1] == ",":
                i = _skip(text, i + 1)
                continue
            if text[i:i + 1] == "]":
                node.end = i + 1
                return node, i + 1
            raise FixRefused(f"',' or ']' expected at offset {i}")
    value, end = _scalar(text, i)
    return Node(start=i, end=end, kind="scalar", value=value), end


def _scalar(text: str, i: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, i)
    except json.JSONDecodeError as exc:
        raise FixRefused(f"not JSON: {exc}") from None


def _member(node: Node, key: str) -> Node | None:
    """The LAST member named `key` (json.loads keeps the last duplicate)."""
    found = None
    for name, child in node.members:
        if name == key:
            found = child
    return found


def row_nodes(root: Node) -> list[Node]:
    """Row nodes in the engine's order (the same shape rules as `document.raw_rows`)."""
    if root.kind == "array":
        return root.items
    if root.kind != "object":
        return []
    for key in LIST_KEYS:
        found = _member(root, key)
        if found is not None and found.kind == "array":
            return found.items
    last: dict[str, Node] = {}
    for name, child in root.members:
        if name not in RESERVED_TOP_KEYS:
            last.pop(name, None)
            last[name] = child
    return list(last.values())


@dataclass
class FixResult:
    """What `fix_closure` did: the new text, the diff, and the rows it completed."""

    text: str
    new_text: str
    rows: dict[str, list[str]]

    @property
    def changed(self) -> bool:
        """True when the closure added at least one id."""
        return self.new_text != self.text

    def diff(self, name: str) -> str:
        """Unified diff of the rewrite (empty when unchanged)."""
        return "".join(difflib.unified_diff(self.text.splitlines(keepends=True), self.new_text.splitlines(keepends=True),
                                            fromfile=f"a/{name}", tofile=f"b/{name}"))


def fix_closure(path: Path) -> FixResult:
    """Compute the closed text of the rubric at `path` (the file is not written).

    Raises:
        FixRefused: unreadable, not JSON, duplicate ids, dangling ids or cycles (fix those
            first: their closure is not well defined), or a self-check failure.
    """
    try:
        raw, text, _ = read_json(path)  # a byte-order mark is not written back
    except (Unreadable, NotJson) as exc:
        raise FixRefused(f"{path}: {exc}") from None
    doc = build(raw, str(path))
    ids = [deps.node_id(r) for r in doc.rows if isinstance(r.raw, Mapping)]
    if len(ids) != len(set(ids)):
        raise FixRefused("duplicate row ids: the closure is ambiguous (fix R004 first)")
    graph = deps.graph(doc)
    dangling = sorted({d for ds in graph.values() for d in ds if d not in graph})
    if dangling:
        raise FixRefused(f"depends_on names no row: {', '.join(map(repr, dangling[:10]))} (fix D001 first)")
    if deps.cycles(graph) or any(node in ds for node, ds in graph.items()):
        raise FixRefused("depends_on has a cycle (fix D002 first)")
    try:
        missing = deps.missing_closure(graph)
    except deps.ClosureTooLarge as exc:
        raise FixRefused(str(exc)) from None
    if not missing:
        return FixResult(text=text, new_text=text, rows={})
    nodes = row_nodes(read_spans(text))
    if len(nodes) != len(doc.rows):
        raise FixRefused("the rows found by position do not match the rows decoded")
    edits: list[tuple[int, int, str]] = []
    added: dict[str, list[str]] = {}
    for row, node in zip(doc.rows, nodes):
        node_id = deps.node_id(row)
        if node_id not in missing or node.kind != "object":
            continue
        value = _member(node, "depends_on")
        if value is None:
            raise FixRefused(f"row {row.label!r}: no depends_on found in the text")
        new_ids = [m for m, _ in missing[node_id]]
        added[row.label] = new_ids
        edits.append(_edit(text, value, new_ids, _member_separator(text, node)))
    new_text = text
    for start, end, replacement in sorted(edits, reverse=True):
        new_text = new_text[:start] + replacement + new_text[end:]
    _verify(raw, new_text, added, doc)
    return FixResult(text=text, new_text=new_text, rows=added)


def _member_separator(text: str, node: Node) -> str:
    """The row object's own one-line separator between members (``", "`` or ``","``)."""
    for (_, first), (_, second) in zip(node.members, node.members[1:]):
        between = text[first.end:second.start]
        m = re.match(r"\s*,[ \t]*", between)
        if m and "\n" not in m.group(0):
            return m.group(0).lstrip()
    return ", "


def _edit(text: str, value: Node, new_ids: list[str], inline_sep: str) -> tuple[int, int, str]:
    """(start, end, replacement) that appends `new_ids` to one depends_on value, in the
    array's own style: its separator when it has two items, its line layout when it is
    written one id per line, else the row's separator."""
    tokens = [json.dumps(i, ensure_ascii=False) for i in new_ids]
    if value.kind != "array":  # a single id written as a scalar
        return value.start, value.end, "[" + inline_sep.join([text[value.start:value.end], *tokens]) + "]"
    if not value.items:
        return value.start, value.end, "[" + inline_sep.join(tokens) + "]"
    last = value.items[-1]
    if len(value.items) >= 2:
        sep = text[value.items[-2].end:last.start]
    else:
        inner = text[value.start + 1:last.start]
        sep = "," + inner if "\n" in inner else inline_sep
    return last.end, last.end, "".join(sep + t for t in tokens)


def _verify(raw: Any, new_text: str, added: dict[str, list[str]], old_doc: Any) -> None:
    try:
        new_raw = json.loads(new_text, parse_constant=float)
    except ValueError as exc:
        raise FixRefused(f"self-check failed, the rewrite is not JSON: {exc}") from None
    new_doc = build(new_raw, "")
    if deps.missing_closure(deps.graph(new_doc)):
        raise FixRefused("self-check failed: the rewrite is still not closed")
    for old, new in zip(old_doc.rows, new_doc.rows):
        if not isinstance(old.raw, Mapping) or not isinstance(new.raw, Mapping):
            continue
        if _canonical(old.raw) != _canonical(new.raw):
            raise FixRefused(f"self-check failed: row {old.label!r} changed beyond depends_on")
        if old.label in added and deps.dependencies(new) != deps.dependencies(old) + added[old.label]:
            raise FixRefused(f"self-check failed: row {old.label!r} depends_on is not the expected closure")
    if len(old_doc.rows) != len(new_doc.rows):
        raise FixRefused("self-check failed: the number of rows changed")


def _canonical(row: Mapping[str, Any]) -> str:
    """The row without depends_on, as comparable text (NaN equals NaN here)."""
    return json.dumps({k: v for k, v in row.items() if k != "depends_on"}, sort_keys=True, default=str)


def write_atomically(path: Path, text: str) -> None:
    """Replace the file (through a symlink: its target) with `text`, keeping its mode.

    Raises:
        OSError: the directory is not writable.
    """
    target = path.resolve()
    mode = target.stat().st_mode & 0o7777
    atomic_write(target, text, mode=mode)


__all__ = ["FixRefused", "FixResult", "Node", "fix_closure", "read_spans", "row_nodes", "write_atomically"]
