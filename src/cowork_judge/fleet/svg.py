"""Inline SVG charts for the fleet HTML pages: no scripts, no external assets.

Pure string builders; every label is escaped here, so callers may pass any text. Sizes
are in CSS pixels (``width_px``); values are plain numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

BAR = "#4a78b5"
BAR_ALT = "#c0504d"
AXIS = "#555"
GRID = "#ddd"


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def histogram(counts: Sequence[int], edges: Sequence[float], *, title: str, width_px: int = 640, height_px: int = 220,
              color: str = BAR) -> str:
    """Vertical bars, one per bin (``len(edges) == len(counts) + 1``), x labels at the edges."""
    left, right, top, bottom = 44, 10, 24, 30
    plot_w, plot_h = width_px - left - right, height_px - top - bottom
    peak = max(counts, default=0) or 1
    bar_w = plot_w / max(len(counts), 1)
    parts = [_open(width_px, height_px, title), f'<text x="{left}" y="15" class="t">{escape(title)}</text>']
    for frac in (0.0, 0.5, 1.0):
        y = top + plot_h * (1 - frac)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{_num(y)}" y2="{_num(y)}" stroke="{GRID}"/>')
        parts.append(f'<text x="{left - 4}" y="{_num(y + 4)}" text-anchor="end">{round(peak * frac)}</text>')
    for i, n in enumerate(counts):
        h = plot_h * n / peak
        x = left + i * bar_w
        label = f"[{edges[i]:g}, {edges[i + 1]:g}{']' if i == len(counts) - 1 else ')'}: {n}"
        parts.append(f'<rect x="{_num(x + 1)}" y="{_num(top + plot_h - h)}" width="{_num(max(bar_w - 2, 1))}" '
                     f'height="{_num(h)}" fill="{color}"><title>{escape(label)}</title></rect>')
    step = max(1, len(counts) // 5)
    for i in range(0, len(edges), step):
        x = left + i * bar_w
        parts.append(f'<text x="{_num(x)}" y="{height_px - 12}" text-anchor="middle">{edges[i]:g}</text>')
    parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="{AXIS}"/>')
    parts.append("</svg>")
    return "".join(parts)


def bars(labels: Sequence[str], values: Sequence[float], *, title: str, max_value: float | None = None,
         intervals: Sequence[tuple[float, float] | None] | None = None, value_format: str = "{:g}",
         width_px: int = 640, color: str = BAR) -> str:
    """Horizontal bars, one per label, with optional interval whiskers (e.g. 95% CIs)."""
    row_h, label_w, right, top = 18, 200, 70, 24
    height_px = top + row_h * max(len(labels), 1) + 8
    plot_w = width_px - label_w - right
    peak = max_value if max_value is not None else (max(values, default=0) or 1)
    peak = peak or 1
    parts = [_open(width_px, height_px, title), f'<text x="4" y="15" class="t">{escape(title)}</text>']
    for i, (label, value) in enumerate(zip(labels, values)):
        y = top + i * row_h
        w = plot_w * max(value, 0) / peak
        short = label if len(label) <= 30 else label[:29] + "…"
        parts.append(f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end">{escape(short)}<title>{escape(label)}</title></text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{_num(w)}" height="{row_h - 6}" fill="{color}"/>')
        interval = intervals[i] if intervals is not None and i < len(intervals) else None
        if interval is not None:
            x1, x2 = label_w + plot_w * interval[0] / peak, label_w + plot_w * interval[1] / peak
            mid = y + row_h / 2
            parts.append(f'<line x1="{_num(x1)}" x2="{_num(x2)}" y1="{_num(mid)}" y2="{_num(mid)}" stroke="{AXIS}"/>')
            for x in (x1, x2):
                parts.append(f'<line x1="{_num(x)}" x2="{_num(x)}" y1="{_num(mid - 4)}" y2="{_num(mid + 4)}" stroke="{AXIS}"/>')
        parts.append(f'<text x="{_num(label_w + w + 4)}" y="{y + 13}">{escape(value_format.format(value))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _open(width_px: int, height_px: int, title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width_px}" height="{height_px}" '
            f'viewBox="0 0 {width_px} {height_px}" role="img" aria-label="{escape(title)}" class="chart">')
