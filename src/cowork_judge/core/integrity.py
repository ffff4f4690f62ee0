"""The seal of a written result: digests of what the judge wrote, checked before a stored result is trusted.

When the judge writes ``result.json`` it adds a top-level ``integrity`` object (`seal`)::

    {"schema": "cowork-judge/integrity/v1",
     "result_sha256": SHA-256 of the document without its "integrity" key, as canonical JSON,
     "reward_txt_sha256": SHA-256 of reward.txt's bytes (null: not written with it),
     "reward_json_sha256": SHA-256 of reward.json's bytes (null: not written with it)}

Canonical JSON is `canonical` (sorted keys, no spaces, UTF-8, the JSON value as decoded), so
re-indenting a document keeps its seal and any change of a value breaks it. ``batch`` and
``calibrate`` resume, ``rescore`` and ``summarize`` check it (`check`): a document or reward
file that no longer matches is refused, or judged again on resume (issue 39, item 4b).

It is a checksum, not a signature: it catches a hand edit, a tool that rewrote a file, a
reward file from another run; whoever recomputes the digests can forge it (a signature
would need a key the fleet does not have). A document without ``integrity`` was written
before seals (0.2.0 and older) — read with a warning — unless its verdict fingerprint is of
a sealing judge (`SEALING_FINGERPRINTS`): then its seal was removed, which is refused too.

Standard library only: the last-resort writer (`run.outputs.write_fallback`) seals with it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from collections.abc import Collection
from typing import Any, Literal

INTEGRITY_KEY = "integrity"
INTEGRITY_SCHEMA = "cowork-judge/integrity/v1"
SEALING_FINGERPRINTS = frozenset({"cowork-judge/verdict-fingerprint/v2"})
"""``details.fingerprint.schema`` values of judges that seal every document they write."""
UNSEALED_NOTE = "no integrity digest: written by a judge older than the seal (0.2.0), not checked"

Seal = Literal["verified", "unsealed", "mismatch"]


def canonical(value: Any) -> bytes:
    """`value` as canonical JSON bytes (sorted keys, no spaces, UTF-8, no NaN).

    Raises:
        ValueError: a value is not finite.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode(
        "utf-8", "surrogatepass")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def document_digest(doc: dict[str, Any]) -> str:
    """SHA-256 (hex) of a decoded result document without its ``integrity`` key (`canonical`)."""
    return _sha(canonical({k: v for k, v in doc.items() if k != INTEGRITY_KEY}))


def seal(result_text: str, reward_txt: str | None = None, reward_json: str | None = None) -> str:
    """`result_text` (a JSON object as the judge writes it) with its ``integrity`` record
    added as the last key, covering the document and the reward files' texts written with it
    (None: not written by this writer, not covered). An existing record is replaced.

    Raises:
        ValueError: `result_text` is not a JSON object.
    """
    value = json.loads(result_text)
    if not isinstance(value, dict):
        raise ValueError("a result document is a JSON object")
    record = {"schema": INTEGRITY_SCHEMA, "result_sha256": document_digest(value),
              "reward_txt_sha256": _sha(reward_txt.encode("utf-8")) if reward_txt is not None else None,
              "reward_json_sha256": _sha(reward_json.encode("utf-8")) if reward_json is not None else None}
    if INTEGRITY_KEY in value:
        value.pop(INTEGRITY_KEY)
        indent = 2 if "\n" in result_text.strip() else None
        value[INTEGRITY_KEY] = record
        return json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"
    body = result_text.rstrip()[:-1].rstrip()  # a JSON object's text ends with its closing brace
    sep = "" if body.endswith("{") else ","
    return f"{body}{sep}\n  \"{INTEGRITY_KEY}\": {json.dumps(record, ensure_ascii=False)}\n}}\n"


@dataclass(frozen=True)
class SealCheck:
    """What `check` found: ``verified``, ``unsealed`` (no record: an older judge) or
    ``mismatch``; `problem` says which file no longer matches, or why the record is unusable."""

    state: Seal
    problem: str | None = None
    added: tuple[str, ...] = ()
    """Top-level keys beside the judge's own (a fleet's ``task_id``, ``tags``…) that `check`
    left out of the digest because the caller named the judge's keys (sorted)."""

    @property
    def ok(self) -> bool:
        """True unless something no longer matches what the judge wrote."""
        return self.state != "mismatch"


def check(doc: Any, reward_txt: bytes | None = None, reward_json: bytes | None = None, *,
          name: str = "result.json", judge_keys: Collection[str] | None = None) -> SealCheck:
    """Check a decoded document `doc` (and the reward files' bytes, when given: None = not
    read, not checked) against its ``integrity`` record. `name` names the document in
    `SealCheck.problem`. Never raises.

    `judge_keys`: the top-level keys a judge writes. When given, other top-level keys are a
    fleet's additions beside the document (``task_id``, ``tags``, as `summarize` invites): they
    are left out of the digest and named in `SealCheck.added`, while any change to a judge's
    key still breaks the seal (trial 5, F7). None: every key is covered (a stored result of
    the judge's own, which nothing should add to)."""
    if not isinstance(doc, dict):
        return SealCheck("mismatch", f"{name} is not a JSON object")
    added: tuple[str, ...] = ()
    if judge_keys is not None:
        added = tuple(sorted(k for k in doc if k not in judge_keys))
        if added:
            doc = {k: v for k, v in doc.items() if k in judge_keys}
        verdict = _check(doc, reward_txt, reward_json, name)
        return SealCheck(verdict.state, verdict.problem, added) if verdict.state == "verified" else verdict
    return _check(doc, reward_txt, reward_json, name)


def _check(doc: dict[str, Any], reward_txt: bytes | None, reward_json: bytes | None, name: str) -> SealCheck:
    """`check` of the keys it covers."""
    record = doc.get(INTEGRITY_KEY)
    if record is None:
        fingerprint = (doc.get("details") or {}).get("fingerprint") if isinstance(doc.get("details"), dict) else None
        if isinstance(fingerprint, dict) and fingerprint.get("schema") in SEALING_FINGERPRINTS:
            return SealCheck("mismatch", f"{name} has no integrity digest although its judge seals every document "
                                         "(the digest was removed)")
        return SealCheck("unsealed", UNSEALED_NOTE)
    if not isinstance(record, dict) or record.get("schema") != INTEGRITY_SCHEMA or not isinstance(
            record.get("result_sha256"), str):
        return SealCheck("mismatch", f"{name}: its integrity record is not one the judge writes")
    try:
        if document_digest(doc) != record["result_sha256"]:
            return SealCheck("mismatch", f"{name} no longer matches what the judge wrote (its integrity digest)")
    except ValueError:
        return SealCheck("mismatch", f"{name} holds a value no judge writes (not finite)")
    for label, data, key in (("reward.txt", reward_txt, "reward_txt_sha256"), ("reward.json", reward_json, "reward_json_sha256")):
        want = record.get(key)
        if data is None or want is None:
            continue
        if _sha(data) != want:
            return SealCheck("mismatch", f"{label} no longer matches what the judge wrote beside {name} (its integrity digest)")
    return SealCheck("verified")
