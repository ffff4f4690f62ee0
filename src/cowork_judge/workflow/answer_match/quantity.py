"""Numbers with units: parse them, read a response's final answer, compare within a tolerance.

Pure. `answer_match` decides a row by code, with no model call, only when these functions
are sure: both sides parse as quantities and `agree` returns True or False. Anything else
(`parse_quantity` → None, `agree` → None) goes to the model.

Numbers: ``-3``, ``−3`` (U+2212), ``1,234.5``, ``.5``, ``6.02e23``, ``6.02 × 10^23``,
``6.02*10**23``, ``6.02·10⁻³``, ``3/4`` (a fraction of two integers), with LaTeX noise
removed first (``$…$``, ``\\,``, ``\\times``, ``\\cdot``, ``\\text{…}``, ``\\mathrm{…}``,
``\\%``, ``^{…}``). What follows the number is its unit.

Units are read into SI dimension exponents and a factor (`UNITS` with SI prefixes, plus a
few common non-SI units: eV, L, min, h, atm, bar, cal, in, ft, mi, lb, deg): ``km`` = 1000 m,
``m/s^2`` = ``m·s⁻²`` = ``m s^-2``. Spelled-out names of these units right after the number
(``8.3 minutes``, ``3 kilometres``, ``12 per cent``) read as their symbols (`unit_words`). A unit
that cannot be read this way (``°C``, ``mmHg``, other words) is compared by its normalized text only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from cowork_judge.workflow.answer_match.unit_words import unit_symbols

DIMENSIONS = ("m", "kg", "s", "A", "K", "mol", "cd", "rad")
"""Dimension exponents of a unit, in this order (angles count as their own dimension, so a
bare number is never silently read as radians)."""

Dims = tuple[int, ...]


def _d(**exps: int) -> Dims:
    return tuple(exps.get(name, 0) for name in DIMENSIONS)


UNITS: dict[str, tuple[Dims, float]] = {
    "m": (_d(m=1), 1.0), "g": (_d(kg=1), 1e-3), "s": (_d(s=1), 1.0), "A": (_d(A=1), 1.0), "K": (_d(K=1), 1.0),
    "mol": (_d(mol=1), 1.0), "cd": (_d(cd=1), 1.0), "rad": (_d(rad=1), 1.0), "sr": (_d(rad=2), 1.0),
    "N": (_d(kg=1, m=1, s=-2), 1.0), "J": (_d(kg=1, m=2, s=-2), 1.0), "W": (_d(kg=1, m=2, s=-3), 1.0),
    "Pa": (_d(kg=1, m=-1, s=-2), 1.0), "Hz": (_d(s=-1), 1.0), "C": (_d(A=1, s=1), 1.0),
    "V": (_d(kg=1, m=2, s=-3, A=-1), 1.0), "Ω": (_d(kg=1, m=2, s=-3, A=-2), 1.0), "ohm": (_d(kg=1, m=2, s=-3, A=-2), 1.0),
    "F": (_d(kg=-1, m=-2, s=4, A=2), 1.0), "T": (_d(kg=1, s=-2, A=-1), 1.0), "Wb": (_d(kg=1, m=2, s=-2, A=-1), 1.0),
    "H": (_d(kg=1, m=2, s=-2, A=-2), 1.0), "eV": (_d(kg=1, m=2, s=-2), 1.602176634e-19),
    "L": (_d(m=3), 1e-3), "min": (_d(s=1), 60.0), "h": (_d(s=1), 3600.0), "atm": (_d(kg=1, m=-1, s=-2), 101325.0),
    "bar": (_d(kg=1, m=-1, s=-2), 1e5), "cal": (_d(kg=1, m=2, s=-2), 4.184), "in": (_d(m=1), 0.0254),
    "ft": (_d(m=1), 0.3048), "mi": (_d(m=1), 1609.344), "lb": (_d(kg=1), 0.45359237),
    "deg": (_d(rad=1), math.pi / 180), "°": (_d(rad=1), math.pi / 180),
}
"""Unit symbol → (dimension exponents, factor to SI)."""
PREFIXED = frozenset({"m", "g", "s", "A", "K", "mol", "N", "J", "W", "Pa", "Hz", "C", "V", "Ω", "ohm", "F", "T", "Wb", "H",
                      "eV", "L", "cal", "bar", "rad"})
"""Units that take SI prefixes."""
PREFIXES = {"Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "h": 1e2, "da": 1e1,
            "d": 1e-1, "c": 1e-2, "m": 1e-3, "μ": 1e-6, "µ": 1e-6, "u": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15, "a": 1e-18}

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_NUMBER = re.compile(
    r"""^(?P<sign>[+\-])?\s*
        (?P<mant>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)
        (?:\s*/\s*(?P<den>\d+)(?![.\d]))?
        (?:
            [eE](?P<e1>[+\-]?\d+)
          | \s*(?:[x×*·]|\\times|\\cdot)\s*10\s*(?:\^|\*\*)\s*\{?\s*(?P<e2>[+\-]?\d+)\s*\}?
        )?""",
    re.VERBOSE,
)
_SUPERSCRIPT_RUN = re.compile(r"[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_UNIT_TOKEN = re.compile(r"^(?P<sym>[A-Za-zΩμµ°]+)(?:\^?(?P<exp>[+\-]?\d+))?$")
_LATEX_WRAP = re.compile(r"\\(?:text|mathrm|rm|mathit|operatorname)\s*\{([^{}]*)\}")
_BOXED = re.compile(r"\\boxed\s*\{")
_FINAL_LINE = re.compile(r"^[*#>\s-]{0,6}(?:final\s+answer|answer)\s*(?:is)?\s*\**\s*[:：=]\s*\**\s*(?P<text>.+?)\s*(?:\*\*)?\s*$", re.IGNORECASE)
_ANSWER_MARK = re.compile(r"\b(?:final\s+answer|answer)\s*(?:is)?\s*\**\s*[:：=]\s*\**\s*(?P<text>[^\n]*)", re.IGNORECASE)
_PART_LABEL = re.compile(r"^\s*(?:\(\s*(?:[a-z]{1,4}|\d{1,2})\s*\)|[a-z]{1,4}\s*[):])\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """A parsed number with its unit.

    Attributes:
        value: the number as written (no unit conversion).
        unit: the unit text, normalized (spaces, ``^``, superscripts, ``·``/``*`` unified;
            "" when the answer is a bare number).
        dims: SI dimension exponents (`DIMENSIONS`) when the unit could be read, else None.
        factor: multiply `value` by it to get SI units (1.0 for a bare number).
    """

    value: float
    unit: str
    dims: Dims | None
    factor: float

    @property
    def si(self) -> float:
        """The value in SI units (`value` when the unit is unknown)."""
        return self.value * self.factor


def clean_latex(text: str) -> str:
    """`text` with the LaTeX and Markdown noise of a final answer removed (``$``, ``**``,
    ``\\,``, ``\\text{…}`` …); ``\\times``/``\\cdot`` are kept as × and ·."""
    out = text.replace("\u2212", "-").replace("\u2013", "-").replace("−", "-")
    for _ in range(3):
        out = _LATEX_WRAP.sub(r"\1", out)
    out = out.replace("\\times", "×").replace("\\cdot", "·").replace("\\%", "%").replace("\\Omega", "Ω")
    out = re.sub(r"\\mu\s*", "μ", out).replace("^\\circ", "°").replace("^{\\circ}", "°").replace("\\circ", "°")
    out = re.sub(r"\\[,;:! ]", " ", out).replace("$", "")
    out = re.sub(r"\*\*([^*]+)\*\*", r"\1", out.strip())  # Markdown bold around the answer
    out = re.sub(r"^\*\*|\*\*$", "", out.strip())
    return re.sub(r"\s+", " ", out).strip().rstrip(".")


_LONE_COMMA_GROUP = re.compile(r"\d{1,3},\d{3}")
"""A mantissa whose one comma may be a thousands separator or a decimal comma ("9,807")."""


def parse_quantity(text: str, *, decimal_comma: bool = False) -> Quantity | None:
    """The quantity `text` states, or None when it is not exactly one number with an optional unit.

    A comma between digit groups is a thousands separator (``"12,345,678"``, ``"9,807.5"``),
    except that with `decimal_comma` a lone group of three digits (``"9,807"``) is read as a
    decimal comma (9.807): see `comma_readings`.

    Examples: ``"9.8 m/s^2"``, ``"$6.0 \\times 10^{3}\\,\\text{J}$"``, ``"−0.25"``, ``"3/4"``,
    ``"25 %"``. A number followed by more words (``"about 3 apples per day"``) parses only
    when the rest reads as units (`read_unit`) or is one unit-like word (``°C``, ``mmHg``).
    Spelled-out unit names read as their symbols (``"499 seconds"`` = ``"499 s"``,
    `unit_words.unit_symbols`).
    """
    s = _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPT), clean_latex(text))
    m = _NUMBER.match(s)
    if m is None:
        return None
    mant = m.group("mant")
    mant = mant.replace(",", ".") if decimal_comma and _LONE_COMMA_GROUP.fullmatch(mant) else mant.replace(",", "")
    try:
        value = float(mant)
        if m.group("den") is not None:
            if "." in mant or int(m.group("den")) == 0:
                return None
            value /= int(m.group("den"))
        exp = m.group("e1") or m.group("e2")
        if exp is not None:
            value *= 10.0 ** int(exp)
    except (ValueError, OverflowError):
        return None
    if m.group("sign") == "-":
        value = -value
    if not math.isfinite(value):
        return None
    rest = s[m.end():].strip()
    if not rest:
        return Quantity(value, "", (0,) * len(DIMENSIONS), 1.0)
    rest = unit_symbols(rest)  # "8.3 minutes" → "8.3 min" (trial 17 P-10)
    unit = normalize_unit(rest)
    if unit is None:
        return None
    dims, factor = read_unit(unit)
    if dims is None and re.search(r"\s", rest) and unit != "%":
        return None  # several words that do not read as units: a sentence, not a quantity
    return Quantity(value, unit, dims, factor)


def starts_with_number(text: str) -> bool:
    """Whether `text` (LaTeX noise removed, as `parse_quantity` reads it) starts with a number;
    lint uses it to tell a reference meant as a number ("8.3 furlongs") from prose."""
    s = _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPT), clean_latex(text))
    return _NUMBER.match(s) is not None


def comma_readings(text: str) -> list[Quantity]:
    """Every quantity `text` may mean (trial 9 F8): one, or two when its number is a lone
    comma group of three digits (``"9,807"``: 9807 with a thousands comma, 9.807 with a decimal
    comma, as German or French write standard gravity); [] when `text` is no quantity."""
    first = parse_quantity(text)
    if first is None:
        return []
    second = parse_quantity(text, decimal_comma=True)
    return [first] if second is None or second == first else [first, second]


def normalize_unit(text: str) -> str | None:
    """Canonical spelling of a unit text (``m s^-2`` → ``m*s^-2``, ``m·s⁻²`` likewise), or
    None when the text is no unit (sentences, brackets, several words)."""
    t = text.strip()
    if len(t) > 2 and t[0] + t[-1] in ("()", "[]"):  # "(m/s)", "[J]"
        t = t[1:-1].strip()
    t = t.replace("**", "^").replace("{", "").replace("}", "").replace("·", "*").replace("⋅", "*")
    t = re.sub(r"\s*\^\s*", "^", t)
    t = re.sub(r"\s*([*/])\s*", r"\1", t)
    t = re.sub(r"/\(([^()]*)\)", lambda m: "/" + m.group(1).replace("*", "/"), t)  # J/(kg*K) = J/kg/K
    t = re.sub(r"\s+", "*", t)
    if t in ("%", "°"):
        return t
    if not t or len(t) > 24 or not re.fullmatch(r"[A-Za-zΩμµ°%0-9^+\-*/.]+", t):
        return None
    if re.search(r"[A-Za-z]{6,}", t) and not all(w in ("degree", "degrees") for w in re.findall(r"[A-Za-z]{6,}", t)):
        return None
    return t.replace("degrees", "deg").replace("degree", "deg")


def read_unit(unit: str) -> tuple[Dims | None, float]:
    """(dimension exponents, factor to SI) of a normalized unit, or (None, 1.0) when any
    factor of it is not in `UNITS` (with or without an SI prefix)."""
    if unit == "%":
        return None, 1.0
    dims = [0] * len(DIMENSIONS)
    factor = 1.0
    numerator, *denominators = unit.split("/")
    parts = [(p, 1) for p in numerator.split("*") if p] + [(p, -1) for d in denominators for p in d.split("*") if p]
    if not parts:
        return None, 1.0
    for token, sign in parts:
        m = _UNIT_TOKEN.match(token)
        if m is None:
            return None, 1.0
        exp = int(m.group("exp") or 1) * sign
        found = _lookup(m.group("sym"))
        if found is None:
            return None, 1.0
        unit_dims, unit_factor = found
        dims = [d + u * exp for d, u in zip(dims, unit_dims)]
        factor *= unit_factor**exp
    return tuple(dims), factor


def _lookup(symbol: str) -> tuple[Dims, float] | None:
    if symbol in UNITS:
        return UNITS[symbol]
    for prefix in sorted(PREFIXES, key=len, reverse=True):
        base = symbol[len(prefix):]
        if symbol.startswith(prefix) and base in PREFIXED:
            dims, factor = UNITS[base]
            return dims, factor * PREFIXES[prefix]
    return None


def agree(reference: Quantity, answer: Quantity, rel_tol: float) -> bool | None:
    """Whether `answer` equals `reference` within the relative tolerance; None when code
    cannot tell and the model must decide.

    Rules: both units readable with the same dimensions → compare in SI; both with the same
    normalized unit text → compare the numbers; one side without a unit → numbers that
    agree count as agreement (units were left out), numbers that do not are None (the
    answer may be in another unit); any other pair of units → None. Agreement is
    ``|answer − reference| ≤ rel_tol · |reference|`` (a reference of 0 needs
    ``|answer| ≤ 1e-12``).
    """
    if reference.unit and answer.unit:
        if reference.dims is not None and answer.dims is not None:
            if reference.dims != answer.dims:
                return None
            return _close(reference.si, answer.si, rel_tol)
        if reference.unit == answer.unit:
            return _close(reference.value, answer.value, rel_tol)
        return None
    if reference.unit or answer.unit:
        return True if _close(reference.value, answer.value, rel_tol) else None
    return _close(reference.value, answer.value, rel_tol)


def _close(reference: float, answer: float, rel_tol: float) -> bool:
    if reference == 0:
        return abs(answer) <= 1e-12
    return abs(answer - reference) <= rel_tol * abs(reference) * (1 + 1e-12)


def boxed(text: str) -> list[str]:
    """The contents of every ``\\boxed{…}`` in `text` (balanced braces), in order."""
    out = []
    for m in _BOXED.finditer(text):
        depth, start = 1, m.end()
        for i in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                out.append(text[start:i])
                break
    return out


def final_answers(response: str, parts: int) -> list[str] | None:
    """The response's final answer for each of `parts` parts, or None when it does not say
    clearly (the model then reads the whole response).

    Looked for in order: the whole response (a single part that is just a quantity);
    ``\\boxed{…}`` (one per part, the last `parts` of them); the last line starting
    "Final answer:" / "Answer:" (parts separated by ``;``). Part labels such as ``(a)``,
    ``b)``, ``c:`` are removed. A response that states more than one different answer after
    such a marker (``Answer: 12 km`` then ``Wait, I made an error. Answer: 3.5 km``, the
    second one mid-line) has no clear final answer: None; so has a single-part response
    whose last ``\boxed{…}`` is followed by an "Answer:" that does not state the same quantity,
    and a response whose text after the last marked answer states a rival quantity of the same
    dimension (`_rival_after`: "Final answer: 3 km" then "the correct distance is 7 km").
    """
    text = response.strip()
    if parts == 1 and len(text) <= 200 and parse_quantity(text) is not None:
        return [text]
    found = boxed(text)
    if len(found) >= parts:
        if parts == 1 and _corrected_after_boxed(text, found[-1]):
            return None
        answers = [_unlabel(b, parts) for b in found[-parts:]]
        tail = max(m.end() for m in _BOXED.finditer(text)) + len(found[-1]) + 1
        return None if _rival_after(text[tail:], answers) else answers
    finals = [m.group("text") for line in text.splitlines() if (m := _FINAL_LINE.match(line.strip()))]
    if finals and len(_stated_answers(text)) == 1:
        pieces = [p.strip() for p in finals[-1].split(";")] if parts > 1 else [finals[-1]]
        if len(pieces) == parts:
            answers = [_unlabel(p, parts) for p in pieces]
            tail = max(m.end() for m in _ANSWER_MARK.finditer(text))
            return None if _rival_after(text[tail:], answers) else answers
    return None


_TAIL_QUANTITY = re.compile(r"(?<![\w.,])[+\-]?\d+(?:[.,]\d+)*(?:\s*[A-Za-zΩμµ°%][A-Za-zΩμµ°%/^*·\d\-]*)?")
"""A number, with the unit-like word that may follow it, in the text after a final answer."""
MAX_TAIL_CHARS = 4000
"""How much text after the last marked answer `_rival_after` reads (bounds its cost)."""


def _rival_after(tail: str, answers: list[str]) -> bool:
    """Whether `tail`, the text after the last marked answer, states another quantity of the
    same dimension as one of `answers` that agrees with none of them (trial 9 F9: "Final answer:
    3 km" then "That was wrong. The correct distance is 7 km."): a retraction or a hedge, so the
    final answer is not clear. Numbers of other dimensions ("2 hours", a bare "4 steps" after a
    "3 km") and the same quantity restated ("3000 m") are no rival. Reads at most
    `MAX_TAIL_CHARS` characters."""
    said = [q for a in answers if (q := parse_quantity(a)) is not None and q.dims is not None]
    for m in _TAIL_QUANTITY.finditer(tail[:MAX_TAIL_CHARS]):
        token = m.group(0).rstrip("-.,")
        later = parse_quantity(token) or parse_quantity(re.split(r"\s+|(?<=\d)(?=[A-Za-zΩμµ°%])", token)[0])
        if later is None or later.dims is None:
            continue
        same = [q for q in said if q.dims == later.dims]
        if same and not any(agree(q, later, 1e-9) for q in same):
            return True
    return False


def _corrected_after_boxed(text: str, last_boxed: str) -> bool:
    """Whether an "Answer:" marker after the last ``\boxed{…}`` of `text` states something
    other than `last_boxed` (not the same quantity, to 1e-9 relative, once units are converted)."""
    start = max(m.start() for m in _BOXED.finditer(text))
    said = parse_quantity(last_boxed)
    for m in _ANSWER_MARK.finditer(text, start):
        later = parse_quantity(m.group("text").replace("*", "").strip().rstrip("."))
        if said is None or later is None or agree(said, later, 1e-9) is not True:
            return True
    return False


def _stated_answers(text: str) -> set[str]:
    """Every answer stated after an "Answer:" / "Final answer:" marker anywhere in `text`
    (at a line start or mid-line), normalised (case, spaces, bold, a closing full stop)."""
    out = set()
    for m in _ANSWER_MARK.finditer(text):
        said = m.group("text").replace("*", "").strip().rstrip(".").strip()
        out.add(" ".join(said.lower().split()))
    return out


def _unlabel(text: str, parts: int) -> str:
    """`text` without a leading part label (``(a)``, ``b)``, ``c:``) when the answer has parts."""
    return _PART_LABEL.sub("", text).strip() if parts > 1 else text.strip()


def part_texts(reference: str | list[str]) -> list[str]:
    """A row's reference answer as its parts (a list is a multi-part answer), labels removed."""
    items = reference if isinstance(reference, list) else [reference]
    return [_unlabel(str(p), len(items)) for p in items]
