"""The HTML report of one job: score and formula terms, where the points went (per row: level,
points lost, the pages that cost them), per-row verdicts, coverage, delivery, and — for
decks — page thumbnails with each per-page row's level there, the findings that decided or
informed it (drawn on the page), and a note where a measured defect cost no row anything. Pure: a `fleet.job.Job` in, one self-contained page out.

Every text that came from the rollout (reasons, file names, slide titles, finding
messages) is escaped by `fleet.html.esc`; the page has no script and its Content Security
Policy forbids scripts and network fetches, so a deliverable's ``<script>`` is shown as
text and never runs.
"""

from __future__ import annotations

from typing import Any

from cowork_judge.core.caps import cap_middle
from cowork_judge.core.fatal import zeroed_sentence
from cowork_judge.core.result import RowResult, counts_as_passed
from cowork_judge.core.simulated import SIM_MODEL, simulated_note
from cowork_judge.fleet.html import esc, fmt, key_values, page, table
from cowork_judge.fleet.job import DeckEvidence, Job
from cowork_judge.fleet.pagemap import Overlay, finding_overlays, rows_by_page
from cowork_judge.fleet.report_pages import PageRow, RowCost, loss_causes, passed_despite, row_costs, rows_on_page

CHECK_COLORS = {"off_slide": "#d9480f", "text_overlap": "#c2255c", "text_overflow": "#e03131", "tiny_font": "#7048e8",
                "blank_page": "#1971c2", "missing_glyph": "#2f9e44", "placeholder_text": "#f08c00", "empty_deck": "#495057"}

REPORT_REASON_CHARS = 8000
"""Longest reason (and exit reason) the HTML report shows, head and tail kept with a marker
saying how much was cut (`core.caps.cap_middle`). The judge writes result.json reasons of
at most 4,000 characters; a document from elsewhere may carry any length (a 30 MB reason
made a 31 MB page)."""


REPORT_MESSAGE_CHARS = 200_000
"""Longest final message the HTML report shows, head and tail kept with a marker saying how much was cut
(`core.caps.cap_middle`); the kept copy (``judge/final_message.json``) holds up to 1,000,000 characters."""


REPORT_TITLE = "Judge report"


def render_report(job: Job) -> str:
    """The report page of `job`."""
    doc = job.doc
    decks = {d.deck: d.page_to_slide() for d in job.decks}
    results = [r.model_dump(mode="json") for r in doc.results]
    ties = rows_by_page(results, decks, job.viewed)
    pages_of_row: dict[str, list[tuple[str, int]]] = {}
    for key, rows in ties.items():
        for row in rows:
            pages_of_row.setdefault(row, []).append(key)
    names = [d.deck for d in job.decks]
    parts = [_header(job), _score(job), _guard(job), _costs(job, names), _coverage(job), _rows(job, pages_of_row, len(job.decks) > 1),
             _delivery(job), _final_message(job), _evidence(job, ties)]
    if doc.details.warnings:
        parts.append("<h2>Warnings</h2><ul>" + "".join(f"<li>{esc(w)}</li>" for w in doc.details.warnings) + "</ul>")
    seal = "seal verified" if job.seal.state == "verified" else (job.seal.problem or "seal not checked")
    parts.append(f'<p class="sub">result.json sha256 {esc(job.doc_sha256)} · {esc(seal)} · {esc(job.verifier_dir)}</p>')
    return page(f"{REPORT_TITLE}: reward {fmt(doc.task_score)}", "\n".join(parts))


def _header(job: Job) -> str:
    doc = job.doc
    status = f'<span class="pill">{esc(doc.status)}</span>'
    code = f' <span class="pill">{esc(doc.exit_code)}</span>' if doc.exit_code else ""
    return (f"<h1>Reward {esc(fmt(doc.task_score))} {status}{code}</h1>"
            f'<p class="sub">{esc(doc.metric_id)} · judge {esc(doc.judge_backend)} / {esc(doc.judge_model)} · cowork-judge '
            f'{esc(doc.version)} (abi {doc.abi}; requested {esc(doc.requested_version or "–")} from {esc(doc.version_source)})</p>'
            + (f'<p class="warn">{esc(cap_middle(doc.exit_reason, REPORT_REASON_CHARS))}</p>' if doc.exit_reason else "")
            + _simulated(job))


