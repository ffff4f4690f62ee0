"""HTML building blocks of the fleet pages: the page template, escaped tables, number format.

Pure. Every piece of text passes through `esc` (``html.escape`` with quotes) before it
reaches markup, so deliverable text, reasons and file names are shown, never run. The
page template (``templates/page.html``) carries a Content-Security-Policy that forbids
scripts and every network fetch (only ``data:`` images), as a second line of defence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from html import escape
from importlib import resources
from string import Template
from typing import Any

from cowork_judge import __version__


def esc(value: Any) -> str:
    """Text → HTML-escaped text (quotes too); None → empty."""
    return "" if value is None else escape(str(value), quote=True)


@lru_cache(maxsize=1)
def _template() -> Template:
    return Template(resources.files("cowork_judge.fleet").joinpath("templates/page.html").read_text(encoding="utf-8"))


def page(title: str, body: str) -> str:
    """A complete self-contained HTML document around `body` (already escaped markup)."""
    return _template().substitute(title=esc(title), body=body, generator=esc(f"cowork-judge {__version__}"))


def fmt(value: Any, digits: int = 4) -> str:
    """Numbers for people: floats to `digits` significant decimals, None → "–"."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}".rstrip("0").rstrip(".") if value == value else "nan"
    return str(value)


def fmt_ci(interval: Sequence[float] | None, digits: int = 3) -> str:
    """``[low, high]`` or "–"."""
    return "–" if not interval else f"[{fmt(interval[0], digits)}, {fmt(interval[1], digits)}]"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, numeric: Sequence[bool] | None = None,
          raw: Sequence[bool] | None = None, css: str = "") -> str:
    """An HTML table; cells are escaped unless their column is marked `raw` (trusted markup
    built by the caller from escaped parts), numeric columns are right-aligned."""
    numeric = numeric or [False] * len(headers)
    raw = raw or [False] * len(headers)
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            text = cell if raw[i] else esc(fmt(cell) if not isinstance(cell, str) else cell)
            cells.append(f'<td class="n">{text}</td>' if numeric[i] else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cls = f' class="{esc(css)}"' if css else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def key_values(pairs: Iterable[tuple[str, Any]]) -> str:
    """A two-column table of labels and values (values escaped)."""
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(fmt(v) if not isinstance(v, str) else v)}</td></tr>" for k, v in pairs)
    return f'<table class="kv"><tbody>{rows}</tbody></table>'
