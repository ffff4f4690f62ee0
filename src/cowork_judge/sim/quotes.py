"""Quotes in the simulator's answers: an honest oracle quotes real text; ``--fabricate`` invents hits.

When a request's answer schema asks for a ``quote`` (`core.grounding`), every verdict that
gives credit (a hit on a positive row, a miss on a negative one) gets one:

- **honest**: the oracle entry's own ``quote`` when the request showed that text (whitespace and
  case aside; an honest judge cannot quote what it was not shown), else a short passage copied
  from the text the request showed as the agent's (its spotlighted spans: ``<<<UNTRUSTED
  <code>`` … ``UNTRUSTED <code>>>>``; slide text sent as JSON is read as its strings) — the
  line sharing most words (or CJK characters) with the row, cut to `QUOTE_CHARS` around the
  first shared word (for a negative row often the fault itself: the demo policy's assumed "no
  fault" is quoted only because `core.grounding` withdraws a credit without a quote). Never
  the rubric, the task prompt, the deliverable listing or a ``<tool_output quotable="no">``
  block (a file listing; the rubric or prompt read by a tool): `NOT_AGENT_TEXT`; never a label
  the judge wrote inside the agent's text (``slide 2 — ``, the speaker-notes marker:
  `JUDGE_LABELS`), though an oracle's own quote of one is passed on (it was shown).
- **fabricated** (``cowork-judge sim --fabricate P``): with probability P per request
  (re-asks included; a keyed hash of seed, instance, the request's row ids and how often
  that set was asked, so runs repeat), every positive row the oracle says is missed in that
  request becomes a hit (a graded row its top level) with a quote that is in no text of the
  request. The log's ``fabricated`` lists those ids.

A labelled quote the request did not show is not dropped silently (trial 33 P-1: a paraphrased or mistyped
quote grounded on the swapped line): its verdict's reason ends with `UNSHOWN_QUOTE_NOTE` (``try`` names such rows
under the reward), and `add_quotes` returns its id (the sim's console names the entry once, the request log's
``unshown_quotes``).

Verdicts of schemas without ``quote`` lose an oracle ``quote`` (strict schemas forbid it).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from typing import Any

__all__ = ["Fabricate", "QUOTE_CHARS", "UNSHOWN_QUOTE_NOTE", "add_quotes", "evidence_lines", "honest_quote", "wants_quote"]

QUOTE_CHARS = 100
"""Longest honest quote, in characters."""
FABRICATED = "The deliverable explicitly and completely satisfies this requirement"
"""The fabricated quote's text (a request-unique suffix keeps it out of every text)."""
UNSHOWN_QUOTE_NOTE = "oracle quote not in the text sent"
"""Said at the end of the reason of a verdict whose oracle ``quote`` the request did not show (``[… : a line it showed
is quoted]``); ``install.dryrun.UNSHOWN_ORACLE_QUOTE`` is its copy (the simulator imports nothing of the package)."""
_SPAN = re.compile(r"<<<UNTRUSTED ([0-9a-f]+)\n(.*?)\nUNTRUSTED \1>>>", re.DOTALL)
_JSON_BLOCK = re.compile(r"\A\s*<(slides|slide_text)>(.*)</\1>\s*\Z", re.DOTALL)
NOT_AGENT_TEXT = ("Deliverables in output/ (names chosen by the agent):\n", '<tool_output quotable="no">\n')
"""What precedes a spotlighted span that is not the agent's text (`agentic.block_prompt`'s
``LISTING_HEAD`` and ``UNQUOTABLE`` tool output): an honest judge quotes nothing from it."""
JUDGE_LABELS = re.compile(
    r"^slide (?:\d+|\?)(?= \u2014 | \(hidden\)$|$)(?: \u2014 )?"
    r"| \(hidden\)$"
    r"|^\[more slides not shown: read .* with your tools\]$"
    r"|^\[NOT VISIBLE to a viewer \(.*?\); not content of the slide\]:? ?"
    r"|^\[alt text, not shown on the slide\] "
    r"|^--- (?:slide \d+|ppt/slides/slide\d+\.xml) ---(?: \(too large to read\))?$",
    re.MULTILINE)
"""The labels the judge's side writes inside spotlighted agent text (``slide 2 — ``, the
speaker-notes marker): a copy of `agentic.block_prompt.JUDGE_LABELS` (the simulator imports
nothing of the package); an honest judge quotes none of them."""
_WORD = re.compile(r"[^\W\d_]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", re.UNICODE)


def wants_quote(schema: dict[str, Any] | None) -> bool:
    """Whether the verdict items of `schema` have a ``quote`` property."""
    items = ((schema or {}).get("properties") or {}).get("verdicts", {}).get("items") if isinstance(schema, dict) else None
    if not isinstance(items, dict):
        return False
    return any(isinstance(b, dict) and "quote" in (b.get("properties") or {}) for b in items.get("anyOf", [items]))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def evidence_lines(context_text: str, *, labels: bool = False) -> list[str]:
    """The lines of the agent's text a request showed (its spotlighted spans), stripped,
    each with at least four non-space characters; JSON slide blocks give their strings.
    The judge's labels in them (`JUDGE_LABELS`) are cut out unless `labels` (what was shown)."""
    lines: list[str] = []
    for m in _SPAN.finditer(context_text):
        if context_text[:m.start()].endswith(NOT_AGENT_TEXT):
            continue
        body = m.group(2)
        block = _JSON_BLOCK.match(body)
        texts = [body]
        if block:
            try:
                texts = _strings(json.loads(block.group(2)))
            except ValueError:
                texts = [body]
        for text in texts:
            text = text if labels else "\n".join(JUDGE_LABELS.split(text))
            lines += [ln.strip() for ln in text.splitlines() if len(ln.replace(" ", "").strip()) >= 4]
    return lines


