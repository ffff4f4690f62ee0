"""Delivery: what the agent handed in (deliverable files and its final chat message).

Deliverables are non-empty regular files under the output dir (strict, default);
lenient delivery also takes files at the app root and the alternate output dir. Hidden
and empty files are ignored; symlinks that resolve outside the scored tree are never
followed. A link out of the tree, a link to nothing and an empty file where deliverables
are looked for are named in ``notes`` (`set_aside_notes`), and when they were all there was,
in the rows' reason (`no_delivery_reason`: trial 7 F1, where it said "no output files"). The final message comes from JUDGE_RESPONSE_FILE, the ATIF trajectory, or a
plain answer file (SPEC §6). Reading never raises for bad agent output, and every
string read from the agent (file names, the final message) is valid UTF-8-encodable
text (`cowork_judge.safety.agent_text`).

Read limits are the deliverable's doing: past `MAX_FILES` deliverables the rest are
not listed (their names and sizes are kept in ``ignored`` as ``listing_limit``, so a
code method can tell whether they matter), and past `MAX_SCAN_ENTRIES` entries the scan
stops (``scan_cut``). Both are recorded in ``notes``, which the run copies into the
result's warnings.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from cowork_judge.safety.agent_text import repair
from cowork_judge.core.fold import NO_DELIVERY_REASON as NO_DELIVERY_REASON  # the reason when output/ held nothing
from cowork_judge.core.result import DeliveryDetails
from cowork_judge.run.answer import (  # noqa: F401 - re-exported: delivery is where callers look
    ANSWER_FILES,
    MAX_MESSAGE_BYTES,
    MAX_TRAJECTORY_BYTES,
    UnreadableMessage,
    agent_logs,
    atif_final_message,
    final_message,
)
from cowork_judge.config.judge_config import JudgeConfig
from cowork_judge.run.paths import RunPaths
from cowork_judge.segment.delivery import DeliveredFile, Delivery, SkippedFile

MAX_FILES = 5000
"""Deliverables listed at most (linked into workspaces, opened by code methods); beyond
this the listing is cut and says so. Our choice (0.1.0): far above any office
deliverable set, small enough to hard-link into every block workspace."""
MAX_SCAN_ENTRIES = 50_000
"""Directory entries examined at most over all scanned roots (each costs one lstat); the
scan stops past it and says so. Our choice: 10× `MAX_FILES`. Measured: 60,000 files in
output/ are collected in 3.2 s on the shared dev machine (load ~5), so a flood of a
million files cannot eat the run's deadline (0.1.0 walked and listed all of them)."""
MAX_DETAIL_ENTRIES = 100
"""Stray and ignored files named one by one in ``details.delivery`` (the rest are
counted): a flood of files must not become a flood of result document."""
STRAY_COPY_FILE_BYTES = 10 * 1024 * 1024
"""Largest stray file copied to ``stray_not_scored/`` (bytes)."""
STRAY_COPY_TOTAL_BYTES = 50 * 1024 * 1024
"""Total bytes copied to ``stray_not_scored/`` per run."""


def delivery_details(delivery: Delivery) -> DeliveryDetails:
    """The ``details.delivery`` block of the result document of `delivery` (names relative to where
    each file was found; stray and ignored files past `MAX_DETAIL_ENTRIES` counted in
    one closing entry)."""
    return DeliveryDetails(
        files=[f.rel for f in delivery.files],
        missing=delivery.missing,
        from_chat=delivery.from_chat,
        stray=_capped([f"{s.rel} ({s.reason})" for s in delivery.stray]),
        ignored=_capped([f"{s.rel} ({s.reason})" for s in delivery.ignored]),
        final_message_source=delivery.final_message_source,
    )


def _capped(entries: list[str]) -> list[str]:
    if len(entries) <= MAX_DETAIL_ENTRIES:
        return entries
    return [*entries[:MAX_DETAIL_ENTRIES], f"... and {len(entries) - MAX_DETAIL_ENTRIES} more not named here"]


