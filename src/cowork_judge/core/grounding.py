"""Quotes that must exist: checking a credited verdict's verbatim quote against the evidence text sent.

A verdict that gives the agent credit — a hit on a positive row, a miss on a negative
(deduction or hurdle) row — on a row judged on TEXT the judge was shown (deliverable text,
deck text, the final message, tool output) carries a short verbatim ``quote``. The quote
counts only when it is found in the evidence text the judge sent (never the rubric, the
instruction or the task prompt), after `normalise` (case folded, every run of whitespace one
space, the prompt's ``‹`` delimiter guard read as ``<``): no fuzzy match beyond that.
A quote of fewer than `QUOTE_MIN_CHARS` non-space characters (``Q3``, ``EUR``) is too short
to check: it grounds nothing, and its reason says so (`why_not_found`).

`ground` marks each verdict: ``grounded=True`` (found), ``False`` (missing or not found:
the caller asks again once, then records it), or None with a ``grounding`` reason when the
row is exempt (judged on page images: what a page looks like; a row about absence: nothing
to quote) or claims no credit. How a ``grounded=False`` verdict scores is the scoring
policy's ``ungrounded`` (JUDGE_UNGROUNDED, `core.scoring`). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict

QUOTE_MAX_CHARS = 300
"""Longest quote asked for (the schema's instruction; a longer one is still checked whole)."""
QUOTE_MIN_CHARS = 4
"""Shortest quote that can ground a verdict, in non-space characters (a letter or two is
found in any text). Four fits a CJK word pair and a figure such as ``42 %``."""
EXEMPT_PAGES = "exempt: judged on page images (what a page looks like); no text quote is checked"
EXEMPT_ABSENCE = "exempt: the row is about absence (there is no text to quote for something missing)"
EXEMPT_NO_TEXT = ("exempt: no text of the agent was sent (a deck of pictures, say, without a final message): there is "
                  "nothing to quote, so no quote is checked")
"""Trial 37 P-3: with no agent text at all in the request (the judge's own labels are cut out), every credit was
withdrawn — a good picture-only deck's true hits, and a fault-worded hurdle's "no fault", which zeroed the reward."""
FOUND = "quote found in the evidence text sent"
NOT_FOUND = "the quote is not in the evidence text sent (compared without case and whitespace)"
_ABSENCE = re.compile(
    r"\A\W*(?:\S+\s+){0,4}?(?:no|not|never|without|nothing|none|does ?n[o']t|do ?n[o']t|is ?n[o']t|are ?n[o']t|"
    r"(?:has|have|contains?|includes?|uses?|shows?) no|(?:is|are) free of|avoids?|omits?|lacks?)\b", re.IGNORECASE)
"""A requirement phrased as an absence: a negation among the description's first five words
("Does not recommend …", "The deck has no placeholder text", "No slide overflows")."""
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """`text` as quotes are compared: case folded, whitespace runs as one space, ends trimmed,
    ``‹`` (the prompt's neutralised ``<``) read as ``<``."""
    return _SPACE.sub(" ", text.replace("\u2039", "<")).casefold().strip()


def claims_credit(row: Criterion, verdict: Verdict) -> bool:
    """Whether `verdict` gives the agent credit on `row`: a judged hit on a positive row, a
    judged miss on a negative one (a deduction or a hurdle)."""
    if not verdict.judged or verdict.hit is None:
        return False
    return verdict.hit is (row.polarity == "positive")


def about_absence(row: Criterion) -> bool:
    """Whether `row`'s credit would be for something MISSING (``no placeholder text``, ``does
    not invent figures``): such a credited verdict has nothing to quote and is exempt.

    Read from the row's text: a negation among its first five words (`_ABSENCE`). A
    negation later in the text ("pain that is not improving") does not make the row about
    absence; a negative row whose fault is phrased positively (``invents a figure``) is not
    about absence either: its miss quotes the text that is right."""
    return bool(_ABSENCE.search(row.description))


def _cleaned(quote: str) -> str:
    """`quote` `normalise`d, outer quotation marks and spaces stripped (as it is looked up)."""
    return normalise(quote).strip("\"'“”‘’「」 ")


def too_short(quote: str | None) -> bool:
    """Whether `quote` is given (not blank) but has fewer than `QUOTE_MIN_CHARS` non-space
    characters once cleaned: it is not looked up at all, wherever it occurs."""
    return isinstance(quote, str) and bool(quote.strip()) and len(_cleaned(quote).replace(" ", "")) < QUOTE_MIN_CHARS


def quote_found(quote: str | None, evidence: str) -> bool:
    """Whether `quote` (raw) occurs in `evidence` (already `normalise`d), with at least
    `QUOTE_MIN_CHARS` non-space characters."""
    if not isinstance(quote, str) or too_short(quote):
        return False
    q = _cleaned(quote)
    return bool(q) and q in evidence


def why_not_found(quote: str | None) -> str:
    """The ``grounding`` reason of a credited verdict whose `quote` did not ground it: none
    given, too short to check (`too_short`: the quote is named, it may well be in the text),
    or not in the evidence text sent."""
    if not (quote or "").strip():
        return "no quote given"
    if too_short(quote):
        shown = _SPACE.sub(" ", quote or "").strip()
        return (f"the quote {shown!r:.40} is too short to check (under {QUOTE_MIN_CHARS} characters, spaces not "
                "counted): quote a longer phrase that contains it")
    return NOT_FOUND


def evidence_of(texts: Iterable[str]) -> str:
    """The evidence texts joined and `normalise`d, ready for `quote_found` (pieces are
    joined by a line break, so no quote spans two pieces)."""
    return "\n".join(normalise(t) for t in texts if t)


def ground(rows: Sequence[Criterion], verdicts: Mapping[str, Verdict], evidence: str | None, *,
           exempt: str | None = None) -> dict[str, Verdict]:
    """Every verdict of `verdicts` marked by its quote (copies; unjudged ones unchanged).

    Args:
        rows: the rows of the request (their polarity and text decide what needs a quote).
        verdicts: row id → verdict as parsed (``quote`` read from the reply).
        evidence: the evidence text sent, `evidence_of`'d; None when the request showed no
            text (then every credited verdict is exempt with `exempt`, or `EXEMPT_PAGES`); blank when it showed
            none of the agent's (then exempt with `EXEMPT_NO_TEXT`: nothing could be quoted, trial 37 P-3).
        exempt: the reason every row of this request is exempt (a page-image request).

    Returns:
        id → verdict with ``grounded``/``grounding`` set: True/`FOUND`; False with why
        (no quote, or not found); None with the exemption for exempt rows; None and no
        reason for verdicts that claim no credit.
    """
    by_id = {c.id: c for c in rows}
    out: dict[str, Verdict] = {}
    for rid, v in verdicts.items():
        row = by_id.get(rid)
        if row is None or not claims_credit(row, v):
            out[rid] = v if v.grounded is None and v.grounding is None else v.model_copy(update={"grounded": None, "grounding": None})
            continue
        if exempt is not None or evidence is None:
            out[rid] = v.model_copy(update={"grounded": None, "grounding": exempt or EXEMPT_PAGES})
        elif not evidence.strip():
            out[rid] = v.model_copy(update={"grounded": None, "grounding": EXEMPT_NO_TEXT})
        elif about_absence(row):
            out[rid] = v.model_copy(update={"grounded": None, "grounding": EXEMPT_ABSENCE})
        elif quote_found(v.quote, evidence):
            out[rid] = v.model_copy(update={"grounded": True, "grounding": FOUND})
        else:
            out[rid] = v.model_copy(update={"grounded": False, "grounding": why_not_found(v.quote)})
    return out


def ungrounded(verdicts: Mapping[str, Verdict]) -> list[str]:
    """Ids whose verdict is ``grounded=False``, in mapping order."""
    return [rid for rid, v in verdicts.items() if v.grounded is False]


def reask_text(verdicts: Mapping[str, Verdict]) -> str:
    """The user message that asks again, once, for the rows whose quote was not found (each
    row, why, and its quote); when one quote was too short to check (`too_short`), it says
    the quote could not be checked and asks for `QUOTE_MIN_CHARS` characters at least."""
    asked = {rid: v for rid, v in verdicts.items() if v.grounded is False}
    lines = [f"- {rid}: {v.grounding}; your quote was {v.quote!r:.200}" for rid, v in asked.items()]
    short = any(too_short(v.quote) for v in asked.values())
    what = "that could not be checked against" if short else "that is not in"
    length = f" (at least {QUOTE_MIN_CHARS} characters, spaces not counted)" if short else ""
    return (f"Your answer credits these rows with a quote {what} the evidence text you were shown "
            "(the deliverables, the extracted text, the final message, the tool output; never the rubric or the task):\n"
            + "\n".join(lines)
            + f"\nAnswer again for these rows only, in the same JSON shape: give a short quote{length} copied character "
              "for character from that evidence text, or change the verdict if you cannot find one.")


def settle_reasked(first: Mapping[str, Verdict], second: Mapping[str, Verdict]) -> dict[str, Verdict]:
    """The verdicts after one re-ask: each re-asked row takes its second answer when that one
    is judged (grounded or not, it is final), else keeps the first answer; ``grounding`` says
    it was asked again."""
    out = dict(first)
    for rid, v in second.items():
        if rid in out and out[rid].grounded is False and v.judged:
            note = "asked again once: " + (v.grounding or "no credit claimed")
            out[rid] = v.model_copy(update={"grounding": note})
        elif rid in out and out[rid].grounded is False:
            out[rid] = out[rid].model_copy(update={"grounding": f"{out[rid].grounding}; the re-ask gave no usable answer"})
    return out


def note_ungrounded(verdicts: Mapping[str, Verdict], note: str) -> dict[str, Verdict]:
    """`verdicts` with ``"; <note>"`` added to the ``grounding`` of each ``grounded=False``
    one (why it was not asked again, or how its re-ask failed); the others unchanged."""
    return {rid: v.model_copy(update={"grounding": f"{v.grounding}; {note}"}) if v.grounded is False else v
            for rid, v in verdicts.items()}
