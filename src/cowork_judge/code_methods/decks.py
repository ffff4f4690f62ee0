"""Deck code methods, part one: find THE deck among the deliverables, and its kind.

`locate_deck` sets the deck artifacts (``deck_path``, ``deck_kind``, ``deck_rel``) that the
router hands to workflows and agentic blocks, so every segment judges the same file.

A deck's KIND comes from its content, never from its name (`deck_kind`): an HTML page
named ``deck.pptx`` is an HTML deck, a real pptx named ``deck.html`` is a pptx. The name
only makes a file a candidate (a deck-like extension, `DECK_SUFFIXES`), and it gives the
kind of a file whose content is no recognisable deck (empty, corrupt, encrypted, another
document): that file is still the deck the agent offered, broken, and the open check
says why. Other presentation names (``.odp``, ``.key``: `OTHER_PRESENTATIONS`) are no
candidate; a miss names them. A candidate whose content is no document at all (not a zip,
OLE2, PDF or HTML file: PowerPoint's owner file ``~$deck.pptx``) is set aside, named in the
reason, when another candidate is a real deck (`_set_aside_non_documents`, trial 14 F1).

Files the task itself gave the agent are sources, never the deck: a deliverable whose
bytes equal a file in one of the task's input folders (`SOURCE_DIRS` under the app dir,
or the method's `sources` globs). Only input folders count: the agent's own working
copies elsewhere in /app must not disqualify its deck.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge.code_methods import globs
from cowork_judge.code_methods.files import ReadLimit, listing_limit, range_errors, scan_limit, set_aside_note
from cowork_judge.evidence.kinds import KIND_FAMILY, SUFFIX_KIND
from cowork_judge._util.fsutil import file_sha256
from cowork_judge.segment.code_context import CodeContext
from cowork_judge.segment.delivery import DeliveredFile, LocatedDeck

DECK_SUFFIXES: dict[str, str] = {suffix: KIND_FAMILY[kind] for suffix, kind in SUFFIX_KIND.items()}
"""Deck-like extension → the kind family its NAME claims (`evidence.kinds`, the same names the
evidence layer renders). Only these files are deck candidates."""
CONTENT_FAMILY: Mapping[str, str] = KIND_FAMILY
"""Content kind (`evidence.sniff.content_kind`) → kind family. The pptx family holds every
PowerPoint format, OOXML and legacy binary: LibreOffice renders them all, and PowerPoint
opens an OOXML file whatever its PowerPoint extension."""
FAMILY_LABEL = {"pptx": "PowerPoint", "html": "HTML", "pdf": "PDF"}
"""How a kind family is named in reasons."""
OTHER_PRESENTATIONS = {".odp": "an OpenDocument presentation", ".otp": "an OpenDocument presentation template",
                       ".fodp": "a flat OpenDocument presentation", ".key": "a Keynote presentation"}
"""Presentation names that are NO deck candidate (trial 14 F5): the deck checks and ``ppt_judge``
judge PowerPoint, HTML and PDF decks. `locate_deck`'s miss names such a deliverable, so a
rollout that saved its deck as ``.odp`` is not called deckless in silence."""
SOURCE_DIRS = ("input", "inputs", "data", "resources", "materials", "assets", "files", "source", "sources")
"""App-dir folders that hold what the task gave the agent (by convention)."""
SOURCE_SCAN_MAX_FILES = 2000
"""Files looked at in the input folders, at most."""


def name_family(rel: str) -> str | None:
    """The kind family a file NAME claims (`DECK_SUFFIXES`), None when it is not deck-like."""
    return DECK_SUFFIXES.get(Path(rel).suffix.lower())


def deck_kind(path: str | Path, rel: str) -> tuple[str | None, str | None]:
    """``(family, content)`` of a deck candidate: the kind family it is judged as
    (``pptx``/``html``/``pdf``), and the exact kind its content shows (None when the
    content is no recognisable deck, and the family is then the name's).

    Returns ``(None, None)`` for a file whose name is not deck-like.
    """
    claimed = name_family(rel)
    if claimed is None:
        return None, None
    # imported here: the sniffer's documents cost ~20 ms of start-up a run with no deck row never needs
    from cowork_judge.evidence.sniff import content_kind

    content = content_kind(path)
    return (CONTENT_FAMILY[content] if content else claimed), content


def misnamed(rel: str, family: str) -> str:
    """`` (HTML content named .pptx)`` when the name claims another family, else ``""``."""
    claimed = name_family(rel)
    if claimed is None or claimed == family:
        return ""
    return f" ({FAMILY_LABEL[family]} content named {Path(rel).suffix.lower()})"


def locate_deck(
    ctx: CodeContext,
    prefer: list[str] | None = None,
    allow_multiple: bool = False,
    expect_name: str | None = None,
    require_expect_name: bool = False,
    exclude: list[str] | None = None,
    sources: list[str] | None = None,
) -> tuple[bool, str, dict[str, Any]]:
    """Find exactly one deck among the deliverables, by kind preference.

    Candidates are deliverables with a deck-like name (`DECK_SUFFIXES`); each is judged
    as the kind its content shows (`deck_kind`), so ``deck.pptx`` holding HTML is an
    ``html`` deck and is not taken when only ``pptx`` is preferred. A candidate that is no
    document at all beside a real deck is set aside, not counted (`_set_aside_non_documents`).

    Args:
        prefer: kind order, default ``["pptx", "html", "pdf"]``; kinds not listed are
            never the deck.
        allow_multiple: several decks of the preferred kind ⇒ take the first (sorted by
            path) instead of failing.
        expect_name: file name the task asked for (e.g. ``slides.pptx``): wins ties. Compared in
            Unicode NFC (`globs.same_name`): a name saved decomposed (macOS) is that name.
        require_expect_name: the deck MUST have `expect_name`.
        exclude: output-relative globs that are never the deck.
        sources: app-dir-relative globs of files the task gave the agent (default: the
            `SOURCE_DIRS` folders); a deliverable with the same bytes is not the deck.

    Returns:
        ``(hit, reason, artifacts)``; artifacts ``{deck_path, deck_kind, deck_rel}`` on a
        hit, ``deck_kind`` being the content's family.

    Raises:
        TypeError: a parameter of the wrong type (the row is then ``code_error``).
        ValueError: an `exclude` or `sources` glob that can name no file (`locate_param_errors`).
        ReadLimit: a deliverable with a deck-like name lies past the listing limit, or
            the scan stopped early: an unlisted file could be the deck or make the choice
            ambiguous (the runner judges the row against the deliverable).
    """
    order = prefer_order(_str_list(prefer, "prefer") or ["pptx", "html", "pdf"])
    excluded = [globs.output_relative(g) for g in _str_list(exclude, "exclude")]
    source_globs = [globs.app_relative(g) for g in _str_list(sources, "sources")] or [f"{d}/**/*" for d in SOURCE_DIRS]
    decks = _candidates(ctx, order, excluded, source_globs, expect_name)
    if require_expect_name and expect_name:
        named = [i for k in order for i in decks.by_kind.get(k, []) if globs.same_name(Path(i.rel).name, expect_name)]
        if len(named) != 1:
            listed = ", ".join(i.rel for k in order for i in decks.by_kind.get(k, [])) or "none"
            return False, f"the deck must be named {expect_name!r}; found {listed}{decks.note}", {}
        return decks.found(named[0], "")
    for kind in order:
        group = sorted(decks.by_kind.get(kind, []), key=lambda i: i.rel)
        if not group:
            continue
        if len(group) == 1:
            return decks.found(group[0], "")
        if expect_name:
            named = [i for i in group if globs.same_name(Path(i.rel).name, expect_name)]
            if len(named) == 1:
                return decks.found(named[0], f", the expected name among {len(group)} {kind} files")
        listing = ", ".join(i.rel for i in group)
        if allow_multiple:
            return decks.found(group[0], f", first of {len(group)} {kind} files: {listing}")
        return False, f"ambiguous: {len(group)} {kind} decks ({listing}); exactly one is required{decks.note}", {}
    empty = set_aside_note(ctx, lambda rel: name_family(rel) in order and not any(globs.matches(g, rel) for g in excluded))
    return False, f"no deck among the deliverables (looked for {', '.join(order)}){decks.note}{empty}{_not_candidates(ctx)}", {}


def _not_candidates(ctx: CodeContext) -> str:
    """``"; deck.odp is not a deck candidate (…)"`` for the deliverables named as another
    presentation format (`OTHER_PRESENTATIONS`), for `locate_deck`'s miss; else ``""``."""
    found = [f"{item.rel} ({suffix}: {OTHER_PRESENTATIONS[suffix]})" for item in ctx.delivery.files
             if (suffix := Path(item.rel).suffix.lower()) in OTHER_PRESENTATIONS]
    if not found:
        return ""
    shown = ", ".join(found[:3]) + (f" … ({len(found)} in all)" if len(found) > 3 else "")
    return (f"; {shown} {'is' if len(found) == 1 else 'are'} not a deck candidate: only a file named "
            f"{', '.join(DECK_SUFFIXES)} is one (its content then gives its kind)")


@dataclass
class _Candidates:
    """The deck candidates of one `locate_deck`: each deliverable's kind family by path
    (`kinds`), the candidates of a preferred kind grouped by it (`by_kind`, task-given
    sources left out), and the `note` every reason ends with (sources ignored, files whose
    content is another kind than their name's)."""

    kinds: dict[str, str]
    by_kind: dict[str, list[DeliveredFile]]
    note: str

    def found(self, item: DeliveredFile, why: str) -> tuple[bool, str, dict[str, Any]]:
        """`locate_deck`'s hit on `item`, `why` said after its name."""
        family = self.kinds[item.path]
        art = LocatedDeck(path=item.path, rel=item.rel, kind=family).as_artifacts()
        return True, f"deck is {item.rel}{misnamed(item.rel, family) or f' ({family})'}{why}{self.note}", art


def _candidates(ctx: CodeContext, order: list[str], excluded: list[str], source_globs: list[str],
                expect_name: str | None = None) -> _Candidates:
    """The deliverables that may be the deck: a deck-like name not `excluded`, a content
    kind in `order`, and not byte-identical to a file of `source_globs`; names that are
    links to one file inside the delivery are one candidate (`_one_per_file`).

    Raises:
        ReadLimit: a deck-like deliverable lies past the listing limit, or the scan stopped
            early (see `locate_deck`).
    """
    def offered(rel: str) -> bool:
        return name_family(rel) is not None and not any(globs.matches(g, rel) for g in excluded)

    hidden = [item.rel for item in ctx.delivery.unlisted if offered(item.rel)]
    if hidden:
        raise ReadLimit(f"{len(hidden)} deck-like deliverable(s) past the listing limit were not looked at "
                        f"({', '.join(hidden[:3])}…): the deck cannot be located reliably", limit=listing_limit(ctx.delivery))
    if ctx.delivery.scan_cut:
        raise ReadLimit("the scan of the deliverables stopped early: the deck cannot be located reliably", limit=scan_limit(ctx.delivery))
    # by path: lenient delivery can show two files under one name (output/ and the app root)
    # an offered name is deck-like, so its family is never None (`deck_kind`)
    sniffed = {item.path: deck_kind(item.path, item.rel) for item in ctx.delivery.files if offered(item.rel)}
    kinds = {path: family for path, (family, _) in sniffed.items() if family is not None}
    candidates = [item for item in ctx.delivery.files if kinds.get(item.path) in order]
    other = [f"{item.rel} is {kinds[item.path]} by its content" for item in ctx.delivery.files
             if item.path in kinds and kinds[item.path] not in order and kinds[item.path] != name_family(item.rel)]
    given = _source_digests(ctx, source_globs, {item.size_bytes for item in candidates})
    by_kind: dict[str, list[DeliveredFile]] = {}
    skipped_sources: list[str] = []
    for item in candidates:
        if given and file_sha256(Path(item.path)) in given:
            skipped_sources.append(item.rel)
            continue
        by_kind.setdefault(kinds[item.path], []).append(item)
    aliases: list[str] = []
    by_kind = {kind: _one_per_file(group, expect_name, aliases) for kind, group in by_kind.items()}
    aside = _set_aside_non_documents(by_kind, {path: content for path, (_, content) in sniffed.items()})
    note = f" (ignored task-given source file(s): {', '.join(skipped_sources)})" if skipped_sources else ""
    note += "".join(f"; {said}" for said in other + aliases + aside)
    return _Candidates(kinds, by_kind, note)


def _set_aside_non_documents(by_kind: dict[str, list[DeliveredFile]], contents: Mapping[str, str | None]) -> list[str]:
    """Drop from `by_kind` (in place) the candidates whose content is no document at all
    (`evidence.sniff.no_document`: not a zip, OLE2, PDF or HTML file — the ~165-byte owner file
    ``~$deck.pptx`` PowerPoint writes beside a deck it has open, a text note named ``.pptx``)
    when some candidate is a real deck by its content (`contents`, path → content kind):
    such a file is no second deck (trial 14, F1: it made the deck ambiguous, reward 0).
    Returns what a reason says of each dropped file (``"~$deck.pptx set aside, not a second
    deck: no document by its content (165 bytes, …)"``).

    A lone candidate is never dropped (a corrupt deck alone is the deck, which the open
    check calls broken), nor one that is a document (a truncated zip, an OpenDocument or
    encrypted file): beside a real deck it still makes the choice ambiguous.
    """
    members = [item for group in by_kind.values() for item in group]
    if len(members) < 2 or not any(contents.get(item.path) for item in members):
        return []
    from cowork_judge.evidence.sniff import no_document

    said: list[str] = []
    for kind, group in by_kind.items():
        why = {item.path: no_document(item.path) for item in group if not contents.get(item.path)}
        said.extend(f"{item.rel} set aside, not a second deck: {why[item.path]}" for item in group if why.get(item.path))
        by_kind[kind] = [item for item in group if not why.get(item.path)]
    return said


def _one_per_file(group: list[DeliveredFile], expect_name: str | None, aliases: list[str]) -> list[DeliveredFile]:
    """`group` with the names that reach one real file kept once (trial 5, F3: ``deck.pptx ->
    src/real.pptx`` is one deck, not two). The name kept is the task's `expect_name` if one
    of them has it, else the one that is not a link; each dropped alias is said in `aliases`
    (``"deck.pptx is a link to src/real.pptx: one deck"``). Byte-identical files are then kept
    once too (`_one_per_content`)."""
    by_file: dict[str, list[DeliveredFile]] = {}
    for item in group:
        by_file.setdefault(os.path.realpath(item.path), []).append(item)
    kept: list[DeliveredFile] = []
    for names in by_file.values():
        best = min(names, key=lambda i: (Path(i.rel).name != expect_name, os.path.islink(i.path), i.rel))
        kept.append(best)
        aliases.extend(f"{other.rel} is a link to {best.rel}: one deck" if os.path.islink(other.path)
                       else f"{other.rel} and {best.rel} are one file: one deck" for other in names if other is not best)
    return _one_per_content(kept, expect_name, aliases)


_SOURCE_RANK = {"output": 0, "app_root": 1, "alt_output": 2}
"""Which copy of one deck is kept: the output folder's, then the app root's, then the alternate
output folder's (the order delivery scans them in)."""
_SOURCE_SAID = {"output": "", "app_root": " at the app root", "alt_output": " in the alternate output folder"}


def _one_per_content(group: list[DeliveredFile], expect_name: str | None, aliases: list[str]) -> list[DeliveredFile]:
    """`group` with byte-identical files (same size and SHA-256) kept once (trial 14, F16: under
    lenient delivery a copy of ``output/deck.pptx`` left at ``/app`` made the deck ambiguous,
    reward 0). The copy kept is the task's `expect_name` if one has it, else the first of
    output/, the app root, the alternate output folder (`_SOURCE_RANK`), then by name; each
    dropped copy is said in `aliases` (``"deck.pptx at the app root is a byte-identical copy of
    deck.pptx: one deck"``). Only files whose size another one shares are read."""
    sizes: dict[int, int] = {}
    for item in group:
        sizes[item.size_bytes] = sizes.get(item.size_bytes, 0) + 1
    by_content: dict[tuple[int, str], list[DeliveredFile]] = {}
    for n, item in enumerate(group):
        key = (item.size_bytes, (_digest(item.path) if sizes[item.size_bytes] > 1 else None) or f"#{n}")
        by_content.setdefault(key, []).append(item)
    kept: list[DeliveredFile] = []
    for copies in by_content.values():
        best = min(copies, key=lambda i: (Path(i.rel).name != expect_name, _SOURCE_RANK[i.source], i.rel))
        kept.append(best)
        aliases.extend(f"{other.rel}{_SOURCE_SAID[other.source]} is a byte-identical copy of "
                       f"{best.rel}{_SOURCE_SAID[best.source]}: one deck" for other in copies if other is not best)
    return kept


def _digest(path: str) -> str | None:
    """SHA-256 of a candidate's bytes, None when it cannot be read (it then stays a deck of its own)."""
    try:
        return file_sha256(Path(path))
    except OSError:
        return None


def _str_list(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be a list of strings, got {value!r}")
    return value


def _source_digests(ctx: CodeContext, source_globs: list[str], sizes: set[int]) -> set[str]:
    """SHA-256 of task-given files (regular files matching `source_globs` under the app
    dir, outside ``output/``) whose size equals some candidate's: only those can be
    byte-identical, so nothing else is read."""
    app, out = ctx.paths.app_dir, ctx.paths.output_dir
    digests: set[str] = set()
    if not app.is_dir() or not sizes:
        return digests
    seen = 0
    for dirpath, dirnames, filenames in os.walk(app):
        current = Path(dirpath)
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and current / d != out]
        for name in filenames:
            path = current / name
            rel = path.relative_to(app).as_posix()
            if not any(globs.matches(g, rel) for g in source_globs):
                continue
            seen += 1
            if seen > SOURCE_SCAN_MAX_FILES:
                return digests
            try:
                st = path.lstat()
                if stat.S_ISREG(st.st_mode) and st.st_size in sizes:
                    digests.add(file_sha256(path))
            except OSError:
                continue
    return digests


DECK_FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(KIND_FAMILY.values()))
"""The kinds `locate_deck` ``prefer`` names: a deck's kind FAMILY (``pptx`` covers every PowerPoint format, ``.ppt``
and ``.pptm`` included), in `evidence.kinds.KIND_FAMILY` order."""


