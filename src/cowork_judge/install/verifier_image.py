"""``tests/Dockerfile`` for a task whose verifier runs in its own container (Harbor 0.26 separate mode).

Harbor builds the separate verifier from ``tests/Dockerfile`` when the task has one (and
then does not upload ``tests/``: the image's ``COPY . /tests/`` bakes them in). Harbor's
own stub is ``FROM ubuntu:24.04`` with nothing installed, where ``test.sh`` finds no Python.
`dockerfile` writes an image with what the judge needs:

- always: Python 3 with ``venv`` (Debian bookworm: 3.11), CA certificates, fontconfig;
- for the ``workflow`` extra (decks): LibreOffice Impress, the metric-compatible fonts
  (Carlito, Caladea, Liberation) and Noto CJK, and Chromium (HTML deliverables);
- with ``bake=True`` (``cowork-judge init --image``): the pinned judge with its extras,
  installed into the venv ``templates/test.sh`` looks for first
  (``/opt/cowork-judge/venv-<version>-py<X.Y>`` with its install stamp), so the verifier
  reuses it and needs no network at verify time — what Harbor's ``harbor lint`` rules
  ``verifier-runtime-install`` and ``verifier-network-download`` ask of a separate verifier.
  The judge comes from the index ``ARG COWORK_WHEEL_URL`` names (`INDEX_ARG`, the variable
  ``test.sh`` reads for the same purpose) and from it alone, as ``test.sh`` fetches it; with
  the ARG empty, from pip's configured index. Either way the build stops unless what was
  installed is this project (``cowork_judge.ABI``): the registry's ``cowork-judge`` 1.x is
  the original system this project re-implements, not this one.

The thin path (no ``bake``) keeps the install in ``test.sh``: smaller images, one judge
version chosen per run (``COWORK_JUDGE_VERSION`` injection), network needed at verify time.
"""

from __future__ import annotations

import re

BASE_IMAGE = "debian:bookworm-slim"
"""The verifier's base: Debian 12 (python3 3.11, LibreOffice 7.4 in its main archive)."""

BASE_PACKAGES = ("python3", "python3-venv", "ca-certificates", "fontconfig")
DECK_PACKAGES = ("libreoffice-impress-nogui", "fonts-crosextra-carlito", "fonts-crosextra-caladea",
                 "fonts-liberation2", "fonts-noto-cjk", "chromium")
"""Debian packages of a deck verifier (the same set ``.ci/run`` installs for the selftests)."""

JUDGE_HOME = "/opt/cowork-judge"
"""The template's default venv root (``COWORK_JUDGE_HOME``)."""

MARKER = "# cowork-judge verifier image"
"""First line of every Dockerfile written here: init recognises its own file by it."""


def packages(extras: tuple[str, ...]) -> tuple[str, ...]:
    """Debian packages for a verifier whose judge installs `extras`."""
    return BASE_PACKAGES + (DECK_PACKAGES if "workflow" in extras else ())


def requirement(version: str, extras: tuple[str, ...]) -> str:
    """``cowork-judge[e1,e2]==version`` — the pinned requirement ``test.sh`` installs too."""
    return f"cowork-judge{'[' + ','.join(extras) + ']' if extras else ''}=={version}"


def stamp(version: str, extras: tuple[str, ...]) -> str:
    """The install stamp ``test.sh`` compares before reusing a venv (``cowork-judge==V [e1,e2]``)."""
    return f"cowork-judge=={version} [{','.join(extras)}]"


INDEX_ARG = "COWORK_WHEEL_URL"
"""The build argument naming the judge's PEP 503 index (the variable ``test.sh`` reads too)."""
_INDEX_ARG_RE = re.compile(r"^ARG " + INDEX_ARG + r'="?([^"\n]*)"?\s*$', re.MULTILINE)
_BAD_URL_CHARS = frozenset(' \t\n\r"\'\\$`')


class IndexUrlError(ValueError):
    """An index URL that cannot be written into a Dockerfile ARG (the message says why)."""


def check_index_url(url: str) -> str:
    """`url` when it can be the default of ``ARG COWORK_WHEEL_URL``: empty, or an ``http(s)://`` URL
    without whitespace, quotes, ``$``, backquotes or backslashes.

    Raises:
        IndexUrlError: anything else.
    """
    if url and (not url.startswith(("http://", "https://")) or any(c in _BAD_URL_CHARS for c in url)):
        raise IndexUrlError(f"{url!r} is not an index URL a Dockerfile can carry (expected http(s)://host/simple/, "
                            "without spaces, quotes or $)")
    return url


def index_url_of(text: str) -> str | None:
    """The default of ``ARG COWORK_WHEEL_URL`` in a Dockerfile this module wrote (None: no such line)."""
    m = _INDEX_ARG_RE.search(text)
    return m.group(1) if m else None