def _simulated(job: Job) -> str:
    """Under the header of a run the built-in simulator judged (``judge_model`` `SIM_MODEL`) and was asked: the note
    ``try`` and ``demo`` print (`core.simulated.simulated_note`, trial 27 P-8: the reward checks the plumbing)."""
    doc = job.doc
    if doc.judge_model != SIM_MODEL:
        return ""
    ef = doc.extra_fields
    note = simulated_note(judge_called=ef.judge_called, judged_rows=len(doc.results) - ef.judge_unjudged)
    return f'<p class="warn">{esc(note)}</p>' if note else ""


def _score(job: Job) -> str:
    doc, details = job.doc, job.doc.details
    policy = details.policy
    pairs: list[tuple[str, Any]] = [("W (positive weight)", details.weight_total), ("E (earned, deductions included)", details.earned),
                                    ("score_raw = E / W", doc.score_raw), ("fatal (a hurdle row hit)", doc.fatal),
                                    ("score_normalized = 0 if fatal else clamp(E / W, 0, 1)", doc.score_normalized)]
    if policy is not None:
        rule = "score_normalized" if policy.reward_mode == "continuous" else "1 if passed else 0"
        pairs += [(f"reward ({policy.reward_mode}) = {rule}", doc.task_score),
                  (f"passed = score_normalized {'≥' if policy.pass_compare == 'gte' else '>'} {fmt(policy.pass_threshold)}"
                   " and status not error", counts_as_passed(doc)),
                  ("unjudged negative rows", policy.unjudged_negative),
                  ("credited rows without a quote found (JUDGE_UNGROUNDED)", policy.ungrounded),
                  ("systemic when unjudged share >", f"{fmt(policy.systemic_fraction)} and ≥ {policy.systemic_min} rows")]
    else:
        pairs += [("reward", doc.task_score), ("passed", counts_as_passed(doc)),
                  ("policy", "not recorded (a 0.1.0 document: defaults apply)")]
    if details.weight_fallback:
        pairs.append(("weights", "no positive weight: every 0-weight row weighs 1"))
    return "<h2>Score</h2>" + key_values(pairs)


def _costs(job: Job, decks: list[str]) -> str:
    """The causes of losses no page accounts for (an unreadable deck, rows not judged), first;
    then one line per row: its level, the points it lost, and the pages that cost them, each
    page with its share of the points where the row has per-page levels. A run where no row has
    per-page levels (a chat task, a deck task without visual rows) gets no page vocabulary: no
    pages paragraph, no pages column, no "judged whole" label (trial 42 P-3)."""
    fatal = _fatal_rows(job)
    costs = row_costs(job.doc, decks)
    per_page = any(c.mean is not None or c.pages or c.deck_whole for c in costs)
    out = [_cost_line(c, fatal, per_page) for c in costs]
    headers = ["row", "level", "points lost", "share of W (max score)", "pages that cost it", "how the level was folded"]
    if not per_page:
        out = [line[:4] + line[5:] for line in out]
        headers = headers[:4] + headers[5:]
    return ("<h2>Where the points went</h2>" + _fatal_line(job, fatal) + _cause_lines(job)
            + '<p class="sub">points lost = weight − contribution (a deduction: −contribution); share = points lost / W, '
            "the maximum score (not this run's reward)."
            + (" Pages are those below level 1, lowest first, each with the points it cost: the row's loss split by each "
               "page's distance from 1 in the row's power mean (p = 1: (1 − level) × weight / pages judged), the "
               "downward snap counted apart." if per_page else "") + "</p>"
            + table(headers, out, numeric=[False, True, True, True, False, False][:len(headers)],
                    raw=[True] * len(headers), css="costs"))


