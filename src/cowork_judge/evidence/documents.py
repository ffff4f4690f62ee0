"""Typed documents the evidence layer writes to disk (pydantic v2, each with a ``schema`` id).

Units are in the field names: ``*_emu`` English Metric Units (914400 per inch, 12700 per
point), ``*_pt`` typographic points (1/72 inch; a slide of 9144000 EMU is 720 pt wide and
LibreOffice exports it as a PDF page 720 pt wide), ``*_px`` pixels, ``*_sec`` seconds.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cowork_judge._util.fsutil import atomic_write

Bounds = tuple[float, float, float, float]
"""``(x0, y0, x1, y1)`` in points: a frame, footprint or line on the slide's PDF page."""

EMU_PER_PT = 12700
"""OOXML: 914400 EMU per inch / 72 points per inch (ECMA-376 Part 1, §20.1.2.1)."""


class Document(BaseModel):
    """Base for every written document: ``schema`` id on disk, atomic JSON writes."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    schema_id: str = Field(alias="schema", description="document type and version")

    def to_json(self) -> str:
        """JSON text with the ``schema`` key (not the Python attribute name)."""
        return json.dumps(self.model_dump(mode="json", by_alias=True), indent=1, ensure_ascii=False)

    def write(self, path: Path) -> Path:
        """Write atomically (`fsutil.atomic_write`); returns ``path``."""
        return atomic_write(path, self.to_json())


# --------------------------------------------------------------------------- sniff

SniffStatus = Literal[
    "ok",
    "ok_strict",
    "ok_legacy_ppt",
    "ok_pdf",
    "ok_html",
    "encrypted",
    "corrupt_zip",
    "corrupt_pdf",
    "zip_bomb",
    "too_large",
    "not_presentation",
    "empty",
    "unreadable",
    "unknown_format",
]
"""Closed vocabulary of :func:`cowork_judge.evidence.sniff.sniff_deck` outcomes.

Every ``ok*`` status means "worth opening/rendering"; everything else means the deck is
broken or refused (the deliverable's fault, never the environment's):

- ``ok``: intact OOXML package (zip) whose main part is a presentation, macro-enabled
  presentation, template or slideshow, Transitional conformance, within the zip limits.
- ``ok_strict``: same, but ISO/IEC 29500 Strict namespaces; LibreOffice renders it,
  python-pptx reads it only through the namespace-patched copy.
- ``ok_legacy_ppt``: CFB (OLE2) container with a ``PowerPoint Document`` stream, i.e. binary
  PowerPoint 97-2003; LibreOffice renders it, no structure extraction (each page's text is
  read from the rendered PDF).
- ``ok_pdf``: ``%PDF-`` header and, when PyMuPDF is present, at least one page.
- ``ok_html``: an HTML document (decks made of ``<section>`` slides).
- ``encrypted``: CFB holding ``EncryptionInfo`` + ``EncryptedPackage`` (password-protected
  OOXML), or a PDF that needs a password.
- ``corrupt_zip``: zip signature but the archive is truncated or a member fails its CRC.
- ``corrupt_pdf``: ``%PDF-`` header but PyMuPDF cannot open it or it has no pages.
- ``zip_bomb``: a member over 32 MiB inflating past 100:1, or a package over the size or
  entry limit that inflates past 100:1 as a whole (`sniff.MAX_RATIO`); nothing is inflated,
  parsed or rendered.
- ``too_large``: a package over the judge's size limit (512 MiB uncompressed,
  `sniff.MAX_UNCOMPRESSED_BYTES`) or entry limit (10,000, `sniff.MAX_ENTRIES`) that does not
  inflate past the ratio limit (a deck with a large stored video): refused like a bomb, with
  its true cause; nothing is parsed or rendered.
- ``not_presentation``: a readable zip/CFB that is not a presentation (a .docx, a package
  without ``ppt/presentation.xml``, a CFB without a PowerPoint stream).
