"""``python -m cowork_judge.sim``: run the simulated judge endpoint (see ``cli.main``)."""

import sys

from .cli import main

sys.exit(main())
