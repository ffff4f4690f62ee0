"""Child-process entry that screenshots an HTML deck with Playwright + a system Chromium.

Run as ``python -m cowork_judge.evidence.html_shot '<json spec>'`` by
:func:`cowork_judge.evidence.render.html_to_pngs`, which owns the timeout and kills this
process group. Prints one JSON line: ``{"pages": [...]}`` or ``{"error": "..."}``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT_CSS_PX = (1280, 720)
"""CSS viewport of a 16:9 slide; ``device_scale_factor`` scales it to the target width."""
SLIDE_SELECTORS = ("section:not(section section)", ".slide")
MAX_FULL_PAGE_CSS_PX = 20 * VIEWPORT_CSS_PX[1]
"""A deck without slide elements is shot whole, clipped to 20 viewport heights."""


def allowed(url: str, folder: str) -> bool:
    """Only ``data:`` URLs and files whose REAL path is inside the deck's folder load.

    Resolving links matters: a symlink in the output dir pointing at ``/tests/rubric.json``
    has a path inside the folder but content from outside it.
    """
    if url.startswith("data:"):
        return True
    if not url.startswith("file:"):
        return False
    real = os.path.realpath(url2pathname(urlparse(url).path))
    return real.startswith(folder.rstrip("/") + "/")


def shoot(spec: dict[str, Any]) -> list[str]:
    from playwright.sync_api import sync_playwright

    width_css, height_css = VIEWPORT_CSS_PX
    paths: list[str] = []
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            spec["user_data_dir"], executable_path=spec["chromium"], args=CHROMIUM_ARGS, headless=True,
            viewport={"width": width_css, "height": height_css},
            device_scale_factor=spec["width_px"] / width_css, java_script_enabled=spec["javascript"],
            offline=True, timeout=spec["timeout_ms"],
        )
        try:
            folder = os.path.realpath(url2pathname(urlparse(spec["html_uri"]).path).rsplit("/", 1)[0])
            ctx.route("**/*", lambda route: route.continue_() if allowed(route.request.url, folder) else route.abort())
            page = ctx.new_page()
            page.set_default_timeout(spec["timeout_ms"])
            page.goto(spec["html_uri"], wait_until="load")
            slides = []
            for selector in SLIDE_SELECTORS:
                slides = page.query_selector_all(selector)
                if slides:
                    break
            if slides:
                for num, el in enumerate(slides, start=1):
                    path = f"{spec['out_dir']}/page-{num:03d}.png"
                    el.scroll_into_view_if_needed()
                    el.screenshot(path=path)
                    paths.append(path)
            else:
                path = f"{spec['out_dir']}/page-001.png"
                height = min(page.evaluate("document.documentElement.scrollHeight") or height_css, MAX_FULL_PAGE_CSS_PX)
                page.screenshot(path=path, clip={"x": 0, "y": 0, "width": width_css, "height": height})
                paths.append(path)
        finally:
            ctx.close()
    return paths


def main(argv: list[str]) -> int:
    try:
        print(json.dumps({"pages": shoot(json.loads(argv[0]))}))
        return 0
    except Exception as exc:  # noqa: BLE001 - reported to the parent as data
        print(json.dumps({"error": f"{type(exc).__name__}: {str(exc)[:500]}"}))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