def _cost_line(c: RowCost, fatal: list[str], per_page: bool) -> list[str]:
    """One row's cells of the costs table (escaped markup): id, level, points lost, share,
    pages that cost it, how the level was folded. `per_page`: some row of the run has per-page
    levels (else no row is said to be "judged whole": every row is)."""
    points: list[float | None] = list(c.page_points) if c.page_points is not None else [None] * len(c.pages)
    pages = " ".join((f'<a href="#{esc(_anchor(c.deck, pg))}">p{pg}</a>' if c.deck else f"p{pg}")
                     + f"&nbsp;{esc(fmt(lv))}" + (f"&nbsp;(−{esc(fmt(pts))}&nbsp;pts)" if pts is not None else "")
                     for (pg, lv), pts in zip(c.pages, points))
    how = []
    if c.not_judged is not None:
        how.append(f"not judged ({c.not_judged}): see the cause above")
    elif c.deck_whole:
        how.append("scored for the whole deck: the deck could not be read (see the cause above)")
    elif c.mean is not None:
        how.append(f"power mean p={c.p:g}" + (" (critical: a page at 0 gives 0)" if c.critical else "")
                   + f" = {c.mean:.4f}")
        if c.snap_changed > 0:
            how.append(f"snapped down by {c.snap_changed:.4f} to the grid"
                       + (f" (−{fmt(c.snap_points)} pts)" if c.page_points is not None else ""))
    elif c.lost and not c.pages and per_page:
        how.append("judged whole (no per-page levels)")
    if c.id in fatal:
        how.append("fatal: this hurdle zeroed the reward (see the line above)")
    if c.passed_measured:
        how.append(f"a measured defect on page(s) {', '.join(map(str, c.passed_measured))} did not cost it: the finding "
                   "was below the row's min_confidence and the model passed the page")
    return [f"<code>{esc(c.id)}</code>", esc(fmt(c.level)), esc(fmt(c.lost)),
            esc(f"{c.share:.1%}" if c.share is not None else "–"), pages or ("–" if c.mean is None else "none below 1"),
            esc("; ".join(how))]


def _cause_lines(job: Job) -> str:
    """The warning lines, before the costs table, for losses no page accounts for (`loss_causes`)."""
    total = job.doc.details.weight_total
    return "".join(
        f'<p class="warn">{esc(cause.text)}'
        + (f" — {esc(fmt(cause.lost))} point(s) lost" + (f" ({cause.lost / total:.1%} of the maximum score W)" if total else "")
           + f": {esc(', '.join(cause.rows[:12]))}" + (f" and {len(cause.rows) - 12} more" if len(cause.rows) > 12 else "")
           if cause.rows else "") + "</p>"
        for cause in loss_causes(job.doc))


def _fatal_rows(job: Job) -> list[str]:
    """Ids of the hurdle rows counted as hit (judged hit, or unjudged and counted so by the
    policy): each made the run fatal, so the reward is 0 whatever the other rows earned."""
    hurdles = {str(c.get("id")) for c in job.doc.criteria if c.get("hurdle")}
    return [r.id for r in job.doc.results
            if r.id in hurdles and (r.counted_hit if r.counted_hit is not None else r.hit)]


def _fatal_line(job: Job, fatal: list[str]) -> str:
    """The line above the costs table when a hurdle zeroed the reward (trial 14, F15: the table
    showed 0 points lost on every row of a run whose reward a hurdle took from 1 to 0)."""
    if not job.doc.fatal:
        return ""
    empty = job.doc.extra_fields.delivery_missing
    unjudged = {r.id: r.error_kind or "unjudged" for r in job.doc.results if not r.judged}
    return (f'<p class="warn">{esc(zeroed_sentence(fatal, nothing_delivered=empty, unjudged=unjudged))} '
            f"(score_raw {esc(fmt(job.doc.score_raw))} → {esc(fmt(job.doc.task_score))}): the whole reward "
            "went to the hurdle. The points below are what each row lost of its own, before the hurdle.</p>")


def _guard(job: Job) -> str:
    """The guard's record (issue 27): mode, flagged, penalized, and each finding."""
    g = job.doc.guard
    if not g.scanned and not g.findings:
        code_only = g.mode != "off" and bool(job.doc.criteria) and all(c.get("judge_method") == "code" for c in job.doc.criteria)
        why = " (no model-judged row: nothing the agent wrote reached a model judge)" if code_only else ""
        return f'<h2>Guard</h2><p class="sub">JUDGE_GUARD={esc(g.mode)}: not scanned{esc(why)}</p>'
    state = "FLAGGED" + (" — reward set to 0 (penalize)" if g.penalized else "") if g.flagged else "nothing flagged"
    head = f'<h2>Guard</h2><p class="{"warn" if g.flagged else "sub"}">JUDGE_GUARD={esc(g.mode)}: {esc(state)}</p>'
    if not g.findings:
        return head
    rows = [[f.kind + ("" if f.flags else " (info)"), f.channel, f.file or "(final message)",
             f.page if f.page is not None else (f.line if f.line is not None else ""), f.rule, f.excerpt] for f in g.findings]
    more = f'<p class="sub">{g.findings_dropped} more finding(s) not listed</p>' if g.findings_dropped else ""
    return head + table(["kind", "channel", "file", "page / line", "rule", "excerpt"], rows) + more


