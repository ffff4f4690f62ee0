"""The content axis's per-instance assets: ``tests/workflow_assets/ppt_judge/task_check_dir/``.

Format (JSON Schema: ``cowork_judge/schemas/ppt_task_check.schema.json``)::

    task_check_dir/
      manifest.json   {"schema": MANIFEST_SCHEMA, "subject", "counts", "pairs", "type1_only", "anchor_index"}
      type1.json      {"schema": TYPE1_SCHEMA, "checks": [{"id", "question", "mandatory", "search_hints",
                                                            "section", "kind"}, ...]}
      type2.json      {"schema": TYPE2_SCHEMA, "checks": [{"id", "question", "paired_type1_id", "scope",
                                                            "anchor_refs"}, ...]}
      anchors/*       ground truth, named by ``anchor_refs`` (paths relative to task_check_dir):
                      UTF-8 text, or an image (PNG, JPEG, GIF, WebP: told by content, not by name)

- a *type1* check asks whether the deck covers a subject ("does the deck explain X");
  ``search_hints`` are words the deck may use for it (they help the text pass and choose
  the pages the image pass looks at); ``mandatory`` makes the generated row heavier;
  ``section``/``kind`` become the row's ``tag``;
- a *type2* check asks whether the deck states it correctly, against the ground truth of
  its ``anchor_refs`` (text inlined in the prompt, an image attached to it, `AnchorImage`); it is judged on the pages its
  ``paired_type1_id`` found (``scope: page``) or on representative pages (``deck_wide``);
- the manifest: ``pairs`` (type2 id → type1 id, must agree with the checks and with the
  rubric's ``depends_on``), ``type1_only`` (type1 checks without a type2), ``counts``
  (``type1``, ``type2``, ``mandatory``, ``anchors``), ``anchor_index`` (type2 id → anchor
  refs, used when a type2 check has no ``anchor_refs``: the only manifest field the judge
  reads at run time).

The original cowork-judge 1.3.x's files (``type1_checklist.json``, ``type2_checklist.json``
``{"items": [...]}``, a manifest without ``schema``) are read too (`legacy_assets`): a kind
whose own file is absent is read from the original's file, and `TaskChecks.formats` says
which file each kind came from (both present: this project's file is read and the
original's must declare the same ids). A deck with coverage checks only may leave ``type2.json`` out when
``manifest.json`` says so (``counts.type2`` 0, no ``pairs``): no type2 checks, no problem (trial 25 P-4).

`load_task_checks` never raises: whatever is wrong becomes a `Problem` (for lint) and,
for the checks it makes unusable, an entry of `TaskChecks.broken` (their rows are
unjudged ``asset_broken`` at run time). A problem costs only the checks it touches: a
missing anchor file only the type2 checks that cite it; an unreadable ``type1.json`` every
type1 check (and, through the gate rules, their type2 checks become ``dep_unjudged``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import legacy_assets

TASK_CHECK_DIR = "task_check_dir"
MANIFEST_FILE = "manifest.json"
TYPE1_FILE = "type1.json"
TYPE2_FILE = "type2.json"
MANIFEST_SCHEMA = "cowork-judge/ppt-task-check-manifest@1"
TYPE1_SCHEMA = "cowork-judge/ppt-type1-checks@1"
TYPE2_SCHEMA = "cowork-judge/ppt-type2-checks@1"
CONTENT_GROUPS: dict[str, str] = {"type1": "type1", "type2": "type2"}
"""``workflow_group`` of a content row → its check kind (rows of other groups are visual)."""
VISUAL_ID_PREFIX = "V-"
"""Ids of the visual template's rows (`gen-ppt-rubrics` owns them); a check may not use it."""
MAX_JSON_BYTES = 1024 * 1024
"""Largest manifest/type1/type2 file read (a 200-check list is ~100 KB)."""
MAX_ANCHOR_BYTES = 32 * 1024
"""Largest anchor file: the whole anchor goes into every prompt of its type2 checks, so it
must stay a focused excerpt (~8,000 tokens at most), never a whole source document."""
MAX_ANCHOR_IMAGE_BYTES = 5 * 1024 * 1024
"""Largest image anchor file (a figure or a table's screenshot; the original 1.3.6 attached
its image anchors as they were, with no limit)."""
MAX_ANCHOR_IMAGE_PIXELS = 40_000_000
"""Largest image anchor in pixels (width × height), checked before decoding: past it the
file is refused (a decompression bomb decodes to GBs), never downscaled."""
MAX_ANCHOR_IMAGE_SIDE = 2048
"""An image anchor's longest side once attached: a larger one is downscaled (Pillow,
Lanczos) and re-encoded as PNG; vision endpoints scale high-detail images to fit 2048 px."""
IMAGE_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),  # RIFF....WEBP
)
"""Content signatures of the image anchors attached: (bytes, offset, MIME type)."""
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
"""Names the original 1.3.6 took for images: such a file whose content is no image is refused."""
MAX_HINTS = 20
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$"
"""A check id (the JSON Schema's ``$defs.id`` pattern)."""


