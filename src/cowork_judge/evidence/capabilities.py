"""Capability probe: which rendering tools this machine has (``env_capabilities.json``).

Fast (version checks only, in parallel, ≤ 5 s timeout each; cached per process). A missing
tool makes the affected layer skip with ``render_env``; it never penalises a deck.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import platform
import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel, Field

from .._util.procs import configured_tool_problem, resolve_tool, run_command
from .documents import Document

SOFFICE_CANDIDATES = ("soffice", "libreoffice", "/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice",
                      "/opt/libreoffice/program/soffice", "/Applications/LibreOffice.app/Contents/MacOS/soffice")
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome",
                       "/usr/bin/chromium", "/usr/lib/chromium/chromium", "/snap/bin/chromium")
PROBE_TIMEOUT_SEC = 5.0
"""Per ``--version`` call; both run in parallel (measured: soffice 0.2 s, chromium 0.3 s)."""


class ToolCapability(BaseModel):
    available: bool = False
    path: str | None = None
    version: str | None = None
    reason: str = Field("", description="why unavailable, when it is")

    def version_tuple(self) -> tuple[int, ...] | None:
        m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", self.version or "")
        return tuple(int(g) for g in m.groups() if g is not None) if m else None


class Capabilities(Document):
    """What the evidence layer can do here; written as ``env_capabilities.json``."""

    schema_id: str = Field("cowork-judge/env-capabilities@1", alias="schema")
    python_version: str = Field(default_factory=platform.python_version)
    soffice: ToolCapability = Field(default_factory=ToolCapability)
    chromium: ToolCapability = Field(default_factory=ToolCapability)
    pymupdf: ToolCapability = Field(default_factory=ToolCapability)
    playwright: ToolCapability = Field(default_factory=ToolCapability)
    python_pptx: ToolCapability = Field(default_factory=ToolCapability)
    cjk_fonts: ToolCapability = Field(default_factory=ToolCapability, description="fc-list :lang=zh|ja")
    seconds: float = 0.0

    def flags(self) -> dict[str, bool]:
        """``{"soffice": True, ...}`` for summaries."""
        return {k: getattr(self, k).available for k in
                ("soffice", "chromium", "pymupdf", "playwright", "python_pptx", "cjk_fonts")}


def configured_path_reason(label: str, configured: str) -> str | None:
    """Why the configured `label` tool (``soffice``, ``chromium``) cannot be used, naming the
    path and its setting (``JUDGE_SOFFICE_PATH``), or None when it can. A configured tool is
    used as given: the usual names are not searched, so the tool may well be installed."""
    problem = configured_tool_problem(configured)
    if problem is None:
        return None
    return (f"{label}: the configured {label} {configured} {problem} (JUDGE_{label.upper()}_PATH or --{label}: a "
            "configured path is used as given, not searched for elsewhere)")


def _probe_binary(explicit: str | None, candidates: tuple[str, ...], label: str) -> ToolCapability:
    path = resolve_tool(explicit, *candidates)
    if path is None:
        names = ", ".join(c for c in candidates if "/" not in c)
        reason = configured_path_reason(label, explicit) if explicit else None
        return ToolCapability(reason=reason or f"{label}: none of {names} on PATH")
    proc = run_command([path, "--version"], timeout_sec=PROBE_TIMEOUT_SEC)
    lines = [ln for ln in (proc.stdout or "").splitlines() if re.search(r"\d+\.\d+", ln)]
    if proc.error or proc.timed_out or proc.returncode != 0 or not lines:
        return ToolCapability(path=path, reason=f"{label} --version failed: {proc.error or proc.stderr.strip()[-200:]}")
    return ToolCapability(available=True, path=path, version=lines[0].strip())


def _probe_module(module: str, dist: str) -> ToolCapability:
    if importlib.util.find_spec(module) is None:
        return ToolCapability(reason=f"python module {module} not installed")
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        version = None
    return ToolCapability(available=True, path=module, version=version)


def _probe_cjk() -> ToolCapability:
    fc = shutil.which("fc-list")
    if fc is None:
        return ToolCapability(reason="fc-list not found (fontconfig missing)")
    families: set[str] = set()
    for lang in ("zh", "ja"):
        proc = run_command([fc, f":lang={lang}", "family"], timeout_sec=PROBE_TIMEOUT_SEC)
        families.update(x.split(",")[0].strip() for x in proc.stdout.splitlines() if x.strip())
    if not families:
        return ToolCapability(path=fc, reason="no font covering Chinese or Japanese")
    return ToolCapability(available=True, path=fc, version=", ".join(sorted(families)[:6]))


@functools.lru_cache(maxsize=8)
def probe_capabilities(soffice: str | None = None, chromium: str | None = None) -> Capabilities:
    """Probe tools once per process and per (soffice, chromium) pair; never raises.

    Args:
        soffice: explicit LibreOffice path (``JUDGE_SOFFICE_PATH``), else autodetect.
        chromium: explicit Chromium path (``JUDGE_CHROMIUM_PATH``), else autodetect.
    """
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=3) as pool:
        f_soffice = pool.submit(_probe_binary, soffice, SOFFICE_CANDIDATES, "soffice")
        f_chromium = pool.submit(_probe_binary, chromium, CHROMIUM_CANDIDATES, "chromium")
        f_cjk = pool.submit(_probe_cjk)
        caps = Capabilities(
            pymupdf=_probe_module("pymupdf", "pymupdf"),
            playwright=_probe_module("playwright", "playwright"),
            python_pptx=_probe_module("pptx", "python-pptx"),
            soffice=f_soffice.result(),
            chromium=f_chromium.result(),
            cjk_fonts=f_cjk.result(),
        )
    caps.seconds = round(time.monotonic() - start, 3)
    return caps