def locate_param_errors(params: dict[str, Any]) -> list[str]:
    """What `locate_deck` refuses (the types being right): an `exclude` glob that can name no deliverable
    (`globs.output_relative`), a `sources` glob that can name no file of the app dir (`globs.app_relative`), a
    ``prefer`` kind that is no deck family (`prefer_errors`), ``require_expect_name`` without ``expect_name`` (it
    would be ignored). For `lint-rubric` (M002) and the runner (``code_params``)."""
    errors = []
    for name, read in (("exclude", globs.output_relative), ("sources", globs.app_relative)):
        for pattern in params.get(name) or []:
            try:
                read(pattern)
            except ValueError as exc:
                errors.append(f"parameter {name!r}: {exc}")
    errors += prefer_errors(params.get("prefer"))
    if params.get("require_expect_name") is True and not (params.get("expect_name") or "").strip():
        errors.append("'require_expect_name' is true but no 'expect_name' is given, so it would be ignored: write the "
                      "file name the task asks for in 'expect_name' (e.g. \"slides.pptx\"), or drop 'require_expect_name'")
    return errors


def prefer_order(prefer: list[str]) -> list[str]:
    """`locate_deck`'s ``prefer`` list as deck families, in order, each once: a PowerPoint format (``"ppt"``,
    ``".pptm"``, ``"PPSX"``) is the ``pptx`` family it belongs to (`evidence.kinds.KIND_FAMILY`), so
    ``["pptx", "ppt"]`` and ``["ppt"]`` locate a ``.ppt`` deck as the author meant; a kind that is no deck kind
    (refused beforehand by `prefer_errors`) is kept as written and matches nothing."""
    families = [KIND_FAMILY.get(k.lower().lstrip("."), k.lower()) for k in prefer]
    return list(dict.fromkeys(families))


