"""What a viewer sees of a slide's text: the one home of that rule (issue 27).

A deck can carry text the rendered page does not show. The structure reader
(`structure.extract_structure`) records each run's colour, each shape's fill and what lies
behind each text shape (`assign_backdrops`); `split_visible` then keeps only the visible
text in the slide's ``text`` (what content rows are judged from) and moves the rest to
``hidden_text`` with its reason (`HiddenText.reason`):

- ``hidden_slide``: the slide is hidden (``p:sld show="0"``);
- ``hidden_shape``: the shape, or a group around it, is hidden (``cNvPr hidden="1"``);
- ``off_slide``: the shape's box lies entirely outside the slide;
- ``covered``: an opaque rectangle or JPEG picture drawn later (above it) covers the whole box;
- ``tiny``: the run's effective size is under `MIN_VISIBLE_PT`;
- ``transparent``: the run has no fill (``a:noFill``), or its alpha makes it vanish;
- ``background_colour``: the run's colour looks like what lies behind it (`looks_alike`).

The guard (`cowork_judge.guard.deck_text`) reads decks through the same reader, so the
judge's prompts and the guard agree on what is hidden. Nothing is claimed hidden when
unsure: behind a picture, a gradient whose stops the text does not all match, a shape
only partly under the text, a rotated or non-rectangular shape, or a colour this reader
cannot resolve, the text counts as visible.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from .colour import NO_PAINT, UNKNOWN, Colour, contrast_ratio, delta_e
from .documents import HiddenText, Paint, Run, ShapeDoc, SlideDoc

MIN_VISIBLE_PT = 4.0
"""Runs smaller than this (points, effective size) are text a viewer does not read (issue 27:
"zero-size or under 4 pt")."""
HIDDEN_CONTRAST = 1.5
"""WCAG 2.2 contrast ratio under which a run's colour counts as the colour of what lies behind
it. WCAG's lowest floor for text a reader must see is 3:1 (SC 1.4.3 for large text, SC 1.4.11
for graphics; Understanding SC 1.4.3 gives 3:1 as the ISO 9241-3 minimum for normal vision);
text is called hidden only at half that ratio or less: #D9D9D9 on white (1.41:1) or #262626
on black (1.39:1) is hidden, #BFBFBF on white (1.84:1) or #404040 on black (2.03:1) is not."""
SAME_COLOUR_DELTA_E = 20.0
"""The WCAG ratio weighs luminance only (Understanding SC 1.4.3: hue is left out on purpose),
so yellow #FFFF00 on white has 1.07:1 yet reads as yellow. A run is called hidden only when,
besides, its colour differs from the backdrop by less than this CIE 1976 ΔE*ab (about
ten just-noticeable differences of 2.3): yellow on white is ΔE 96, #D9D9D9 on white 13."""
COVER_TOLERANCE_PT = 0.5
"""A covering shape must reach this close (points) to every edge of the covered box."""
OPAQUE_PICTURES = frozenset({"image/jpeg", "image/jpg", "image/bmp"})
"""Picture formats without an alpha channel: such a picture hides what lies under it."""


def looks_alike(text: Colour, behind: Colour) -> bool:
    """Whether opaque `text` drawn on opaque `behind` does not stand out: WCAG contrast ratio
    under `HIDDEN_CONTRAST` and ΔE*ab under `SAME_COLOUR_DELTA_E`."""
    return contrast_ratio(text, behind) < HIDDEN_CONTRAST and delta_e(text, behind) < SAME_COLOUR_DELTA_E


def _colours(paint: Paint | None) -> list[Colour] | None:
    """The colours a solid, gradient, pattern or ambiguous paint may draw; None for anything else."""
    if paint is None or paint.kind not in ("solid", "gradient", "pattern", "ambiguous") or not paint.colours:
        return None
    try:
        return [Colour.from_hex(c) for c in paint.colours]
    except ValueError:
        return None