- ``empty``: zero bytes.
- ``unreadable``: the path could not be read (missing, a directory, permission).
- ``unknown_format``: no supported magic bytes.
"""

Container = Literal["zip", "cfb", "pdf", "html", "unknown"]
DeckKind = Literal["pptx", "pptm", "ppsx", "ppsm", "potx", "potm", "ppt", "pdf", "html"]


class SniffFlags(BaseModel):
    """Facts found while sniffing; independent of the status."""

    strict: bool = Field(False, description="ISO/IEC 29500 Strict OOXML namespaces")
    macro: bool = Field(False, description="macro-enabled main part (pptm/ppsm/potm)")
    template: bool = Field(False, description="template main part (potx/potm)")
    slideshow: bool = Field(False, description="slideshow main part (ppsx/ppsm)")
    extension_mismatch: bool = Field(
        False, description="file extension disagrees with the content (e.g. OOXML named .ppt)"
    )


class SniffResult(Document):
    """What a file is, judged from its bytes only. Never raised; always returned."""

    schema_id: str = Field("cowork-judge/evidence-sniff@1", alias="schema")
    path: str = Field(description="path as given")
    status: SniffStatus = Field(description="named outcome; see SniffStatus")
    container: Container = Field("unknown", description="container family from magic bytes")
    kind: DeckKind | None = Field(None, description="deck kind from the CONTENT (not the name)")
    main_content_type: str | None = Field(None, description="content type of ppt/presentation.xml")
    size_bytes: int = Field(0, description="file size in bytes")
    flags: SniffFlags = Field(default_factory=SniffFlags)
    zip_entries: int | None = Field(None, description="number of zip members")
    uncompressed_bytes: int | None = Field(None, description="declared uncompressed total")
    max_ratio: float | None = Field(None, description="largest member compression ratio")
    page_count: int | None = Field(None, description="PDF pages when known")
    reason: str = Field("", description="one human-readable sentence")

    @property
    def openable(self) -> bool:
        """True for every ``ok*`` status (worth extracting and rendering)."""
        return self.status.startswith("ok")


# --------------------------------------------------------------------------- structure


class Box(BaseModel):
    """A shape's frame in slide coordinates (EMU), group transforms already applied.

    The box is the UNROTATED frame: centred on the shape's centre as drawn on the slide and
    sized as drawn, before the shape's rotation. The drawn footprint is this box turned by
    :attr:`ShapeDoc.rot_deg` about its centre (:meth:`ShapeDoc.footprint_pt`); for
    ``rot_deg`` 0 or 180 the two coincide.
    """

    x_emu: int
    y_emu: int
    cx_emu: int
    cy_emu: int

    def pt(self) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` in points, the PDF page coordinates of the slide."""
        s = EMU_PER_PT
        return (self.x_emu / s, self.y_emu / s, (self.x_emu + self.cx_emu) / s, (self.y_emu + self.cy_emu) / s)


class Paint(BaseModel):
    """A fill as a viewer sees it, resolved through the theme and the colour map
    (`cowork_judge.evidence.colour`)."""

    kind: Literal["none", "solid", "gradient", "pattern", "ambiguous", "picture", "unknown"] = Field(
        description="none = nothing drawn; solid/gradient/pattern = `colours` hold what is drawn; ambiguous = renderers "
                    "draw one of `colours` (an inherited background under a slide's own colour map); picture = an "
                    "image; unknown = a fill this reader does not resolve (a group fill, an unknown colour)")
    colours: list[str] = Field(default_factory=list, description="CSS hex colours (#RRGGBB, #RRGGBBAA when not "
                               "opaque): the solid colour, the gradient stops, or a pattern's foreground and background")


class Run(BaseModel):
    text: str
    font: str | None = Field(None, description="requested latin typeface, theme fonts resolved")
    font_ea: str | None = Field(None, description="requested East Asian typeface")
    size_pt: float | None = Field(None, description="effective size incl. normAutofit fontScale")
    size_source: Literal["run", "inherited", "default"] | None = None
    bold: bool | None = None
    italic: bool | None = None
    script: bool = Field(False, description="superscript/subscript (a:rPr baseline ≠ 0): drawn smaller than size_pt "
                                            "by the renderer; not judged for tiny fonts")
    colour: str | None = Field(None, description="effective text colour, CSS hex (#RRGGBB, #RRGGBBAA when not opaque), "
                               "theme colours resolved; 'none' = no text fill (a:noFill); None = not a plain colour "
                               "(gradient, picture, hyperlink) or not resolved")
    highlight: str | None = Field(None, description="a:highlight colour drawn behind the run (CSS hex)")
    marks: list[str] = Field(default_factory=list, description="colours drawn with the glyphs besides their fill: "
                             "outline (a:ln), shadow, glow (a:effectLst); CSS hex, 'unknown' when not resolved")


