"""``python -m bridge serve``: see :mod:`bridge.cli.commands`."""

from __future__ import annotations

import sys

from bridge.cli.commands import main

if __name__ == "__main__":
    sys.exit(main())
