"""What a code method reads of its context: `CodeContext`, the part of
`segment.segment_context.SegmentContext` the code methods use (a Protocol the segment context
satisfies; `code_methods.code_rows` checks it).

Code methods are typed against this view, not against the whole segment context: the
code-method table (`code_methods.CODE_METHODS`, which `lint` reads for names and
parameters) then pulls in the delivery, the folders, the deadline and the settings, and
nothing of the model-call path, the limiter or the run's configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from cowork_judge.segment.deadline import Deadline
from cowork_judge.segment.delivery import Delivery, LocatedDeck
from cowork_judge.core.layout import RunFolders
from cowork_judge.segment.segment_settings import SegmentSettings


class CodeContext(Protocol):
    """The context of one code row, read-only (see `segment.segment_context.SegmentContext` for the
    meaning of each attribute)."""

    @property
    def paths(self) -> RunFolders: ...

    @property
    def settings(self) -> SegmentSettings: ...

    @property
    def delivery(self) -> Delivery: ...

    @property
    def deadline(self) -> Deadline: ...

    @property
    def deck(self) -> LocatedDeck | None: ...

    @property
    def artifacts(self) -> Mapping[str, Any]: ...

    @property
    def deck_locators(self) -> tuple[str, ...]: ...
