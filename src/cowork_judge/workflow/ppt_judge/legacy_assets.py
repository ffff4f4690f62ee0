"""The original cowork-judge 1.3.x's ``task_check_dir`` format, read into this project's checks.

The original (``cowork-judge`` 1.2.0–1.3.6) reads, in ``tests/workflow_assets/ppt_judge/task_check_dir/``::

    type1_checklist.json   {"items": [{"id", "question", "mandatory", "search_hints", "section",
                                       "check_kind", ...}, ...]}
    type2_checklist.json   {"items": [{"id", "question", "paired_type1_id", "scope", "check_kind",
                                       "anchor_refs", ...}, ...]}
    manifest.json          {"pairs", "type1_only", "counts", "anchor_index", "deck_wide", ...}  (no "schema")

with the same meaning as this project's ``type1.json``/``type2.json``/``manifest.json``
(`assets`): ``question`` is the row's description verbatim, ``search_hints`` the type1
passes' locators, ``paired_type1_id`` the pages a type2 check is judged on, ``anchor_refs``
(else ``manifest.anchor_index``) its ground truth. A type2 check is deck-wide (judged on
representative pages) when any of the original's four signals says so: its ``scope`` is
``deck_wide``, its ``check_kind`` is ``no_fabrication``, the manifest's ``deck_wide`` list
names it (as a string or as ``{"type2_id"|"id": …}``), or its id contains
``no_fabrication``. ``paired_type1_id`` missing on an item is taken from
``manifest.pairs``. Fields the original never read (``verify_input``,
``compare_against``…) are documentation and are dropped; ``section``/``check_kind`` of a
type1 item become its ``section``/``kind`` (``content``/``type1`` when absent).

Everything here converts plain JSON values; reading and validating stays in `assets`.
"""

from __future__ import annotations

from typing import Any

ORIGINAL_TYPE1_FILE = "type1_checklist.json"
ORIGINAL_TYPE2_FILE = "type2_checklist.json"
ORIGINAL_FILES: dict[str, str] = {"type1": ORIGINAL_TYPE1_FILE, "type2": ORIGINAL_TYPE2_FILE}
"""Check kind → the original's file name."""
ORIGINAL_FORMAT = "cowork-judge 1.3.x"
"""How lint and the audit name the original's format."""


def items_of(doc: Any) -> tuple[list[Any], str | None]:
    """The raw ``items`` of an original checklist document, or ``([], why)`` when its shape is wrong."""
    if not isinstance(doc, dict):
        return [], 'not a JSON object with "items"'
    items = doc.get("items")
    if items is None:
        return [], 'no "items" list'
    if not isinstance(items, list):
        return [], '"items" must be a list of check objects'
    return items, None


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def type1_check(item: Any) -> Any:
    """An original type1 item as a `assets.Type1Check` document (a non-object is passed through
    for the validator to refuse)."""
    if not isinstance(item, dict):
        return item
    out: dict[str, Any] = {"id": item.get("id"), "question": item.get("question"),
                           "mandatory": item.get("mandatory", False) if isinstance(item.get("mandatory", False), bool) else bool(item.get("mandatory")),
                           "search_hints": [str(h) for h in item.get("search_hints") or [] if isinstance(h, (str, int, float))],
                           "section": _str(item.get("section")) or "content",
                           "kind": _str(item.get("check_kind")) or _str(item.get("kind")) or "type1"}
    return out


def deck_wide_ids(manifest: Any) -> set[str]:
    """Type2 ids the original manifest's ``deck_wide`` list names (strings or ``{"type2_id"|"id"}``)."""
    out: set[str] = set()
    entries = manifest.get("deck_wide") if isinstance(manifest, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, str) and entry:
            out.add(entry)
        elif isinstance(entry, dict):
            value = entry.get("type2_id") or entry.get("id")
            if isinstance(value, str) and value:
                out.add(value)
    return out


def type2_check(item: Any, manifest: Any) -> Any:
    """An original type2 item as a `assets.Type2Check` document (see the module docstring)."""
    if not isinstance(item, dict):
        return item
    cid = item.get("id")
    pairs: dict[str, Any] = manifest["pairs"] if isinstance(manifest, dict) and isinstance(manifest.get("pairs"), dict) else {}
    deck_wide = (_str(item.get("scope")) == "deck_wide" or (_str(item.get("check_kind")) or "").lower() == "no_fabrication"
                 or (isinstance(cid, str) and (cid in deck_wide_ids(manifest) or "no_fabrication" in cid)))
    refs = item.get("anchor_refs")
    return {"id": cid, "question": item.get("question"),
            "paired_type1_id": item.get("paired_type1_id") or (pairs.get(cid) if isinstance(cid, str) else None),
            "scope": "deck_wide" if deck_wide else "page",
            "anchor_refs": [str(r) for r in refs if isinstance(r, str)] if isinstance(refs, list) else []}


def is_original_manifest(doc: Any) -> bool:
    """A manifest without this project's ``schema`` key: the original's."""
    return isinstance(doc, dict) and "schema" not in doc


def manifest_document(doc: dict[str, Any], schema: str) -> dict[str, Any]:
    """An original manifest as a `assets.Manifest` document (`schema`: this project's manifest schema id).

    Keeps ``subject``, ``counts``, ``pairs``, ``type1_only`` and ``anchor_index`` when they
    have the documented shape (else their empty value); ``deck_wide`` is read by `type2_check`.
    """
    def mapping(value: Any) -> dict[str, Any]:
        return value if isinstance(value, dict) else {}

    counts = {k: v for k, v in mapping(doc.get("counts")).items()
              if k in ("type1", "type2", "mandatory", "anchors") and type(v) is int}
    return {"schema": schema, "subject": doc.get("subject") if isinstance(doc.get("subject"), str) else "",
            "counts": counts,
            "pairs": {k: v for k, v in mapping(doc.get("pairs")).items() if isinstance(v, str)},
            "type1_only": [v for v in doc.get("type1_only") or [] if isinstance(v, str)]
            if isinstance(doc.get("type1_only"), list) else [],
            "anchor_index": {k: [r for r in v if isinstance(r, str)] for k, v in mapping(doc.get("anchor_index")).items()
                             if isinstance(v, list)}}
