"""Generic grading mode: answer judges that do not use our prompt, for side-by-side benchmarks.

Used for a request with no ``<rubric_rows>`` block and no verdicts id enum in its schema,
and for one WITH rubric rows whose answer schema has no ``verdicts`` property (the rows
are then the criteria, judged under their ids). Otherwise the CRITERIA are read, in this
order, from the user messages (tool results excluded):

1. ``<rubric_criterion id="X"> ... <criterion>TEXT</criterion> ... </rubric_criterion>``
   blocks (autorubric's one-call prompt): id X, text TEXT;
2. ``<criterion>TEXT</criterion>`` tags (autorubric's per-criterion prompt);
3. a numbered (``1.``, ``1)``, ``(1)``, ``[1]``, ``Criterion 1:``) or bulleted (``-``,
   ``*``, ``+``, ``•``) list: the first list under a line that mentions
   criteria/rubric/checklist/requirements, else the longest list (the first of equal ones).
   Markdown emphasis, ``[ ]``/``[x]`` boxes and trailing weights like ``(2 points)`` are
   dropped from the text;
4. the schema: a list shape's criterion/id enum, or a keyed shape's property names
   (their ``description`` as text) when the prompt's count does not match;
5. an oracle key (12 characters or more, normalized) found in the prompt text, the
   longest; else the first 200 characters of the user text, as criterion 1.

When the schema asks for ONE verdict (shape ``single``, e.g. rewardkit's individual mode),
rule 5 comes first, over the whole prompt (system text included): a list found in the
prompt is then the graded file's content, not the criteria.

Each criterion is looked up in the oracle by its text exactly, then normalized
(``policies.normalize_criterion``), then by its explicit id, then by its 1-based index
(``"1"``, ``"2"`` ...); the oracle entry's ``level`` (if any) feeds score fields. The demo
policy sees the prompt with the criterion texts removed. The answer is built in the shape
the schema asks (``schema_fill``: ``single``, ``list``, ``keyed``, ``unknown``) or, with no
schema, as ``text``: ``{"index", "id", "criterion", "criterion_status", "met", "score",
"explanation"}`` for one criterion, ``{"criteria": [...], "score": mean}`` for several.
A generic answer is never a 400; its log entry has kind ``generic`` and ``generic_shape``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .policies import OraclePolicy, VerdictPolicy, normalize_criterion
from .schema_fill import Criterion, Verdict, detect_shape, fill, keyed_names, list_item_enum
from .turn import SimRequest

__all__ = ["GenericAnswer", "extract_criteria", "grade_generic"]

_RUBRIC_CRITERION_RE = re.compile(r"<rubric_criterion\b([^>]*)>(.*?)</rubric_criterion>", re.S | re.I)
_CRITERION_RE = re.compile(r"<criterion\b[^>]*>(.*?)</criterion>", re.S | re.I)
_ID_ATTR_RE = re.compile(r"""\bid\s*=\s*["']([^"']+)["']""")
_TAG_RE = re.compile(r"<[^<>]{1,200}>")
_ITEM_RE = re.compile(
    r"^\s{0,8}(?:\d{1,3}[.)]|\(\d{1,3}\)|\[\d{1,3}\]|[-*+\u2022]|(?:criterion|item|requirement)\s*#?\d{1,3}\s*[:.)-])\s+(\S.*)$",
    re.I,
)
_HEADING_RE = re.compile(r"criteri|rubric|checklist|requirement", re.I)
_WEIGHT_RE = re.compile(r"\s*[(\[][^()\[\]]{0,40}\b(?:pts?|points?|weight|marks?|score)\b[^()\[\]]{0,40}[)\]]\s*$", re.I)
_BOX_RE = re.compile(r"^\[[ xX]\]\s*")


@dataclass(frozen=True)
class GenericAnswer:
    """A generic-mode answer.

    Attributes:
        shape: ``schema_fill.SHAPES`` value.
        text: the answer as JSON text.
        verdicts: the policy's verdict dicts, one per criterion (for content faults).
        row_ids: the key each criterion was judged under (oracle key, id or index).
    """

    shape: str
    text: str
    verdicts: list[dict[str, Any]]
    row_ids: list[str]


def _clean(text: str) -> str:
    text = _TAG_RE.sub(" ", text).replace("**", "").replace("__", "")
    text = _BOX_RE.sub("", text.strip())
    return re.sub(r"\s+", " ", _WEIGHT_RE.sub("", text)).strip()


def _lists(text: str) -> list[tuple[bool, list[str]]]:
    """Runs of list items: (preceded by a criteria heading, item texts)."""
    runs: list[tuple[bool, list[str]]] = []
    current: list[str] | None = None
    last_text = ""
    headed = False
    marker = ""
    for line in text.splitlines():
        match = _ITEM_RE.match(line)
        if match:
            kind = "bullet" if line.lstrip()[:1] in "-*+\u2022" else "number"
            if current is not None and kind != marker:  # a new kind of marker starts a new list
                runs.append((headed, current))
                current, last_text = None, ""
            if current is None:
                current, headed, marker = [], bool(_HEADING_RE.search(last_text)), kind
            current.append(match.group(1))
        elif not line.strip():
            continue
        elif current is not None and line.startswith((" ", "\t")):
            current[-1] += " " + line.strip()
        else:
            if current is not None:
                runs.append((headed, current))
                current = None
            last_text = line
    if current is not None:
        runs.append((headed, current))
    return runs


def extract_criteria(text: str) -> list[Criterion]:
    """Criteria written in a prompt (rules 1-3 of the module docstring); [] when none."""
    blocks = _RUBRIC_CRITERION_RE.findall(text)
    if blocks:
        out = []
        for n, (attrs, inner) in enumerate(blocks, 1):
            id_match = _ID_ATTR_RE.search(attrs)
            tagged = _CRITERION_RE.search(inner)
            out.append(Criterion(n, _clean(tagged.group(1) if tagged else inner), id_match.group(1) if id_match else None))
        return out
    tagged_texts: list[str] = _CRITERION_RE.findall(text)
    if tagged_texts:
        return [Criterion(n, _clean(t)) for n, t in enumerate(tagged_texts, 1)]
    runs = _lists(text)
    if not runs:
        return []
    headed = [items for is_headed, items in runs if is_headed]
    items = headed[0] if headed else max((items for _, items in runs), key=len)
    return [Criterion(n, _clean(t)) for n, t in enumerate(items, 1) if _clean(t)]


def _oracle_key_in(policy: VerdictPolicy, text: str) -> str | None:
    if not isinstance(policy, OraclePolicy):
        return None
    haystack = normalize_criterion(text)
    found = [k for k in policy.answers if len(normalize_criterion(k)) >= 12 and normalize_criterion(k) in haystack]
    return max(found, key=lambda k: (len(k), k)) if found else None


def _criteria(req: SimRequest, policy: VerdictPolicy, shape: str, key: str | None) -> list[Criterion]:
    if req.rows:
        return [Criterion(n, str(row.get("description") or row.get("id")), str(row.get("id")))
                for n, row in enumerate(req.rows, 1)]
    if shape == "single":  # the schema asks for ONE verdict: a list in the prompt is data (a report's bullets)
        oracle_key = _oracle_key_in(policy, req.user_text + "\n" + req.context_text)
        if oracle_key is not None:
            return [Criterion(1, oracle_key)]
    found = extract_criteria(req.user_text) or extract_criteria(req.context_text)
    schema = req.answer_schema
    if schema is not None and shape == "keyed":
        names = keyed_names(schema)
        if len(found) == len(names):
            return [Criterion(c.index, c.text, name) for c, (name, _) in zip(found, names)]
        return [Criterion(n, text, name) for n, (name, text) in enumerate(names, 1)]
    if schema is not None and shape == "list":
        enum = list_item_enum(schema, key)
        if enum and len(found) != len(enum):
            return [Criterion(n, value, value) for n, value in enumerate(enum, 1)]
        if enum:
            return [Criterion(c.index, c.text, c.cid or value) for c, value in zip(found, enum)]
    if found:
        return found
    oracle_key = _oracle_key_in(policy, req.user_text or req.context_text)
    if oracle_key is not None:
        return [Criterion(1, oracle_key)]
    return [Criterion(1, (req.user_text or req.context_text).strip()[:200])]


def _key(policy: VerdictPolicy, c: Criterion) -> str:
    ids = [i for i in (c.cid, str(c.index)) if i]
    if isinstance(policy, OraclePolicy):
        found = policy.find_key(c.text, ids)
        if found is not None:
            return found
    return ids[0]


def grade_generic(req: SimRequest, policy: VerdictPolicy) -> GenericAnswer:
    """Judge ``req``'s criteria with ``policy`` and answer in the shape its schema asks."""
    shape, list_key = detect_shape(req.answer_schema)
    criteria = _criteria(req, policy, shape, list_key)
    keys = req.row_ids if req.rows else [_key(policy, c) for c in criteria]
    rows = [{"id": k, "description": c.text, "type": "binary", "polarity": "positive"} for k, c in zip(keys, criteria)]
    context = req.context_text
    for c in criteria:
        if len(c.text) >= 3:
            context = context.replace(c.text, " ")
    verdict_dicts = policy.verdicts(rows, context)
    verdicts = []
    for k, d in zip(keys, verdict_dicts):
        entry = policy.answers.get(k) if isinstance(policy, OraclePolicy) else None
        level = entry.get("level") if entry else None
        hit = bool(d.get("hit"))
        if level is not None and bool(level > 0) != hit:  # a contradicting label: a miss, no credit (docs/scoring.md)
            hit, level = False, 0.0
        verdicts.append(Verdict(hit, float(level) if level is not None else float(hit), bool(d.get("na")),
                                str(d.get("reason") or "")))
    payload = fill(req.answer_schema, shape, list_key, criteria, verdicts)
    return GenericAnswer(shape, json.dumps(payload), verdict_dicts, keys)