class Type1Check(BaseModel):
    """One coverage check: does the deck cover a subject."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str = Field(pattern=ID_PATTERN, description="the rubric row's id")
    question: str = Field(min_length=1, description="copied verbatim into the row's description")
    mandatory: bool = Field(False, description="the task requires it: the row weighs 3.0 instead of 2.0")
    search_hints: list[str] = Field(default_factory=list, max_length=MAX_HINTS,
                                    description="words the deck may use for the subject")
    section: str = Field(min_length=1, description="part of the task the check belongs to (→ tag)")
    kind: str = Field(min_length=1, description="what sort of content it is (→ tag)")


class Type2Check(BaseModel):
    """One correctness check: is the subject stated correctly, against ground truth."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str = Field(pattern=ID_PATTERN, description="the rubric row's id")
    question: str = Field(min_length=1, description="copied verbatim into the row's description")
    paired_type1_id: str = Field(min_length=1, description="the type1 check whose pages it is judged on")
    scope: Literal["page", "deck_wide"] = Field("page", description="the paired pages, or representative pages")
    anchor_refs: list[str] = Field(default_factory=list, description="ground-truth files, relative to task_check_dir")


CountName = Literal["type1", "type2", "mandatory", "anchors"]
"""What ``manifest.json`` counts (`Manifest.counts`)."""


class Manifest(BaseModel):
    """``manifest.json``."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)

    schema_id: Literal["cowork-judge/ppt-task-check-manifest@1"] = Field(alias="schema")
    subject: str = Field("", description="what the deck is about, for people")
    counts: dict[CountName, int] = Field(
        description="number of type1 checks, type2 checks, mandatory type1 checks, anchor files")
    pairs: dict[str, str] = Field(description="type2 id → its paired type1 id")
    type1_only: list[str] = Field(default_factory=list, description="type1 ids without a type2 check")
    anchor_index: dict[str, list[str]] = Field(default_factory=dict,
                                               description="type2 id → anchor refs, when the check names none")


@dataclass(frozen=True)
class AnchorImage:
    """An image anchor, ready to attach to a type2 request (`content_prompt.type2_messages`).

    Attributes:
        mime: ``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp`` (of `data`).
        data: the bytes to send: the file's own, or a PNG re-encoding when it was
            downscaled or was an animated GIF (first frame).
        width, height: pixels of `data` (0 when Pillow is not installed: not decoded).
        original_size: the file's ``(width, height)`` when it was downscaled, else None.
    """

    mime: str
    data: bytes = field(repr=False)
    width: int = 0
    height: int = 0
    original_size: tuple[int, int] | None = None


Anchor = str | AnchorImage
"""An anchor's ground truth: its text, or its image."""


@dataclass(frozen=True)
class Problem:
    """Something wrong with the assets: the file (relative to task_check_dir), the check
    id when it concerns one check, and what is wrong."""

    file: str
    message: str
    check: str | None = None


