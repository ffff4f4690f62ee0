"""Spelled-out unit names ("8.3 minutes", "3 kilometres", "12 per cent") as the unit symbols
`quantity.UNITS` already knows (trial 17 P-10). Pure.

Only aliases of known units: every word maps to a symbol of `quantity.UNITS` (or ``%``), with
an SI prefix word (``kilo``, ``milli`` …) only before a unit that takes prefixes. Singular and
plural, British and American spelling (metre/meter, litre/liter), any case. Left out on
purpose, because the word has another common meaning: pound (mass, force or money), calorie
(a food Calorie is a kilocalorie), bar(s) as a plural. `quantity.parse_quantity` applies this
only to the text right after a number, so prose ("it took minutes") never becomes a number.
"""

from __future__ import annotations

import re

_BASE_WORDS: dict[str, tuple[str, ...]] = {
    "m": ("metre", "metres", "meter", "meters"),
    "g": ("gram", "grams", "gramme", "grammes"),
    "s": ("second", "seconds"),
    "A": ("ampere", "amperes"),
    "K": ("kelvin", "kelvins"),
    "mol": ("mole", "moles"),
    "N": ("newton", "newtons"),
    "J": ("joule", "joules"),
    "W": ("watt", "watts"),
    "Pa": ("pascal", "pascals"),
    "Hz": ("hertz",),
    "C": ("coulomb", "coulombs"),
    "V": ("volt", "volts"),
    "ohm": ("ohm", "ohms"),
    "F": ("farad", "farads"),
    "T": ("tesla", "teslas"),
    "Wb": ("weber", "webers"),
    "H": ("henry", "henrys", "henries"),
    "eV": ("electronvolt", "electronvolts"),
    "L": ("litre", "litres", "liter", "liters"),
    "rad": ("radian", "radians"),
}
"""Unit symbol → its spelled-out names, for the units that take SI prefixes."""
_PLAIN_WORDS: dict[str, tuple[str, ...]] = {
    "cd": ("candela", "candelas"),
    "sr": ("steradian", "steradians"),
    "min": ("minute", "minutes"),
    "h": ("hour", "hours"),
    "atm": ("atmosphere", "atmospheres"),
    "in": ("inch", "inches"),
    "ft": ("foot", "feet"),
    "mi": ("mile", "miles"),
    "deg": ("degree", "degrees"),
}
"""Unit symbol → its spelled-out names, for units without prefixes."""
PREFIX_WORDS = {"yotta": "Y", "zetta": "Z", "exa": "E", "peta": "P", "tera": "T", "giga": "G", "mega": "M", "kilo": "k",
                "hecto": "h", "deca": "da", "deka": "da", "deci": "d", "centi": "c", "milli": "m", "micro": "μ",
                "nano": "n", "pico": "p", "femto": "f", "atto": "a"}
"""SI prefix word → prefix symbol."""


def _table() -> dict[str, str]:
    words = {w: sym for sym, names in (_BASE_WORDS | _PLAIN_WORDS).items() for w in names}
    for prefix, psym in PREFIX_WORDS.items():
        for sym, names in _BASE_WORDS.items():
            for name in names:
                words.setdefault(prefix + name, psym + sym)
    return words


UNIT_WORDS: dict[str, str] = _table()
"""Lower-case unit word (``minutes``, ``kilometres``, ``milliamperes``) → unit symbol (``min``, ``km``, ``mA``)."""
_PER_CENT = re.compile(r"(?<![A-Za-z])per\s*cent(?![A-Za-z])", re.IGNORECASE)
_ELECTRON_VOLT = re.compile(r"(?<![A-Za-z])(electron)[\s-]+(volts?)(?![A-Za-z])", re.IGNORECASE)
_WORD = re.compile(r"(?<![A-Za-z])[A-Za-z]+(?![A-Za-z])")


def unit_symbols(unit_text: str) -> str:
    """`unit_text`, the text after a number, with each spelled-out unit name replaced by its
    symbol (``"minutes"`` → ``"min"``, ``"Kilometres"`` → ``"km"``, ``"per cent"`` / ``"percent"``
    → ``"%"``); other words are left as they are (so ``"seconds later"`` stays no unit)."""
    text = _PER_CENT.sub("%", unit_text)
    text = _ELECTRON_VOLT.sub(r"\1\2", text)
    text = _WORD.sub(lambda m: UNIT_WORDS.get(m.group(0).lower(), m.group(0)), text)
    return re.sub(r"(?<![A-Za-z])percent(?![A-Za-z])", "%", text, flags=re.IGNORECASE)
