"""A JSON parse error said so that an author finds the mistake: Python's ``json`` names where it stopped, which for
the commonest hand-edit slip, a trailing comma after the last row (``},`` then ``]}``), is the line after the comma
(trial 42 P-4: ``Expecting value: line 9 column 1``). Read by every reader of ``rubric.json`` (the run's
`core.rubric.load_rubric`, init's `install.extras`, lint's R002). Pure."""

from __future__ import annotations

import json


def json_error_said(exc: ValueError, text: str) -> str:
    """``str(exc)``, followed by ``"; a trailing comma at line L column C? (JSON allows no comma after the last item
    of a list or object)"`` when `exc` is a `json.JSONDecodeError` that stopped at a ``]`` or ``}`` of `text` (the
    document parsed) right after a comma (only whitespace between). Lines and columns count from 1, as ``json``'s."""
    said = str(exc)
    if not isinstance(exc, json.JSONDecodeError) or text[exc.pos:exc.pos + 1] not in ("]", "}"):
        return said
    before = text[:exc.pos].rstrip()
    if not before.endswith(","):
        return said
    comma = len(before) - 1
    line = before.count("\n") + 1
    column = comma - (before.rfind("\n") + 1) + 1
    return f"{said}; a trailing comma at line {line} column {column}? (JSON allows no comma after the last item of a list or object)"


__all__ = ["json_error_said"]