@dataclass
class TaskChecks:
    """The loaded ``task_check_dir``.

    Attributes:
        folder: the task_check_dir path.
        present: the folder exists.
        type1, type2: usable checks by id (a broken check is in neither).
        manifest: None when missing or invalid.
        anchors: anchor ref → text, for every readable text anchor cited.
        anchor_images: anchor ref → image, for every usable image anchor cited.
        problems: everything found wrong (lint reports them all).
        broken: check id → why its row cannot be judged (``asset_broken``).
        files_broken: kind (``type1``/``type2``) → why its whole file is unusable.
        declared: every check id the files declare (usable or broken), with its kind.
        cited: every anchor ref the type2 checks cite (through ``manifest.anchor_index``
            too), readable or not.
        formats: kind (``type1``/``type2``/``manifest``) → the file it was read from
            (``type1.json``, or the original 1.3.x's ``type1_checklist.json``…); absent when
            neither exists.
    """

    folder: Path
    present: bool = False
    type1: dict[str, Type1Check] = field(default_factory=dict)
    type2: dict[str, Type2Check] = field(default_factory=dict)
    manifest: Manifest | None = None
    anchors: dict[str, str] = field(default_factory=dict)
    anchor_images: dict[str, AnchorImage] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    broken: dict[str, str] = field(default_factory=dict)
    files_broken: dict[str, str] = field(default_factory=dict)
    declared: dict[str, str] = field(default_factory=dict)
    cited: set[str] = field(default_factory=set)
    formats: dict[str, str] = field(default_factory=dict)

    def why_unusable(self, row_id: str, kind: str) -> str | None:
        """Why a content row of `kind` (``type1``/``type2``) cannot be judged, or None when
        its check is usable."""
        if not self.present:
            return f"no {TASK_CHECK_DIR} in the instance's workflow_assets/ppt_judge/"
        if row_id in self.broken:
            return self.broken[row_id]
        if kind in self.files_broken:
            return self.files_broken[kind]
        usable = self.type1 if kind == "type1" else self.type2
        if row_id in usable:
            return None
        other = self.declared.get(row_id)
        if other is not None and other != kind:
            return f"the rubric marks it {kind} but {TASK_CHECK_DIR} declares it a {other} check"
        return f"no {kind} check with this id in {TASK_CHECK_DIR}/{TYPE1_FILE if kind == 'type1' else TYPE2_FILE}"

    def file_of(self, kind: str) -> str:
        """The file (relative to task_check_dir) the checks of `kind` were read from."""
        if legacy_assets.ORIGINAL_FORMAT in self.formats.get(kind, ""):
            return legacy_assets.ORIGINAL_FILES[kind]
        return TYPE1_FILE if kind == "type1" else TYPE2_FILE

    def group_of(self, row_id: str, group: str | None) -> str | None:
        """A content row's check kind: its ``workflow_group`` when that is ``type1``/``type2``;
        for a row with no ``workflow_group``, the kind its id is declared with here (the
        original 1.3.x told content rows by checklist membership alone); else None (visual)."""
        kind = content_kind(group)
        if kind is None and group is None:
            return self.declared.get(row_id)
        return kind

    def anchor_refs(self, check: Type2Check) -> list[str]:
        """The check's anchor refs: its own, else ``manifest.anchor_index`` (fallback)."""
        if check.anchor_refs:
            return list(check.anchor_refs)
        return list(self.manifest.anchor_index.get(check.id, [])) if self.manifest is not None else []

    def anchor(self, ref: str) -> Anchor:
        """The ground truth of a loaded anchor `ref` (its text or its image).

        Raises:
            KeyError: `ref` was not loaded (cited by no type2 check, or unusable).
        """
        return self.anchors[ref] if ref in self.anchors else self.anchor_images[ref]

    def manifest_disagreements(self) -> list[Problem]:
        """Where ``manifest.json`` disagrees with the checks (each a `Problem` of `MANIFEST_FILE`): a
        ``pairs`` entry ≠ the type2 check's ``paired_type1_id``, ``type1_only`` ≠ the type1 checks without a
        type2, a ``counts`` entry ≠ what the files hold. Lint reports each as A010; ``gen-ppt-rubrics``
        names them when it writes (trial 11 F5). The judge reads only ``anchor_index`` at run time, so these
        change no verdict: the manifest is the package's bookkeeping. Empty without a usable manifest;
        ``type1_only`` and ``counts`` are not compared while a check is broken (its problem says why)."""
        m = self.manifest
        if m is None:
            return []
        out: list[Problem] = []
        derived = self.derived_manifest()
        pairs = derived["pairs"]
        for t2 in sorted(set(pairs) | set(m.pairs)):
            if m.pairs.get(t2) != pairs.get(t2) and (t2 in pairs or t2 not in self.broken):
                out.append(Problem(MANIFEST_FILE, f"pairs[{t2!r}] is {m.pairs.get(t2)!r} but {TYPE2_FILE} pairs it "
                                                  f"with {pairs.get(t2)!r}"))
        if self.broken:
            return out
        only = sorted(derived["type1_only"])
        if sorted(m.type1_only) != only:
            out.append(Problem(MANIFEST_FILE, f"type1_only is {sorted(m.type1_only)} but the type1 checks without a "
                                              f"type2 are {only}"))
        counted: dict[CountName, int] = derived["counts"]
        wrong = {k: (m.counts.get(k), v) for k, v in counted.items() if m.counts.get(k) != v}
        if wrong:
            listed = ", ".join(f"{k} says {said}, found {found}" for k, (said, found) in wrong.items())
            out.append(Problem(MANIFEST_FILE, f"counts disagree with the checks: {listed}"))
        return out

    def derived_manifest(self) -> dict[str, Any]:
        """The ``manifest.json`` fields the checks determine: ``counts`` (``type1``, ``type2``, ``mandatory``,
        ``anchors``: ints), ``pairs`` (type2 id → its ``paired_type1_id``) and ``type1_only`` (the type1 ids no
        type2 check pairs with, in type1.json's order). The one computation `manifest_disagreements` compares
        with and ``gen-ppt-rubrics --fix-manifest`` writes (trial 28 P-6); exact only while no check is broken."""
        pairs = {c.id: c.paired_type1_id for c in self.type2.values()}
        counts: dict[CountName, int] = {"type1": len(self.type1), "type2": len(self.type2),
                                        "mandatory": sum(1 for c in self.type1.values() if c.mandatory),
                                        "anchors": len(self.anchors) + len(self.anchor_images)}
        return {"counts": counts, "pairs": pairs, "type1_only": [i for i in self.type1 if i not in set(pairs.values())]}

    def used_files(self) -> set[Path]:
        """The files the judge reads (lint: every other file under the folder is unused)."""
        originals = [name for kind, name in legacy_assets.ORIGINAL_FILES.items() if name in self.formats.get(kind, "")]
        names = [MANIFEST_FILE, TYPE1_FILE, TYPE2_FILE, *originals,
                 *(r for r in self.cited if isinstance(r, str) and r)]
        return {self.folder / n for n in names}


