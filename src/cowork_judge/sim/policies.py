"""Verdict policies of the simulated judge: which verdict each rubric row gets.

A policy answers ``verdicts(rows, context_text, page=None)`` with one verdict dict per
row, in row order: ``{"id": str, "hit": bool, "level": float (gradient rows only),
"reason": str}`` plus ``"na": bool`` and ``"pages": [int, ...]`` when an oracle entry
carries them (``pages``: the pages a workflow's whole-deck request is told the row was
found on, e.g. ``ppt_judge``'s text pass). A row is a dict
from the judge's ``<rubric_rows>`` block: ``id``, ``description``, ``type``
(``binary``/``gradient``), ``polarity`` (``positive``/``negative``), ``level_choices``
(gradient only, fractions in [0, 1]).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

__all__ = ["DEMO_REASON_PREFIX", "GULLIBLE_REASON", "DemoPolicy", "FlipPolicy", "GulliblePolicy", "OraclePolicy",
           "RequestFlip", "RoutedPolicy", "VerdictPolicy", "content_words", "flip_verdict",
           "normalize_criterion"]

DEMO_REASON_PREFIX = "simulated judge, no model:"
"""Every reason the demo policy writes starts with this label."""

QUOTE_MIN_CHARS = 4
"""Shortest quote the judge checks, in non-space characters: `core.grounding.QUOTE_MIN_CHARS` (the
simulator imports nothing of the judge; a test keeps the two equal)."""
_ORACLE_FIELDS = frozenset({"hit", "level", "na", "pages", "reason", "criterion", "quote"})
_WORD_RE = re.compile(r"[^\W_]+")


class VerdictPolicy(Protocol):
    """What the simulator asks of a policy."""

    def verdicts(
        self, rows: list[dict[str, Any]], context_text: str, page: int | None = None
    ) -> list[dict[str, Any]]:
        """Return one verdict dict per row, in the order of ``rows``."""
        ...


INSTANCE_HEADER = "X-Cowork-Judge-Instance"
"""The header a judge sends with JUDGE_SEND_INSTANCE_ID=1 (its JUDGE_INSTANCE_ID; ``batch`` sets the instance's name)."""


class OracleDirPolicy:
    """One oracle per instance, routed by the request's `INSTANCE_HEADER` (``--oracle-dir``).

    The oracle of instance ``NAME`` is ``<root>/NAME.json``, else ``<root>/NAME/oracle.json``
    (so a folder of imported instances with ``--with-labels`` serves as it is). Files are
    read once, on first use. `for_instance` raises `LookupError` when the header is absent,
    names a path outside `root`, or names no oracle: the simulator answers HTTP 400 then,
    rather than "not in oracle" verdicts that would pass for real ones.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = os.path.realpath(os.fspath(root))
        if not os.path.isdir(self.root):
            raise ValueError(f"--oracle-dir {root}: not a folder")
        self._cache: dict[str, OraclePolicy] = {}
        self._lock = threading.Lock()

    def for_instance(self, name: str | None) -> OraclePolicy:
        """The oracle of instance `name`.

        Raises:
            LookupError: no header, a name outside the root, or no oracle file for it.
            ValueError: the oracle file is unreadable (the message names it).
        """
        if not name:
            raise LookupError(f"--oracle-dir needs the {INSTANCE_HEADER} header (set JUDGE_SEND_INSTANCE_ID=1 on the judge)")
        with self._lock:
            if name in self._cache:
                return self._cache[name]
            for candidate in (os.path.join(self.root, f"{name}.json"), os.path.join(self.root, name, "oracle.json")):
                real = os.path.realpath(candidate)
                if os.path.commonpath([real, self.root]) != self.root or real == self.root:
                    raise LookupError(f"instance {name!r} names a path outside --oracle-dir")
                if os.path.isfile(real):
                    self._cache[name] = OraclePolicy.from_file(real)
                    return self._cache[name]
        raise LookupError(f"no oracle for instance {name!r} in --oracle-dir ({name}.json or {name}/oracle.json)")

    def snapshot(self, instance: str | None) -> OraclePolicy:
        """`for_instance` (the per-request resolution of `resolve`)."""
        return self.for_instance(instance)

    def verdicts(self, rows: list[dict[str, Any]], context_text: str, page: int | None = None) -> list[dict[str, Any]]:
        """Not used directly (the server routes by instance); every row unjudgeable."""
        raise LookupError(f"--oracle-dir routes by the {INSTANCE_HEADER} header")


def resolve(policy: VerdictPolicy, instance: str | None) -> VerdictPolicy:
    """The policy that answers one request, fixed for the whole request: a policy with a
    ``snapshot(instance)`` method (``--oracle-dir``'s instance, ``--oracle``'s file as it stands
    now, a gullible judge over either) gives it; any other policy is itself.

    Raises:
        LookupError: ``--oracle-dir`` has no oracle for `instance` (or no header).
        ValueError: an oracle file that does not read (the simulator answers HTTP 400).
    """
    snapshot = getattr(policy, "snapshot", None)
    return snapshot(instance) if callable(snapshot) else policy


def normalize_criterion(text: str) -> str:
    """Criterion text for lookups: whitespace collapsed, casefolded, outer quotes and
    punctuation (`` .;:,'"`*``) stripped."""
    return re.sub(r"\s+", " ", text).strip().strip(" .;:,'\"`*").casefold()


def _is_gradient(row: dict[str, Any]) -> bool:
    return row.get("type") == "gradient"


def _level_choices(row: dict[str, Any]) -> list[float]:
    raw = row.get("level_choices") or [0.0, 1.0]
    try:
        return sorted(float(x) for x in raw)
    except (TypeError, ValueError):
        return [0.0, 1.0]


class OraclePolicy:
    """Answers every row from a fixed table (an oracle file).

    Args:
        answers: row id -> entry ``{"hit": bool, "level"?: float in [0, 1], "na"?: bool,
            "pages"?: [int >= 1, ...], "reason"?: str}``.
        page_answers: (row id, page number >= 1) -> entry of the same shape; used instead
            of ``answers[id]`` when ``verdicts`` is called with that page.

    Ids missing from the table get ``hit=false`` with reason ``"not in oracle"``, followed by
    `` (did you mean 'KEY'?)`` when a key of the table is spelled like the id (trial 26 P-3). A gradient
    row whose entry has no ``level`` gets the highest level choice when hit, else the lowest.
    """

    def __init__(
        self,
        answers: dict[str, dict[str, Any]],
        page_answers: dict[tuple[str, int], dict[str, Any]] | None = None,
    ) -> None:
        self.answers = dict(answers)
        self.page_answers = dict(page_answers or {})
        self.on_missing: Callable[[str, str | None], None] | None = None
        """Called once per row id asked that the oracle has no entry for, with the closest oracle key (or None):
        ``cowork-judge sim`` says it on stderr (trial 16 P-5: a misspelt key was a silent judged miss)."""
        self._missing_seen: set[str] = set()
        self._missing_lock = threading.Lock()
        self._normalized: dict[str, str] = {}
        for key in self.answers:
            self._normalized.setdefault(normalize_criterion(key), key)
        for key, entry in self.answers.items():
            if isinstance(entry.get("criterion"), str):
                self._normalized.setdefault(normalize_criterion(entry["criterion"]), key)

    def conflicts(self) -> list[str]:
        """One warning line per entry whose ``level`` contradicts its ``hit`` by the judge's scoring rule
        (docs/scoring.md, trial 9 F3): the simulator sends both as they are, and the judge reads ``hit: false``
        with a passing level as a miss with no credit, ``hit: true`` below the bar as a miss earning its level.
        Without the row's ``pass_level`` here, ``hit: false`` with a level between 0 and 1 is said to contradict
        unless the row's bar is above it. Also one line per ``quote`` shorter than `QUOTE_MIN_CHARS` non-space
        characters: the judge checks no quote that short (trial 23 P-4), a credit it backs is recorded
        ``grounded: false``. [] when none does."""
        out = self._short_quotes()
        for key, entry in [*self.answers.items(), *((f"{k}@{n}", e) for (k, n), e in self.page_answers.items())]:
            level = entry.get("level")
            if level is None or bool(level > 0) == entry["hit"]:
                continue
            if entry["hit"]:
                out.append(f"entry {key!r}: hit=true with level 0: the judge reads it by the level, a miss with no "
                           "credit (docs/scoring.md)")
            else:
                unless = "" if level >= 1 else f", unless the row's pass_level is above {level:g}"
                out.append(f"entry {key!r}: hit=false with level {level:g}: the judge reads it as a miss with no "
                           f"credit{unless} (docs/scoring.md)")
        return out

    def _short_quotes(self) -> list[str]:
        """The `conflicts` lines of entries whose ``quote`` is too short for the judge to check."""
        out = []
        for key, entry in [*self.answers.items(), *((f"{k}@{n}", e) for (k, n), e in self.page_answers.items())]:
            quote = entry.get("quote")
            if isinstance(quote, str) and len("".join(quote.split())) < QUOTE_MIN_CHARS:
                out.append(f"entry {key!r}: quote {quote!r:.40} is under {QUOTE_MIN_CHARS} characters (spaces not "
                           "counted): the judge checks no quote that short, so a credit it backs is recorded "
                           "grounded: false (docs/rubric.md); quote a longer phrase")
        return out

    def find_key(self, text: str, ids: list[str] | tuple[str, ...] = ()) -> str | None:
        """The oracle key of a generic-mode criterion, or None.

        Tries ``text`` exactly, then ``normalize_criterion(text)`` against the normalized
        keys (the first key in file order wins), then against the entries' ``criterion``
        texts (the labelled text, e.g. the checklist question the original 1.3.x sends), then each of ``ids`` exactly (an explicit
        id, then the 1-based index).
        """
        if text in self.answers:
            return text
        found = self._normalized.get(normalize_criterion(text))
        if found is not None:
            return found
        return next((i for i in ids if i in self.answers), None)

    @classmethod
    def from_dict(cls, data: object, *, source: str = "oracle") -> OraclePolicy:
        """Build a policy from a decoded oracle document.

        Args:
            data: ``{"<row id>": entry, "<row id>@<page>": entry, ...}``.
            source: name used in error messages (usually the file path).

        Raises:
            ValueError: the document is not an object, an entry is not an object, has an
                unknown field, or a field has the wrong type or range. The message names
                the key and field.
        """
        if not isinstance(data, dict):
            raise ValueError(f"{source}: top level must be a JSON object mapping row id -> answer")
        answers: dict[str, dict[str, Any]] = {}
        pages: dict[tuple[str, int], dict[str, Any]] = {}
        for key, entry in data.items():
            checked = _check_entry(source, key, entry)
            row_id, sep, page = key.rpartition("@")
            if sep and row_id and page.isdigit():
                if int(page) < 1:
                    raise ValueError(f"{source}: key {key!r}: page numbers start at 1")
                pages[(row_id, int(page))] = checked
            else:
                answers[key] = checked
        return cls(answers, pages)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> OraclePolicy:
        """Read an oracle JSON file (format in ``from_dict``).

        Raises:
            ValueError: the file cannot be read, is not valid JSON, or has a bad entry.
        """
        name = os.fspath(path)
        try:
            with open(name, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise ValueError(f"oracle file {name}: cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ValueError(f"oracle file {name}: not UTF-8 text") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"oracle file {name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            ) from None
        return cls.from_dict(data, source=f"oracle file {name}")

    def _close_key(self, row_id: str, asked: frozenset[str] = frozenset()) -> str | None:
        """The oracle key spelled like `row_id` (difflib ratio 0.6: ``A-FORMULAS`` for row ``A-FORMULA``), or None.
        Letter case aside (trial 35 P-5: ``A-Calvin`` for row ``A-CALVIN`` scored 0.375): a key equal to `row_id` but
        for case comes first, the ratio is taken on casefolded text. Keys that are rows of the same request (`asked`)
        are not offered: they answer their own row."""
        import difflib

        keys = {k.casefold(): k for k in self.answers if k not in asked and k != row_id}
        close = difflib.get_close_matches(row_id.casefold(), list(keys), n=1, cutoff=0.6)
        return keys[close[0]] if close else None

    def _tell_missing(self, row_id: str, asked: frozenset[str] = frozenset()) -> None:
        """Call `on_missing` the first time `row_id` is asked without an entry (never raises)."""
        with self._missing_lock:
            if self.on_missing is None or row_id in self._missing_seen:
                return
            self._missing_seen.add(row_id)
        try:
            self.on_missing(row_id, self._close_key(row_id, asked))
        except Exception:  # noqa: BLE001 - telling is a courtesy; the verdict is answered either way
            pass

    def verdicts(
        self, rows: list[dict[str, Any]], context_text: str, page: int | None = None
    ) -> list[dict[str, Any]]:
        """Look every row up; ``page`` selects ``"<id>@<page>"`` overrides. No I/O (`on_missing` may print)."""
        out = []
        asked = frozenset(str(row.get("id")) for row in rows)
        for row in rows:
            row_id = str(row.get("id"))
            entry = None
            if page is not None:
                entry = self.page_answers.get((row_id, page))
            if entry is None:
                entry = self.answers.get(row_id)
            if entry is None:
                self._tell_missing(row_id, asked)
                close = self._close_key(row_id, asked)  # trial 26 P-3: the hint rides in the verdict, not only the console
                verdict: dict[str, Any] = {"id": row_id, "hit": False, "reason": "not in oracle"
                                           + (f" (did you mean {close!r}?)" if close else "")}
                if _is_gradient(row):
                    verdict["level"] = _level_choices(row)[0]
                out.append(verdict)
                continue
            verdict = {"id": row_id, "hit": entry["hit"]}
            if _is_gradient(row):
                choices = _level_choices(row)
                verdict["level"] = entry.get("level", choices[-1] if entry["hit"] else choices[0])
            if "na" in entry:
                verdict["na"] = entry["na"]
            if "pages" in entry:
                verdict["pages"] = list(entry["pages"])
            verdict["reason"] = entry.get("reason", "oracle")
            if "quote" in entry:  # the labelled quote (sim.quotes adds it when the request asks for one)
                verdict["quote"] = entry["quote"]
            out.append(verdict)
        return out


def _check_entry(source: str, key: object, entry: object) -> dict[str, Any]:
    if not isinstance(key, str) or not key:
        raise ValueError(f"{source}: row ids must be non-empty strings, got {key!r}")
    if not isinstance(entry, dict):
        raise ValueError(f"{source}: entry {key!r} must be an object like {{\"hit\": true}}")
    unknown = sorted(set(entry) - _ORACLE_FIELDS)
    if unknown:
        raise ValueError(
            f"{source}: entry {key!r}: unknown field(s) {unknown}; allowed: {sorted(_ORACLE_FIELDS)}"
        )
    if not isinstance(entry.get("hit"), bool):
        raise ValueError(f"{source}: entry {key!r}: 'hit' is required and must be true or false")
    if "level" in entry:
        level = entry["level"]
        if isinstance(level, bool) or not isinstance(level, (int, float)) or not (
            math.isfinite(level) and 0.0 <= level <= 1.0
        ):
            raise ValueError(f"{source}: entry {key!r}: 'level' must be a number in [0, 1]")
    if "na" in entry and not isinstance(entry["na"], bool):
        raise ValueError(f"{source}: entry {key!r}: 'na' must be true or false")
    pages = entry.get("pages")
    if "pages" in entry and not (isinstance(pages, list) and all(
            isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in pages)):
        raise ValueError(f"{source}: entry {key!r}: 'pages' must be a list of page numbers (integers from 1)")
    if "reason" in entry and not isinstance(entry["reason"], str):
        raise ValueError(f"{source}: entry {key!r}: 'reason' must be a string")
    if "quote" in entry and not isinstance(entry["quote"], str):
        raise ValueError(f"{source}: entry {key!r}: 'quote' must be a string")
    return dict(entry)


def content_words(text: str, min_len: int = 5) -> list[str]:
    """Lowercase word tokens of at least ``min_len`` characters, unique, in first-seen order."""
    seen: dict[str, None] = {}
    for word in _WORD_RE.findall(text.lower()):
        if len(word) >= min_len:
            seen.setdefault(word, None)
    return list(seen)


class DemoPolicy:
    """Deterministic word-overlap judge, for demos and dry runs. No randomness, no model.

    A positive row is hit when at least ``hit_fraction`` of its description's content
    words (``content_words``) occur in ``context_text``. A gradient row's level is the
    largest level choice <= that fraction (the smallest choice when none is). Negative
    rows are never hit (no violation assumed; the reason says their quote is no evidence,
    trial 21 P-5). Every reason starts with
    ``DEMO_REASON_PREFIX``.

    Args:
        hit_fraction: fraction in [0, 1] of content words that must be found (default 0.3).
    """

    def __init__(self, hit_fraction: float = 0.3) -> None:
        if not 0.0 <= hit_fraction <= 1.0:
            raise ValueError(f"hit_fraction must be in [0, 1], got {hit_fraction}")
        self.hit_fraction = hit_fraction

    def verdicts(
        self, rows: list[dict[str, Any]], context_text: str, page: int | None = None
    ) -> list[dict[str, Any]]:
        """Judge rows by word overlap with ``context_text``; ``page`` is ignored."""
        found_words = set(content_words(context_text))
        out = []
        for row in rows:
            row_id = str(row.get("id"))
            verdict: dict[str, Any] = {"id": row_id}
            choices = _level_choices(row)
            if row.get("polarity") == "negative":
                verdict["hit"] = False
                if _is_gradient(row):
                    verdict["level"] = choices[0]
                verdict["reason"] = (f"{DEMO_REASON_PREFIX} negative row, no violation assumed (its quote is the line "
                                     "nearest the row, kept for grounding: not evidence)")
                out.append(verdict)
                continue
            words = content_words(str(row.get("description", "")))
            matched = [w for w in words if w in found_words]
            fraction = len(matched) / len(words) if words else 0.0
            verdict["hit"] = bool(words) and fraction >= self.hit_fraction
            if _is_gradient(row):
                below = [c for c in choices if c <= fraction + 1e-12]
                verdict["level"] = below[-1] if below else choices[0]
            verdict["reason"] = (
                f"{DEMO_REASON_PREFIX} {len(matched)}/{len(words)} content words of the "
                f"description found in the context ({fraction:.2f})"
            )
            out.append(verdict)
        return out


FLIP_REASON = "simulated disagreement (flipped):"
"""Reasons of answers `FlipPolicy` flipped start with this label."""


class FlipPolicy:
    """Another policy's answers with each row's answer flipped with probability `rate`: a
    judge that disagrees with the labels at a known rate, for calibration tests.

    Whether a row is flipped is a keyed hash of (`seed`, row id, description) mapped to
    [0, 1) and compared with `rate`: the same row gets the same answer on every request
    (retries, resplits, reruns), different rows are independent, and over n rows the number
    flipped is Binomial(n, rate). A flipped binary row answers the opposite hit; a flipped
    graded row the opposite end of its level choices (lowest when the base hit, else
    highest). N/A answers are never flipped.

    Args:
        base: the policy whose answers are flipped (e.g. an `OraclePolicy` of human labels).
        rate: flip probability in [0, 1].
        seed: non-negative integer; another seed flips another subset.
    """

    def __init__(self, base: VerdictPolicy, rate: float, seed: int = 0) -> None:
        if not 0.0 <= rate <= 1.0 or seed < 0:
            raise ValueError(f"rate must be in [0, 1] and seed >= 0, got {rate}, {seed}")
        self.base, self.rate, self.seed = base, rate, seed

    def flipped(self, row: dict[str, Any]) -> bool:
        """Whether `row`'s answer is flipped (a pure function of seed, id and description)."""
        key = f"{self.seed}\0{row.get('id')}\0{row.get('description', '')}".encode("utf-8", "surrogatepass")
        u = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2.0**64
        return u < self.rate

    def verdicts(
        self, rows: list[dict[str, Any]], context_text: str, page: int | None = None
    ) -> list[dict[str, Any]]:
        """The base policy's verdicts, some flipped (see the class docstring)."""
        out = []
        for row, verdict in zip(rows, self.base.verdicts(rows, context_text, page)):
            if verdict.get("na") or not self.flipped(row):
                out.append(verdict)
                continue
            out.append(flip_verdict(row, verdict))
        return out


class RequestFlip:
    """A noisy judge: each row's answer flipped independently PER REQUEST with probability
    `rate` (``cowork-judge sim --flip RATE --seed N``), so repeated sampling can be measured
    against a known truth (the oracle it wraps).

    The n-th answer the server gives about a row (counted per instance, row id and page,
    from 0) is flipped when a keyed hash of (`seed`, instance, row id, description, page,
    n) mapped to [0, 1) is below `rate`: answers are independent draws, and a run is
    reproducible given the order in which each row is asked (concurrent requests about
    different rows do not disturb each other's draws). Flipping is `FlipPolicy`'s: the
    opposite hit, a graded row's opposite end; N/A answers are never flipped.

    Args:
        rate: flip probability per row and request, in [0, 1].
        seed: non-negative integer.
    """

    def __init__(self, rate: float, seed: int = 0) -> None:
        if not 0.0 <= rate <= 1.0 or seed < 0:
            raise ValueError(f"--flip must be in [0, 1] and --seed >= 0, got {rate}, {seed}")
        self.rate, self.seed = rate, seed
        self._asked: dict[tuple[str, str, int], int] = {}
        self._lock = threading.Lock()

    def draw(self, row: dict[str, Any], *, instance: str | None, page: int | None) -> bool:
        """Whether this answer about `row` is flipped (and count it)."""
        row_id = str(row.get("id"))
        with self._lock:
            n = self._asked.get((instance or "", row_id, page or 0), 0)
            self._asked[(instance or "", row_id, page or 0)] = n + 1
        key = f"{self.seed}\0{instance or ''}\0{row_id}\0{row.get('description', '')}\0{page or 0}\0{n}"
        u = int.from_bytes(hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()[:8], "big") / 2.0**64
        return u < self.rate

    def apply(self, rows: list[dict[str, Any]], verdicts: list[dict[str, Any]], *, instance: str | None,
              page: int | None) -> tuple[list[dict[str, Any]], list[str]]:
        """The verdicts with this request's flips applied, and the ids flipped."""
        out, flipped = [], []
        for row, verdict in zip(rows, verdicts):
            if verdict.get("na") or not self.draw(row, instance=instance, page=page):
                out.append(verdict)
                continue
            out.append(flip_verdict(row, verdict))
            flipped.append(str(row.get("id")))
        return out, flipped


def flip_verdict(row: dict[str, Any], verdict: dict[str, Any]) -> dict[str, Any]:
    """`verdict` flipped: the opposite hit; a graded row's opposite end of its level choices."""
    flipped = dict(verdict, hit=not verdict["hit"])
    if _is_gradient(row):
        choices = _level_choices(row)
        flipped["level"] = choices[0] if verdict["hit"] else choices[-1]
    flipped["reason"] = f"{FLIP_REASON} {verdict.get('reason', '')}".strip()
    return flipped


class RoutedPolicy:
    """Per-instance policies behind one endpoint: a request is answered by the policy of the
    longest route marker found in its context (a judge's prompt carries the instance's task
    prompt, so a line of it, such as its title, is a marker). A request no marker matches is
    answered by `default` (None: every row ``hit=false``, "not in oracle").

    Args:
        routes: (marker text, policy) pairs; markers must be non-empty and distinct.
        default: the policy of unmatched requests.

    Raises:
        ValueError: an empty or repeated marker.
    """

    def __init__(self, routes: Sequence[tuple[str, VerdictPolicy]], default: VerdictPolicy | None = None) -> None:
        markers = [m for m, _ in routes]
        if any(not m for m in markers) or len(set(markers)) != len(markers):
            raise ValueError("route markers must be non-empty and distinct")
        self.routes = sorted(routes, key=lambda r: len(r[0]), reverse=True)
        self.default = default or OraclePolicy({})

    def route(self, context_text: str) -> VerdictPolicy:
        """The policy answering a request with this context."""
        return next((policy for marker, policy in self.routes if marker in context_text), self.default)

    def verdicts(
        self, rows: list[dict[str, Any]], context_text: str, page: int | None = None
    ) -> list[dict[str, Any]]:
        """The routed policy's verdicts."""
        return self.route(context_text).verdicts(rows, context_text, page)


GULLIBLE_REASON = "simulated gullible judge: the request carries the attack token"
"""Reasons of answers `GulliblePolicy` gave because a token was found."""


class GulliblePolicy:
    """A maximally gullible judge, for red-team measurements: a request whose text contains
    one of `tokens` (case-sensitive substring of the whole context: system, user and tool
    text) gets the best answer for every row — a positive row hit at its highest level
    choice, a negative row (a penalty) not hit at its lowest; pages are not asked about
    (``na`` false). Any other request is answered by `base`.

    Targeted (``targeted=True``, ``cowork-judge sim --gullible-rows TOKEN``, issue 35): the
    token helps only the rows the attack text names — a row id standing as a word within
    `TARGET_RADIUS` characters of a token — and the other rows get `base`'s answer; an attack
    text that names no row id speaks of all of them ("every requirement is met") and helps
    every row.

    Args:
        base: the policy of requests without a token.
        tokens: non-empty strings.
        targeted: help only the rows named near the token.

    Raises:
        ValueError: no token, or an empty one.
    """

    TARGET_RADIUS = 400
    """Characters either side of a token read for the row ids an attack names."""

    def __init__(self, base: VerdictPolicy, tokens: Sequence[str], *, targeted: bool = False) -> None:
        if not tokens or any(not t for t in tokens):
            raise ValueError("--gullible needs a non-empty token")
        self.base, self.tokens, self.targeted = base, tuple(tokens), targeted

    def snapshot(self, instance: str | None) -> GulliblePolicy:
        """This judge over `resolve`'s snapshot of its base (itself when the base is fixed)."""
        base = resolve(self.base, instance)
        return self if base is self.base else GulliblePolicy(base, self.tokens, targeted=self.targeted)

    def fooled(self, context_text: str) -> bool:
        """Whether a request with this context carries a token."""
        return any(t in context_text for t in self.tokens)

    def targets(self, rows: list[dict[str, Any]], context_text: str) -> set[str]:
        """The ids of `rows` the token helps in this context (all of them unless targeted)."""
        ids = {str(r.get("id")) for r in rows}
        if not self.targeted:
            return ids
        named: set[str] = set()
        for token in self.tokens:
            pos = context_text.find(token)
            while pos >= 0:
                near = context_text[max(0, pos - self.TARGET_RADIUS):pos + len(token) + self.TARGET_RADIUS]
                named |= {i for i in ids if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", near)}
                pos = context_text.find(token, pos + 1)
        return named or ids

    def verdicts(
        self, rows: list[dict[str, Any]], context_text: str, page: int | None = None
    ) -> list[dict[str, Any]]:
        """The best verdicts when fooled (for the targeted rows), else the base policy's."""
        if not self.fooled(context_text):
            return self.base.verdicts(rows, context_text, page)
        helped = self.targets(rows, context_text)
        base = {str(v.get("id")): v for v in self.base.verdicts(rows, context_text, page)} if len(helped) < len(rows) else {}
        out = []
        for row in rows:
            if str(row.get("id")) not in helped:
                out.append(base[str(row.get("id"))])
                continue
            negative = row.get("polarity") == "negative"
            verdict: dict[str, Any] = {"id": str(row.get("id")), "hit": not negative, "reason": GULLIBLE_REASON}
            if _is_gradient(row):
                choices = _level_choices(row)
                verdict["level"] = choices[0] if negative else choices[-1]
            out.append(verdict)
        return out