def bake_script(version: str, extras: tuple[str, ...], home: str = JUDGE_HOME) -> list[str]:
    """The POSIX shell lines that install the pinned judge into ``<home>/venv-<version>-py<X.Y>``.

    They read ``$COWORK_WHEEL_URL`` (the ARG): set, the judge's own wheel is downloaded from that
    index alone (``--isolated``, no pip configuration) and its dependencies resolved from pip's
    index plus that one; empty, ``cowork-judge[extras]==version`` comes from pip's configured
    index. Then the install must be this project (``cowork_judge.ABI``), else the lines exit 1
    with a message naming the index. Joined with newlines they run under ``sh``; the Dockerfile
    joins them into one ``RUN``.
    """
    req = requirement(version, extras)
    suffix = f"[{','.join(extras)}]" if extras else ""
    not_ours = (f"cowork-judge {version} from $WHERE is not this project (no cowork_judge.ABI): the registry's "
                "cowork-judge 1.x is the original system this project re-implements; set ARG COWORK_WHEEL_URL to the "
                "index that serves this project's wheels (cowork-judge init --image --index-url URL)")
    missing = (f"cowork-judge=={version} could not be installed from $WHERE (see pip's message above); the registry's "
               "cowork-judge 1.x is another system: set ARG COWORK_WHEEL_URL to the index that serves this project's wheels")
    return [
        "set -e;",
        "PYV=\"$(python3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])')\";",
        f"VENV=\"{home}/venv-{version}-py$PYV\";",
        "python3 -m venv \"$VENV\";",
        f'if [ -n "${{{INDEX_ARG}:-}}" ]; then',
        f'  WHERE="${INDEX_ARG}"; DL="$(mktemp -d)";',
        f'  PIP_CONFIG_FILE=/dev/null "$VENV/bin/python" -m pip --isolated download --disable-pip-version-check --no-cache-dir --no-deps '
        f'--only-binary=:all: --index-url "${INDEX_ARG}" --dest "$DL" "cowork-judge=={version}" '
        f'&& "$VENV/bin/python" -m pip install --no-cache-dir --extra-index-url "${INDEX_ARG}" "$(ls "$DL"/*.whl){suffix}" '
        f'|| {{ echo "{missing}" >&2; exit 1; }};',
        '  rm -rf "$DL";',
        "else",
        "  WHERE=\"pip's configured index\";",
        f'  "$VENV/bin/python" -m pip install --no-cache-dir "{req}" || {{ echo "{missing}" >&2; exit 1; }};',
        "fi;",
        '"$VENV/bin/python" -I -c \'import cowork_judge, sys; sys.exit(0 if hasattr(cowork_judge, "ABI") else 1)\' '
        f'|| {{ echo "{not_ours}" >&2; exit 1; }};',
        f"printf '%s' '{stamp(version, extras)}' > \"$VENV/.cowork-judge-installed\";",
        f"chmod -R a+rX {home}",
    ]


def dockerfile(*, extras: tuple[str, ...], version: str, bake: bool, index_url: str = "") -> str:
    """The text of ``tests/Dockerfile`` (see the module docstring).

    Args:
        extras: the judge's extras, as ``COWORK_JUDGE_EXTRAS`` lists them (order kept: the
            stamp must equal what ``test.sh`` computes from that variable).
        version: the judge version to bake (``bake=True``) and name in the comments: the
            version of the cowork-judge that runs init (what ``test.sh`` pins too).
        bake: install the judge into the image.
        index_url: with `bake`, the default of ``ARG COWORK_WHEEL_URL`` ("" = pip's configured index).

    Raises:
        IndexUrlError: `index_url` cannot be written as an ARG default (`check_index_url`).
    """
    apt = " \\\n      ".join(packages(extras))
    lines = [
        MARKER + (" (judge baked in)" if bake else " (thin: test.sh installs the judge)"),
        "# Written by `cowork-judge init`; Harbor builds the separate verifier from it.",
        f"FROM {BASE_IMAGE}",
        "",
        "ENV DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1",
        "RUN apt-get update \\",
        " && apt-get install -y --no-install-recommends \\",
        f"      {apt} \\",
        " && rm -rf /var/lib/apt/lists/*",
    ]
    if bake:
        script = bake_script(version, extras)
        lines += [
            "",
            f"# The pinned judge ({version}: the version of the cowork-judge that ran init, as test.sh pins it), where",
            f"# templates/test.sh reuses it without network ({JUDGE_HOME}/venv-<version>-py<X.Y>). It comes from the",
            "# PEP 503 index below (test.sh's COWORK_WHEEL_URL; `docker build --build-arg COWORK_WHEEL_URL=...` or",
            "# `cowork-judge init --image --index-url URL` sets it); empty: pip's configured index. The registry's",
            "# cowork-judge 1.x is the original system this project re-implements: the build stops if that is installed.",
            f'ARG {INDEX_ARG}="{check_index_url(index_url)}"',
            "RUN " + " \\\n    ".join(script),
        ]
    lines += ["", "WORKDIR /app", "", "COPY . /tests/", ""]
    return "\n".join(lines)


def is_ours(text: str) -> bool:
    """True when `text` is a Dockerfile this module wrote (any version, baked or thin)."""
    return text.startswith(MARKER)


def is_baked(text: str) -> bool:
    """True when `text` is ours and installs the judge."""
    return text.startswith(MARKER + " (judge baked in)")


__all__ = ["BASE_IMAGE", "DECK_PACKAGES", "INDEX_ARG", "JUDGE_HOME", "IndexUrlError", "bake_script", "check_index_url",
           "dockerfile", "index_url_of", "is_baked", "is_ours", "packages", "requirement", "stamp"]