def empty_checklist() -> dict[str, dict[str, Any]]:
    """The documents of an empty checklist (file name → JSON object: `MANIFEST_FILE`, `TYPE1_FILE`,
    `TYPE2_FILE`): zero checks, zero counts. How a deck task says "no content checks" on purpose (its own
    rows judge the content; ``gen-ppt-rubrics --no-checklist`` writes it): lint accepts it, and the
    visual rows judge the look alone."""
    return {MANIFEST_FILE: {"schema": MANIFEST_SCHEMA, "subject": "", "counts": {"type1": 0, "type2": 0, "mandatory": 0,
                                                                                 "anchors": 0},
                            "pairs": {}, "type1_only": [], "anchor_index": {}},
            TYPE1_FILE: {"schema": TYPE1_SCHEMA, "checks": []},
            TYPE2_FILE: {"schema": TYPE2_SCHEMA, "checks": []}}


MANIFEST_MISSING = (f"missing: start it with {{\"schema\": \"{MANIFEST_SCHEMA}\", \"subject\": \"what the deck is about\", "
                    "\"counts\": {}, \"pairs\": {}}, then gen-ppt-rubrics --fix-manifest fills counts, pairs and type1_only "
                    "from the checks (docs/harbor-task.md, step 3)")
"""The problem said for a task_check_dir without ``manifest.json`` (trial 33 P-4): the skeleton `--fix-manifest` completes."""


