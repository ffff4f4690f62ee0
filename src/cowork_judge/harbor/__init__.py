"""The host-side Harbor verifier: ``harbor run --verifier cowork_judge.harbor:RubricVerifier``.

Harbor 0.26 loads a `harbor.verifier.base.BaseVerifier` subclass by import path in its own
process on the host; `RubricVerifier` (``verifier.py``) judges each trial there with the same
engine ``tests/test.sh`` runs in the sandbox (``cowork-judge run``), reading the task's
``tests/`` from the task folder and the agent's logs from the trial folder on the host, and
downloading only the deliverables from the environment (`staging`). Nothing is installed or
run in any sandbox and the judge's credentials stay on the host.

This package face imports nothing from Harbor: ``import cowork_judge`` (or
``cowork_judge.harbor``) works without Harbor installed; `RubricVerifier` is imported on first
access.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RubricVerifier"]


def __getattr__(name: str) -> Any:
    if name == "RubricVerifier":
        from cowork_judge.harbor.verifier import RubricVerifier

        return RubricVerifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
