"""Rendering: LibreOffice failure modes, process-group kills, HTML/PDF decks, capabilities."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from cowork_judge.evidence import build_evidence, link_tree, probe_capabilities
from cowork_judge.evidence.capabilities import Capabilities, ToolCapability
from cowork_judge.evidence.build import render_need_sec
from cowork_judge.evidence.render import soffice_to_pdf
from cowork_judge._util.procs import run_command

from .conftest import require_decks, require_tools


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_timeout_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    res = run_command(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout_sec=1)
    assert res.timed_out and res.returncode is None
    child = int(pidfile.read_text())
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def test_timeout_also_kills_children_that_left_the_group(tmp_path):
    """Chromium's zygotes call setsid(); they must not survive a timed-out render."""
    pidfile = tmp_path / "child.pid"
    res = run_command(["sh", "-c", f"setsid sleep 60 & echo $! > {pidfile}; wait"], timeout_sec=1)
    assert res.timed_out
    child = int(pidfile.read_text())
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def test_missing_executable_is_a_value_not_an_exception():
    res = run_command(["/nonexistent/soffice", "--version"], timeout_sec=5)
    assert res.error and res.returncode is None


def test_soffice_exit_zero_without_pdf_is_a_failure(tmp_path):
    require_tools("soffice")
    caps = probe_capabilities()
    deck = require_decks() / "25__poi__clusterfuzz-testcase-minimized-POIXSLFFuzzer-6254434927378432.pptx"
    res = soffice_to_pdf(deck, "pptx", tmp_path, soffice=caps.soffice.path, timeout_sec=60,
                         version=caps.soffice.version_tuple())
    assert res.pdf is None and not res.timed_out
    assert "without writing a PDF" in res.reason


def test_soffice_timeout_leaves_no_process(tmp_path):
    require_tools("soffice")
    caps = probe_capabilities()
    deck = require_decks() / "23__poi__aascu.org_workarea_downloadasset.aspx_id=5864.pptx"
    res = soffice_to_pdf(deck, "pptx", tmp_path, soffice=caps.soffice.path, timeout_sec=0.5)
    assert res.pdf is None and res.timed_out and "timed out" in res.reason
    marker = str(tmp_path / "profile")
    time.sleep(0.5)
    leftovers = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().decode("utf-8", "replace")
            except OSError:
                continue
            if marker in cmd and _alive(int(proc.name)):
                leftovers.append(proc.name)
    assert leftovers == []


def test_missing_soffice_skips_render_with_render_env(tmp_path):
    decks = require_decks()
    caps = probe_capabilities().model_copy(update={"soffice": ToolCapability(reason="test: no soffice")})
    summary = build_evidence([decks / "08__python-pptx__tbl-cell.pptx"], tmp_path, budget_sec=300, capabilities=caps)
    deck = summary.decks[0]
    assert deck.structure_ok and deck.slide_count == 3 and deck.pages_rendered == 0
    assert [(s.layer, s.kind) for s in deck.layers_skipped] == [("render", "render_env")]
    checks = json.loads((tmp_path / deck.checks).read_text())
    assert "text_overflow" in checks["checks_skipped"]


def test_low_budget_renders_nothing_but_keeps_structure(tmp_path):
    decks = require_decks()
    # 3 slides need render_need_sec(3) = 10.75 s: 5 s is too little
    summary = build_evidence([decks / "08__python-pptx__tbl-cell.pptx"], tmp_path, budget_sec=5)
    deck = summary.decks[0]
    assert summary.render_skipped_for_budget and deck.structure_ok and deck.pages_rendered == 0
    skips = [s for s in deck.layers_skipped if (s.layer, s.kind) == ("render", "budget")]
    assert skips and "a deck of 3 slides needs about 10.8 s" in skips[0].reason
    assert (tmp_path / deck.deck / "pages" / "slide-001.json").is_file()


def test_the_render_need_grows_with_the_deck():
    assert render_need_sec(10) == 12.5 and render_need_sec(60) == 25.0
    assert render_need_sec(None) == render_need_sec(30)  # uncounted: a typical long deck


def test_a_short_budget_renders_a_deck_that_fits_in_it(tmp_path):
    """usertrial #8: a 30 s evidence budget (JUDGE_DEADLINE ≈ 90 s) refused to render anything under the
    old fixed 45 s minimum, though the 10-slide deck renders in ~4 s; it needs 12.5 s by its size."""
    require_tools("soffice", "pymupdf")
    decks = require_decks()
    summary = build_evidence([decks / "45__PPTAgent__build_effective_agents.pptx"], tmp_path, budget_sec=30, width_px=480)
    deck = summary.decks[0]
    assert not summary.render_skipped_for_budget and deck.slide_count == 10 and deck.pages_rendered == 10
    assert deck.layers_skipped == []


def test_budget_zero_is_off(tmp_path):
    summary = build_evidence([Path("x.pptx")], tmp_path, budget_sec=0, capabilities=Capabilities())
    assert summary.pages_rendered == 0
    assert {s.kind for s in summary.decks[0].layers_skipped} == {"disabled"}
    assert (tmp_path / "index.json").is_file()