def collect_delivery(paths: RunPaths, config: JudgeConfig) -> Delivery:
    """Collect deliverables, stray files and the final message of one rollout.

    ``missing`` is true when there is nothing to judge: no files and (no final message or
    chat fallback off). ``from_chat`` is true when no files but a message is judged.
    ``unreadable`` lists message sources that exist but could not be read: the caller
    must not score "nothing delivered" on top of an unread answer.

    File names are shown (``rel``) with control characters escaped and undecodable bytes
    replaced, so a name can neither break a prompt line nor a UTF-8 document.
    """
    delivery = Delivery(listing_limit=MAX_FILES, scan_limit=MAX_SCAN_ENTRIES)
    if _followable(paths.output_dir, paths.app_dir, delivery):
        _scan(paths.output_dir, "output", delivery, scored=True)
    app_root_scored = config.lenient_delivery
    _scan(paths.app_dir, "app_root", delivery, scored=app_root_scored, top_level_only=True, skip={"output"})
    if _real(paths.alt_output_dir) != _real(paths.output_dir) and _followable(paths.alt_output_dir, paths.app_dir, delivery):
        _scan(paths.alt_output_dir, "alt_output", delivery, scored=config.lenient_delivery)
    logs = agent_logs(paths, config)
    message = logs.message
    delivery.final_message, delivery.final_message_source, delivery.trajectory = message, logs.source, logs.trajectory
    delivery.final_message_cut, delivery.final_message_binary = logs.cut, list(logs.binary)
    delivery.notes.extend(logs.notes)
    delivery.unreadable.extend(logs.unreadable)
    _drop_duplicates(delivery)
    _unique_names(delivery)
    cut = len(delivery.unlisted)
    if cut:
        delivery.notes.append(f"{cut} deliverable(s) past the first {MAX_FILES} were not listed (read limit: names and "
                              "sizes seen, contents never read or shown to a judge): a code row whose answer they hide "
                              "is judged against the deliverable")
    if delivery.scan_cut:
        delivery.notes.append(f"the scan of the deliverables stopped after {MAX_SCAN_ENTRIES} entries (read limit): "
                              "files past it were not seen; a code row whose answer they could hide is judged against "
                              "the deliverable")
    delivery.notes.extend(set_aside_notes(delivery, paths))
    if not delivery.files:
        if message and config.chat_fallback:
            delivery.from_chat = True
        else:
            delivery.missing = True
    return delivery


DELIVERABLE_SUFFIXES = frozenset({".odp", ".key", ".pdf", ".docx", ".doc", ".odt", ".xlsx", ".xls",
                                  ".ods", ".md", ".html", ".htm", ".csv", ".txt", ".png", ".jpg", ".jpeg", ".svg"})
"""Suffixes of the files `no_output_folder_notes` takes for deliverables left at the app dir's top, besides the
deck suffixes its caller passes (`evidence.kinds.DECK_SUFFIXES`, their one home; this room does not import it)."""


def no_output_folder_notes(delivery: Delivery, paths: RunPaths, deck_suffixes: Iterable[str] = ()) -> list[str]:
    """The warning of a run that scored no file because the app dir has no output folder at all while
    deliverable-looking files (`DELIVERABLE_SUFFIXES`) sit at its top (trial 19 P-3: ``--app-dir`` given the
    deck's own folder, not its parent): a line naming the folder, the files (at most `MAX_SET_ASIDE_NAMED`)
    and the layout (``--app-dir /app``, deliverables in ``/app/output``). Empty otherwise. The run is still
    "nothing delivered": an agent that saved its work outside output/ delivered nothing."""
    if os.path.lexists(paths.output_dir):
        return []
    top = [s.rel for s in delivery.stray if s.reason == "outside_scored_set" and Path(s.path).parent == paths.app_dir
           and Path(s.rel).suffix.lower() in DELIVERABLE_SUFFIXES | frozenset(deck_suffixes)]
    if not top:
        return []
    shown = ", ".join(top[:MAX_SET_ASIDE_NAMED]) + (f" and {len(top) - MAX_SET_ASIDE_NAMED} more" if len(top) > MAX_SET_ASIDE_NAMED else "")
    app = paths.app_dir
    hint = (f"did you mean --app-dir {app.parent} (the folder that holds {app.name}/)?" if app.name == paths.output_dir.name
            else f"did you mean the folder that holds the deliverables' output/, or to put these files in {paths.output_dir}/?")
    return [f"the app dir {app} (--app-dir / JUDGE_APP_DIR) has no {paths.output_dir.name}/ folder, so nothing in it was "
            f"judged, but it holds {len(top)} file(s) at its top that look like deliverables ({shown}): {hint} The judge "
            f"reads only {paths.output_dir} (the layout is --app-dir /app, deliverables in /app/output)"]


