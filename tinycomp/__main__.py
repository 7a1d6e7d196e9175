"""``python -m tinycomp`` runs the ``tinycomp`` command."""

import sys

from tinycomp.cli import main

sys.exit(main())
