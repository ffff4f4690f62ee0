"""Verdicts that follow the request's verdicts schema, for clients that validate the answer.

claude (``--json-schema``) turns the schema into a ``StructuredOutput`` tool and rejects
tool input that does not validate, asking again until it gives up
(``error_max_structured_output_retries``). A schema-constrained model never returns an
invalid answer, so an answer sent through such a tool is conformed the way constrained
decoding would: a required field the policy left out becomes null, and a level outside
the row's enumerated levels becomes the nearest allowed one (ties to the lower). Answers
given as text (chat ``response_format``, codex's ``text.format``) are left as the policy
gave them: those clients do not validate, and the judge's own snapping is under test.
"""

from __future__ import annotations

from typing import Any

__all__ = ["conform_verdicts", "in_schema_order"]


def conform_verdicts(verdicts: list[dict[str, Any]], schema: dict[str, Any] | None) -> list[dict[str, Any]]:
    """`verdicts` made valid against a ``{"verdicts": [item, …]}`` `schema` (copies).

    Each verdict is matched to the item schema (or ``anyOf`` branch) whose ``id`` enum
    holds its id; verdicts without a matching branch, and schemas of other shapes, are
    returned unchanged.
    """
    items = ((schema or {}).get("properties") or {}).get("verdicts", {}).get("items")
    if not isinstance(items, dict):
        return verdicts
    branches = [b for b in items.get("anyOf", [items]) if isinstance(b, dict)]
    out = []
    for verdict in verdicts:
        branch = next((b for b in branches if verdict.get("id") in _enum(_props(b).get("id"))), None)
        out.append(_conform(verdict, branch) if branch is not None else verdict)
    return out


def in_schema_order(verdicts: list[dict[str, Any]], schema: dict[str, Any] | None) -> list[dict[str, Any]]:
    """`verdicts` with each object's keys in the order of its item schema's ``properties``
    (copies; keys the schema does not name follow, in their own order).

    A model under constrained decoding writes the fields in the schema's order: a
    reason-first schema gets reason-first answers (and a fabricated hit its quote before
    the hit). Verdicts without a matching item schema are returned unchanged.
    """
    items = ((schema or {}).get("properties") or {}).get("verdicts", {}).get("items") if isinstance(schema, dict) else None
    if not isinstance(items, dict):
        return verdicts
    branches = [b for b in items.get("anyOf", [items]) if isinstance(b, dict)]
    out = []
    for verdict in verdicts:
        branch = next((b for b in branches if verdict.get("id") in _enum(_props(b).get("id"))), None)
        if branch is None:
            out.append(verdict)
            continue
        order = [k for k in _props(branch) if k in verdict]
        out.append({**{k: verdict[k] for k in order}, **{k: v for k, v in verdict.items() if k not in order}})
    return out


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def _enum(schema: Any) -> list[Any]:
    if not isinstance(schema, dict):
        return []
    values = list(schema.get("enum") or [])
    for branch in schema.get("anyOf") or []:
        values += _enum(branch)
    return values


def _allows_only_null(schema: Any) -> bool:
    return isinstance(schema, dict) and (schema.get("type") == "null" or schema.get("enum") == [None])


def _conform(verdict: dict[str, Any], branch: dict[str, Any]) -> dict[str, Any]:
    fixed = dict(verdict)
    for name in branch.get("required") or []:
        fixed.setdefault(name, None)
    level_schema = _props(branch).get("level")
    if _allows_only_null(level_schema):
        fixed["level"] = None
        return fixed
    levels = sorted(float(v) for v in _enum(level_schema) if isinstance(v, (int, float)) and not isinstance(v, bool))
    level = fixed.get("level")
    if levels and isinstance(level, (int, float)) and not isinstance(level, bool) and level not in levels:
        fixed["level"] = min(levels, key=lambda v: (abs(v - level), v))
    elif levels and level is None and None not in _enum(level_schema):
        fixed["level"] = levels[-1] if fixed.get("hit") else levels[0]
    return fixed