def honest_quote(row: dict[str, Any], lines: list[str]) -> str | None:
    """A passage of `lines` about `row` (most shared words, first on ties), at most
    `QUOTE_CHARS` characters starting at its first shared word, without a word cut at either end (trial 40 P-1:
    "nthesis: how plants…"; a line of one long word is cut); None when there is no line."""
    if not lines:
        return None
    words = {w.casefold() for w in _WORD.findall(str(row.get("description", "")))}
    best, best_score = lines[0], -1
    for line in lines:
        score = len(words & {w.casefold() for w in _WORD.findall(line)})
        if score > best_score:
            best, best_score = line, score
    start = 0
    if len(best) > QUOTE_CHARS:
        hits = [m.start() for m in _WORD.finditer(best) if m.group(0).casefold() in words]
        start = max(0, min(hits[0] if hits else 0, len(best) - QUOTE_CHARS))
    quote = best[start:start + QUOTE_CHARS]
    if start > 0 and not best[start - 1].isspace() and " " in quote.strip():  # trial 40 P-1: no word cut in two
        quote = quote.split(" ", 1)[1]
    end = start + QUOTE_CHARS
    if end < len(best) and not best[end].isspace() and " " in quote.strip():
        quote = quote.rsplit(" ", 1)[0]
    quote = quote.strip()
    return quote if len(quote.replace(" ", "")) >= 4 else None


class Fabricate:
    """``--fabricate P``: a judge that, with probability `rate` per request, claims hits the
    oracle says are missed, with quotes that are not in the text.

    Args:
        rate: probability per request, in [0, 1].
        seed: non-negative integer.
    """

    def __init__(self, rate: float, seed: int = 0) -> None:
        if not 0.0 <= rate <= 1.0 or seed < 0:
            raise ValueError(f"--fabricate must be in [0, 1] and --seed >= 0, got {rate}, {seed}")
        self.rate, self.seed = rate, seed
        self._asked: dict[tuple[str, tuple[str, ...]], int] = {}
        self._lock = threading.Lock()

    def draw(self, instance: str | None, row_ids: list[str]) -> bool:
        """Whether this request fabricates (and count it)."""
        key_ids = tuple(row_ids)
        with self._lock:
            n = self._asked.get((instance or "", key_ids), 0)
            self._asked[(instance or "", key_ids)] = n + 1
        key = f"fabricate\0{self.seed}\0{instance or ''}\0{chr(1).join(key_ids)}\0{n}"
        u = int.from_bytes(hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()[:8], "big") / 2.0**64
        return u < self.rate


def _squash(text: str) -> str:
    return " ".join(text.replace("\u2039", "<").split()).casefold()


def _credit(row: dict[str, Any], verdict: dict[str, Any]) -> bool:
    return bool(verdict.get("hit")) is (row.get("polarity") != "negative") and not verdict.get("na")


def _top_level(row: dict[str, Any]) -> float | None:
    choices = row.get("level_choices")
    if isinstance(choices, list) and choices:
        return max(float(c) for c in choices)
    return None


def add_quotes(rows: list[dict[str, Any]], verdicts: list[dict[str, Any]], *, schema: dict[str, Any] | None,
               context_text: str, fabricate: Fabricate | None = None, instance: str | None = None,
               seq: int = 0, prompt_text: str = "") -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """`verdicts` (one per row, same order) with quotes as the schema asks, the ids fabricated, and
    the ids whose labelled quote the request did not show (answered with a quote of shown text)."""
    # without structured output the answer's shape is in the prompt's words: a "quote" field there asks for one
    if not (wants_quote(schema) or (schema is None and '"quote"' in prompt_text)):
        return [{k: v for k, v in verdict.items() if k != "quote"} for verdict in verdicts], [], []
    lines = evidence_lines(context_text)  # an honest quote is the agent's text, never a label of the judge's
    shown = _squash("\n".join(evidence_lines(context_text, labels=True)))  # an oracle's quote passes when it was shown
    unseen: list[str] = []
    fabricating = fabricate is not None and fabricate.draw(instance, [str(r.get("id")) for r in rows])
    out: list[dict[str, Any]] = []
    fabricated: list[str] = []
    for row, verdict in zip(rows, verdicts):
        v = dict(verdict)
        if fabricating and row.get("polarity") != "negative" and not v.get("hit") and not v.get("na"):
            v["hit"] = True
            if "level" in v and v["level"] is not None:
                v["level"] = _top_level(row) if _top_level(row) is not None else 1.0
            suffix = f" (ref {seq}-{len(fabricated)})"
            v["quote"] = FABRICATED + suffix
            v["reason"] = "the deliverable covers it (fabricated)"
            fabricated.append(str(row.get("id")))
        elif _credit(row, v):
            given = v.get("quote")
            if isinstance(given, str) and _squash(given) in shown:
                v["quote"] = given
            else:  # an honest judge quotes only what it was shown: a labelled quote the request did not show is replaced
                if isinstance(given, str):
                    unseen.append(str(row.get("id")))
                    v["reason"] = f"{v.get('reason') or ''} [{UNSHOWN_QUOTE_NOTE}: a line it showed is quoted]".lstrip()
                v["quote"] = honest_quote(row, lines)
        else:
            v["quote"] = None
        out.append(v)
    return out, fabricated, unseen