class Paragraph(BaseModel):
    level: int = 0
    text: str = ""
    runs: list[Run] = Field(default_factory=list)


class TextFrame(BaseModel):
    """``a:bodyPr`` facts that decide how text fits its frame, plus the paragraphs."""

    paragraphs: list[Paragraph] = Field(default_factory=list)
    wrap: Literal["square", "none"] = "square"
    autofit: Literal["none", "norm", "shape"] = Field("none", description="noAutofit/normAutofit/spAutoFit")
    font_scale: float = Field(1.0, description="normAutofit fontScale as a fraction")
    insets_emu: tuple[int, int, int, int] = Field((91440, 45720, 91440, 45720), description="l,t,r,b")
    anchor: str = "t"
    vertical: bool = Field(False, description="vert text (rotated/stacked): skip fit checks")
    vert: str = Field("horz", description="a:bodyPr vert as inherited: 'vert' (lines turned 90° clockwise) and "
                                          "'vert270' are measured like a turned frame; stacked kinds are not")

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.paragraphs)


class TableDoc(BaseModel):
    rows: int
    cols: int
    cells: list[list[str]]
    min_size_pt: float | None = Field(None, description="smallest size (points) of a non-empty cell run: its own sz, "
                                                        "else the deck's default text style, else 18 pt; None = no text")


class Series(BaseModel):
    name: str | None = None
    categories: list[str] = Field(default_factory=list)
    values: list[float | None] = Field(default_factory=list)


class ChartDoc(BaseModel):
    chart_types: list[str] = Field(default_factory=list, description="plot element names, e.g. barChart")
    is_3d: bool = False
    title: str | None = None
    series: list[Series] = Field(default_factory=list)


class PictureDoc(BaseModel):
    content_type: str | None = None
    bytes: int | None = None
    linked: bool = Field(False, description="r:link (external) rather than embedded r:embed")
    target: str | None = Field(None, description="part name or external URL")