def _over(top: Paint, below: Callable[[], Paint]) -> Paint:
    """`top` drawn over what `below` returns (called only when `top` lets something through)."""
    if top.kind == "none":
        return below()
    colours = _colours(top)
    if colours is None:
        return UNKNOWN
    if all(c.alpha >= 1.0 for c in colours):
        return top
    under = _colours(below())
    if under is None:
        return UNKNOWN
    mixed = [c.over(u).hex for c in colours for u in under]
    return Paint(kind="solid" if len(set(mixed)) == 1 else "gradient", colours=sorted(set(mixed)))


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _contains(outer: tuple[float, float, float, float], inner: tuple[float, float, float, float]) -> bool:
    t = COVER_TOLERANCE_PT
    return outer[0] <= inner[0] + t and outer[1] <= inner[1] + t and outer[2] >= inner[2] - t and outer[3] >= inner[3] - t


def _rectangular(shape: ShapeDoc) -> bool:
    return shape.geometry == "rect" and not shape.rot_deg % 90


def behind(box: tuple[float, float, float, float], layers: Sequence[ShapeDoc], background: Paint | None) -> Paint:
    """What a viewer sees behind the area `box` (points, ``x0, y0, x1, y1``).

    Args:
        box: the area (a text shape's footprint).
        layers: the shapes drawn before it, bottom first (master and layout shapes, then the
            slide's), hidden ones left out.
        background: the slide background (None: not read, white assumed).

    Returns:
        The topmost painted layer over `box` when it covers `box` entirely (a rectangle,
        unrotated), composed with what lies under it when it is not opaque; ``unknown``
        when a painted layer covers `box` only partly or is a picture or an unresolved fill;
        the background when no painted layer touches `box`.
    """
    for i in range(len(layers) - 1, -1, -1):
        layer = layers[i]
        if layer.fill is None or layer.fill.kind == "none":
            continue
        area = layer.footprint_pt()
        if area is None:
            return UNKNOWN  # painted, but where is not known
        if not _overlaps(area, box):
            continue
        if not (_rectangular(layer) and _contains(area, box)):
            return UNKNOWN
        return _over(layer.fill, functools.partial(behind, box, layers[:i], background))
    return background if background is not None else Paint(kind="solid", colours=["#FFFFFF"])


def _painting(shape: ShapeDoc) -> bool:
    return shape.fill is not None and shape.fill.kind != "none"


def assign_backdrops(shapes: list[ShapeDoc], underlay: Sequence[ShapeDoc], background: Paint | None) -> None:
    """Set `ShapeDoc.backdrop` of every shape with text: its own fill over what lies behind it
    (`behind`, over `underlay` and the shapes before it in `shapes`, which is z-order)."""
    hidden: set[str] = set()
    layers: list[ShapeDoc] = list(underlay)
    for shape in shapes:
        if shape.hidden or (shape.parent_id is not None and shape.parent_id in hidden):
            hidden.add(shape.id)
            continue
        area = shape.footprint_pt()
        if shape.text is not None and area is not None:
            own = shape.fill if shape.fill is not None else NO_PAINT
            below = list(layers)
            shape.backdrop = own if own.kind in ("picture", "unknown") else _over(
                own, functools.partial(behind, area, below, background))
        if _painting(shape):
            layers.append(shape)


def covering(index: int, shapes: Sequence[ShapeDoc], hidden: set[str]) -> str | None:
    """The id of a shape drawn after ``shapes[index]`` that hides its whole box: an opaque
    solid rectangle or an opaque-format picture (JPEG, BMP), unrotated; None when none does."""
    area = shapes[index].footprint_pt()
    if area is None:
        return None
    for other in shapes[index + 1:]:
        if other.id in hidden or other.hidden or not _rectangular(other):
            continue
        colours = _colours(other.fill) if other.fill is not None and other.fill.kind == "solid" else None
        opaque = (colours is not None and all(c.alpha >= 1.0 for c in colours)) or (
            other.picture is not None and (other.picture.content_type or "") in OPAQUE_PICTURES)
        cover = other.footprint_pt()
        if opaque and cover is not None and _contains(cover, area):
            return other.id
    return None