def load_task_checks(asset_dir: Path | None) -> TaskChecks:
    """Read ``<asset_dir>/task_check_dir`` (asset_dir: ``tests/workflow_assets/ppt_judge``).

    Returns:
        `TaskChecks`; never raises (every problem is recorded, see the module docstring).
    """
    folder = (asset_dir or Path("/nonexistent")) / TASK_CHECK_DIR
    out = TaskChecks(folder=folder, present=asset_dir is not None and folder.is_dir() and not folder.is_symlink())
    if not out.present:
        return out
    manifest_doc, why = _read_json(folder / MANIFEST_FILE)
    original_manifest = manifest_doc if legacy_assets.is_original_manifest(manifest_doc) else None
    if why or manifest_doc is None:
        out.problems.append(Problem(MANIFEST_FILE, why or MANIFEST_MISSING))
    else:
        out.formats["manifest"] = MANIFEST_FILE if original_manifest is None else f"{MANIFEST_FILE} ({legacy_assets.ORIGINAL_FORMAT})"
        if original_manifest is not None:
            manifest_doc = legacy_assets.manifest_document(original_manifest, MANIFEST_SCHEMA)
        try:
            out.manifest = Manifest.model_validate(manifest_doc)
        except ValidationError as exc:
            out.problems.append(Problem(MANIFEST_FILE, _first_error(exc)))
    items = {kind: _checks(out, kind, name, schema, original_manifest)
             for kind, name, schema in (("type1", TYPE1_FILE, TYPE1_SCHEMA), ("type2", TYPE2_FILE, TYPE2_SCHEMA))}
    seen: dict[str, str] = {}
    for kind, model in (("type1", Type1Check), ("type2", Type2Check)):
        file = out.file_of(kind)
        for n, raw in enumerate(items[kind]):
            rid = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
            if kind == "type2":  # named even by a check that turns out broken: reported as such, never as unused
                out.cited.update(_raw_anchor_refs(out, raw, rid))
            try:
                check = model.model_validate(raw)
            except ValidationError as exc:
                where = rid or f"#{n + 1}"
                out.problems.append(Problem(file, f"check {where}: {_all_errors(exc)}", rid))
                if rid:
                    out.broken[rid] = f"{TASK_CHECK_DIR}/{file}: check {rid}: {_all_errors(exc)}"
                    out.declared.setdefault(rid, kind)
                continue
            if check.id in seen:
                msg = f"id {check.id!r} is declared twice ({seen[check.id]} and {kind})"
                out.problems.append(Problem(file, msg, check.id))
                out.broken[check.id] = f"{TASK_CHECK_DIR}: {msg}"
                continue
            seen[check.id] = kind
            out.declared[check.id] = kind
            if check.id.startswith(VISUAL_ID_PREFIX):
                msg = f"id {check.id!r} starts with {VISUAL_ID_PREFIX!r}, the visual template's prefix"
                out.problems.append(Problem(file, msg, check.id))
                out.broken[check.id] = f"{TASK_CHECK_DIR}: {msg}"
                continue
            if isinstance(check, Type1Check):
                out.type1[check.id] = check
            elif isinstance(check, Type2Check):
                out.type2[check.id] = check
    for rid in [r for r in out.broken if r in out.type1 or r in out.type2]:  # a duplicate id breaks both
        out.type1.pop(rid, None)
        out.type2.pop(rid, None)
    for check in list(out.type2.values()):
        out.cited.update(r for r in out.anchor_refs(check) if isinstance(r, str))
        problems = _type2_problems(out, check)
        if problems:  # every problem of the check at once, not the first (trial 8 F5)
            out.problems.extend(problems)
            out.broken[check.id] = "; ".join(f"{TASK_CHECK_DIR}/{p.file}: {p.message}" for p in problems)
            del out.type2[check.id]
    return out