class ShapeDoc(BaseModel):
    """One shape, flattened out of its groups (``parent_id`` keeps the tree)."""

    id: str = Field(description="cNvPr id (unique per slide in valid decks)")
    name: str = ""
    kind: str = Field(description="sp, pic, graphicFrame, grpSp, cxnSp, contentPart, other")
    parent_id: str | None = None
    depth: int = 0
    placeholder: str | None = Field(None, description="placeholder type, e.g. title/body/obj")
    placeholder_idx: int | None = None
    box: Box | None = Field(None, description="absolute frame, unrotated; None = could not extract")
    rot_deg: float = Field(0.0, description="absolute clockwise rotation in degrees [0, 360): the shape's own rot "
                                            "plus its groups' (a group flip mirrors the angles inside it)")
    hidden: bool = False
    decorated: bool = Field(False, description="the shape draws a fill or an outline of its own (p:spPr, or a p:style "
                                               "reference not cancelled by noFill), so text outside its frame is "
                                               "visibly outside; placeholders' inherited fills are not looked up")
    text: TextFrame | None = None
    table: TableDoc | None = None
    chart: ChartDoc | None = None
    picture: PictureDoc | None = None
    diagram_text: list[str] | None = Field(None, description="SmartArt text points")
    alt: str | None = Field(None, description="alternative text (cNvPr title and descr): read by screen readers, "
                                              "not drawn on the slide")
    fill: Paint | None = Field(None, description="what the shape draws inside its outline (own fill, the placeholder's "
                                                 "or the theme style's); None = not read")
    geometry: str | None = Field(None, description="preset geometry (a:prstGeom prst, e.g. rect, ellipse) or 'custom'")
    backdrop: Paint | None = Field(None, description="what lies behind the shape's text: its own fill, else the shapes "
                                                     "below it, else the slide background (text shapes only)")

    def footprint_pt(self) -> tuple[float, float, float, float] | None:
        """Axis-aligned bounds ``(x0, y0, x1, y1)`` in points of the frame as drawn (``box``
        turned by ``rot_deg`` about its centre); None when the box is unknown. Exact for
        multiples of 90°; for other angles it covers the turned frame (the corners of the
        bounds are empty), so overlap measured on it can only be overstated."""
        if self.box is None:
            return None
        x0, y0, x1, y1 = self.box.pt()
        if not self.rot_deg % 180:
            return (x0, y0, x1, y1)
        cx, cy, w, h = (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0
        if not self.rot_deg % 90:
            return (cx - h / 2, cy - w / 2, cx + h / 2, cy + w / 2)
        a = math.radians(self.rot_deg)
        hw = (abs(w * math.cos(a)) + abs(h * math.sin(a))) / 2
        hh = (abs(w * math.sin(a)) + abs(h * math.cos(a))) / 2
        return (cx - hw, cy - hh, cx + hw, cy + hh)


class ExtractError(BaseModel):
    """One field that could not be extracted. Could not extract is NOT absent."""

    slide: int | None = Field(None, description="1-based slide index; None = deck level")
    shape: str | None = Field(None, description="shape id/name")
    field: str
    error: str


class HiddenText(BaseModel):
    """Text a slide carries that the rendered page does not show."""

    reason: Literal["hidden_slide", "hidden_shape", "off_slide", "covered", "tiny", "transparent", "background_colour"] = Field(
        description="hidden_slide: the slide is not shown; hidden_shape: the shape or a group around it is hidden; "
                    "off_slide: entirely outside the slide; covered: under an opaque shape; tiny: under 4 pt; "
                    "transparent: no text fill or alpha 0; background_colour: the colour of what lies behind it")
    shape: str | None = Field(None, description="the shape's cNvPr id")
    text: str


class SlideDoc(Document):
    """``<deck>/pages/slide-NNN.json``."""

    schema_id: str = Field("cowork-judge/evidence-slide@1", alias="schema")
    index: int = Field(description="1-based position in the slide list")
    slide_id: int | None = None
    part: str | None = None
    layout: str | None = None
    hidden: bool = Field(False, description='p:sld show="0"')
    background: Paint | None = Field(None, description="the slide's background (slide, else layout, else master; "
                                                        "white when none); None = not read")
    title: str | None = Field(None, description="the visible text of the title placeholder (None: none, or not visible)")
    text: str = Field("", description="the text a viewer sees, reading order of the shape tree (text in hidden_text left out)")
    notes: str | None = None
    hidden_text: list[HiddenText] = Field(default_factory=list, description="text a viewer does not see (see "
                                          "HiddenText.reason): kept apart from `text` and shown to the judge only "
                                          "marked as such (issue 27)")
    shapes: list[ShapeDoc] = Field(default_factory=list)
    extract_errors: list[ExtractError] = Field(default_factory=list)


class SlideEntry(BaseModel):
    index: int
    title: str | None = None
    hidden: bool = False
    shapes: int = 0
    chars: int = 0
    page: int | None = Field(None, description="rendered page number (1-based), if any")


STRUCTURE_NOTE = (
    "'could not extract' is not 'absent': a field listed in extract_errors may exist in the "
    "deck; open the file or look at the rendered page before concluding it is missing."
)


class Digest(Document):
    """``<deck>/digest.json``: the deck at a glance plus where everything else is."""

    schema_id: str = Field("cowork-judge/evidence-digest@1", alias="schema")
    deck: str = Field(description="filesystem-safe deck name")
    source: str = Field(description="deliverable path as given (relative when a root was given)")
    sniff: SniffResult
    structure_ok: bool = False
    structure_note: str = STRUCTURE_NOTE
    slide_width_emu: int | None = None
    slide_height_emu: int | None = None
    slide_count: int | None = None
    slides: list[SlideEntry] = Field(default_factory=list)
    fonts_requested: list[str] = Field(default_factory=list)
    extract_errors: list[ExtractError] = Field(default_factory=list)
    render: RenderInfo | None = None


# --------------------------------------------------------------------------- render

SkipKind = Literal["render_env", "deck_broken", "budget", "disabled", "not_applicable", "error"]
"""Why a layer did not run: environment lacks a tool (never the deck's fault), the deck is
broken (the deliverable's fault), the time budget ran out, evidence is off, the layer does
not apply to this kind, or an unexpected internal error (recorded, isolated)."""


class PageImage(BaseModel):
    page: int = Field(description="1-based page number in the render")
    slide: int | None = Field(None, description="1-based slide index; None = no slide")
    path: str = Field(description="PNG path relative to the evidence root")
    width_px: int
    height_px: int


class RenderInfo(BaseModel):
    status: Literal["ok", "skipped", "failed"]
    skip_kind: SkipKind | None = None
    reason: str = ""
    engine: str | None = Field(None, description="soffice+pymupdf, pymupdf, chromium")
    page_count: int = 0
    pages: list[PageImage] = Field(default_factory=list)
    page_to_slide: dict[int, int | None] = Field(default_factory=dict)
    mapping: Literal["slide_list", "assumed_order", "sections", "pdf_pages", "none"] = "none"
    hidden_exported: bool | None = None
    seconds: float = 0.0


# --------------------------------------------------------------------------- checks

CheckName = Literal[
    "off_slide",
    "text_overlap",
    "text_overflow",
    "tiny_font",
    "blank_page",
    "missing_glyph",
    "placeholder_text",
    "empty_deck",
]


class Finding(BaseModel):
    check: CheckName
    slide: int | None = None
    page: int | None = None
    shape_id: str | None = None
    shape_name: str | None = None
    measure: dict[str, Any] = Field(default_factory=dict, description="numbers with units in keys")
    message: str
    confidence: float = Field(ge=0.0, le=1.0, description="drops with substituted fonts etc.")
    source: Literal["structure", "render", "both"] = "structure"
    measured: bool = Field(True, description="measured on the rendered page (or exact in the stored text); false = "
                           "estimated: inferred from stored properties, drawn in a substituted typeface, or a grouped "
                           "frame; an estimated finding never decides a rubric cell alone (SPEC §9)")


class FontMapEntry(BaseModel):
    requested: str
    rendered: list[str] = Field(default_factory=list)
    verdict: Literal["same", "metric_compatible", "substituted", "unknown"] = "unknown"


class CheckLimit(BaseModel):
    """A place where the checks covered less than the whole deck; findings there are a lower
    bound. Kinds: ``budget`` (the evidence budget ran out; ``count`` slides/pages not
    checked), ``text_frame_cap`` (``count`` text frames of the slide left out of the pairwise
    checks), ``line_cap`` (``count`` rendered lines of the page not matched to frames),
    ``finding_cap`` (``count`` findings of ``check`` found but not written)."""

    kind: Literal["budget", "text_frame_cap", "line_cap", "finding_cap"]
    check: str | None = Field(None, description="the check concerned; None = all of them")
    slide: int | None = Field(None, description="slide concerned (for budget: the first slide not checked)")
    page: int | None = None
    count: int = Field(description="slides/pages, text frames, lines or findings left out")
    reason: str


class ChecksDoc(Document):
    """``<deck>/checks.json``."""

    schema_id: str = Field("cowork-judge/evidence-checks@1", alias="schema")
    deck: str
    findings: list[Finding] = Field(default_factory=list)
    font_map: list[FontMapEntry] = Field(default_factory=list)
    checks_run: list[str] = Field(default_factory=list)
    checks_skipped: dict[str, str] = Field(default_factory=dict, description="check -> reason")
    findings_dropped: dict[str, int] = Field(
        default_factory=dict, description="check -> findings found but not written (per-slide and per-deck caps)")
    limits: list[CheckLimit] = Field(default_factory=list, description="where the checks covered less than the deck")


# --------------------------------------------------------------------------- summary


class LayerSkip(BaseModel):
    layer: Literal["structure", "render", "checks"]
    kind: SkipKind
    reason: str


class DeckSummary(BaseModel):
    deck: str
    source: str
    sniff_status: SniffStatus
    kind: DeckKind | None = None
    structure_ok: bool = False
    slide_count: int | None = None
    page_count: int = 0
    pages_rendered: int = 0
    page_to_slide: dict[int, int | None] = Field(default_factory=dict)
    findings: int = 0
    findings_by_check: dict[str, int] = Field(default_factory=dict, description="findings written to checks.json")
    findings_dropped: dict[str, int] = Field(default_factory=dict, description="findings found but not written (caps)")
    layers_skipped: list[LayerSkip] = Field(default_factory=list)
    seconds: float = 0.0
    digest: str | None = Field(None, description="path relative to the evidence root")
    checks: str | None = None
    pages_dir: str | None = None


class EvidenceSummary(Document):
    """``index.json``: one entry per deck; ``pages_rendered`` is ``judge_evidence_pages``."""

    schema_id: str = Field("cowork-judge/evidence-index@1", alias="schema")
    out_dir: str
    decks: list[DeckSummary] = Field(default_factory=list)
    pages_rendered: int = 0
    budget_sec: float = 0.0
    seconds: float = 0.0
    render_skipped_for_budget: bool = False
    capabilities: dict[str, bool] = Field(default_factory=dict)


Digest.model_rebuild()
