"""The engine room: the run that wires the segments together (`judge`), the router that sends
each row to its segment (`router`), the process watchdog (`watchdog`) and the signal handlers
(`signals`). Nothing below imports from here."""