def _checks(out: TaskChecks, kind: str, name: str, schema: str, manifest: Any) -> list[Any]:
    """The raw check items of one kind, from this project's file or else the original's
    (`legacy_assets`, converted; `manifest` is the original's manifest document or None);
    a file that cannot be used at all is recorded in `files_broken`."""
    doc, why = _read_json(out.folder / name)
    original_name = legacy_assets.ORIGINAL_FILES[kind]
    original, original_why = _read_json(out.folder / original_name)
    if why is None and doc is None and (original is not None or original_why is not None):
        return _original_checks(out, kind, original_name, original, original_why, manifest)
    if why is None and doc is None:
        if kind == "type2" and _no_type2_declared(out.manifest):
            return []  # coverage checks only (trial 25 P-4): the manifest says so, no empty type2.json needed
        why = f"missing (neither {name} nor the original's {original_name}){_write_hint(kind, schema)}"
    if why is None:
        if not isinstance(doc, dict) or doc.get("schema") != schema:
            why = f"not a {schema} document (its \"schema\" must be {schema!r})"
        elif not isinstance(doc.get("checks"), list):
            why = "\"checks\" must be a list of check objects"
        elif set(doc) - {"schema", "checks"}:
            why = f"unknown key(s) {sorted(set(doc) - {'schema', 'checks'})}"
    if why is not None:
        out.problems.append(Problem(name, why))
        out.files_broken[kind] = f"{TASK_CHECK_DIR}/{name}: {why}"
        return []
    out.formats[kind] = name
    if original is not None:  # both formats: this file is read; the original's must declare the same checks
        raw, _ = legacy_assets.items_of(original)
        theirs = {str(i.get("id")) for i in raw if isinstance(i, dict) and i.get("id")}
        ours = {str(c.get("id")) for c in doc["checks"] if isinstance(c, dict) and c.get("id")}
        out.formats[kind] = f"{name} (and {original_name})"
        if theirs != ours:
            out.problems.append(Problem(original_name, f"declares {sorted(theirs - ours) or 'no'} id(s) {name} lacks and "
                                                       f"lacks {sorted(ours - theirs) or 'no'} id(s) {name} has; "
                                                       f"{name} is the one read"))
    return list(doc["checks"])


def _no_type2_declared(manifest: Manifest | None) -> bool:
    """The manifest says there are no type2 checks: ``counts.type2`` is 0 and ``pairs`` is empty."""
    return manifest is not None and manifest.counts.get("type2") == 0 and not manifest.pairs


def _write_hint(kind: str, schema: str) -> str:
    """What a missing checks file of `kind` should be when it has no checks (trial 25 P-4)."""
    empty = json.dumps({"schema": schema, "checks": []})
    if kind == "type2":
        return (f"; a deck with coverage (type1) checks only writes {empty}, or says \"type2\": 0 in "
                f"{MANIFEST_FILE}'s counts")
    return f"; no coverage checks: write {empty}"


def _original_checks(out: TaskChecks, kind: str, name: str, doc: Any, why: str | None, manifest: Any) -> list[Any]:
    """The check items of the original's file `name`, converted (`legacy_assets`)."""
    items: list[Any] = []
    if why is None:
        items, why = legacy_assets.items_of(doc)
    if why is not None:
        out.problems.append(Problem(name, why))
        out.files_broken[kind] = f"{TASK_CHECK_DIR}/{name}: {why}"
        return []
    out.formats[kind] = f"{name} ({legacy_assets.ORIGINAL_FORMAT})"
    if kind == "type1":
        return [legacy_assets.type1_check(item) for item in items]
    return [legacy_assets.type2_check(item, manifest) for item in items]


