"""Workflow loader: import only the workflows a rubric names, and check their ABI.

`load(name)` imports ``cowork_judge.workflow.<name>`` lazily (nothing is imported at
package import time) and checks ``REQUIRES_ABI`` against the engine's ``ABI_COMPAT``.
Any problem raises `WorkflowUnavailable`, which the router turns into unjudged
``workflow_missing`` rows for that workflow only.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import re
from types import ModuleType

from cowork_judge import ABI_COMPAT
from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.judge_extras import missing_extras_module

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


class WorkflowUnavailable(Exception):
    """The workflow cannot run: unknown name, import failure, or ABI mismatch.

    Attributes:
        kind: the error kind of its rows: ``workflow_missing``, or ``extras_missing`` when its import failed for a
            judge extra the verifier lacks (`core.judge_extras.missing_extras_module`; trial 23 P-1).
    """

    def __init__(self, message: str, *, kind: ErrorKind = "workflow_missing") -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


def installed() -> list[str]:
    """Names of the workflows installed in this package (its sub-packages), sorted; found
    without importing any of them."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and _NAME.match(m.name))


def _known_hint(name: str) -> str:
    """`` (did you mean 'ppt_judge'? installed: …)`` for an unknown or invalid name (issue 39)."""
    known = installed()
    close = difflib.get_close_matches(name.strip().lower().replace("-", "_").replace(" ", "_"), known, n=1, cutoff=0.75)
    return f" ({f'did you mean {close[0]!r}? ' if close else ''}installed: {', '.join(known) or 'none'})"


def load(name: str | None, *, abi_compat: tuple[int, ...] = ABI_COMPAT) -> ModuleType:
    """Import workflow `name` and check its contract.

    Raises:
        WorkflowUnavailable: with a reason naming the problem.
    """
    if not name or not _NAME.match(name) or name.startswith("_"):
        raise WorkflowUnavailable(f"invalid workflow name {name!r}" + (_known_hint(name) if isinstance(name, str) and name else ""))
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{name}":
            raise WorkflowUnavailable(f"workflow {name!r} is not installed in this package{_known_hint(name)}") from None
        raise WorkflowUnavailable(f"workflow {name!r} failed to import: missing module {exc.name!r}",
                                  kind="extras_missing" if missing_extras_module(exc) else "workflow_missing") from None
    except Exception as exc:
        raise WorkflowUnavailable(f"workflow {name!r} failed to import: {type(exc).__name__}: {exc}") from None
    requires = getattr(module, "REQUIRES_ABI", None)
    if not isinstance(requires, int):
        raise WorkflowUnavailable(f"workflow {name!r} declares no integer REQUIRES_ABI")
    if requires not in abi_compat:
        raise WorkflowUnavailable(f"workflow {name!r} requires ABI {requires}; this engine accepts {list(abi_compat)}")
    if not callable(getattr(module, "run", None)):
        raise WorkflowUnavailable(f"workflow {name!r} has no run(criteria, ctx, budget_sec)")
    return module


def requires_extras(name: str | None) -> tuple[str, ...]:
    """``REQUIRES_EXTRAS`` of the installed workflow `name`: the pip extras of cowork-judge it needs (``("workflow",)``
    for ``ppt_judge``); () when it declares none or cannot load (`load` fails)."""
    try:
        module = load(name)
    except WorkflowUnavailable:
        return ()
    value = getattr(module, "REQUIRES_EXTRAS", ())
    return tuple(str(v) for v in value) if isinstance(value, (tuple, list)) else ()