def prefer_errors(prefer: Any) -> list[str]:
    """The kinds of a `locate_deck` ``prefer`` list that are no deck kind at all (``"docx"``; case-insensitive, a
    leading dot allowed): such a kind never locates a deck, the same on every rollout. A PowerPoint format other than
    ``pptx`` (``"ppt"``, ``"pptm"``) is no error: `prefer_order` reads it as its family."""
    if not isinstance(prefer, list):
        return []
    wrong = [k for k in prefer if isinstance(k, str) and k.lower().lstrip(".") not in KIND_FAMILY]
    if not wrong:
        return []
    return [f"parameter 'prefer': {', '.join(map(repr, wrong))} {'is' if len(wrong) == 1 else 'are'} not a kind it takes, so "
            f"it never locates a deck (a deck's kind is {', '.join(map(repr, DECK_FAMILIES))}; every PowerPoint format "
            "is 'pptx')"]


def path_param_errors(params: dict[str, Any]) -> list[str]:
    """What a deck check refuses in its `path` at run time (the type being right): a path
    that can name no deliverable (`globs.output_relative`: ``..``, ``output/…``, ``/app/…``
    outside ``/app/output``). For `lint-rubric` (M002) and the runner."""
    path = params.get("path")
    if not isinstance(path, str):
        return []
    try:
        globs.output_relative(path, "path")
    except ValueError as exc:
        return [f"parameter 'path': {exc}"]
    return []