def _type2_problems(out: TaskChecks, check: Type2Check) -> list[Problem]:
    """Every reason a type2 check cannot be judged (its pairing, then each anchor that is missing or unusable);
    [] when it can. The usable anchors are loaded into `out` even when the check is broken otherwise."""
    problems: list[Problem] = []
    if check.paired_type1_id not in out.declared:
        problems.append(Problem(TYPE2_FILE, f"check {check.id}: paired_type1_id {check.paired_type1_id!r} is no type1 "
                                            "check", check.id))
    elif out.declared[check.paired_type1_id] != "type1":
        problems.append(Problem(TYPE2_FILE, f"check {check.id}: paired_type1_id {check.paired_type1_id!r} is a type2 "
                                            "check", check.id))
    refs = out.anchor_refs(check)
    if not refs:
        problems.append(Problem(TYPE2_FILE, f"check {check.id}: no anchor_refs and no manifest.anchor_index entry: no "
                                            "ground truth to judge against", check.id))
    for ref in refs:
        if ref in out.anchors or ref in out.anchor_images:
            continue
        anchor, why = read_anchor(out.folder, ref)
        if why:
            problems.append(Problem(ref if isinstance(ref, str) and ref else TYPE2_FILE,
                                    f"anchor {ref!r} of {check.id}: {why}", check.id))
        elif isinstance(anchor, AnchorImage):
            out.anchor_images[ref] = anchor
        else:
            out.anchors[ref] = anchor
    return problems


def _raw_anchor_refs(out: TaskChecks, raw: Any, rid: str | None) -> list[str]:
    """The anchor refs a type2 check item names before it is validated (its ``anchor_refs`` strings, else its
    ``manifest.anchor_index`` entry): what it cites even when it is broken."""
    refs = raw.get("anchor_refs") if isinstance(raw, dict) else None
    if isinstance(refs, list) and refs:
        return [r for r in refs if isinstance(r, str) and r]
    if rid is not None and out.manifest is not None:
        return [r for r in out.manifest.anchor_index.get(rid, []) if isinstance(r, str) and r]
    return []


def read_anchor(folder: Path, ref: Any) -> tuple[Anchor, str | None]:
    """Anchor `ref` (a path relative to `folder`): ``(text or image, None)``, or ``("", why)``.

    A file whose first bytes are a PNG, JPEG, GIF or WebP signature (`IMAGE_MAGIC`) is an
    image anchor (`read_anchor_image`), whatever its name; any other file is a text anchor.
    Refused: a ref that is not a relative POSIX path inside the folder (``..``, absolute,
    a symlink out), a missing or non-regular file; for text, more than `MAX_ANCHOR_BYTES`,
    not UTF-8, only whitespace, or a name of an image type (`IMAGE_SUFFIXES`); for an
    image, see `read_anchor_image`.
    """
    if not isinstance(ref, str) or not ref or ref.startswith("/") or "\\" in ref or ".." in ref.split("/"):
        return "", f"not a relative path inside {TASK_CHECK_DIR} ({ref!r})"
    path = folder / ref
    try:
        real_folder, real = os.path.realpath(folder), os.path.realpath(path)
        if os.path.commonpath([real_folder, real]) != real_folder:
            return "", "resolves outside task_check_dir (a symlink)"
        if not path.is_file():
            return "", "missing" if not path.exists() else "not a regular file"
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(16)
        mime = image_mime(head)
        if mime is not None:
            return read_anchor_image(path, mime)
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return "", (f"named {path.suffix} but its content is no PNG, JPEG, GIF or WebP image (an image anchor is "
                        "told by its content)")
        if size > MAX_ANCHOR_BYTES:
            return "", f"{size} bytes, over the {MAX_ANCHOR_BYTES}-byte limit (an anchor is an excerpt, inlined in prompts)"
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return "", "not UTF-8 text"
    except OSError as exc:
        return "", f"cannot be read: {exc.strerror or exc}"
    if not text.strip():
        return "", "empty"
    return text, None


def image_mime(head: bytes) -> str | None:
    """The MIME type of an image anchor from its first bytes (`IMAGE_MAGIC`), or None."""
    for magic, offset, mime in IMAGE_MAGIC:
        if head[offset:offset + len(magic)] == magic and (mime != "image/webp" or head[:4] == b"RIFF"):
            return mime
    return None


