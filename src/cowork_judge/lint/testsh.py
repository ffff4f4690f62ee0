"""``test.sh`` checks: does the package pin the cowork-judge version it installs? (SPEC §14)

The script is read as text and never run. A version counts as pinned when, with no
injection from the rollout side, the install resolves to one exact version:

- an install spec with ``==``/``===`` and a literal version (``cowork-judge[pptx]==0.1.0``),
  a wheel file name (``cowork_judge-0.1.0-py3-none-any.whl``) or a git URL with a ref;
- an install spec whose version is a shell variable with a baked default, followed through
  assignments and ``${VAR:-x}`` / ``${VAR:=x}`` expansions (``V="${COWORK_JUDGE_VERSION:-0.1.0}"``,
  ``: "${COWORK_JUDGE_VERSION:=0.1.0}"``, ``DEFAULT_VERSION=0.1.0``);
- or ``COWORK_JUDGE_VERSION`` read by test.sh with a default in task.toml's placeholder
  (``COWORK_JUDGE_VERSION = "${COWORK_JUDGE_VERSION:-0.1.0}"``).

An install of cowork-judge without an exact version anywhere (``pip install cowork-judge``,
``>=``, ``~=``, a fallback line) is unpinned. ``-r FILE`` requirement files in tests/ are
read too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cowork_judge.install import harbor_stubs
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.reading import Unreadable, read_text

PLACEHOLDER = "COWORK_JUDGE_VERSION"
EXTRAS_VAR = "COWORK_JUDGE_EXTRAS"
VERSION = re.compile(r"v?\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?(\+[A-Za-z0-9.]+)?\Z")
"""An exact release number (PEP 440 subset); ``0.1.*`` is not exact."""
_NAME = r"cowork[-_]judge"
_SPEC = re.compile(r"(?<![\w/.-])" + _NAME + r"(?P<mid>(?:\[[^\]\n]*\]|[^\s=~<>!@'\"\[])*?)"
                   r"\s*(?P<op>===|==|~=|>=|<=|!=|>|<)\s*(?P<ver>[^\s'\";|&)]+)", re.IGNORECASE)
_WHEEL = re.compile(_NAME + r"-(?P<ver>[^-\s/'\"]+)-py", re.IGNORECASE)
_GIT = re.compile(r"git\+\S+@(?P<ref>[\w.\-/]+)")
_PIP_INSTALL = re.compile(r"(?:\bpip3?(?:\.\d+)?|\bpipx|\bpip\[@\]\}?)['\"]?(?:\s+-[-\w=]+)*\s+install\b")
"""A pip install command: ``pip install``, ``python3 -m pip install``, ``"$VENV/bin/pip" install``,
``uv pip install``, ``"${pip[@]}" install`` (a bash array)."""
_COMMAND_END = re.compile(r"&&|\|\||;|\|(?!\|)")
_BARE = re.compile(r"(?<![\w/.-])" + _NAME + r"(?![\w/.-])", re.IGNORECASE)
"""The distribution name as a requirement token (not ``cowork-judge/test.sh``, a wheel, a URL)."""
_EXPANSION = re.compile(r"\$\{([A-Za-z_]\w*)(:?[-=])((?:[^{}]|\$\{[^{}]*\})*)\}")
_ASSIGN = re.compile(r"(?:^|[;&|(\s])(?:export\s+|readonly\s+|local\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)="
                     r"(\"[^\"]*\"|'[^']*'|[^\s;&|)]*)")
_REF = re.compile(r"\A\$\{?([A-Za-z_]\w*)\}?\Z")
_REQUIREMENTS = re.compile(r"(?:\s-r|--requirement)[\s=]+(.+)")
_REQUIREMENTS_FILE = re.compile(r"[\w./-]*[\w.-]+\.(?:txt|in)\b")


HARBOR_STUB = "is Harbor's placeholder test.sh"
"""How S002 begins when test.sh is Harbor's placeholder: the one finding that `cowork-judge init` fixes whole."""


def init_fixes(finding: Finding) -> bool:
    """True for the S002 that names `cowork-judge init` (Harbor's placeholder test.sh): the text report lists it
    before the T-findings of its instance, which are hand edits of what that one command writes (trial 43 P-4)."""
    return finding.code == "S002" and finding.message.startswith(HARBOR_STUB)

