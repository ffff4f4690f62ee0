"""Locate the bundled example instance and its sample rollouts.

Installed wheels carry them under ``cowork_judge/_example/`` (``tests/`` and
``examples/`` of the repository); an editable install reads them from the checkout.
"""

from __future__ import annotations

from pathlib import Path

HEALTHBENCH_DIR = "healthbench-bbd759b4"


def example_root() -> Path:
    """The directory holding ``tests/`` and ``examples/``.

    Raises:
        FileNotFoundError: neither the packaged copy nor a source checkout is present.
    """
    here = Path(__file__).resolve().parents[1]
    for root in (here / "_example", here.parents[1]):
        if (root / "tests" / "rubric.json").is_file() and (root / "examples" / "rollouts").is_dir():
            return root
    raise FileNotFoundError("the example instance is not installed (expected cowork_judge/_example or a source checkout)")


ROLLOUTS = ("deck", "chat", "empty", "healthbench")
"""Sample rollouts `example_paths` knows."""


def example_paths(rollout: str) -> tuple[Path, Path]:
    """(tests dir, rollout dir) of a sample rollout: ``deck``, ``chat``, ``empty`` or ``healthbench``.

    Raises:
        FileNotFoundError: unknown rollout or missing files.
    """
    root = example_root()
    if rollout == "healthbench":
        base = root / "examples" / HEALTHBENCH_DIR
        return base / "tests", base / "rollout"
    rollout_dir = root / "examples" / "rollouts" / rollout
    if not rollout_dir.is_dir():
        raise FileNotFoundError(f"no sample rollout named {rollout!r} in {root / 'examples' / 'rollouts'}")
    return root / "tests", rollout_dir
