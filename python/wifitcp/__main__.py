"""``python -m wifitcp`` = the ``wifitcp`` command."""

import sys

from .cli import main

sys.exit(main())
