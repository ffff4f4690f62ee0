"""cowork-judge: the rubric judge that turns one finished agent rollout into one reward.

The version and the workflow contract number live in `cowork_judge.core.version`."""

from cowork_judge.core.version import ABI, ABI_COMPAT, __version__

__all__ = ["__version__", "ABI", "ABI_COMPAT"]