def _real(path: Path) -> Path | None:
    """The real path, or None for a dangling or looping symlink (``output -> output``)."""
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None


def _followable(root: Path, app_dir: Path, delivery: Delivery) -> bool:
    """False (with a note) when the folder `root` is itself a symlink to a place outside
    the app dir: ``output -> /etc`` must not make ``/etc`` the deliverables (SPEC §22)."""
    if not root.is_symlink():
        return True
    try:
        real, base = root.resolve(strict=True), app_dir.resolve(strict=True)
    except (OSError, RuntimeError):
        delivery.notes.append(f"{root} is a dangling or looping symlink: nothing read from it")
        return False
    if _inside(real, base):
        return True
    delivery.notes.append(f"{root} is a symlink to {real}, outside the app dir: not followed, nothing delivered from it")
    return False


def _scan(
    root: Path,
    source: Literal["output", "app_root", "alt_output"],
    delivery: Delivery,
    *,
    scored: bool,
    top_level_only: bool = False,
    skip: set[str] | None = None,
) -> None:
    root_real = _real(root)
    if root_real is None or not root_real.is_dir():
        return

    def unreadable(err: OSError) -> None:
        where = Path(err.filename) if err.filename else root
        rel = where.relative_to(root).as_posix() if where != root and root in where.parents else "."
        delivery.ignored.append(SkippedFile(rel=display_name(rel), path=str(where), size_bytes=0, reason="unreadable"))

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unreadable):
        if not _count_entry(delivery, root, scored=scored):  # a folder costs a listing
            return
        current = Path(dirpath)
        entries = list(filenames)
        keep: list[str] = []
        for d in sorted(dirnames):
            if (current / d).is_symlink():
                entries.append(d)  # classified below (never descended into)
            elif d.startswith(".") and not top_level_only:
                hidden = current / d
                delivery.ignored.append(
                    SkippedFile(rel=display_name(hidden.relative_to(root).as_posix()), path=str(hidden), size_bytes=0, reason="hidden")
                )
            elif not (top_level_only or (skip and current == root and d in skip)):
                keep.append(d)
        dirnames[:] = keep
        for name in sorted(entries):
            if not _count_entry(delivery, root, scored=scored):
                return
            path = current / name
            _classify(path, path.relative_to(root).as_posix(), root_real, source, delivery, scored=scored)


def _count_entry(delivery: Delivery, root: Path, *, scored: bool) -> bool:
    """Count one examined entry; False (scan over) past `MAX_SCAN_ENTRIES`, which marks
    ``scan_cut`` when the root is scored and only leaves a note otherwise."""
    if delivery.entries_scanned >= MAX_SCAN_ENTRIES:
        if scored:
            delivery.scan_cut = True
        else:
            delivery.notes.append(f"the scan of {display_name(str(root))} (not scored) stopped at "
                                  f"{MAX_SCAN_ENTRIES} entries in all")
        return False
    delivery.entries_scanned += 1
    return True