def test_html_deck_one_png_per_top_level_section(synthetic_build):
    require_tools("chromium", "playwright")
    summary, out, _src = synthetic_build
    html = next(d for d in summary.decks if d.source == "slides.html")
    assert html.sniff_status == "ok_html" and html.slide_count == 3
    assert html.pages_rendered == 3 and html.page_to_slide == {1: 1, 2: 2, 3: 3}
    from PIL import Image

    for n in (1, 2, 3):
        with Image.open(out / "pages" / html.deck / f"page-{n:03d}.png") as im:
            assert im.width == 800


def test_pdf_deck_renders_directly(synthetic_build):
    require_tools("pymupdf")
    summary, out, _src = synthetic_build
    pdf = next(d for d in summary.decks if d.source == "deck.pdf")
    assert pdf.sniff_status == "ok_pdf" and pdf.pages_rendered == 2 and pdf.page_to_slide == {1: 1, 2: 2}
    digest = json.loads((out / pdf.digest).read_text())
    assert digest["render"]["mapping"] == "pdf_pages" and digest["render"]["engine"] == "pymupdf"


def test_hidden_slides_are_exported_and_mapped(synthetic_build):
    require_tools("soffice", "pymupdf")
    summary, out, _src = synthetic_build
    deck = next(d for d in summary.decks if d.source == "defects.pptx")
    assert deck.page_count == 9 and deck.page_to_slide == {p: p for p in range(1, 10)}
    digest = json.loads((out / deck.digest).read_text())
    assert digest["render"]["hidden_exported"] is True
    assert [s["index"] for s in digest["slides"] if s["hidden"]] == [8]
    assert digest["slides"][7]["page"] == 8


def test_group_geometry_agrees_with_the_render(synthetic_build):
    """Independent check of the group transform: LibreOffice draws the grouped text inside
    the frame the structure layer computed (child frame 108-180 pt x 180-216 pt, text
    starting after the 7.2 pt left inset)."""
    require_tools("soffice", "pymupdf")
    import pymupdf

    summary, out, _src = synthetic_build
    deck = next(d for d in summary.decks if d.source == "defects.pptx")
    with pymupdf.open(out / deck.deck / "render.pdf") as doc:
        hits = doc[8].search_for("Grouped text")
    assert hits, "grouped text not found on page 9"
    x0, y0, x1, y1 = hits[0]
    assert 108 + 7.2 - 1 <= x0 <= 108 + 7.2 + 1 and x1 <= 180 and 180 <= y0 and y1 <= 216


def test_link_tree_shares_files_by_hard_link(synthetic_build, tmp_path):
    _summary, out, _src = synthetic_build
    n = link_tree(out, tmp_path / "ws" / "evidence")
    assert n > 10
    src = next(out.glob("pages/*/page-001.png"))
    dst = tmp_path / "ws" / "evidence" / src.relative_to(out)
    assert dst.is_file() and os.stat(dst).st_ino == os.stat(src).st_ino


def test_capabilities_probe_is_cached_and_written(tmp_path):
    caps = probe_capabilities()
    assert probe_capabilities() is caps
    path = caps.write(tmp_path / "env_capabilities.json")
    data = json.loads(path.read_text())
    assert data["schema"].startswith("cowork-judge/env-capabilities@") and data["python_version"]
    missing = probe_capabilities(soffice="/nonexistent/soffice")
    assert not missing.soffice.available and "/nonexistent/soffice does not exist" in missing.soffice.reason


@pytest.mark.parametrize("width", [320, 1600])
def test_pdf_pages_are_rasterised_at_the_target_width(tmp_path, width):
    require_tools("pymupdf")
    from .conftest import make_pdf_deck

    summary = build_evidence([make_pdf_deck(tmp_path / "d.pdf")], tmp_path / "ev", budget_sec=120, width_px=width)
    page = json.loads((tmp_path / "ev" / summary.decks[0].digest).read_text())["render"]["pages"][0]
    assert page["width_px"] == width and page["height_px"] == round(width * 405 / 720)


def test_html_deck_cannot_pull_files_from_outside_its_folder(tmp_path):
    require_tools("chromium", "playwright")
    from PIL import Image

    from cowork_judge.evidence.render import html_to_pngs

    (tmp_path / "outside").mkdir()
    (tmp_path / "deck").mkdir()
    Image.new("RGB", (200, 200), (255, 0, 0)).save(tmp_path / "outside" / "red.png")
    Image.new("RGB", (200, 200), (0, 0, 255)).save(tmp_path / "deck" / "blue.png")
    red_uri = (tmp_path / "outside" / "red.png").as_uri()
    (tmp_path / "deck" / "d.html").write_text(
        f'<body style="margin:0"><section style="width:1280px;height:720px">'
        f'<img src="{red_uri}" width="200" height="200"><img src="blue.png"></section></body>')
    caps = probe_capabilities()
    pages, why = html_to_pngs(tmp_path / "deck" / "d.html", tmp_path / "png", chromium=caps.chromium.path,
                              width_px=1280, timeout_sec=60)
    assert why == "" and len(pages) == 1
    with Image.open(pages[0]) as im:
        colours = {im.convert("RGB").getpixel((x, 100)) for x in range(0, 400, 10)}
    assert (0, 0, 255) in colours and (255, 0, 0) not in colours