def _coverage(job: Job) -> str:
    ef = job.doc.extra_fields
    pairs: list[tuple[str, object]] = [("coverage", ef.judge_coverage), ("unjudged rows", ef.judge_unjudged), ("degraded", ef.judge_degraded),
             ("error kind", ef.judge_error_kind or "–"), ("unjudged share of positive weight", ef.judge_unjudged_weight_frac),
             ("model calls", ef.judge_calls), ("tokens", ef.judge_tokens), ("seconds", ef.judge_seconds),
             ("evidence pages", ef.judge_evidence_pages)]
    lost = job.doc.details.sampling.lost if job.doc.details.sampling is not None else None
    if lost is not None and lost.rows:  # a sampled run judged rows on fewer answers than it asked for
        pairs += [("judged rows that lost answers", lost.rows), ("samples lost", lost.samples),
                  ("judges that gave no answer", ", ".join(f"{name} ({n} rows)" for name, n in lost.judges.items()) or "–")]
    methods = table(["method", "rows", "judged", "coverage"],
                    [[m, s.n, s.judged, s.coverage] for m, s in sorted(ef.judge_methods.items())], numeric=[False, True, True, True])
    kinds: dict[str, int] = {}
    for r in job.doc.results:
        if not r.judged:
            kinds[r.error_kind or "no_verdict"] = kinds.get(r.error_kind or "no_verdict", 0) + 1
    by_kind = table(["error kind", "rows"], sorted(kinds.items()), numeric=[False, True]) if kinds else ""
    return "<h2>Coverage</h2>" + key_values(pairs) + methods + by_kind


def _verdict_cell(hit: bool, *, negative: bool) -> str:
    """The Rows table's verdict: coloured by what it means for the reward, not by the word (trial 15 P-6): a hit
    on a hurdle or a deduction is its fault present (red, "hit: fault"), a miss there is clean (green)."""
    if negative:
        return '<span class="miss">hit: fault</span>' if hit else '<span class="hit">miss: no fault</span>'
    return '<span class="hit">hit</span>' if hit else '<span class="miss">miss</span>'


def _rows(job: Job, pages_of_row: dict[str, list[tuple[str, int]]], name_decks: bool) -> str:
    criteria = {str(c.get("id")): c for c in job.doc.criteria}
    out = []
    for r in job.doc.results:
        c = criteria.get(r.id, {})
        if not r.judged:
            verdict = f'<span class="unjudged">unjudged</span><br>{esc(r.error_kind or "no_verdict")}'
        else:
            verdict = _verdict_cell(bool(r.hit), negative=bool(c.get("hurdle") or c.get("polarity") == "negative"
                                                                or (r.weight or 0) < 0))
            if r.grounded is False:  # its quote is not in the evidence text: scored by JUDGE_UNGROUNDED
                verdict += ('<br><span class="unjudged">ungrounded</span>'
                            + (" (withdrawn)" if r.counted_hit is not None and r.counted_hit != r.hit
                                                 and r.gate != "closed" else ""))
        flags = [("hurdle" if c.get("hurdle") else ""), (str(c.get("polarity")) if c.get("polarity") == "negative" else ""),
                 (f"tag {c.get('tag')}" if c.get("tag") else ""),
                 (f"depends on {', '.join(c.get('depends_on') or [])}" if c.get("depends_on") else "")]
        links = " ".join(f'<a href="#{esc(_anchor(d, p))}">{esc(f"{d} p{p}" if name_decks else f"p{p}")}</a>'
                         for d, p in pages_of_row.get(r.id, []))
        out.append([f"<code>{esc(r.id)}</code>", f"{esc(c.get('description', ''))}<br>"
                    + " ".join(f'<span class="pill">{esc(f)}</span>' for f in flags if f),
                    esc(fmt(r.weight)), esc(r.method), verdict, esc(fmt(r.level)), esc(r.gate or "–"), esc(fmt(r.contribution)),
                    f'<div class="reason">{esc(cap_middle(r.reason, REPORT_REASON_CHARS))}</div>'
                    + (f'<div class="reason">quote: “{esc(cap_middle(r.quote, REPORT_REASON_CHARS))}”</div>' if r.quote else "")
                    + (f'<div class="reason">{esc(r.grounding)}</div>' if r.grounding else ""), links])
    return "<h2>Rows</h2>" + table(["id", "row", "weight", "method", "verdict", "level", "gate", "contribution", "reason", "pages"],
                                   out, numeric=[False, False, True, False, False, True, False, True, False, False],
                                   raw=[True] * 10)


