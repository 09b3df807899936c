"""``python -m depyf``: the ``depyf`` command (see ``depyf.cli``)."""
import sys

from depyf.cli import main

if __name__ == "__main__":
    sys.exit(main())
