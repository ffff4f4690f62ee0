"""``python -m cowork_judge`` runs the command line."""

import sys

from cowork_judge.commands import console

sys.exit(console())
