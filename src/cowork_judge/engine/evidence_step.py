"""The run's evidence step: every deck-like deliverable extracted and rendered once, before
any segment runs, and what of it is kept beside the verifier outputs.

Evidence is an aid, never a verdict: a failure here is logged and the run goes on without
it (`collect`); the evidence package is imported only when a deck and a model row exist.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from cowork_judge.core.judge_extras import missing_extras_module, names_missing_extras
from cowork_judge.core.deck_gate import split_ungated
from cowork_judge.core.rubric import DECK_CODE_METHODS, Criterion
from cowork_judge.evidence.deck_request import asks_for_deck
from cowork_judge.evidence.kinds import is_deck_name
from cowork_judge.evidence.reads import StructureReads
from cowork_judge.run.context import RunContext

log = logging.getLogger("cowork_judge")

EVIDENCE_DEADLINE_SHARE = 1 / 3
"""The most of the run's remaining time (JUDGE_DEADLINE) the evidence step may take, JUDGE_EVIDENCE
capping it further: the segments that judge need the rest. Inside it a deck renders only when
its size's need is left (`cowork_judge.evidence.build.render_need_sec`: 12.5 s for 10 slides),
so JUDGE_DEADLINE=120 still renders a 10-slide deck (0.2.0's fixed 45 s minimum did not)."""


def collect(ctx: RunContext, *, needs_evidence: bool = True, reads: StructureReads | None = None,
            page_readers: Sequence[str] = (), init_fixes: bool = True) -> tuple[dict[str, Any], int]:
    """Extract and render every deck-like deliverable once, within
    ``min(JUDGE_EVIDENCE, EVIDENCE_DEADLINE_SHARE × the time left)`` seconds.

    Writes ``env_capabilities.json`` (unless test.sh already did) and the shared
    ``evidence/`` tree that every block workspace links. Evidence is an aid, never a
    verdict: any failure here is logged and the run goes on without it. The renderers
    are probed (LibreOffice and Chromium ``--version``, about 0.15 s) only when evidence
    is going to be built: a run with no model row, no deck, or ``JUDGE_EVIDENCE=0`` neither
    probes nor imports the evidence package (test.sh writes ``env_capabilities.json`` in
    a container anyway). `reads`: the run's deck reads (the guard's scan read its decks through
    them first): a deck the guard read whole is not parsed again. `page_readers`: ids of the
    agentic rows, which view the rendered pages: a deck this environment cannot render (no
    PyMuPDF, no LibreOffice) is then a warning naming them and what to install (trial 14 P1-1). `init_fixes`:
    `cowork-judge init` gives this rubric the deck extras (`init_picks_deck_extras`), so a deck not read at all
    is fixed by running it again; else the warning says to add a deck row first (trial 21 P-1).

    Returns:
        A compact summary for ``details.evidence`` ({} when nothing was done; its ``warnings``
        key, the run's warnings about the renderer, is popped by the caller, and so is its
        `EXTRAS_MISSING_KEY`, the cause when the judge's extras are missing and no deck was read
        at all: trial 23 P-1), and the
        number of pages rendered (``judge_evidence_pages``).
    """
    config, paths = ctx.config, ctx.paths
    if not needs_evidence or config.evidence_sec <= 0 or not any(is_deck_name(f.rel) for f in ctx.delivery.files):
        return {}, 0
    try:
        from cowork_judge.evidence import build_evidence, is_deck, probe_capabilities, render_width_px
        from cowork_judge.evidence.render_blame import RENDERER_FAULT

        # every delivered deck, wherever lenient delivery found it: the deck locate_deck
        # picks must have the same evidence as any other (§7.2 "the SAME file")
        decks = [f.path for f in ctx.delivery.files if is_deck(f.rel)]
        if not decks:
            return {}, 0
        caps = probe_capabilities(config.soffice, config.chromium)
        if not paths.env_capabilities_json.exists():
            caps.write(paths.env_capabilities_json)
        budget = min(config.evidence_sec, max(0.0, ctx.deadline.remaining() * EVIDENCE_DEADLINE_SHARE))
        summary = build_evidence(decks, paths.evidence_dir, budget_sec=budget, width_px=render_width_px(ctx.workflow_config),
                                 soffice=config.soffice, chromium=config.chromium, capabilities=caps, root=paths.output_dir,
                                 reads=reads)
    except Exception as exc:  # evidence must never cost the run its reward
        cause = f"{type(exc).__name__}: {exc}"
        log.warning("evidence extraction failed: %s", ctx.redactor.redact(cause))
        delivered = [f.rel for f in ctx.delivery.files if is_deck_name(f.rel)]
        unread = {"error": cause, "warnings": unread_warnings(delivered, cause, page_readers, init_fixes=init_fixes,
                                                             unjudged=bool(missing_extras_module(exc)))}
        if missing_extras_module(exc):
            unread[EXTRAS_MISSING_KEY] = cause
        return unread, 0
    log.info("evidence: %d deck(s), %d page(s) rendered in %.1f s", len(summary.decks), summary.pages_rendered, summary.seconds)
    blind = extras_blind(summary.decks)
    return {
        **({EXTRAS_MISSING_KEY: blind} if blind else {}),
        "warnings": _render_warnings(summary.decks, RENDERER_FAULT, page_readers, init_fixes),
        "pages_rendered": summary.pages_rendered,
        "seconds": summary.seconds,
        "render_skipped_for_budget": summary.render_skipped_for_budget,
        "decks": [
            {"deck": d.deck, "source": d.source, "status": d.sniff_status, "structure_ok": d.structure_ok,
             "pages_rendered": d.pages_rendered, "findings": d.findings_by_check,
             "findings_dropped": d.findings_dropped,
             "skipped": [f"{s.layer}: {s.kind} ({s.reason})" for s in d.layers_skipped]}
            for d in summary.decks
        ],
    }, summary.pages_rendered


EXTRAS_MISSING_KEY = "extras_missing"
"""The key of `collect`'s summary, popped by the run, that holds the cause when no deck was read because the
judge's extras are missing: the model-judged rows that judge the deck are then unjudged ``extras_missing``."""


RENDERING_FIX = ("install the rendering extra and LibreOffice: COWORK_JUDGE_EXTRAS=workflow (PyMuPDF) and "
                 "libreoffice-impress in the verifier image (`cowork-judge init <task>` chooses both from the rubric)")
"""How a verifier that cannot render decks is fixed (said by the run's warning)."""


READING_FIX = ("the verifier lacks cowork-judge's deck extras: run `cowork-judge init <task>` again, which sets "
               "COWORK_JUDGE_EXTRAS from the rubric's rows (run it after every rubric edit)")
"""How a verifier that cannot read decks at all is fixed when init picks the deck extras for the rubric
(`init_picks_deck_extras`; said by the run's warning; trial 20 P-5, trial 21 P-1)."""

READING_FIX_NO_DECK_ROW = ("the verifier lacks cowork-judge's deck extras, and `cowork-judge init` picks none for a "
                           "rubric without a deck row: add a locate_deck row, then run `cowork-judge init <task>` again")
"""The same fix when init picks no deck extras for the rubric: no row says it judges a deck."""


def init_picks_deck_extras(criteria: Iterable[Criterion], task_prompt: str) -> bool:
    """True when `cowork-judge init` gives this task's verifier the deck extras (python-pptx and lxml), as
    `install.extras.for_rubric_file` decides from the rubric file: a row of a deck code method
    (`core.rubric.DECK_CODE_METHODS`), a code row whose ``glob`` names a deck, a workflow row whose workflow needs
    an extra (``ppt_judge``), or a task prompt asking for a deck (`evidence.deck_request.asks_for_deck`). Read for a run with model-judged rows
    (the only ones `collect` warns for), which then view the deck."""
    for crit in criteria:
        glob = crit.code.params.get("glob")
        if crit.judge_method == "code" and (crit.code.method_name in DECK_CODE_METHODS
                                            or (isinstance(glob, str) and is_deck_name(glob))):
            return True
        if crit.judge_method == "workflow":
            from cowork_judge.workflow import requires_extras  # a workflow row's run imports it anyway

            if requires_extras(crit.workflow.name):
                return True
    return asks_for_deck(task_prompt)


CHAT_DECK_FIX = ("gate those rows on the deck: a positive locate_deck row listed in their depends_on (docs/rubric.md, "
                 "\"Use a gate, not a hurdle, for a deliverable that must exist\"; lint-rubric M015)")
"""How a deck task whose model-judged rows are judged on the final message is fixed (said by `chat_deck_warnings`)."""


def chat_deck_warnings(criteria: Sequence[Criterion], from_chat: bool, task_prompt: str) -> list[str]:
    """The run's warning when a deck task (`init_picks_deck_extras`, the classifier init and lint M012 follow) got no
    file, only a final message judged in its place (`from_chat`: ``JUDGE_CHAT_FALLBACK``), and positive model-judged
    rows no deliverable gate guards (`core.deck_gate.split_ungated`: not the deck workflow rows, a judged miss with
    no deck, trial 29 P-6) were judged on that message: on the agent's claims, not its slides (trial 28 P-5).
    [] otherwise. A warning only: the verdicts and the reward are unchanged."""
    if not from_chat:
        return []
    rows = split_ungated(criteria)[0]
    if not rows or not init_picks_deck_extras(criteria, task_prompt):
        return []
    return [f"deck task: no file was delivered; {len(rows)} row(s) ({_rows_named(rows)}) were judged on the agent's "
            f"final message (claims, not slides); {CHAT_DECK_FIX}"]


def unread_warnings(delivered: Sequence[str], cause: str, page_readers: Sequence[str], *,
                    init_fixes: bool = True, unjudged: bool = False) -> list[str]:
    """The run's warnings when the evidence step failed, so no delivered deck was read at all (trial 20
    P-5: the judge's extras missing, ``ModuleNotFoundError: lxml``): one per deck of `delivered` (paths
    relative to the output root), naming `cause` and the fix: re-run init (`READING_FIX`) when `init_fixes`
    (`init_picks_deck_extras`), else add a deck row first (`READING_FIX_NO_DECK_ROW`; trial 21 P-1). Said only
    from `collect`, which runs only when model-judged rows exist; `page_readers` (the agentic row ids) are
    named when there are any. With `unjudged` (the judge's extras missing: the router leaves those rows unjudged
    ``extras_missing``, trial 23 P-1) the line says so, not that they were judged on nothing (trial 37 P-1), and that a
    row gated on a deck row left unjudged for the same cause is ``dep_unjudged`` instead (trial 39 P-2)."""
    shown = f" {_rows_named(page_readers)}" if page_readers else ""
    fix = READING_FIX if init_fixes else READING_FIX_NO_DECK_ROW
    seen = ("were left unjudged (extras_missing; one gated on a deck row the same cause left unjudged is dep_unjudged): "
            "they would have seen no slide text and no page image" if unjudged
            else "saw no slide text and no page image")
    return [f"{deck}: the delivered deck could not be read ({cause}): the model-judged row(s){shown} {seen}; {fix}"
            for deck in delivered]


def _rows_named(rows: Sequence[str]) -> str:
    """`rows` as one phrase: the first six ids, then how many more."""
    return ", ".join(rows[:6]) + (f" and {len(rows) - 6} more" if len(rows) > 6 else "")


def extras_blind(decks: Sequence[Any]) -> str | None:
    """The cause (a skip reason) when a deck of `decks` (`evidence.DeckSummary`) was neither read nor rendered
    because the judge's extras are missing (`core.judge_extras.names_missing_extras`: python-pptx, lxml…), else None.
    A deck unread for its own fault (corrupt: ``deck_broken``, or an error that names no extras module) is not."""
    for deck in decks:
        if deck.pages_rendered:
            continue
        for skip in deck.layers_skipped:
            if skip.layer == "structure" and skip.kind in ("render_env", "error") and names_missing_extras(skip.reason):
                return str(skip.reason)
    return None


def _render_warnings(decks: Sequence[Any], renderer_fault: str, page_readers: Sequence[str],
                     init_fixes: bool = True) -> list[str]:
    """The run's warnings about the renderer, one per deck of `decks` (`evidence.DeckSummary`) whose render
    layer was skipped: a renderer that wrote nothing (`renderer_fault`, trial 8 F7), and a renderer this
    environment lacks while agentic rows (`page_readers`) judge the deck (trial 14 P1-1: they are judged on
    its extracted text alone), and a deck neither read nor rendered (trial 20 P-5: its structure layer
    skipped for the environment or an error, no page: said by `unread_warnings` in place of the text-alone one). Every skip of
    the environment, an error or the budget is logged."""
    warnings = []
    for deck in decks:
        unread = [s.reason for s in deck.layers_skipped if s.layer == "structure" and s.kind in ("render_env", "error")]
        blind = bool(unread) and not deck.pages_rendered  # trial 20 P-5: no text and no page: the model rows judged blind
        if blind:
            warnings += unread_warnings([deck.source], unread[0], page_readers, init_fixes=init_fixes,
                                        unjudged=extras_blind(decks) is not None)
        for skip in deck.layers_skipped:
            if skip.kind in ("render_env", "error", "budget"):
                log.warning("evidence: %s: %s layer skipped (%s): %s", deck.deck, skip.layer, skip.kind, skip.reason)
            if skip.layer != "render":
                continue
            if skip.reason.startswith(renderer_fault):  # trial 8 F7: the image's fault, said
                warnings.append(f"{deck.source}: {skip.reason}; the rows judging its pages are unjudged "
                                "render_env: check the verifier image's LibreOffice (JUDGE_SOFFICE_PATH)")
            elif skip.kind == "render_env" and page_readers and not blind:  # not "judged on its text": it had none
                shown = _rows_named(page_readers)
                warnings.append(f"{deck.source}: no page was rendered ({skip.reason}): the agentic row(s) {shown} were "
                                f"judged on the deck's extracted text alone, without a page image; {RENDERING_FIX}")
    return warnings


def keep(ctx: RunContext) -> dict[str, int]:
    """Copy the deck evidence beside the verifier outputs for `cowork-judge report` (the
    work dir is deleted and Harbor downloads only the verifier folder)."""
    from cowork_judge.evidence.keep import keep_evidence

    kept = keep_evidence(ctx.paths.evidence_dir, ctx.paths.kept_evidence_dir, ctx.redactor)
    if kept.images_dropped:
        log.warning("evidence: %d page image(s) not kept beside the outputs (size cap)", kept.images_dropped)
    return {"files": kept.files, "bytes": kept.bytes, "images_dropped": kept.images_dropped}
