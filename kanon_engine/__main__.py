"""``python -m kanon_engine``: the headless command line (see kanon_engine.cli)."""

import sys

from kanon_engine.cli import main

if __name__ == "__main__":
    sys.exit(main())