def read_anchor_image(path: Path, mime: str) -> tuple[Anchor, str | None]:
    """An image anchor file (its content sniffed as `mime`): ``(AnchorImage, None)`` or ``("", why)``.

    Refused: more than `MAX_ANCHOR_IMAGE_BYTES`, more than `MAX_ANCHOR_IMAGE_PIXELS`, or
    content Pillow cannot decode (truncated, corrupt). Longer than `MAX_ANCHOR_IMAGE_SIDE`
    on a side, or an animated GIF: re-encoded as a PNG (downscaled, first frame). Without
    Pillow (the ``workflow`` extra) the file is sent as it is, checked by size only.

    Raises:
        OSError: the file cannot be read.
    """
    kind = mime.split("/")[1].upper()
    size = path.stat().st_size
    if size > MAX_ANCHOR_IMAGE_BYTES:
        return "", f"a {kind} image of {size} bytes, over the {MAX_ANCHOR_IMAGE_BYTES}-byte limit of an image anchor"
    data = path.read_bytes()
    try:
        from PIL import Image
    except ImportError:  # lint without the workflow extra: sniffed and sized only
        return AnchorImage(mime, data), None
    import io
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                width, height = im.size
                if width * height > MAX_ANCHOR_IMAGE_PIXELS:
                    return "", (f"a {kind} image of {width}x{height} pixels, over the {MAX_ANCHOR_IMAGE_PIXELS:,}-pixel "
                                "limit of an image anchor")
                im.load()
                animated = getattr(im, "n_frames", 1) > 1
                if max(width, height) <= MAX_ANCHOR_IMAGE_SIDE and not animated:
                    return AnchorImage(mime, data, width, height), None
                im.seek(0)
                frame = im.convert("RGBA" if "A" in im.getbands() or "transparency" in im.info else "RGB")
                frame.thumbnail((MAX_ANCHOR_IMAGE_SIDE, MAX_ANCHOR_IMAGE_SIDE), Image.Resampling.LANCZOS)
                buf = io.BytesIO()
                frame.save(buf, format="PNG", optimize=True)
                resized = (width, height) if frame.size != (width, height) else None
                return AnchorImage("image/png", buf.getvalue(), frame.width, frame.height, resized), None
    except Exception as exc:  # noqa: BLE001 - a corrupt image raises OSError, SyntaxError, struct.error, ...
        return "", f"a {kind} image that cannot be decoded ({str(exc)[:160] or type(exc).__name__})"


def _read_json(path: Path) -> tuple[Any, str | None]:
    """``(document, None)``, ``(None, None)`` when the file is missing, or ``(None, why)``."""
    try:
        if not path.exists():
            return None, None
        if not path.is_file():
            return None, "not a regular file"
        if path.stat().st_size > MAX_JSON_BYTES:
            return None, f"larger than {MAX_JSON_BYTES} bytes"
        return json.loads(path.read_bytes().decode("utf-8")), None
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except (ValueError, RecursionError) as exc:
        return None, f"not valid JSON ({str(exc)[:120]})"
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"


def _all_errors(exc: ValidationError) -> str:
    """Every error of a check's validation, ``loc: msg`` joined by "; " (a check's problems are said at once)."""
    return "; ".join(f"{'.'.join(str(x) for x in e.get('loc', ())) or 'document'}: {e.get('msg')}" for e in exc.errors())


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(x) for x in first.get("loc", ())) or "document"
    return f"{where}: {first.get('msg')}"


def content_kind(group: str | None) -> str | None:
    """``type1``/``type2`` for a content row's ``workflow_group``, None for a visual row."""
    return CONTENT_GROUPS.get(group or "")


__all__ = [
    "empty_checklist",
    "CONTENT_GROUPS",
    "IMAGE_MAGIC",
    "MAX_ANCHOR_IMAGE_BYTES",
    "MAX_ANCHOR_IMAGE_PIXELS",
    "MAX_ANCHOR_IMAGE_SIDE",
    "Anchor",
    "AnchorImage",
    "MANIFEST_FILE",
    "MANIFEST_SCHEMA",
    "MAX_ANCHOR_BYTES",
    "TASK_CHECK_DIR",
    "TYPE1_FILE",
    "TYPE1_SCHEMA",
    "TYPE2_FILE",
    "TYPE2_SCHEMA",
    "Manifest",
    "Problem",
    "TaskChecks",
    "Type1Check",
    "Type2Check",
    "content_kind",
    "image_mime",
    "load_task_checks",
    "read_anchor",
    "read_anchor_image",
]