def page_param_errors(params: dict[str, Any]) -> list[str]:
    """What `page_count_between` refuses (the types being right; `params` over its defaults): a `path` that
    can name no deliverable (`path_param_errors`), a ``min_pages`` below 0 or above ``max_pages``
    (`files.range_errors`; ``max_pages: 0`` alone is below the default ``min_pages`` 1). For `lint-rubric`
    (M002) and the runner (``code_params``)."""
    return path_param_errors(params) + range_errors("pages", params)


@dataclass(frozen=True)
class DeckChoice:
    """The deck a deck check looks at (`the_deck`).

    Attributes:
        path: the deck file, None when there is none (`shown` then says why).
        shown: its output-relative name as a reason shows it, or why there is no deck.
        note: what a reason adds after the check's own words (``""``, or that the check
            located the deck itself because the rubric has no ``locate_deck`` row).
        artifacts: the deck as the check located it (``deck_path``…), returned by the check so
            the later rows and segments judge the same file; empty when it was given.
    """

    path: Path | None
    shown: str
    note: str = ""
    artifacts: dict[str, Any] = field(default_factory=dict)


BY_DEFAULT = ("located by this check: the rubric has no locate_deck row (so locate_deck's defaults: exactly one deck, "
              "pptx before html before pdf)")
"""Said in a deck check's reason when it located the deck itself (trial 6, F12)."""