def _delivery(job: Job) -> str:
    d = job.doc.details.delivery
    pairs = [("files", ", ".join(d.files) or "none"), ("nothing delivered", d.missing), ("judged from the chat message", d.from_chat),
             ("final message from", d.final_message_source or "–"), ("stray (not scored)", ", ".join(d.stray) or "none")]
    if d.ignored:
        pairs.append(("ignored", ", ".join(d.ignored)))
    return "<h2>Delivery</h2>" + key_values(pairs)


def _final_message(job: Job) -> str:
    """The agent's final message the run read (trial 22 P-3), escaped: shown open when the run judged from the
    chat message (a chat task: the message is the deliverable), folded in a ``<details>`` when files were
    delivered; a note when the run read one that this folder does not keep."""
    kept = job.final_message
    if kept is None:
        return f'<h2>Final message</h2><p class="sub">{esc(job.final_message_note)}</p>' if job.final_message_note else ""
    about = (f"what the judge read, from {kept.source or 'the agent logs'} ({kept.chars:,} characters)"
             + (f"; {kept.cut}" if kept.cut else "") + "; secrets redacted; kept in judge/final_message.json")
    body = f'<pre class="message">{esc(cap_middle(kept.text, REPORT_MESSAGE_CHARS))}</pre>'
    if job.doc.details.delivery.from_chat or not job.doc.details.delivery.files:
        return f'<h2>Final message</h2><p class="sub">{esc(about)}</p>{body}'
    return (f'<h2>Final message</h2><details><summary>{esc(about)}</summary>{body}</details>')


def _evidence(job: Job, ties: dict[tuple[str, int], dict[str, list[str]]]) -> str:
    stored = [d for d in job.doc.details.evidence.get("decks", []) if isinstance(d, dict)]
    if not stored and not job.decks:
        return ""
    parts = ["<h2>Deck evidence</h2>"]
    if stored:
        parts.append(table(["deck", "status", "pages rendered", "findings", "skipped layers"],
                           [[d.get("deck"), d.get("status"), d.get("pages_rendered"),
                             ", ".join(f"{k} {v}" for k, v in sorted((d.get("findings") or {}).items())) or "none",
                             "; ".join(d.get("skipped") or []) or "none"] for d in stored],
                           numeric=[False, False, True, False, False]))
    if job.evidence_note:
        parts.append(f'<p class="warn">{esc(job.evidence_note)}</p>')
    if job.evidence_root is not None:
        parts.append(f'<p class="sub">pages and findings from {esc(job.evidence_root)}; rows are tied to a page by their '
                     f"evidence references, by a judge viewing the page image, or by a reason naming the slide/page.</p>")
    names = [d.deck for d in job.decks]
    for deck in job.decks:
        parts.append(_deck(deck, ties, job.doc.results, names))
    return "\n".join(parts)


