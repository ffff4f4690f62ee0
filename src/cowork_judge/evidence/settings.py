"""Evidence settings that a rubric carries: the page image width of the deck renders."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_WIDTH_PX = 1600
"""Page image width when the rubric says nothing (pixels)."""
MIN_WIDTH_PX, MAX_WIDTH_PX = 200, 4000
"""Accepted range of a configured width (pixels); outside it the default applies."""


def render_width_px(workflow_config: Mapping[str, Any]) -> int:
    """Page image width in pixels from ``workflow_config.ppt_judge.render_resolution``
    (``"1920x1080"`` → 1920); `DEFAULT_WIDTH_PX` when absent, unreadable or out of range."""
    settings = workflow_config.get("ppt_judge") or {}
    resolution = str(settings.get("render_resolution", "")) if isinstance(settings, Mapping) else ""
    try:
        width = int(resolution.lower().split("x")[0])
    except ValueError:
        return DEFAULT_WIDTH_PX
    return width if MIN_WIDTH_PX <= width <= MAX_WIDTH_PX else DEFAULT_WIDTH_PX
