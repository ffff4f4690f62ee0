"""The table of agentic backends: name → implementation + declared cost model (SPEC §10).

The one place that lists backends. Configuration validates ``JUDGE_BACKEND`` against it,
the router's budget reserves time with its cost model (SPEC §7.6), and the dispatcher
loads the implementation from it. Importing this module loads no backend (and no model
client): implementations are named by import path and loaded on use.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from cowork_judge.core.budgets import CostModel


@dataclass(frozen=True)
class BackendSpec:
    """One agentic backend.

    Attributes:
        name: the ``JUDGE_BACKEND`` value.
        target: ``"module:Class"`` of the implementation, or None when this version of
            the package has none (its rows are then unjudged ``backend_missing``).
        cost: expected seconds per attempt (``fixed_sec + rows × per_row_sec``).
        needs: what the image must provide, for messages and the README.
    """

    name: str
    target: str | None
    cost: CostModel
    needs: str

    @property
    def available(self) -> bool:
        """True when this version ships an implementation."""
        return self.target is not None


BACKENDS: Mapping[str, BackendSpec] = MappingProxyType({
    "openai": BackendSpec(
        "openai", "cowork_judge.agentic.openai_agent:OpenAIAgentBackend",
        # measured for a tool-using chat model (a tool round plus the answer)
        CostModel(fixed_sec=30.0, per_row_sec=3.0), "Python only (built in)"),
    # the seed fleet's measured codex figures (SPEC §7.6): about 100 s fixed, 3 s per row
    # (model time dominates: the CLI's own cost per attempt is ~2 s here, bench/backends.py)
    "codex": BackendSpec(
        "codex", "cowork_judge.agentic.codex_cli:CodexCliBackend", CostModel(fixed_sec=100.0, per_row_sec=3.0),
        "the codex CLI and node on PATH (npm install -g @openai/codex); a Responses API endpoint"),
    # no fleet measurement of claude: the same kind of tool-exploring agent loop as codex,
    # so the same model; its own cost per attempt is ~3 s here (bench/backends.py)
    "claude": BackendSpec(
        "claude", "cowork_judge.agentic.claude_cli:ClaudeCliBackend", CostModel(fixed_sec=100.0, per_row_sec=3.0),
        "the claude CLI on PATH (npm install -g @anthropic-ai/claude-code); an Anthropic Messages API endpoint"),
})
"""Backend name → spec, read-only."""

DEFAULT_BACKEND = "openai"


class UnknownBackend(ValueError):
    """A backend name that is not in `BACKENDS` (the message lists the known ones)."""


def backend_spec(name: str) -> BackendSpec:
    """The spec of backend `name`.

    Raises:
        UnknownBackend: `name` is not registered.
    """
    try:
        return BACKENDS[name]
    except KeyError:
        raise UnknownBackend(f"unknown agentic backend {name!r}; known: {', '.join(BACKENDS)}") from None


def load_backend_class(spec: BackendSpec) -> type:
    """Import the implementation class of `spec`.

    Raises:
        ImportError: the module cannot be imported, or `spec` has no implementation.
    """
    if spec.target is None:
        raise ImportError(f"JUDGE_BACKEND={spec.name!r} is not available in this version")
    module_name, _, class_name = spec.target.partition(":")
    loaded = getattr(importlib.import_module(module_name), class_name)
    if not isinstance(loaded, type):
        raise ImportError(f"JUDGE_BACKEND={spec.name!r}: {spec.target} is not a class")
    return loaded
