"""``python -m sklearn_rank``: the command line (see ``sklearn-rank --help``)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
