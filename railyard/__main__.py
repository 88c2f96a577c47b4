"""`python -m railyard ...`: see `railyard.cli`."""

import sys

from railyard.cli import main

sys.exit(main())
