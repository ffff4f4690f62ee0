"""What ``harbor init`` (Harbor 0.26) writes into a new task, so `cowork-judge init` can merge over it.

A task fresh from ``harbor init`` has Harbor's placeholder ``tests/test.sh`` (one of three
stubs: ``--no-pytest``, the pytest one for a separate verifier, the pytest one for a shared
verifier), its empty ``tests/test_outputs.py``, its ``tests/Dockerfile`` (separate mode) and
``[verifier].timeout_sec = 600.0`` (``harbor.models.task.config.VerifierConfig``'s default).
None of these was written by a person, so init replaces them without ``--force``; anything
else is the author's and init refuses to overwrite it.

A stub is recognised by the SHA-256 of its *normalised* text: the lines Harbor's
``--include-canary-strings`` injects are dropped, trailing blanks on lines and at the end are
removed. The digests were taken from ``harbor/cli/template-task/`` of harbor 0.26.x; the
selftests recompute them from the installed Harbor so a new Harbor release that changes a
stub fails a test instead of making init refuse.
"""

from __future__ import annotations

import hashlib
import re

HARBOR_DEFAULT_VERIFIER_TIMEOUT_SEC = 600.0
"""``[verifier].timeout_sec`` that ``harbor init`` writes (VerifierConfig's default, harbor 0.26)."""

_CANARY = re.compile(r"^\s*(#|<!--)\s*harbor-canary GUID [0-9a-f-]+\s*(-->)?\s*$")

STUB_DIGESTS: dict[str, frozenset[str]] = {
    "test.sh": frozenset({
        "0dc80b848af77bf8109104c79432c93204c1aaa59aff14193f6670929b8fc3be",  # template-task/tests (--no-pytest)
        "0800db62bb75ea4b3c67122a0ea0a9b39cac97a9812c7098f5d55a96250f613e",  # pytest-tests (separate verifier)
        "d599caeadc34c70a06e2f09ac16952611951f7d8f2fc5da99f393f55d9d42680",  # shared-pytest-tests
    }),
    "test_outputs.py": frozenset({"24d63c4308ecfbacbeac9c5cb2fb6c104b1e170dc40deb3cf61e9f2091f9310e"}),
    "Dockerfile": frozenset({
        "c65d466377b0bfb719c80d9dcfb0c22a0e0cdead1c32df6c53ab27a00c57a487",  # template-task/tests
        "79a9b212f15d665712e2a51c31c4cf1166ebebf542a7588066ad76195e884f01",  # pytest-tests
    }),
}
"""File name under ``tests/`` → digests of Harbor's stubs (`normalised_digest`)."""


def normalise(text: str) -> str:
    """`text` without Harbor's canary lines, trailing spaces and trailing blank lines."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n") if not _CANARY.match(line)]
    return "\n".join(lines).rstrip("\n") + "\n"


def normalised_digest(text: str) -> str:
    """SHA-256 (hex) of `normalise(text)` in UTF-8."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def is_harbor_stub(name: str, text: str) -> bool:
    """True when `text` is what ``harbor init`` wrote as ``tests/<name>`` (canary lines allowed)."""
    return normalised_digest(text) in STUB_DIGESTS.get(name, frozenset())


def is_harbor_default_timeout(value: object) -> bool:
    """True when ``[verifier].timeout_sec`` is the value ``harbor init`` writes."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and float(value) == HARBOR_DEFAULT_VERIFIER_TIMEOUT_SEC


__all__ = ["HARBOR_DEFAULT_VERIFIER_TIMEOUT_SEC", "STUB_DIGESTS", "is_harbor_default_timeout", "is_harbor_stub",
           "normalise", "normalised_digest"]
