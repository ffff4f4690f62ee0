"""``cowork-judge sim``: serve the simulated judge endpoint (`cowork_judge.sim.cli`)."""

from __future__ import annotations


def main(argv: list[str]) -> int:
    """Run the simulator's own command line with `argv`."""
    from cowork_judge.sim.cli import main as sim_main

    return int(sim_main(argv))
