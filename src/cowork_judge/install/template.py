"""The thin verifier entry ``templates/test.sh``: where it is, and its generated parts.

The template carries three generated parts that must match the package they ship with:
the default version (``COWORK_JUDGE_DEFAULT_VERSION="X"`` = `cowork_judge.__version__`), the
exit-message table (heredoc ``COWORK_EXIT_RULES`` = `exit_messages.render_shell_table`) and
the last-resort result document (heredoc ``COWORK_FALLBACK_RESULT_JSON`` = `fallback.fallback_text`)
and its exit message in the original 1.3.6's shape (heredoc ``COWORK_FALLBACK_EXIT_MESSAGE_JSON``
= `fallback.fallback_exit_message_text`).
`render` rewrites them; ``scripts/release/sync_template.py`` checks or writes them.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

PACKAGED_NAME = "_templates/test.sh"
"""Where the wheel carries the template inside the package (pyproject force-include)."""

REPO_TEMPLATE = Path(__file__).resolve().parents[3] / "templates" / "test.sh"
"""The source file in a checkout (used by editable installs, which carry no copy)."""

RULES_BLOCK = "COWORK_EXIT_RULES"
FALLBACK_BLOCK = "COWORK_FALLBACK_RESULT_JSON"
EXIT_MESSAGE_BLOCK = "COWORK_FALLBACK_EXIT_MESSAGE_JSON"
_VERSION_LINE = re.compile(r'^COWORK_JUDGE_DEFAULT_VERSION="([^"\n]*)"$', re.MULTILINE)


class TemplateError(Exception):
    """The template is missing or its generated parts cannot be found."""


def template_path() -> Path:
    """The template file: the packaged copy if present, else the checkout's ``templates/test.sh``.

    Raises:
        TemplateError: neither exists (a broken install).
    """
    packaged = resources.files("cowork_judge").joinpath(PACKAGED_NAME)
    if packaged.is_file():
        return Path(str(packaged))
    if REPO_TEMPLATE.is_file():
        return REPO_TEMPLATE
    raise TemplateError(f"templates/test.sh is not in this installation (looked for cowork_judge/{PACKAGED_NAME} and {REPO_TEMPLATE})")


def template_text() -> str:
    """The template's text (UTF-8). Raises `TemplateError` when it cannot be read."""
    path = template_path()
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TemplateError(f"cannot read {path}: {exc}") from None


def _block_span(text: str, name: str) -> tuple[int, int]:
    opener = f"cat <<'{name}'\n"
    start = text.find(opener)
    if start < 0:
        raise TemplateError(f"the template has no heredoc {name}")
    start += len(opener)
    end = text.find(f"{name}\n", start)
    while end >= 0 and end > start and text[end - 1] != "\n":
        end = text.find(f"{name}\n", end + 1)
    if end < 0:
        raise TemplateError(f"the heredoc {name} is not terminated")
    return start, end


def read_block(text: str, name: str) -> str:
    """The body of heredoc `name` (every line up to the terminator, newlines kept)."""
    start, end = _block_span(text, name)
    return text[start:end]


def replace_block(text: str, name: str, body: str) -> str:
    """`text` with the body of heredoc `name` replaced by `body` (a trailing newline is added)."""
    if body and not body.endswith("\n"):
        body += "\n"
    if any(line == name for line in body.splitlines()):
        raise TemplateError(f"the new body of {name} contains its own terminator line")
    start, end = _block_span(text, name)
    return text[:start] + body + text[end:]


def baked_version(text: str) -> str:
    """The default version baked into the template. Raises `TemplateError` when absent."""
    match = _VERSION_LINE.search(text)
    if match is None:
        raise TemplateError('the template has no COWORK_JUDGE_DEFAULT_VERSION="..." line')
    return match.group(1)


def render(text: str, *, version: str, rules: str, fallback: str, exit_message: str | None = None) -> str:
    """The template with its generated parts set to the given values (the exit message's
    block only when `exit_message` is given)."""
    baked_version(text)
    text = _VERSION_LINE.sub(f'COWORK_JUDGE_DEFAULT_VERSION="{version}"', text, count=1)
    text = replace_block(text, RULES_BLOCK, rules)
    if exit_message is not None:
        text = replace_block(text, EXIT_MESSAGE_BLOCK, exit_message)
    return replace_block(text, FALLBACK_BLOCK, fallback)


def expected(text: str) -> str:
    """The template as this package version must ship it (see `render`)."""
    from cowork_judge import __version__
    from cowork_judge.install.exit_messages import render_shell_table
    from cowork_judge.install.fallback import fallback_exit_message_text, fallback_text

    return render(text, version=__version__, rules=render_shell_table(), fallback=fallback_text(),
                  exit_message=fallback_exit_message_text())
