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

The thin path (no ``bake``) keeps the install in ``test.sh``: smaller images, one judge
version chosen per run (``COWORK_JUDGE_VERSION`` injection), network needed at verify time.
"""

from __future__ import annotations

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


def dockerfile(*, extras: tuple[str, ...], version: str, bake: bool) -> str:
    """The text of ``tests/Dockerfile`` (see the module docstring).

    Args:
        extras: the judge's extras, as ``COWORK_JUDGE_EXTRAS`` lists them (order kept: the
            stamp must equal what ``test.sh`` computes from that variable).
        version: the judge version to bake (``bake=True``) and name in the comments.
        bake: install the judge into the image.
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
        req = requirement(version, extras)
        lines += [
            "",
            f"# The pinned judge, where templates/test.sh reuses it without network ({JUDGE_HOME}/venv-<version>-py<X.Y>).",
            "RUN PYV=\"$(python3 -c 'import sys; print(\"%d.%d\" % sys.version_info[:2])')\" \\",
            f" && VENV=\"{JUDGE_HOME}/venv-{version}-py$PYV\" \\",
            " && python3 -m venv \"$VENV\" \\",
            f" && \"$VENV/bin/python\" -m pip install --no-cache-dir \"{req}\" \\",
            f" && printf '%s' '{stamp(version, extras)}' > \"$VENV/.cowork-judge-installed\" \\",
            f" && chmod -R a+rX {JUDGE_HOME}",
        ]
    lines += ["", "WORKDIR /app", "", "COPY . /tests/", ""]
    return "\n".join(lines)


def is_ours(text: str) -> bool:
    """True when `text` is a Dockerfile this module wrote (any version, baked or thin)."""
    return text.startswith(MARKER)


def is_baked(text: str) -> bool:
    """True when `text` is ours and installs the judge."""
    return text.startswith(MARKER + " (judge baked in)")


__all__ = ["BASE_IMAGE", "DECK_PACKAGES", "JUDGE_HOME", "dockerfile", "is_baked", "is_ours", "packages", "requirement", "stamp"]