def _deck(deck: DeckEvidence, ties: dict[tuple[str, int], dict[str, list[str]]], results: list[RowResult], names: list[str]) -> str:
    parts = [f"<h3>{esc(deck.deck)} <span class=\"pill\">{esc(deck.kind or 'unknown kind')}</span></h3>"]
    parts += [f'<p class="warn">{esc(n)}</p>' for n in deck.notes]
    by_page: dict[int, list[dict[str, Any]]] = {}
    loose: list[dict[str, Any]] = []
    for f in deck.findings:
        (by_page.setdefault(int(f["page"]), []) if f.get("page") else loose).append(f)
    cards = []
    for p in deck.pages:
        findings = by_page.get(p.page, [])
        overlays = [o for f in findings for o in finding_overlays(f, deck.shapes.get(p.slide or -1, {}), deck.slide_size_emu)]
        rows = ties.get((deck.deck, p.page), {})
        title = deck.slide_titles.get(p.slide) if p.slide else None
        head = f"page {p.page}" + (f" · slide {p.slide}" if p.slide and p.slide != p.page else "") + (f" · {title}" if title else "")
        shot = (f'<img src="{p.data_uri}" alt="page {p.page}">' if p.data_uri else '<p class="sub">(no image)</p>')
        levels = rows_on_page(results, deck.deck, p.page, names)
        notes = passed_despite(levels, findings, bool(levels))
        rows = {r: t for r, t in rows.items() if r not in {x.id for x in levels}}
        cards.append(
            f'<div class="page" id="{esc(_anchor(deck.deck, p.page))}"><h4>{esc(head)}</h4>'
            f'<div class="shot">{shot}{_overlay_svg(overlays, p.width_px, p.height_px) if p.data_uri else ""}</div>'
            + _page_levels(levels)
            + "".join(f'<p class="warn">{esc(n)}</p>' for n in notes)
            + ("<ul>" + "".join(f"<li><code>{esc(r)}</code> ({esc(', '.join(t))})</li>" for r, t in rows.items()) + "</ul>"
               if rows else ("" if levels else '<p class="sub">no row tied to this page</p>'))
            + ("<ul>" + "".join(f'<li style="color:{CHECK_COLORS.get(str(f["check"]), "#333")}">{esc(f["check"])}'
                                f'{" (estimated)" if f.get("measured") is False else " (measured)"}: '
                                f'{esc(f.get("message"))}</li>' for f in findings) + "</ul>" if findings else "")
            + "</div>")
    parts.append('<div class="pages">' + "".join(cards) + "</div>")
    if loose:
        parts.append("<p>Findings not tied to a page:</p><ul>" + "".join(
            f"<li>{esc(f['check'])}: {esc(f.get('message'))}</li>" for f in loose) + "</ul>")
    return "\n".join(parts)


def _page_levels(levels: list[PageRow]) -> str:
    """Each per-page row's level on this page: those below 1 one by one with the findings that
    decided or informed them, the rest counted."""
    if not levels:
        return ""
    low = [r for r in levels if r.level is not None and r.level < 1.0]
    items = []
    for r in sorted(low, key=lambda r: (r.level, r.id)):
        why = [f"decided by {f.check} ({'measured' if f.measured else 'estimated'}, {f.confidence:g}): {f.message}"
               for f in r.decided]
        why += [f"informed by {f.check} ({'measured' if f.measured else 'estimated'}, {f.confidence:g}); the model "
                f"gave {fmt(r.level)}" for f in r.informed]
        items.append(f'<li class="below"><code>{esc(r.id)}</code> level <b>{esc(fmt(r.level))}</b> here'
                     + (f"<br><span class=\"sub\">{esc('; '.join(why))}</span>" if why else " (the model's page verdict)")
                     + "</li>")
    rest = [r for r in levels if r not in low]
    informed = [f"<code>{esc(r.id)}</code> 1 (informed by {esc(', '.join(sorted({f.check for f in r.informed})))})"
                for r in rest if r.informed and r.level == 1.0]
    tail = (f'<li class="sub">{len(rest)} other per-page row(s) at level 1 here'
            + (": " + "; ".join(informed) if informed else "") + "</li>") if rest else ""
    return '<ul class="levels">' + "".join(items) + tail + "</ul>"


def _overlay_svg(overlays: list[Overlay], width_px: int, height_px: int) -> str:
    if not overlays:
        return ""
    rects = []
    for o in overlays:
        x, y, w, h = o.x * width_px, o.y * height_px, o.w * width_px, o.h * height_px
        color = CHECK_COLORS.get(o.check, "#e03131")
        rotate = f' transform="rotate({o.rot_deg:g} {x + w / 2:.1f} {y + h / 2:.1f})"' if o.rot_deg else ""
        dash = ' stroke-dasharray="8 5"' if o.dashed else ""
        rects.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{color}" fill-opacity="0.08" '
                     f'stroke="{color}" stroke-width="{max(2, width_px / 300):.1f}"{dash}{rotate}><title>{esc(o.label)}</title></rect>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width_px} {height_px}" preserveAspectRatio="none">'
            + "".join(rects) + "</svg>")


def _anchor(deck: str, page_no: int) -> str:
    return "p-" + "".join(ch if ch.isalnum() else "-" for ch in deck) + f"-{page_no}"
