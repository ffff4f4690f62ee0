"""Decisions `answer_match` takes without a model: numeric answers, empty responses, and how
part and step levels combine. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cowork_judge.safety.agent_text import decode, looks_binary
from cowork_judge.workflow.answer_match.quantity import agree, comma_readings, final_answers, parse_quantity

TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".tex", ".json")
"""Deliverables read as the response when the agent left no final message."""
MAX_RESPONSE_FILE_BYTES = 256 * 1024


@dataclass(frozen=True)
class CodeDecision:
    """A row decided by code: its level (1, 0.5 or 0) and the reason, which names the numbers."""

    level: float
    reason: str


def code_decision(parts: Sequence[str], response: str, rel_tol: float) -> CodeDecision | None:
    """Decide an answer row by code, or None when the model must.

    Code decides only when every reference part parses as a number (with or without a
    unit, `quantity.parse_quantity`), the response states a final answer for every part
    (`quantity.final_answers`) that parses too, and `quantity.agree` can tell for every
    part. An answer whose number is a lone comma group ("9,807") is tried both as thousands and
    as a decimal comma (`quantity.comma_readings`); code decides it only when both readings get
    the same verdict (trial 9 F8). The reference, the author's text, reads a comma as thousands.
    The level then combines the parts (`combine_parts`).
    """
    references = [parse_quantity(p) for p in parts]
    if not parts or any(r is None for r in references):
        return None
    answers = final_answers(response, len(parts))
    if answers is None:
        return None
    readings = [comma_readings(a) for a in answers]
    if any(not r for r in readings):
        return None
    verdicts: list[bool] = []
    notes = []
    for part, answer, ref, got in zip(parts, answers, references, readings):
        assert ref is not None
        oks = {agree(ref, q, rel_tol) for q in got}
        if None in oks or len(oks) != 1:
            return None  # code cannot tell, or a decimal/thousands comma changes the verdict (F8)
        ok = bool(oks.pop())
        verdicts.append(ok)
        both = f" (read as {got[0].value:g} or {got[1].value:g})" if len(got) > 1 else ""
        notes.append(f"{answer!r} vs reference {part!r}: {'within' if ok else 'outside'} {rel_tol * 100:g} %{both}")
    level = combine_parts([1.0 if ok else 0.0 for ok in verdicts])
    return CodeDecision(level, "[code, no model call] " + "; ".join(notes))


def combine_parts(levels: Sequence[float]) -> float:
    """A multi-part answer's level from its parts' levels (each 0, 0.5 or 1): correct (1) only
    when every part is, incorrect (0) when every part is, else partially correct (0.5). One
    part keeps its own level.

    Raises:
        ValueError: no levels.
    """
    if not levels:
        raise ValueError("no part levels")
    if len(levels) == 1:
        return levels[0]
    if all(v == 1.0 for v in levels):
        return 1.0
    if all(v == 0.0 for v in levels):
        return 0.0
    return 0.5


def mean_level(levels: Sequence[float]) -> float:
    """A process row's level: the mean of its step levels (each 0, 0.5 or 1).

    Raises:
        ValueError: no levels.
    """
    if not levels:
        raise ValueError("no step levels")
    return sum(levels) / len(levels)


def response_files(delivery: Any) -> list[str]:
    """The deliverables (``rel`` paths) `response_text` reads when there is no final message, in name order; []
    when there is a final message (then it alone is the response)."""
    message = getattr(delivery, "final_message", None)
    if isinstance(message, str) and message.strip():
        return []
    return [f.rel for f in sorted(getattr(delivery, "files", None) or [], key=lambda f: f.rel)
            if f.rel.lower().endswith(TEXT_SUFFIXES) and f.size_bytes <= MAX_RESPONSE_FILE_BYTES]


def response_text(delivery: Any) -> str:
    """The response to judge: the agent's final message, else the text deliverables
    (`TEXT_SUFFIXES`, each at most `MAX_RESPONSE_FILE_BYTES`, in name order, read as every
    reader of agent text reads them: `safety.agent_text.decode`, a UTF-16/32 byte-order mark
    honoured, a binary file left out) joined; "" when there is neither."""
    message = getattr(delivery, "final_message", None)
    if isinstance(message, str) and message.strip():
        return message
    texts = []
    for f in sorted(getattr(delivery, "files", None) or [], key=lambda f: f.rel):
        if f.rel.lower().endswith(TEXT_SUFFIXES) and f.size_bytes <= MAX_RESPONSE_FILE_BYTES:
            try:
                data = Path(f.path).read_bytes()
            except OSError:
                continue
            if not looks_binary(data):  # the one reader of agent text: a byte-order mark is honoured (trial 11)
                texts.append(decode(data))
    return "\n\n".join(t for t in texts if t.strip())