def _classify(
    path: Path,
    rel: str,
    root_real: Path,
    source: Literal["output", "app_root", "alt_output"],
    delivery: Delivery,
    *,
    scored: bool,
) -> None:
    shown = display_name(rel)

    def skipped(reason: Any, size: int = 0, target: str | None = None) -> SkippedFile:
        return SkippedFile(rel=shown, path=str(path), size_bytes=size, reason=reason, scored=scored, link_target=target)

    if any(part.startswith(".") for part in Path(rel).parts):
        delivery.ignored.append(skipped("hidden"))
        return
    try:
        st = path.lstat()  # one stat for the common case; os.walk never descends into a link
        if stat.S_ISLNK(st.st_mode):
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError):  # a link to nothing, or a loop: named, never "no output files"
                delivery.ignored.append(skipped("dangling_link", target=_link_text(path)))
                return
            if not _inside(real, root_real):  # never followed (SPEC §6): a link could read /tests
                delivery.stray.append(skipped("symlink_escape", real.stat().st_size if real.is_file() else 0,
                                              target=display_name(str(real))))
                return
            st = real.stat()
        if not stat.S_ISREG(st.st_mode):
            delivery.ignored.append(skipped("not_regular"))
            return
        size = st.st_size
    except (OSError, RuntimeError):
        delivery.ignored.append(skipped("not_regular"))  # a vanished file, a target that cannot be stat'ed
        return
    if size == 0:
        delivery.ignored.append(skipped("empty"))
        return
    if not scored:
        delivery.stray.append(skipped("outside_scored_set", size))
        return
    if len(delivery.files) >= MAX_FILES:
        delivery.ignored.append(skipped("listing_limit", size))
        return
    delivery.files.append(DeliveredFile(rel=shown, path=str(path), size_bytes=size, source=source))


def _link_text(path: Path) -> str:
    """What the symbolic link `path` says (``readlink``), as shown text; ``?`` when it cannot be read."""
    try:
        return display_name(os.readlink(path))
    except OSError:
        return "?"


MAX_SET_ASIDE_NAMED = 5
"""Symbolic links set aside that the run's warnings name one line each (the rest are counted in one line;
``details.delivery`` lists them all, up to `MAX_DETAIL_ENTRIES`)."""


def set_aside_notes(delivery: Delivery, paths: RunPaths) -> list[str]:
    """The warnings about files where deliverables are looked for that were not read (trial 7 F1): a symbolic
    link leaving output/ (not followed: it could read /tests' ground truth), a link to nothing, a file of
    0 bytes. A line per link (at most `MAX_SET_ASIDE_NAMED`, then a count) saying where it points and
    why it was not read; one line for the empty files. Empty when there is none."""
    app_real = _real(paths.app_dir)
    links = [s for s in [*delivery.stray, *delivery.ignored] if s.scored and s.reason in ("symlink_escape", "dangling_link")]
    notes = []
    for item in links[:MAX_SET_ASIDE_NAMED]:
        name = _where_shown(item, paths)
        if item.reason == "dangling_link":
            notes.append(f"{name} is a symbolic link to {item.link_target}, which does not exist (a link to nothing, or "
                         "a loop): nothing read from it")
            continue
        target = Path(item.link_target or "")
        place = ("elsewhere in the app dir, out of output/" if app_real is not None and _inside(target, app_real)
                 else "outside the app dir")
        notes.append(f"{name} is a symbolic link to {item.link_target} ({place}): not followed, so it was not read or "
                     "scored (a deliverable is a regular file in output/, or a link that stays inside it)")
    if len(links) > MAX_SET_ASIDE_NAMED:
        notes.append(f"{len(links) - MAX_SET_ASIDE_NAMED} more symbolic link(s) where deliverables are looked for were "
                     "not followed (details.delivery names them)")
    empty = [_where_shown(s, paths) for s in delivery.ignored if s.scored and s.reason == "empty"]
    if len(empty) == 1:
        notes.append(f"{empty[0]} is empty (0 bytes): not a deliverable")
    elif empty:
        notes.append(f"{len(empty)} files are empty (0 bytes), not deliverables: {', '.join(empty[:MAX_SET_ASIDE_NAMED])}"
                     + (" …" if len(empty) > MAX_SET_ASIDE_NAMED else ""))
    return notes


def _where_shown(item: SkippedFile, paths: RunPaths) -> str:
    """``output/<rel>`` for a file found in output/, else its full path (shown text)."""
    return f"output/{item.rel}" if _inside(Path(item.path), paths.output_dir) else display_name(item.path)