def test_html_content_named_pptx_renders_as_html(tmp_path):
    """A deck's kind comes from its content: HTML named deck.pptx is rendered by Chromium
    (under an .html name, since Chromium goes by the extension), one page per section."""
    require_tools("chromium", "playwright")
    from cowork_judge.evidence import build_evidence

    from .conftest import HTML_DECK

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "deck.pptx").write_text(HTML_DECK, encoding="utf-8")
    summary = build_evidence(["deck.pptx"], tmp_path / "out", budget_sec=300, width_px=800, root=tmp_path / "src")
    deck = summary.decks[0]
    assert deck.sniff_status == "ok_html" and deck.pages_rendered == 3


_SEED_CHILD = """
import json, shutil, sys, tempfile
from pathlib import Path
from cowork_judge.evidence import probe_capabilities, render
deck, out = Path(sys.argv[1]), Path(sys.argv[2])
soffice = probe_capabilities().soffice.path
pdfs = [render.soffice_to_pdf(deck, "pptx", out / str(n), soffice=soffice, timeout_sec=120).pdf for n in (1, 2)]
seeds = sorted(p.name for p in Path(tempfile.gettempdir()).glob("cowork-judge-lo-seed-*") if p.is_dir())
print(json.dumps({"pdfs": [p is not None for p in pdfs], "seeds": seeds,
                  "seeded": render._seed_profile is not None and render._seed_profile.is_dir()}))
"""


def test_the_seed_profile_is_removed_when_the_rendering_process_ends(tmp_path, decks_dir):
    """usertrial #13: every rendering process left a cowork-judge-lo-seed-* folder (~560 KB) in
    TMPDIR. The seed is reused within the process (the second conversion copies it) and gone
    once the process has exited."""
    import sys

    require_tools("soffice")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    deck = decks_dir / "01__python-pptx__minimal.pptx"
    res = run_command([sys.executable, "-c", _SEED_CHILD, str(deck), str(tmp_path / "out")], timeout_sec=300, env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    seen = json.loads(res.stdout.strip().splitlines()[-1])
    assert seen["pdfs"] == [True, True] and seen["seeded"] and len(seen["seeds"]) == 1  # one seed, kept while it lives
    assert list(tmpdir.iterdir()) == []  # nothing left behind: no seed, no render or profile folder


def _wrapper(folder: Path, name: str, *, fail_if: str) -> str:
    """A LibreOffice wrapper (trial 8 F7): ``--version`` and any conversion whose arguments do
    not match the shell pattern `fail_if` go to the real soffice; a matching one prints
    "no export filter" on stderr and exits 0 without a PDF."""
    real = probe_capabilities().soffice.path
    path = folder / name
    path.write_text("#!/bin/sh\n"
                    f'for a in "$@"; do [ "$a" = "--version" ] && exec {real} --version; done\n'
                    f'case "$*" in {fail_if}) echo "Error: no export filter found, aborting." >&2; exit 0;; esac\n'
                    f'exec {real} "$@"\n')
    path.chmod(0o755)
    return str(path)


def test_a_deck_that_opened_is_not_blamed_for_a_renderer_that_wrote_nothing(tmp_path):
    require_tools("soffice", "pymupdf")
    deck_file = require_decks() / "08__python-pptx__tbl-cell.pptx"
    soffice = _wrapper(tmp_path, "nofilter", fail_if="*")
    summary = build_evidence([deck_file], tmp_path / "ev", budget_sec=300, soffice=soffice)
    (skip,) = summary.decks[0].layers_skipped
    assert (skip.layer, skip.kind) == ("render", "render_env")
    assert skip.reason.startswith("LibreOffice wrote no PDF although the deck opened") and "no export filter" in skip.reason


def test_a_ppt_deck_is_checked_against_a_control_deck_before_it_is_blamed(tmp_path):
    """No structure layer for a binary .ppt: a one-slide control deck rendered by the same soffice
    decides. The wrapper fails everything ⇒ render_env; it fails only .ppt input ⇒ deck_broken."""
    require_tools("soffice", "pymupdf", "python_pptx")
    deck_file = require_decks() / "29__poi__44296.ppt"
    everything = _wrapper(tmp_path, "nofilter", fail_if="*")
    summary = build_evidence([deck_file], tmp_path / "ev1", budget_sec=300, soffice=everything)
    skip = summary.decks[0].layers_skipped[-1]
    assert (skip.layer, skip.kind) == ("render", "render_env")
    assert "not even for a known-good one-slide control deck" in skip.reason and "no export filter" in skip.reason
    only_ppt = _wrapper(tmp_path, "noppt", fail_if="*.ppt")
    summary = build_evidence([deck_file], tmp_path / "ev2", budget_sec=300, soffice=only_ppt)
    skip = summary.decks[0].layers_skipped[-1]
    assert (skip.layer, skip.kind) == ("render", "deck_broken")
    assert "converted a known-good control deck" in skip.reason
