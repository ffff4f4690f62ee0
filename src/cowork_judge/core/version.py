"""The package's version and the engine ↔ workflow contract number, on the ground floor so the
scoring core stamps its documents without importing anything above itself. The package face
(`cowork_judge.__init__`) hands these names on; the build reads ``__version__`` here
(``[tool.hatch.version]`` in pyproject.toml).

`ABI` is the shape of the contract between the engine and workflow plugins (verdict rows, the
typed workflow context with its model transport, workflow results; see
``cowork_judge.workflow._contract``). A workflow declares ``REQUIRES_ABI``; the loader accepts it
only when that number is in ``ABI_COMPAT`` (ABI 1 passed an untyped dict with no transport: its
workflows are unjudged ``workflow_missing``).
"""

__version__ = "2.0.0"
ABI = 2
ABI_COMPAT: tuple[int, ...] = (2,)

__all__ = ["__version__", "ABI", "ABI_COMPAT"]
