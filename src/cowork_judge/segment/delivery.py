"""The typed delivery every segment reads: what the agent handed in (deliverable files, its
final chat message) and what the judge's read limits left unread.

Collected once by the run (`run.collect.collect_delivery`: strict or lenient delivery,
symlinks, the final message, the read limits) and handed to the segments in their context
(`segment.segment_context.SegmentContext.delivery`); the segments only read it. File names
(``rel``) are shown text: control characters escaped, undecodable bytes replaced.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


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
    reason: Literal["outside_scored_set", "symlink_escape", "hidden", "empty", "not_regular", "listing_limit", "unreadable"]
    """Why: ``listing_limit`` = a deliverable past the listing limit (`Delivery.listing_limit`: seen, not listed)."""


class Delivery(BaseModel):
    """What the agent handed in."""

    files: list[DeliveredFile] = Field(default_factory=list)
    stray: list[SkippedFile] = Field(default_factory=list, description="Not scored; copied for inspection.")
    ignored: list[SkippedFile] = Field(default_factory=list, description="Hidden, empty or special files.")
    final_message: str | None = None
    final_message_source: str | None = None
    from_chat: bool = False
    missing: bool = False
    unreadable: list[str] = Field(
        default_factory=list, description="Final-message sources that exist but could not be read or parsed."
    )
    notes: list[str] = Field(default_factory=list)
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
