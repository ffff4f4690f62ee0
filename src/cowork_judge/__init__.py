"""cowork-judge: the rubric judge that turns one finished agent rollout into one reward.

`ABI` is the shape of the contract between the engine and workflow plugins (verdict
rows, the typed workflow context with its model transport, workflow results; see
``cowork_judge.workflow._contract``). A workflow declares ``REQUIRES_ABI``; the loader
accepts it only when that number is in ``ABI_COMPAT`` (ABI 1 passed an untyped dict with
no transport: its workflows are unjudged ``workflow_missing``).
"""

__version__ = "2.0.0"
ABI = 2
ABI_COMPAT: tuple[int, ...] = (2,)

__all__ = ["__version__", "ABI", "ABI_COMPAT"]
