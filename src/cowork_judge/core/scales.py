"""Scales: binary and gradient rows own their levels, their prompt sentence and their schema.

Prompt text (`hit_means`), the structured-output schema fragment and level snapping are
derived here from the same facts so that they cannot drift apart (house style item 8).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

DECIMAL_RE = re.compile(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*\Z")
"""A plain decimal number, whole string, surrounding spaces allowed (no ``_`` separators, no
``nan``/``inf``, which ``float()`` would accept): the one number syntax of rubric level keys,
verdict levels and the lint's numeric checks."""


def parse_level_key(key: object) -> float:
    """Parse a `levels` key (``"0.75"``, ``"1"``) into a fraction of the weight.

    Returns:
        A finite float in [0, 1].

    Raises:
        ValueError: the key is not a number or lies outside [0, 1].
    """
    if isinstance(key, bool) or not isinstance(key, (str, int, float)):
        raise ValueError(f"level key {key!r} is not a number")
    if isinstance(key, str) and not DECIMAL_RE.match(key):
        raise ValueError(f"level key {key!r} is not a number")
    try:
        value = float(key)
    except OverflowError:  # an integer too large for a float is far outside [0, 1]
        raise ValueError(f"level key {str(key)[:40]!r} is outside [0, 1]") from None
    if not math.isfinite(value) or value < 0.0 or value > 1.0:
        raise ValueError(f"level key {key!r} is outside [0, 1]")
    return value


TIE_TOLERANCE = 1e-9
"""Distances closer than this count as a tie when snapping (levels are decimals in [0, 1];
binary floats put a decimal midpoint up to ~1e-16 nearer one side)."""


def snap_level(value: float, choices: Sequence[float]) -> float:
    """Snap a returned level to the nearest legal level; ties go to the LOWER level.

    Snapping an already legal level returns it unchanged, so snapping twice is the
    identity (SPEC §4). `choices` must be non-empty and sorted ascending.

    Args:
        value: the level the judge returned, a finite float (any range).
        choices: the row's legal levels, ascending, each in [0, 1].

    Returns:
        One element of `choices`.
    """
    best = choices[0]
    best_dist = abs(value - best)
    for choice in choices[1:]:
        dist = abs(value - choice)
        # Strictly closer by more than float noise: on a tie (0.8 between 0.6 and 1.0 is
        # 0.2000000000000001 vs 0.19999999999999996 in binary) the lower level stays.
        if dist < best_dist - TIE_TOLERANCE:
            best, best_dist = choice, dist
    return best


def passes(level: float, pass_level: float | None) -> bool:
    """Whether a graded row's (snapped) `level` counts as hit (met).

    Args:
        level: a level in [0, 1].
        pass_level: the row's pass bar on the same scale (`Criterion.pass_level`), or None.

    Returns:
        ``level ≥ pass_level`` (within `TIE_TOLERANCE`); without a pass bar, ``level > 0``.
    """
    if pass_level is None:
        return level > 0
    return level >= pass_level - TIE_TOLERANCE


def hit_means(*, polarity: str, hurdle: bool, graded: bool, level_choices: Sequence[float] | None,
              pass_level: float | None = None) -> str:
    """One sentence that says what ``hit=true`` means for a row (SPEC §3).

    Negative rows (weight < 0) and hurdle rows describe a FAULT: the sentence says that a
    satisfied requirement with no violation found means ``hit=false``. A graded row with a
    pass bar (`pass_level`) says that hit follows the bar, not ``level > 0``.
    """
    if hurdle:
        return (
            "This row describes a fatal fault. hit=true means the fault described IS present "
            "in the deliverable (the whole task then scores 0). If the deliverable is fine and "
            "you find no such fault, answer hit=false."
        )
    if polarity == "negative":
        return (
            "This row describes a fault that costs points. hit=true means the fault described "
            "IS present in the deliverable. If the requirement is satisfied and you find no "
            "such fault, answer hit=false."
        )
    if graded and level_choices:
        levels = ", ".join(format_level(x) for x in level_choices)
        if pass_level is not None:
            bar = format_level(pass_level)
            return (
                "This row is graded. level is the fraction of the weight earned and must be one "
                f"of [{levels}], chosen with the level descriptions; its pass bar is {bar}: hit=true "
                f"when level >= {bar} (the requirement is met), hit=false when level < {bar}."
            )
        return (
            "This row is graded. level is the fraction of the weight earned and must be one "
            f"of [{levels}], chosen with the level descriptions; hit=true when level > 0, "
            "hit=false when level = 0."
        )
    return (
        "hit=true means the deliverable satisfies this requirement; hit=false means it does "
        "not, or the evidence for it is missing."
    )


def format_level(value: float) -> str:
    """Render a level compactly (``1``, ``0.75``) for prompts and messages."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def verdict_item_schema(ids: Sequence[str], level_choices: Sequence[float] | None, *, quote: bool = False) -> dict[str, Any]:
    """JSON-schema fragment for verdict rows of one scale.

    The explanation comes first: ``id, reason[, quote], hit, level`` in ``properties`` and
    in ``required`` (a model writes the reason that decides the verdict before the verdict).
    With `quote`, ``quote`` is a string or null (`core.grounding`). Binary rows get ``level``
    as ``null`` only; graded rows get ``level`` REQUIRED and restricted to their legal
    levels (the schema, not the instruction file, is what makes judges return levels: SPEC
    §5). Strict-mode compatible: every property required, ``additionalProperties: false``.
    """
    if level_choices:
        level: dict[str, Any] = {"type": "number", "enum": list(level_choices)}
    else:
        level = {"type": "null"}
    props: dict[str, Any] = {"id": {"type": "string", "enum": list(ids)}, "reason": {"type": "string"}}
    if quote:
        props["quote"] = {"type": ["string", "null"]}
    props.update(hit={"type": "boolean"}, level=level)
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}