_SET_ASIDE_SAYS = {"symlink_escape": "is a symbolic link out of output/ and was not read",
                   "dangling_link": "is a symbolic link to nothing that exists",
                   "empty": "is empty (0 bytes)"}


def no_delivery_reason(delivery: Delivery) -> str:
    """The reason every row of a run with nothing delivered gives (`engine.judge.nothing_delivered_verdicts`).

    `NO_DELIVERY_REASON` when output/ held nothing at all and there is no final message; else it says what was
    there and not read (trial 7 F1: "the only output file, answer.txt, is a symbolic link out of output/ and was
    not read", or "… deck.pptx, is empty (0 bytes)") and, when a final message exists, that the chat fallback is
    off. Always starts ``[no delivery]``."""
    kept = [s for s in [*delivery.ignored, *delivery.stray] if s.scored and s.reason in _SET_ASIDE_SAYS]
    kept.sort(key=lambda s: s.rel)
    message = ("the final message is not judged (JUDGE_CHAT_FALLBACK is off)" if delivery.final_message
               else "no final message either")
    if not kept:
        return NO_DELIVERY_REASON if not delivery.final_message else f"[no delivery] nothing was delivered (no output files; {message})"
    if len(kept) == 1:
        what = f"the only output file, {kept[0].rel}, {_SET_ASIDE_SAYS[kept[0].reason]}"
    else:
        named = "; ".join(f"{s.rel} {_SET_ASIDE_SAYS[s.reason]}" for s in kept[:3])
        what = f"none of the {len(kept)} output files was read ({named}{'; …' if len(kept) > 3 else ''})"
    return f"[no delivery] nothing was read: {what}; {message}"


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0080-\u009f\u2028\u2029]")


def display_name(rel: str) -> str:
    """A file name safe to show a judge and to write as UTF-8.

    Undecodable bytes (surrogate escapes) become U+FFFD, as does any other lone
    surrogate; control characters, including newlines that could forge a line of the
    prompt, become ``\\xNN`` escapes.
    """
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", repair(rel))


def _drop_duplicates(delivery: Delivery) -> None:
    """List a real file once across roots: lenient delivery with ``/output -> /app``
    reaches every file a second time, which would make one deck "ambiguous" and double a
    file count. Aliases inside one root (``slides.pptx -> drafts/v3.pptx``) are the
    agent's own layout and stay."""
    first_source: dict[str, str] = {}
    kept = []
    for item in delivery.files:
        real = os.path.realpath(item.path)
        if first_source.setdefault(real, item.source) == item.source:
            kept.append(item)
    if len(kept) < len(delivery.files):
        delivery.notes.append(f"{len(delivery.files) - len(kept)} file(s) reached twice (through a symlinked folder) "
                              "are listed once")
        delivery.files = kept


def _unique_names(delivery: Delivery) -> None:
    """Make shown names unique per source (two raw names can display alike)."""
    seen: set[tuple[str, str]] = set()
    for n, item in enumerate(delivery.files):
        name = item.rel
        k = 2
        while (item.source, name) in seen:
            stem, dot, ext = item.rel.rpartition(".")
            name = f"{stem}~{k}.{ext}" if dot and stem else f"{item.rel}~{k}"
            k += 1
        seen.add((item.source, name))
        if name != item.rel:
            delivery.files[n] = item.model_copy(update={"rel": name})


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def copy_stray(delivery: Delivery, stray_dir: Path) -> int:
    """Copy stray files (never symlink targets outside the tree) for inspection.

    Size-capped by `STRAY_COPY_FILE_BYTES` / `STRAY_COPY_TOTAL_BYTES`.

    Returns:
        Number of files copied.
    """
    copied = 0
    total = 0
    for item in delivery.stray:
        if item.reason != "outside_scored_set":
            continue
        if item.size_bytes > STRAY_COPY_FILE_BYTES or total + item.size_bytes > STRAY_COPY_TOTAL_BYTES:
            continue
        target = stray_dir / item.rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(item.path, target, follow_symlinks=False)
        except OSError:
            continue
        total += item.size_bytes
        copied += 1
    return copied
