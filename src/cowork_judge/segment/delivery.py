"""The typed delivery every segment reads: what the agent handed in (deliverable files, its
final chat message) and what the judge's read limits left unread.

Collected once by the run (`run.collect.collect_delivery`: strict or lenient delivery,
symlinks, the final message, the read limits) and handed to the segments in their context
(`segment.segment_context.SegmentContext.delivery`); the segments only read it. File names
(``rel``) are shown text: control characters escaped, undecodable bytes replaced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from cowork_judge.segment.trajectory import ParsedTrajectory


DECK_ARTIFACT_KEYS = ("deck_path", "deck_kind", "deck_rel")
"""The located deck's keys in the code methods' artifacts mapping and in ``evidence/artifacts.json``
(the workflow contract's ``artifacts``, ABI 2): written and read only by `LocatedDeck`."""


@dataclass(frozen=True)
class LocatedDeck:
    """The deck the code rows located (``locate_deck``): the deck every later row and segment judges.

    Attributes:
        path: the deck's absolute path (a deliverable's `DeliveredFile.path`).
        rel: its output-relative name as shown (`DeliveredFile.rel`); None only when an older
            artifacts mapping named no ``deck_rel``.
        kind: its family by content (``pptx``, ``pdf``, ``html``…; `evidence.kinds`); None when not named.
    """

    path: str
    rel: str | None = None
    kind: str | None = None

    @property
    def shown(self) -> str:
        """The name a reason shows: `rel`, else `path`."""
        return self.rel or self.path

    def as_artifacts(self) -> dict[str, str]:
        """The deck as the artifacts mapping names it (``deck_path``, ``deck_kind``, ``deck_rel``; a
        field that is None is left out)."""
        return {k: v for k, v in zip(DECK_ARTIFACT_KEYS, (self.path, self.kind, self.rel), strict=True) if v is not None}

    @classmethod
    def from_artifacts(cls, artifacts: Mapping[str, Any]) -> LocatedDeck | None:
        """The deck an artifacts mapping names (its ``deck_path``), or None when it names none."""
        path = artifacts.get("deck_path")
        if not path:
            return None
        rel, kind = artifacts.get("deck_rel"), artifacts.get("deck_kind")
        return cls(path=str(path), rel=str(rel) if rel else None, kind=str(kind) if kind else None)


def without_deck(artifacts: Mapping[str, Any]) -> dict[str, Any]:
    """`artifacts` without the located deck's keys (they travel as a `LocatedDeck`)."""
    return {k: v for k, v in artifacts.items() if k not in DECK_ARTIFACT_KEYS}


class DeliveredFile(BaseModel):
    """A deliverable: `rel` is relative to the dir it was found in."""

    rel: str
    path: str
    size_bytes: int
    source: Literal["output", "app_root", "alt_output"]


class SkippedFile(BaseModel):
    """A file that is not scored, and why."""

    rel: str
    path: str
    size_bytes: int
    reason: Literal["outside_scored_set", "symlink_escape", "dangling_link", "hidden", "empty", "not_regular",
                    "listing_limit", "unreadable"]
    """Why: ``symlink_escape`` = a symbolic link whose target leaves the folder it was found in (for output/:
    elsewhere in the app dir or outside it), never followed; ``dangling_link`` = a symbolic link to nothing that
    exists (or a loop); ``listing_limit`` = a deliverable past the listing limit (`Delivery.listing_limit`: seen,
    not listed)."""
    scored: bool = False
    """Found where deliverables are looked for (output/; also the app root and the alt output dir under lenient
    delivery): the files the run names in its warnings (`run.collect.set_aside_notes`)."""
    link_target: str | None = None
    """For ``symlink_escape``: the link's resolved target; for ``dangling_link``: what the link says
    (``readlink``); shown text, like `rel`. None otherwise."""


class Delivery(BaseModel):
    """What the agent handed in."""

    files: list[DeliveredFile] = Field(default_factory=list)
    stray: list[SkippedFile] = Field(default_factory=list, description="Not scored; copied for inspection.")
    ignored: list[SkippedFile] = Field(default_factory=list, description="Hidden, empty or special files.")
    final_message: str | None = None
    final_message_source: str | None = None
    final_message_cut: str | None = Field(
        None, exclude=True, description="What of the final message was not read (its source was over the read limit, "
                                         "`run.answer.MAX_MESSAGE_BYTES`): the text rows over the response treat a miss "
                                         "as a read limit. None: all of it was read. Never dumped.")
    final_message_binary: list[str] = Field(
        default_factory=list, exclude=True, description="Final-message files passed over as binary, not text (a NUL "
                                                        "byte in the first 8 KiB, no UTF-16/32 mark: trial 12 F4), "
                                                        "named in a text row's reason over the response. Never dumped.")
    from_chat: bool = False
    missing: bool = False
    unreadable: list[str] = Field(
        default_factory=list, description="Final-message sources that exist but could not be read or parsed."
    )
    notes: list[str] = Field(default_factory=list)
    trajectory: ParsedTrajectory | None = Field(
        None, exclude=True, description="The agent's ATIF trajectory, parsed once by the run (`segment.trajectory`); None "
                                        "when the agent logs hold none or it cannot be read. Never dumped.")
    entries_scanned: int = Field(0, description="Directory entries examined over all roots.")
    scan_cut: bool = Field(False, description="The scan stopped at `scan_limit` entries: more files may exist.")
    listing_limit: int = Field(0, ge=0, description="Deliverables listed at most by the collection (`run.collect.MAX_FILES` "
                                                    "when it ran); 0 = not recorded.")
    scan_limit: int = Field(0, ge=0, description="Directory entries examined at most by the collection "
                                                 "(`run.collect.MAX_SCAN_ENTRIES` when it ran); 0 = not recorded.")

    @property
    def unlisted(self) -> list[SkippedFile]:
        """Deliverables past the listing limit: seen (name, size), never listed or opened."""
        return [s for s in self.ignored if s.reason == "listing_limit"]

    def unread_note(self, source: str) -> str:
        """The note that says why the final-message source `source` (a name in `unreadable`, e.g.
        ``"trajectory.json"``) could not be read: the first note that starts with its name (``"trajectory.json is
        not valid ATIF: …"``), else ``"<source> could not be read"``."""
        return next((n for n in self.notes if n.startswith(source)), f"{source} could not be read")

    def message_unread(self) -> str | None:
        """Why there is no final message when one exists but could not be read: ``"the final message could not be
        read: <note>[; <note>]"`` (each `unread_note` of `unreadable`); None when a final message was read, or no
        source of one was unreadable (then there is none: nothing given). A row over the message is then unjudged
        ``delivery_unreadable``, never a miss for "no final message was given"."""
        if self.final_message or not self.unreadable:
            return None
        return "the final message could not be read: " + "; ".join(self.unread_note(u) for u in self.unreadable)


def workspace_rel(item: DeliveredFile, files: Sequence[DeliveredFile]) -> str:
    """Where a deliverable appears inside every block workspace (POSIX, relative).

    ``output/<rel>``; a lenient-delivery file whose name collides with a file from the
    output dir goes to ``output/<source>/<rel>`` instead.
    """
    if item.source != "output" and any(f.source == "output" and f.rel == item.rel for f in files):
        return f"output/{item.source}/{item.rel}"
    return f"output/{item.rel}"
