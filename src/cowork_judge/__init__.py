"""cowork-judge: the rubric judge that turns one finished agent rollout into one reward.

`ABI` is the shape of the contract between the engine and workflow plugins (verdict
rows, ``ctx``, workflow results). A workflow declares ``REQUIRES_ABI``; the loader
accepts it only when that number is in ``ABI_COMPAT``.
"""

__version__ = "0.1.0"
ABI = 1
ABI_COMPAT: tuple[int, ...] = (1,)

__all__ = ["__version__", "ABI", "ABI_COMPAT"]
