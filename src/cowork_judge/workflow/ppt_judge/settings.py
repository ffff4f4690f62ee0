"""The quality settings of ``ppt_judge``: ``rubric.json → workflow_config.ppt_judge``.

Read once per run into a frozen `PptSettings`; a bad value gets a warning (returned, and
logged by the caller) and the default — never an exception. The cost knobs (in-flight
limit, jitter, deadline) are fleet settings in ``[verifier.env]``, not here (SPEC §9, §13).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Mode = Literal["combined", "grouped", "split"]
MODES: tuple[str, ...] = ("combined", "grouped", "split")

DEFAULT_MODE: Mode = "grouped"
"""One call per page × ``workflow_group``: small, focused prompts at a few calls per page
(the design notes price the modes at 1× / 5× / 7× the calls of ``combined``)."""
DEFAULT_GROUP_SIZE = 4
"""Rows per call in ``grouped`` mode: a group of more rows is cut into chunks of this size
(the template's clusters hold at most 4 rows, so one call per page × cluster)."""
MAX_GROUP_SIZE = 64
DEFAULT_PAGE_MEAN_P = 1.0
"""Power-mean exponent across pages: 1 = arithmetic mean (the design notes' example)."""
CRITICAL_PAGE_MEAN_P = -2.0
"""Power-mean exponent across pages for a critical row (one tagged ``critical``, as
`gen-ppt-rubrics` tags and writes them) that gives no ``page_mean_p`` of its own. Any p ≤ 0
makes one page at 0 give 0 whatever the deck's length (SPEC §9: a page at 0 on a critical
row costs it at least half its level); −2 also weighs pages at 0.25–0.75 far above a mean
(one page at 0.5 among 9 at 1: 0.85 after the downward snap, against 0.95 for the mean)
while a single page the model grades 0.75 among 44 clean ones costs one grid step (0.95).
Our choice: the minimum would let one noisy model page take the whole row."""
PAGE_MEAN_P_RANGE = (-10.0, 10.0)
"""Accepted exponents; outside this range the power mean is a min/max in all but name."""
DEFAULT_RENDER_RESOLUTION = "1600x900"
"""Matches the evidence layer's default page width (`evidence.settings.DEFAULT_WIDTH_PX`)."""
RENDER_WIDTH_RANGE_PX = (200, 4000)
"""The evidence layer's accepted widths (`evidence.settings.MIN_WIDTH_PX`/`MAX_WIDTH_PX`)."""
KNOWN_KEYS = frozenset({"mode", "group_size", "page_mean_p", "critical_page_mean_p", "render_resolution"})
_RESOLUTION = re.compile(r"\s*(\d{2,5})\s*[xX]\s*(\d{2,5})\s*\Z")
"""``WIDTHxHEIGHT``: the spelling the evidence layer reads (`evidence.settings.render_width_px`)."""


@dataclass(frozen=True)
class PptSettings:
    """Validated ``workflow_config.ppt_judge``.

    Attributes:
        mode: ``combined`` (one call per page for all rows), ``grouped`` (one call per page
            × ``workflow_group`` chunk of `group_size` rows) or ``split`` (one per page × row).
        group_size: rows per call in ``grouped`` mode (1…64).
        page_mean_p: default power-mean exponent across pages (a row's ``page_mean_p`` wins).
        critical_page_mean_p: the exponent for rows tagged critical that give none (≤ 0:
            one page at 0 gives the row 0).
        render_resolution: ``"WIDTHxHEIGHT"`` in pixels; the evidence layer renders page
            images at WIDTH once per run (the workflow renders nothing itself).
    """

    mode: Mode = DEFAULT_MODE
    group_size: int = DEFAULT_GROUP_SIZE
    page_mean_p: float = DEFAULT_PAGE_MEAN_P
    critical_page_mean_p: float = CRITICAL_PAGE_MEAN_P
    render_resolution: str = DEFAULT_RENDER_RESOLUTION

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready view (for the audit)."""
        return {"mode": self.mode, "group_size": self.group_size, "page_mean_p": self.page_mean_p,
                "critical_page_mean_p": self.critical_page_mean_p, "render_resolution": self.render_resolution}


def read_settings(raw: Mapping[str, Any] | None) -> tuple[PptSettings, list[str]]:
    """Validate ``workflow_config.ppt_judge``.

    Args:
        raw: the settings object from rubric.json (None or not a mapping: all defaults).

    Returns:
        ``(settings, warnings)``: every bad or unknown key yields one warning naming the
        key, the value and the default used instead.
    """
    warnings: list[str] = []
    if raw is None:
        return PptSettings(), warnings
    if not isinstance(raw, Mapping):
        return PptSettings(), [f"workflow_config.ppt_judge must be an object, got {raw!r:.60}; defaults used"]
    values: dict[str, Any] = {}
    unknown = sorted(str(k) for k in raw if k not in KNOWN_KEYS)
    if unknown:
        warnings.append(f"workflow_config.ppt_judge: unknown key(s) {', '.join(unknown)} ignored "
                        f"(known: {', '.join(sorted(KNOWN_KEYS))})")

    def bad(key: str, value: Any, default: Any, why: str) -> None:
        warnings.append(f"workflow_config.ppt_judge.{key} = {value!r:.60} {why}; using the default {default!r}")

    if "mode" in raw:
        mode = raw["mode"]
        if isinstance(mode, str) and mode.strip().lower() in MODES:
            values["mode"] = mode.strip().lower()
        else:
            bad("mode", mode, DEFAULT_MODE, f"is not one of {', '.join(MODES)}")
    if "group_size" in raw:
        size = raw["group_size"]
        if isinstance(size, int) and not isinstance(size, bool) and 1 <= size <= MAX_GROUP_SIZE:
            values["group_size"] = size
        else:
            bad("group_size", size, DEFAULT_GROUP_SIZE, f"is not a whole number in 1…{MAX_GROUP_SIZE}")
    if "page_mean_p" in raw:
        p = raw["page_mean_p"]
        if _finite_number(p) and PAGE_MEAN_P_RANGE[0] <= float(p) <= PAGE_MEAN_P_RANGE[1]:
            values["page_mean_p"] = float(p)
        else:
            bad("page_mean_p", p, DEFAULT_PAGE_MEAN_P, f"is not a number in {PAGE_MEAN_P_RANGE[0]:g}…{PAGE_MEAN_P_RANGE[1]:g}")
    if "critical_page_mean_p" in raw:
        p = raw["critical_page_mean_p"]
        if _finite_number(p) and PAGE_MEAN_P_RANGE[0] <= float(p) <= 0.0:
            values["critical_page_mean_p"] = float(p)
        else:
            bad("critical_page_mean_p", p, CRITICAL_PAGE_MEAN_P,
                f"is not a number in {PAGE_MEAN_P_RANGE[0]:g}…0 (above 0 a page at 0 no longer dominates)")
    if "render_resolution" in raw:
        res = raw["render_resolution"]
        m = _RESOLUTION.match(res) if isinstance(res, str) else None
        lo, hi = RENDER_WIDTH_RANGE_PX
        if m and lo <= int(m.group(1)) <= hi:
            values["render_resolution"] = f"{int(m.group(1))}x{int(m.group(2))}"
        else:
            bad("render_resolution", res, DEFAULT_RENDER_RESOLUTION,
                f"is not WIDTHxHEIGHT pixels with a width in {lo}…{hi}")
    return PptSettings(**values), warnings


def row_page_mean_p(row_p: float | None, settings: PptSettings, *, critical: bool = False) -> tuple[float, str | None]:
    """The exponent for one row: its own ``page_mean_p`` (SPEC §9: row > config), else
    ``critical_page_mean_p`` for a critical row, else the settings' ``page_mean_p``. An
    out-of-range row value gets that default and a warning."""
    default = settings.critical_page_mean_p if critical else settings.page_mean_p
    if row_p is None:
        return default, None
    if _finite_number(row_p) and PAGE_MEAN_P_RANGE[0] <= float(row_p) <= PAGE_MEAN_P_RANGE[1]:
        return float(row_p), None
    return default, (f"page_mean_p {row_p!r} is outside {PAGE_MEAN_P_RANGE[0]:g}…"
                     f"{PAGE_MEAN_P_RANGE[1]:g}; using {default:g}")


def is_critical(tag: str | None) -> bool:
    """A row is critical when its ``tag`` has a ``critical`` segment (``visual/layout/critical``,
    as `gen-ppt-rubrics` writes it; ``critical`` alone also counts)."""
    return bool(tag) and "critical" in [part.strip().lower() for part in str(tag).split("/")]


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(float(value))