def the_deck(ctx: CodeContext, path: str | None) -> DeckChoice:
    """The deck a check looks at: `path` (an output-relative name of a DELIVERABLE, read as
    `globs.output_relative` reads it), else the located one; else, when the rubric has no
    ``locate_deck`` row (``ctx.deck_locators`` empty), the deck `locate_deck` with its
    defaults locates (one deck: pptx, else html, else pdf; trial 6, F12: without it every
    deck check missed). A rubric WITH a locate_deck row that located none gets no deck.

    Raises:
        TypeError: `path` is not a string.
        ValueError: `path` can name no deliverable (`path_param_errors`).
        ReadLimit: `path` names a deliverable past the listing limit (never opened), or the
            default location met a listing or scan limit (see `locate_deck`).
    """
    if path is not None:
        if not isinstance(path, str):
            raise TypeError(f"path must be a string, got {type(path).__name__}")
        rel = globs.output_relative(path, "path")
        item = next((f for f in ctx.delivery.files if globs.same_name(f.rel, rel)), None)
        if item is not None:
            return DeckChoice(Path(item.path), item.rel)
        if any(globs.same_name(f.rel, rel) for f in ctx.delivery.unlisted):
            raise ReadLimit(f"{path!r} lies past the listing limit and was not opened", limit=listing_limit(ctx.delivery))
        return DeckChoice(None, f"{path!r} is not a deliverable")
    if ctx.deck is not None:
        return DeckChoice(Path(ctx.deck.path), ctx.deck.shown)
    if ctx.deck_locators:
        rows = ", ".join(ctx.deck_locators)
        return DeckChoice(None, f"no deck was located (the locate_deck row {rows} located none before this row; "
                                "or give `path`)")
    hit, reason, artifacts = locate_deck(ctx)
    located = LocatedDeck.from_artifacts(artifacts)
    if not hit or located is None:
        return DeckChoice(None, f"no deck was located: {reason} ({BY_DEFAULT})")
    return DeckChoice(Path(located.path), located.shown, f" [{BY_DEFAULT}]", artifacts)
