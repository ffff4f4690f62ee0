"""``cowork-judge evidence``: the deck evidence layer alone (`cowork_judge.evidence.cli`)."""

from __future__ import annotations


def main(argv: list[str]) -> int:
    """Run the evidence command line with `argv`."""
    from cowork_judge.evidence.cli import main as evidence_main

    return int(evidence_main(argv))
