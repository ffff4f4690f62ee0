"""The prohibitions of an instruction text ("Do not create any files", "无需生成文件"): read by the heuristics that
classify a task from its prompt (`code_methods.task_kind`: does it name a deliverable; `evidence.deck_request`: does
it ask for a deck), so that a thing the prompt forbids is not read as a thing it asks for (trial 19 P-1). Pure text,
standard library only."""

from __future__ import annotations

import re

_CLAUSE_END = r"(?:[.!?;,:](?=\s|$)|[\n。；！？，：])"
PROHIBITION = re.compile(
    r"(?:(?<![\w-])(?:(?:do|does|must|should|need|may|will|can)\s+not|\w+n['’]t|never|no|without)"
    r"(?![\w-])(?!\s+(?:forget|hesitate|fail|(?:more|less|fewer|longer|later)\s+than)(?![\w-]))"
    r"|不要|不得|请勿|請勿|勿|别|別|无需|無需|不用|不必|禁止)"
    r"(?:(?!" + _CLAUSE_END + r"|(?<![\w-])(?:other than|except|besides|apart from|but|only|instead)(?![\w-])"
    r"|除了|以外|之外).)*",
    re.IGNORECASE | re.DOTALL)
"""A prohibition: a negation (do not, don't, must not, never, no, without, 不要, 请勿, 无需…; not "don't forget", "no
more than") and the rest of its clause, up to the end of the clause (. ; , : ! ? or a line break, the CJK ones too) or
an exception (other than, except, besides, apart from, but, only, instead, 除了, 以外): "Do not create any files"."""


def prohibited_spans(prompt: str) -> list[str]:
    """The prohibitions of `prompt` (`PROHIBITION`), in order: "Answer briefly. Do not create any files." →
    ``["Do not create any files"]``; empty when there is none."""
    return [m.group(0) for m in PROHIBITION.finditer(prompt)]


def without_prohibitions(prompt: str) -> str:
    """`prompt` with each prohibition (`PROHIBITION`) replaced by one space: what the prompt asks for."""
    return PROHIBITION.sub(" ", prompt)


__all__ = ["PROHIBITION", "prohibited_spans", "without_prohibitions"]
