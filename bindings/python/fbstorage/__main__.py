"""``python -m fbstorage``: the fbstorage command (see fbstorage.cli)."""

import sys

from .cli import main

sys.exit(main())