def run_hidden(run: Run, backdrop: Paint | None) -> str | None:
    """Why a viewer does not see `run` on `backdrop` (see the module docstring), or None.

    Superscripts and subscripts are not judged for size (drawn smaller than their size).
    A run whose outline, shadow or glow stands out, or whose highlight does, is visible.
    """
    if run.size_pt is not None and run.size_pt < MIN_VISIBLE_PT and not run.script:
        return "tiny"
    if not run.text.strip() or run.colour is None:
        return None
    if "unknown" in run.marks:
        return None
    behind_colours = _colours(Paint(kind="solid", colours=[run.highlight])) if run.highlight else _colours(backdrop)
    transparent = run.colour == "none"
    try:
        fill = None if transparent else Colour.from_hex(run.colour)
        marks = [Colour.from_hex(m) for m in run.marks]
    except ValueError:
        return None
    if fill is not None and fill.alpha <= 0.0:
        fill, transparent = None, True
    drawn = ([fill] if fill is not None else []) + marks
    if not drawn:
        return "transparent"
    if behind_colours is None:
        return None
    if all(looks_alike(c.over(b), b) for c in drawn for b in behind_colours):
        opaque_visible = fill is not None and fill.alpha < 1.0 and not all(
            looks_alike(fill.opaque(), b) for b in behind_colours)
        return "transparent" if transparent or opaque_visible else "background_colour"
    return None


def _shape_texts(shape: ShapeDoc) -> list[str]:
    if shape.text:
        return [shape.text.text]
    if shape.table:
        return [" | ".join(row) for row in shape.table.cells]
    return list(shape.diagram_text or [])


def shape_text(shape: ShapeDoc) -> str:
    """All of a shape's text (text frame, table rows, SmartArt points), one line per part."""
    return "\n".join(t for t in _shape_texts(shape) if t)


def split_visible(slide: SlideDoc, width_emu: int, height_emu: int) -> None:
    """Keep in `slide.text` (and `slide.title`) only the text a viewer sees; move the rest to
    `slide.hidden_text` with its reason (see the module docstring).

    The shapes keep their text (the checks still see every shape); only the slide's reading
    text — what content rows are judged from — is the visible text. A hidden slide keeps no
    reading text and no title. Needs the backdrops (`assign_backdrops`) for colour.
    """
    if slide.hidden:
        for shape in slide.shapes:
            text = shape_text(shape)
            if text.strip():
                slide.hidden_text.append(HiddenText(reason="hidden_slide", shape=shape.id, text=text))
        slide.text, slide.title = "", None
        return
    why_hidden: dict[str, str] = {}
    visible: list[str] = []
    title: str | None = None
    titled = False
    for index, shape in enumerate(slide.shapes):
        reason = why_hidden.get(shape.parent_id or "")
        if reason is None and shape.hidden:
            reason = "hidden_shape"
        elif reason is None and shape.box is not None and (
                shape.box.x_emu + shape.box.cx_emu <= 0 or shape.box.y_emu + shape.box.cy_emu <= 0
                or shape.box.x_emu >= width_emu or shape.box.y_emu >= height_emu):
            reason = "off_slide"
        elif reason is None and (shape.text is not None or shape.table is not None or shape.diagram_text):
            cover = covering(index, slide.shapes, set(why_hidden))
            reason = "covered" if cover is not None else None
        if reason is not None:
            why_hidden[shape.id] = reason
            text = shape_text(shape)
            if text.strip():
                slide.hidden_text.append(HiddenText(reason=reason, shape=shape.id, text=text))
            continue
        if shape.text is not None:
            shown_lines: list[str] = []
            unseen: dict[str, list[str]] = {}
            for para in shape.text.paragraphs:
                shown: list[str] = []
                lost: dict[str, list[str]] = {}
                for run in para.runs:
                    why = run_hidden(run, shape.backdrop)
                    if why is None:
                        shown.append(run.text)
                    else:
                        lost.setdefault(why, []).append(run.text)
                shown_lines.append("".join(shown))
                for why, parts in lost.items():
                    if "".join(parts).strip():
                        unseen.setdefault(why, []).append("".join(parts))
            for why, lines in unseen.items():
                slide.hidden_text.append(HiddenText(reason=why, shape=shape.id, text="\n".join(lines)))
            seen = "\n".join(shown_lines)
            if shape.placeholder in ("title", "ctrTitle") and not titled:
                title, titled = seen.strip(), True
            visible.append(seen)
            continue
        visible.extend(_shape_texts(shape))
    slide.title = title
    slide.text = "\n".join(t for t in visible if t)