@dataclass
class Pins:
    """What test.sh says about the version and extras it installs.

    Attributes:
        versions: exact versions baked into the script (literal specs and resolved defaults).
        placeholder_lines: install specs whose version is COWORK_JUDGE_VERSION with no
            baked default (pinned only through task.toml's placeholder).
        unpinned: (line number, line) of installs without an exact version.
        unresolved: (line number, line) of specs whose version variable has no default.
        reads_placeholder: the script reads COWORK_JUDGE_VERSION at all.
        extras: the extras installed by default, None when the script does not say.
        extras_from_placeholder: the extras come from COWORK_JUDGE_EXTRAS (task.toml wins).
        specs: install specs seen.
        names_read: every variable the script expands (``$NAME``, ``${NAME…}``).
    """

    versions: dict[str, int] = field(default_factory=dict)
    placeholder_lines: list[int] = field(default_factory=list)
    unpinned: list[tuple[int, str]] = field(default_factory=list)
    unresolved: list[tuple[int, str]] = field(default_factory=list)
    reads_placeholder: bool = False
    extras: tuple[str, ...] | None = None
    extras_from_placeholder: bool = False
    specs: int = 0
    names_read: frozenset[str] = frozenset()


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) with backslash continuations joined and comment lines dropped."""
    out: list[tuple[int, str]] = []
    pending, start = "", 0
    for n, line in enumerate(text.splitlines(), start=1):
        if not pending and line.lstrip().startswith("#"):
            continue
        if not pending:
            start = n
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((start, pending + line))
        pending = ""
    if pending:
        out.append((start, pending))
    return out


def _unquote(word: str) -> str:
    word = word.strip()
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


class _Vars:
    """Shell variables: literal defaults and aliases (``V=${X:-…}`` makes V follow X)."""

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.literals: dict[str, list[str]] = {}
        self.aliases: dict[str, list[str]] = {}
        for _, line in lines:
            for name, _op, word in _EXPANSION.findall(line):
                self._value(name, word)
            for assignment in _ASSIGN.finditer(line):
                name, value = assignment.group(1), _unquote(assignment.group(2))
                if value.startswith(("$(", "`")):  # V="$(… "$X" …)": V follows what it transforms
                    rest = line[assignment.start(2):]
                    self.aliases.setdefault(name, []).extend(re.findall(r"\$\{?([A-Za-z_]\w*)", rest))
                    continue
                m = _EXPANSION.fullmatch(value) or _REF.match(value)
                if m:
                    self.aliases.setdefault(name, []).append(m.group(1))
                    if m.re is _EXPANSION:
                        self._value(name, m.group(3))
                elif "$" not in value:
                    self.literals.setdefault(name, []).append(value)

    def _value(self, name: str, word: str) -> None:
        word = _unquote(word)
        ref = _REF.match(word) or _EXPANSION.fullmatch(word)
        if ref:
            self.aliases.setdefault(name, []).append(ref.group(1))
            if ref.re is _EXPANSION:
                self._value(name, ref.group(3))
        elif "$" not in word:
            self.literals.setdefault(name, []).append(word)

    def literal_defaults(self, name: str, target: str = PLACEHOLDER, depth: int = 0) -> tuple[list[str], bool]:
        """(literal defaults reachable from `name`, whether it follows `target`), eight hops at most."""
        if depth > 8:
            return [], False
        values = list(self.literals.get(name, []))
        follows = name == target
        for source in dict.fromkeys(self.aliases.get(name, [])):
            more, via = self.literal_defaults(source, target, depth + 1)
            values += more
            follows = follows or via
        return values, follows


def parse(text: str, *, tests_dir: Path | None = None) -> tuple[Pins, list[str]]:
    """Read the version pins of a test.sh text.

    Args:
        tests_dir: where ``-r FILE`` requirement files are looked for (None: not followed).

    Returns:
        (`Pins`, problems reading requirement files it names).
    """
    lines = logical_lines(text)
    shell = _Vars(lines)
    pins = Pins(reads_placeholder=any(PLACEHOLDER in line for _, line in lines),
                names_read=frozenset(n for _, line in lines for n in re.findall(r"\$\{?([A-Za-z_]\w*)", line)))
    problems: list[str] = []
    for n, line in lines:
        _line(pins, shell, n, line)
        if tests_dir is not None and _PIP_INSTALL.search(line):
            for rest in _REQUIREMENTS.findall(line):
                found = _REQUIREMENTS_FILE.search(rest)
                if found is not None:
                    name = found.group(0) if "$" not in rest[:found.start()] else "$/" + found.group(0).rsplit("/", 1)[-1]
                    problems += _requirements(pins, shell, tests_dir, name)
    if pins.specs == 0 and not pins.unpinned:  # no visible install: a baked default still pins
        values, _ = shell.literal_defaults(PLACEHOLDER)
        for value in values:
            if VERSION.match(value):
                pins.versions.setdefault(value.lstrip("v"), 0)
    return pins, problems


@lru_cache(maxsize=256)
def _parse_shared(text: str) -> Pins:
    """`parse` of a script that names no requirements file; callers must not modify the result."""
    return parse(text)[0]


def _line(pins: Pins, shell: _Vars, n: int, line: str) -> None:
    specs = list(_SPEC.finditer(line))
    wheels = list(_WHEEL.finditer(line))
    git = _GIT.search(line) if re.search(_NAME, line, re.IGNORECASE) else None
    for m in specs:
        pins.specs += 1
        op, ver, mid = m.group("op"), _unquote(m.group("ver")), m.group("mid")
        _extras(pins, shell, mid)
        if op not in ("==", "==="):
            pins.unpinned.append((n, line.strip()))
            continue
        _version(pins, shell, n, line, ver)
    for m in wheels:
        pins.specs += 1
        _version(pins, shell, n, line, m.group("ver"))
    if git is not None:
        pins.specs += 1
        pins.versions.setdefault(f"git:{git.group('ref')}", n)
    if wheels or git is not None:
        return
    covered = [m.span() for m in specs]
    for install in _PIP_INSTALL.finditer(line):
        stop = _COMMAND_END.search(line, install.end())
        end = stop.start() if stop else len(line)  # the install's own arguments, not `&& cowork-judge run`
        for token in _BARE.finditer(line, install.end(), end):  # the name without any version operator
            if not any(start <= token.start() < stop_ for start, stop_ in covered):
                pins.unpinned.append((n, line.strip()))
                return


def _version(pins: Pins, shell: _Vars, n: int, line: str, ver: str) -> None:
    if "*" in ver:
        pins.unpinned.append((n, line.strip()))
        return
    if VERSION.match(ver):
        pins.versions.setdefault(ver.lstrip("v"), n)
        return
    names = [m.group(1) for m in _EXPANSION.finditer(ver)] + re.findall(r"\$\{?([A-Za-z_]\w*)\}?", ver)
    found, placeholder = [], False
    for name in dict.fromkeys(names):
        values, via = shell.literal_defaults(name)
        found += [v for v in values if VERSION.match(v)]
        placeholder = placeholder or via
    for m in _EXPANSION.finditer(ver):
        word = _unquote(m.group(3))
        if VERSION.match(word):
            found.append(word)
    for value in found:
        pins.versions.setdefault(value.lstrip("v"), n)
    if not found:
        (pins.placeholder_lines.append(n) if placeholder else pins.unresolved.append((n, line.strip())))


def _extras(pins: Pins, shell: _Vars, mid: str) -> None:
    if not mid:
        if pins.extras is None:
            pins.extras = ()
        return
    literal = re.fullmatch(r"\[([\w,\s-]*)\]", mid)
    if literal:
        pins.extras = _split(literal.group(1))
        return
    names = [m.group(1) for m in _EXPANSION.finditer(mid)] + re.findall(r"\$\{?([A-Za-z_]\w*)", mid)
    for name in dict.fromkeys(names):
        values, follows = shell.literal_defaults(name, EXTRAS_VAR)
        if follows:
            pins.extras_from_placeholder = True
        if values:
            pins.extras = _split(values[0])
            return


def _split(text: str) -> tuple[str, ...]:
    return tuple(sorted({p.strip().lower() for p in text.strip("[]").split(",") if p.strip()}))


def _requirements(pins: Pins, shell: _Vars, tests_dir: Path, name: str) -> list[str]:
    path = Path(name)
    if name.startswith("/tests/"):
        path = tests_dir / name[len("/tests/"):]
    elif "$" in name or not path.is_absolute():
        path = tests_dir / path.name
    else:
        return []  # an absolute path outside tests/ lives in the image, not in the package
    try:
        text = read_text(path)
    except Unreadable as exc:
        return [f"requirements file {name} named by test.sh: {exc}"]
    for n, line in logical_lines(text):
        _line(pins, shell, n, "pip install " + line)
    return []


def check(path: Path, file: str, *, tests_dir: Path, declared: bool,
          placeholder: str | None) -> tuple[Pins | None, list[Finding]]:
    """S002–S005 for the test.sh at `path`.

    Args:
        declared: task.toml declares COWORK_JUDGE_VERSION.
        placeholder: its default (None: no default, or not declared).

    Returns:
        (`Pins`, findings); Pins is None when the file cannot be read (S004).
    """
    try:
        text = read_text(path)
    except Unreadable as exc:
        return None, [Finding("S004", file, f"cannot be read: {exc}")]
    if harbor_stubs.is_harbor_stub("test.sh", text):  # trial 16 P-7: one command fixes this and T002–T004
        return Pins(), [Finding("S002", file, f"{HARBOR_STUB} (it runs pytest, not the judge): run "
                                              "`cowork-judge init <task folder>`, which writes the judge's test.sh and "
                                              "the task.toml blocks the T-findings ask for")]
    if _REQUIREMENTS.search(text):
        pins, problems = parse(text, tests_dir=tests_dir)
    else:  # no file to follow: the result depends on the text alone, shared across a family
        pins, problems = _parse_shared(text), []
    return pins, [Finding("S004", file, p) for p in problems] + list(_findings(pins, file, declared, placeholder))


def _findings(pins: Pins, file: str, declared: bool, placeholder: str | None) -> Iterator[Finding]:
    usable = placeholder is not None and bool(VERSION.match(placeholder))
    for n, line in pins.unpinned:
        yield Finding("S002", file, f"line {n} installs cowork-judge without an exact version ({line[:80]!r}); pin "
                                    "it: cowork-judge==X.Y.Z", field=f"line {n}")
    for n, line in pins.unresolved:
        yield Finding("S002", file, f"line {n}: the version variable has no default in test.sh ({line[:80]!r})",
                      field=f"line {n}")
    if pins.placeholder_lines and not pins.versions and not usable:
        lines = ", ".join(map(str, pins.placeholder_lines))
        yield Finding("S002", file, f"line {lines} installs ==$COWORK_JUDGE_VERSION with no default here and no "
                                    "placeholder default in task.toml: an un-injected run installs no version",
                      field=f"line {pins.placeholder_lines[0]}")
    nothing = not pins.unpinned and not pins.unresolved and not pins.placeholder_lines and not pins.versions
    if nothing and not (usable and pins.reads_placeholder):
        yield Finding("S002", file, "installs no pinned cowork-judge: no cowork-judge==X.Y.Z, no baked "
                                    "COWORK_JUDGE_VERSION default, no task.toml placeholder it reads")
    if declared and not pins.reads_placeholder:
        yield Finding("S003", file, "task.toml declares COWORK_JUDGE_VERSION, but test.sh never reads it: an injected "
                                    "version is silently ignored")
    if len(pins.versions) > 1:
        listed = ", ".join(f"{v} (line {n})" for v, n in pins.versions.items())
        yield Finding("S005", file, f"bakes in different versions: {listed}")


def resolved_version(pins: Pins | None, placeholder: str | None) -> tuple[str | None, str | None]:
    """(version an un-injected run installs, its source: ``placeholder`` / ``package``)."""
    if pins is not None and pins.reads_placeholder and placeholder and VERSION.match(placeholder):
        return placeholder.lstrip("v"), "placeholder"
    if pins is None and placeholder and VERSION.match(placeholder):
        return placeholder.lstrip("v"), "placeholder"
    if pins is not None and pins.versions:
        return next(iter(pins.versions)), "package"
    return None, None


__all__ = ["HARBOR_STUB", "PLACEHOLDER", "VERSION", "Pins", "check", "init_fixes", "logical_lines", "parse", "resolved_version"]
