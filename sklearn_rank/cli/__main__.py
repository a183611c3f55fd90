"""``python -m sklearn_rank.cli``: the command line, as ``python -m sklearn_rank``."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
