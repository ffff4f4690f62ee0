"""Control characters in a code method's text parameters (trial 31 P-5).

A hand-written rubric.json row with ``"pattern": "\\bword\\b"`` meant as a regex word boundary holds U+0008
(BACKSPACE): JSON reads ``\\b`` as a backspace (and ``\\f`` as a form feed). The pattern then never matches, so a
positive row is always lost and a hurdle can never fire, while lint and the run stayed silent. A C0 control
character other than tab, newline and carriage return (U+0000–U+001F, and U+007F) in a pattern or a searched text
is a rubric mistake on every rollout; the value checks (`code_methods.VALUE_CHECKS`) refuse it with
`control_char_errors`, so `lint-rubric` says M002 and the run leaves the row unjudged ``code_params``."""

from __future__ import annotations

import json

_NAMES = {0x00: "NUL", 0x07: "bell", 0x08: "backspace", 0x0B: "vertical tab", 0x0C: "form feed", 0x1B: "escape",
          0x7F: "delete"}
_JSON_ESCAPES = {"\b": "\\b", "\f": "\\f"}
"""A control character JSON writes as a backslash escape → that escape as written (the regex escape meant)."""


def _is_control(ch: str) -> bool:
    return (ord(ch) < 0x20 and ch not in "\t\n\r") or ch == "\x7f"


def control_char_errors(name: str, value: object, *, regex: bool) -> list[str]:
    """One refusal (a list of 0 or 1 line) when string `value` of parameter `name` holds a C0 control
    character other than ``\\t``, ``\\n``, ``\\r`` (U+0000–U+001F, U+007F); ``[]`` for a clean string or a
    non-string. The line names the character as ``U+XXXX`` (never raw: it is invisible on a terminal), its
    1-based position, the value as a Python repr, and the fix: for a `regex` parameter, the JSON spelling of
    the escape meant (``"\\\\bword\\\\b"``); otherwise, to remove it."""
    if not isinstance(value, str):
        return []
    index = next((i for i, ch in enumerate(value) if _is_control(ch)), None)
    if index is None:
        return []
    ch = value[index]
    label = f"U+{ord(ch):04X} ({_NAMES.get(ord(ch), 'a control character')})"
    head = f"parameter {name!r} holds the control character {label} at character {index + 1} of {value!r:.80}"
    if ch in _JSON_ESCAPES and regex:
        fixed = value
        for raw, written in _JSON_ESCAPES.items():
            fixed = fixed.replace(raw, written)
        return [f"{head}: in JSON, {_JSON_ESCAPES[ch]} inside a string is a {_NAMES[ord(ch)]} character, not the regex "
                f"escape {_JSON_ESCAPES[ch]}; double the backslash (in JSON, a word boundary is written \\\\b, a digit "
                f"\\\\d, a space \\\\s): {json.dumps(fixed, ensure_ascii=False):.100}"]
    if ch in _JSON_ESCAPES:
        return [f"{head}: in JSON, {_JSON_ESCAPES[ch]} inside a string is a {_NAMES[ord(ch)]}, which no text to "
                "search holds; remove it (a literal backslash is written \\\\ in JSON)"]
    return [f"{head}: no text to search holds it, so the row decides the same way on every rollout; remove it "
            "(a literal backslash is written \\\\ in JSON)"]


__all__ = ["control_char_errors"]
