"""``python -m rbdgen``: the ``rbdgen`` command."""

import sys

from .codegen.cli import main

if __name__ == "__main__":
    sys.exit(main())
